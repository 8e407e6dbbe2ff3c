"""The chip a script's kernel calls share: one `pto_sim --serve` child.

A script's calls run on one simulated chip, as on a device: the L2's
contents and simulated time carry on from call to call. The chip is a
pto_sim child reading the script's task stream from a pipe; each call's
`ptoc --call` writes the stream's next segment (the call's tensors and
kernels in a Declare record, then its launch), the chip runs it and answers
with the launch's summary and its argument tensors' contents.

An argument the chip already holds keeps its GM address; its contents are
uploaded again only when the host changed them since the chip last saw them
(the upload leaves the L2's tags as they were). A call whose RunConfig or
environment changes what the chip is built from (the platform's config,
--set keys, timing-only, output files) closes the chip and starts another,
with a warning: L2 and time then start afresh.
"""

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from pypto import _record
from pypto.errors import ConfigError, DeadlockError, SimulationError

_chips = {"current": None, "started": 0}  # started: chips this script ran


def _note(text):
    print(f"pypto: {text}", file=sys.stderr)


class Chip:
    """One pto_sim --serve child and the stream written to it so far."""

    def __init__(self, key, command, keep):
        self.key = key
        self.keep = keep
        self.work = tempfile.mkdtemp(prefix="pypto_chip_")
        # With output files, pto_sim writes into the chip's own directory and
        # each launch's files move to the script's (out_root): a script's
        # chips share out_root, and each pto_sim empties its --out first.
        self.out_root = None
        self.private_out = None
        if "--out" in command:
            at = command.index("--out") + 1
            self.out_root = command[at]
            self.private_out = os.path.join(self.work, "out")
            command = command[:at] + [self.private_out] + command[at + 1:]
        self.serve_dir = os.path.join(self.work, "served")
        self.stderr = open(os.path.join(self.work, "pto_sim.stderr"), "w+", encoding="utf-8")
        self.proc = subprocess.Popen(
            command + ["--serve", self.serve_dir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
        )
        self.recording = open(os.path.join(self.work, "stream.pb"), "wb") if keep else None
        self.session = {"first": True, "next_tensor_id": 0, "next_kernel_id": 0,
                        "next_gm_addr": 0}
        self.known = {}  # ArgumentTensor.identity() -> {"id", "gm_addr", "digest"}
        self.launches = 0
        self.calls = 0

    def request_fields(self, tensors):
        """The request's session fields and each tensor's "known" entry."""
        digests = []
        for t in tensors:
            digest = None if t.shape_only else hashlib.blake2b(t.payload()).digest()
            digests.append(digest)
            held = self.known.get(t.identity())
            t.known = None
            if held is not None:
                t.known = {"id": held["id"], "gm_addr": held["gm_addr"],
                           "upload": digest is not None and digest != held["digest"]}
        self.calls += 1
        return dict(self.session, state_out=f"session_{self.calls}.json"), digests

    def run(self, segment_path, state_path, tensors, digests, label):
        """Sends one call's segment; returns the launch's report lines and
        the directory of its argument tensors' contents."""
        with open(state_path, encoding="utf-8") as f:
            state = json.load(f)
        with open(segment_path, "rb") as f:
            data = f.read()
        if self.recording is not None:
            self.recording.write(data)
            self.recording.flush()
        if _record.recording() is not None:
            _record.recording().write(data)
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            self._failed(label)
        report = []
        while True:
            line = self.proc.stdout.readline().decode("utf-8", "replace")
            if not line:
                self._failed(label)
            if line.startswith("served launch "):
                served = line.split(" ", 3)[3].strip()
                break
            report.append(line.rstrip("\n"))
        for key in ("first", "next_tensor_id", "next_kernel_id", "next_gm_addr"):
            self.session[key] = state[key]
        for t, placed, digest in zip(tensors, state["tensors"], digests):
            if placed is not None:
                held = self.known.get(t.identity(), {})
                # "tensor" keeps the caller's storage alive: a freed one's
                # address cannot come back as another tensor's identity.
                self.known[t.identity()] = {
                    "id": placed["id"], "gm_addr": placed["gm_addr"], "digest": digest,
                    "tensor": t.source, "written": placed["written"] or held.get("written", False)}
        self.launches += 1
        return report, served

    def remember_contents(self, tensor, data):
        """The chip's contents of a tensor after a launch (now the host's too)."""
        held = self.known.get(tensor.identity())
        if held is not None:
            held["digest"] = hashlib.blake2b(data).digest()

    def written_id(self, tensor):
        """The chip's id of `tensor` when a launch wrote it and the host has not
        changed it since (a recorded check's tensor), None when the chip does
        not hold it, -1 when the chip is timing-only (nothing to check)."""
        from pypto._tensors import argument_tensor

        if tensor.device.type != "cpu":
            return None
        t = argument_tensor("checked", tensor, "a checked tensor")
        held = self.known.get(t.identity())
        if held is None:
            return None
        if self.key[2]:
            return -1  # a timing-only chip has no results to check
        if not held["written"]:
            raise ConfigError(
                "a recorded check compares a kernel's output, but no launch wrote this tensor "
                "(it was only an input); compare the tensor a kernel writes")
        if held["digest"] != hashlib.blake2b(t.payload()).digest():
            return None  # the host changed it since: a host-side check
        return held["id"]

    def _failed(self, label):
        code = self.proc.wait()
        self.stderr.seek(0)
        report = self.stderr.read().rstrip()
        rest = self.proc.stdout.read().decode("utf-8", "replace").rstrip()
        if rest:
            report = f"{rest}\n{report}" if report else rest
        _chips["current"] = None
        self.cleanup()
        if code == 130:
            raise KeyboardInterrupt
        kind = DeadlockError if "deadlock" in report else SimulationError
        raise kind(f"pto_sim failed on {label} (exit {code}):\n{report}", code)

    def close(self):
        """Ends the stream: pto_sim finishes (writing any --out files)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            tail = self.proc.stdout.read().decode("utf-8", "replace")
            code = self.proc.wait()
            if code not in (0, 1):
                self.stderr.seek(0)
                _note(f"pto_sim ended with exit {code}:\n{tail}{self.stderr.read()}".rstrip())
            # The chip's run file (its launches' totals) is the script's when
            # the script ran on this chip alone; after a second chip no one
            # chip's file describes the run, and each launch keeps its own.
            summary = os.path.join(self.private_out or "", "stats.json")
            if self.private_out is not None and os.path.isfile(summary):
                script_file = os.path.join(self.out_root, "stats.json")
                if _chips["started"] == 1:
                    os.replace(summary, script_file)
                elif os.path.isfile(script_file):
                    os.remove(script_file)
        self.cleanup()

    def take_launch_files(self, wanted):
        """Moves the last launch's files to `wanted` in the script's out_root."""
        written = os.path.join(self.private_out, f"launch_{self.launches - 1}")
        shutil.rmtree(wanted, ignore_errors=True)
        os.replace(written, wanted)

    def cleanup(self):
        if self.recording is not None:
            self.recording.close()
            self.recording = None
        self.stderr.close()
        if self.keep:
            _note(f"the chip's stream and files are kept in {self.work} (stream.pb replays with "
                  "pto_sim --trace)")
        else:
            shutil.rmtree(self.work, ignore_errors=True)


OUTPUT_MARKER = ".pto_sim_out"


def claim_out_root(path, source):
    """Makes `path` this script's empty output directory, as pto_sim --out
    does: an earlier run's (holding the marker) is emptied; a file, or a
    non-empty directory without the marker, is refused."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise ConfigError(f"{source} {path}: exists and is not a directory; give a new or empty "
                          "directory")
    if os.path.isdir(path) and os.listdir(path):
        if not os.path.exists(os.path.join(path, OUTPUT_MARKER)):
            raise ConfigError(
                f"{source} {path}: the directory is not empty and has no {OUTPUT_MARKER} marker, "
                "so no earlier pto_sim run wrote it; pto_sim replaces only its own output: give "
                "a new or empty directory")
        for entry in os.listdir(path):
            if entry == OUTPUT_MARKER:
                continue
            full = os.path.join(path, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.remove(full)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, OUTPUT_MARKER), "w", encoding="utf-8") as marker:
        marker.write("pto_sim output: the next run with this directory as its output replaces "
                     "all of it\n")


def chip_for(key, command, keep):
    """The running chip when `key` matches it, else a new one."""
    current = _chips["current"]
    if current is not None and current.key != key and _record.recording() is not None:
        raise ConfigError(
            f"PTO_SIM_RECORD records one chip, and this call changes what it is built from "
            f"({_difference(current.key, key)}); record such calls in separate runs")
    if current is not None and current.key != key:
        _note(f"this call changes what the chip is built from ({_difference(current.key, key)}): "
              "a new chip starts; L2 contents and simulated time start afresh")
        current.close()
        current = None
    if current is None:
        current = Chip(key, command, keep)
        _chips["current"] = current
        _chips["started"] += 1
        if _record.recording() is not None:
            _record.recording().chip = current
    return current


def _difference(old, new):
    names = ("config", "--set", "timing-only", "output files")
    changed = [name for name, a, b in zip(names, old, new) if a != b]
    return ", ".join(changed)


@atexit.register
def _close_at_exit():
    current = _chips["current"]
    _chips["current"] = None
    if current is not None:
        current.close()
    _record.finish()


__all__ = ["chip_for"]
