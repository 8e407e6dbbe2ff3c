#!/usr/bin/env python3
"""Every output file of every bundled trace: this tree against a git revision.

    scripts/diff_outputs.py --rev HEAD~1            # exit 1 with the list if any file differs
    scripts/diff_outputs.py --rev main --build-dir build --keep /tmp/outs

For a change that must not move any result (a refactoring), this is the
check: it builds REV in a temporary `git worktree` and this tree (as
scripts/bench.py does), compiles every traces/*.py and regress/traces/*.py
with this tree's ptoc (both builds then replay the same streams; if REV reads
another stream version, each build replays what its own ptoc makes), and runs
`pto_sim --out DIR` with both builds on each stream and on every hand-written
traces/*.pbtxt and traces/calibration/*.pbtxt. Then it compares the two
output trees file by file, byte for byte, and prints the files that differ
(with the first differing line of each), the files only one side wrote, and
the exit codes that differ. Timing-only workloads (the Qwen3 step, paged
attention) run --timing-only, as the build compiles them.
"""

import argparse
import filecmp
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, build, stream_version  # noqa: E402  (shared build helpers)

TIMING_ONLY = {"qwen3_14b_decode", "paged_attention"}  # as traces/CMakeLists.txt


def log(message):
    print(f"diff_outputs: {message}", file=sys.stderr, flush=True)


def compile_streams(ptoc, source, work):
    """name -> (stream, timing_only) for every kernel description and text trace."""
    streams = {}
    os.makedirs(work, exist_ok=True)
    for folder in ("traces", os.path.join("regress", "traces")):
        for py in sorted(glob.glob(os.path.join(source, folder, "*.py"))):
            name = os.path.splitext(os.path.basename(py))[0]
            out = os.path.join(work, name + ".pb")
            cmd = [ptoc, os.path.basename(py), "-o", out]
            if name in TIMING_ONLY:
                cmd.append("--timing-only")
            subprocess.run(cmd, cwd=os.path.dirname(py), check=True,
                           stdout=subprocess.DEVNULL)
            streams[name] = (out, name in TIMING_ONLY)
    for pattern in ("traces/*.pbtxt", "traces/calibration/*.pbtxt"):
        for text in sorted(glob.glob(os.path.join(source, pattern))):
            name = os.path.splitext(os.path.basename(text))[0]
            prefix = "calibration_" if "calibration" in text else ""
            streams[prefix + name] = (text, False)
    return streams


def run_all(sim, streams, out_root):
    """Runs every stream with --out; returns name -> exit code."""
    codes = {}
    config = os.path.join(ROOT, "configs", "ascend.yaml")
    for name, (stream, timing_only) in sorted(streams.items()):
        cmd = [sim, "--config", config, "--trace", stream, "--out", os.path.join(out_root, name)]
        if timing_only:
            cmd.append("--timing-only")
        codes[name] = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"),
                                     ).returncode
    return codes


def first_difference(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        for number, (la, lb) in enumerate(zip(fa, fb), 1):
            if la != lb:
                return f"line {number}: {la[:100]!r} vs {lb[:100]!r}"
    return "one file is a prefix of the other"


def compare_trees(left, right):
    """(differing, only_left, only_right), paths relative to the roots."""
    differing, only_left, only_right = [], [], []
    pending = [""]
    while pending:
        rel = pending.pop()
        cmp = filecmp.dircmp(os.path.join(left, rel), os.path.join(right, rel))
        only_left += [os.path.join(rel, n) for n in cmp.left_only]
        only_right += [os.path.join(rel, n) for n in cmp.right_only]
        for name in cmp.common_files:
            path = os.path.join(rel, name)
            if not filecmp.cmp(os.path.join(left, path), os.path.join(right, path),
                               shallow=False):
                differing.append(path)
        pending += [os.path.join(rel, d) for d in cmp.common_dirs]
    return sorted(differing), sorted(only_left), sorted(only_right)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", required=True, help="git revision to compare against")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"),
                        help="this tree's Release build (default build-bench/)")
    parser.add_argument("--keep", help="copy both output trees into this directory")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="pto_diff_")
    base_src = os.path.join(work, "base")
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", args.rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base_src, rev],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        targets = ["pto_sim", "ptoc"]
        log(f"building {args.rev} ({rev}) and this tree")
        base_build = os.path.join(base_src, "build-bench")
        build(base_src, base_build, targets)
        cur_build = os.path.abspath(args.build_dir)
        build(ROOT, cur_build, targets)
        cur_streams = compile_streams(os.path.join(cur_build, "frontend", "ptoc"), ROOT,
                                      os.path.join(work, "streams"))
        base_streams = cur_streams
        if stream_version(base_src) != stream_version(ROOT):
            log("stream versions differ: each build replays its own ptoc's streams")
            base_streams = compile_streams(os.path.join(base_build, "frontend", "ptoc"),
                                           base_src, os.path.join(work, "streams_base"))
        log(f"running {len(cur_streams)} streams on both builds")
        outs = {label: os.path.join(work, "out_" + label) for label in ("base", "this")}
        base_codes = run_all(os.path.join(base_build, "sim", "pto_sim"), base_streams,
                             outs["base"])
        cur_codes = run_all(os.path.join(cur_build, "sim", "pto_sim"), cur_streams,
                            outs["this"])
        differing, only_base, only_this = compare_trees(outs["base"], outs["this"])
        codes = [n for n in sorted(set(base_codes) | set(cur_codes))
                 if base_codes.get(n) != cur_codes.get(n)]
        if args.keep:
            for label, path in outs.items():
                shutil.copytree(path, os.path.join(args.keep, label), dirs_exist_ok=True)
        for name in codes:
            print(f"exit code differs: {name}: {rev} {base_codes.get(name)}, "
                  f"this tree {cur_codes.get(name)}")
        for path in differing:
            print(f"differs: {path}: "
                  f"{first_difference(os.path.join(outs['base'], path), os.path.join(outs['this'], path))}")
        for path in only_base:
            print(f"only {rev} wrote: {path}")
        for path in only_this:
            print(f"only this tree wrote: {path}")
        files = sum(len(f) for _, _, f in os.walk(outs["this"]))
        if differing or only_base or only_this or codes:
            print(f"diff_outputs: {len(differing)} of {files} files differ from {rev}")
            return 1
        print(f"diff_outputs: all {files} output files of {len(cur_streams)} streams are "
              f"byte-identical to {rev}")
        return 0
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base_src],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
