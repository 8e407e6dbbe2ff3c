#!/usr/bin/env python3
"""Where a Qwen3-14B decode step's time goes: bytes, time and bandwidth per phase.

Runs pto_sim on the decode-step traces (traces/qwen3_14b_decode.py and its
context variants) and groups the step's tasks into phases by name: the q/k/v
projections, the attention (the fused paged-attention kernel), the out
projection, the MLP (gate, up, SiLU, down), the LM head, and the rest
(norms, residuals, zero seeds, embedding, sampling). For each phase:

  bytes      GM bytes its tasks moved (task_records' gm_read_bytes +
             gm_write_bytes: weights, KV cache, activations)
  time       its share of the step's wall time: each stretch of time is
             split over the phases whose blocks run in it, by how many cores
             each keeps busy (core_intervals), so phases that overlap share
             the time they overlap and the phases, with "idle" (no core busy:
             dispatch and orchestration gaps), sum to the makespan
  bandwidth  bytes / time

  scripts/qwen3_anatomy.py --pto-sim build/sim/pto_sim \\
      --trace 1024=build/regress/traces/qwen3_ctx1024.pb \\
      --trace 3300=build/traces/qwen3_14b_decode.pb \\
      --trace 8192=build/regress/traces/qwen3_ctx8192.pb [--markdown] [--check]

--check asserts what a decode step's anatomy must show (exit 1 if not): each
weight-streaming phase moves its bytes within 15 % of the HBM stream rate
(gm.hbm_bandwidth_bytes_per_s x gm.hbm_efficiency, from --print-config), the
attention phase never runs above the HBM peak, and it grows with the context.
--self-test checks the phase arithmetic on a made-up step and exits.
Exit codes: 0 ok, 1 a check failed, 2 bad usage or a pto_sim run that failed.
Standard library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Task names of traces/qwen3_14b_decode.py and of upstream's
# examples/models/qwen3_jit package (scripts/qwen3_jit_step.py), whose out and
# down projections add the residual in the same MIX task.
PHASES = [
    ("q/k/v projections", ("q_proj", "k_proj", "v_proj")),
    ("attention", ("fa_fused",)),
    ("out projection", ("out_proj", "out_proj_residual")),
    ("MLP", ("gate_proj", "up_proj", "silu", "down_proj", "down_proj_residual")),
    ("LM head", ("lm_head",)),
]
OTHER = "other"
IDLE = "idle"
WEIGHT_PHASES = ("q/k/v projections", "out projection", "MLP", "LM head")
STREAM_TOLERANCE = 0.15


def phase_of(name):
    for phase, names in PHASES:
        if name in names:
            return phase
    return OTHER


def shared_time_us(intervals):
    """{phase: us} from (start, end, phase) intervals, one per busy core: each
    stretch between two events is split over the phases running in it by
    their share of the busy cores; stretches with none are IDLE. The shares
    sum to the first start to the last end (a launch's makespan)."""
    events = sorted([(start, 1, phase) for start, _, phase in intervals] +
                    [(end, -1, phase) for _, end, phase in intervals])
    busy, total, shares = {}, 0, {IDLE: 0.0}
    last = events[0][0] if events else 0.0
    for time, step, phase in events:
        if time > last:
            if total:
                for p, n in busy.items():
                    shares[p] = shares.get(p, 0.0) + (time - last) * n / total
            else:
                shares[IDLE] += time - last
            last = time
        busy[phase] = busy.get(phase, 0) + step
        total += step
        if not busy[phase]:
            del busy[phase]
    return shares


def anatomy(stats):
    """{phase: (bytes, time_us)} and the makespan in us."""
    bytes_by, phase_by_seq = {}, {}
    for task in stats["task_records"]:
        phase = phase_of(task["name"])
        phase_by_seq[task["seq"]] = phase
        bytes_by[phase] = bytes_by.get(phase, 0) + task["gm_read_bytes"] + task["gm_write_bytes"]
    # [core, task seq, block, dispatch, receive, start, end] per block on a core
    intervals = [(c[5], c[6], phase_by_seq[c[1]]) for c in stats["core_intervals"]]
    shares = shared_time_us(intervals)
    order = [p for p, _ in PHASES] + [OTHER, IDLE]
    return {p: (bytes_by.get(p, 0), shares.get(p, 0.0)) for p in order}, stats["makespan_us"]


def simulate(pto_sim, config, trace, scratch):
    out = os.path.join(scratch, os.path.basename(trace))
    cmd = [pto_sim, "--config", config, "--trace", trace, "--out", out, "--timing-only",
           "--no-hazards"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(f"qwen3_anatomy: {' '.join(cmd)} exited {result.returncode}\n"
                         f"{result.stdout}{result.stderr}")
        sys.exit(2)
    with open(os.path.join(out, "launch_0", "stats.json")) as f:  # the step's one launch
        stats = json.load(f)
    shutil.rmtree(out)  # its other outputs run to hundreds of MB
    return stats


def hbm_rates(pto_sim, config):
    """(stream rate, peak) in bytes/s."""
    result = subprocess.run([pto_sim, "--config", config, "--print-config"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(f"qwen3_anatomy: --print-config failed\n{result.stderr}")
        sys.exit(2)
    values = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    peak = float(values["gm.hbm_bandwidth_bytes_per_s"])
    return peak * float(values["gm.hbm_efficiency"]), peak


def table(results, markdown):
    lines = []
    for context, (phases, makespan) in results:
        if markdown:
            lines += [f"Context {context}: makespan {makespan / 1000:.2f} ms", "",
                      "| phase | bytes GB | time ms | share of step | bandwidth TB/s |",
                      "| --- | ---: | ---: | ---: | ---: |"]
        else:
            lines.append(f"context {context}: makespan {makespan / 1000:.3f} ms")
        for phase, (moved, time_us) in phases.items():
            bandwidth = moved / (time_us * 1e-6) / 1e12 if time_us > 0 else 0.0
            cells = (phase, f"{moved / 1e9:.3f}", f"{time_us / 1000:.3f}",
                     f"{100 * time_us / makespan:.1f} %", f"{bandwidth:.3f}")
            lines.append("| " + " | ".join(cells) + " |" if markdown else
                         f"  {cells[0]:<18} {cells[1]:>8} GB {cells[2]:>8} ms {cells[3]:>7} "
                         f"{cells[4]:>6} TB/s")
        lines.append("")
    return "\n".join(lines)


def check(results, stream, peak):
    failures = []
    for context, (phases, _) in results:
        for phase in WEIGHT_PHASES:
            moved, time_us = phases[phase]
            rate = moved / (time_us * 1e-6)
            if abs(rate - stream) > STREAM_TOLERANCE * stream:
                failures.append(f"context {context}: {phase} at {rate / 1e12:.3f} TB/s, not "
                                f"within 15 % of the stream rate {stream / 1e12:.3f} TB/s")
        moved, time_us = phases["attention"]
        if moved / (time_us * 1e-6) > peak * (1 + 1e-9):
            failures.append(f"context {context}: attention at "
                            f"{moved / (time_us * 1e-6) / 1e12:.3f} TB/s, above the HBM peak "
                            f"{peak / 1e12:.3f} TB/s")
    times = [(int(c), phases["attention"][1]) for c, (phases, _) in results]
    for (c0, t0), (c1, t1) in zip(sorted(times), sorted(times)[1:]):
        if not t1 > t0:
            failures.append(f"attention does not grow with context: {t0:.1f} us at {c0}, "
                            f"{t1:.1f} us at {c1}")
    return failures


def self_test():
    """The arithmetic on a step whose answer is known by hand."""
    # Two phases on one core each, overlapping for 1 us: each gets half of
    # it; a gap with no core busy is idle.
    assert shared_time_us([(0, 2, "a"), (1, 3, "b"), (4, 5, "a")]) == \
        {IDLE: 1.0, "a": 2.5, "b": 1.5}
    # Three cores of "a" against one of "b": 3/4 and 1/4 of the overlap.
    assert shared_time_us([(0, 1, "a")] * 3 + [(0, 1, "b")]) == {IDLE: 0.0, "a": 0.75, "b": 0.25}
    assert shared_time_us([]) == {IDLE: 0.0}

    def step(tasks):
        """tasks: (name, [(start, end) per block], read, write)."""
        records, intervals = [], []
        for seq, (name, blocks, read, write) in enumerate(tasks):
            records.append({"seq": seq, "name": name, "gm_read_bytes": read,
                            "gm_write_bytes": write})
            for block, (start, end) in enumerate(blocks):
                intervals.append([block, seq, block, start, start, start, end])
        ends = [c[6] for c in intervals]
        starts = [c[5] for c in intervals]
        return {"makespan_us": max(ends) - min(starts), "task_records": records,
                "core_intervals": intervals}

    # 1.4 MB of q_proj in 1 us (two tasks on two cores), an alloc that ran on
    # no core, the out projection's tail overlapping the MLP on one of four
    # busy cores: a quarter of that microsecond is its.
    tasks = [("q_proj", [(0, 1)], 700_000, 0), ("q_proj", [(0.5, 1)], 700_000, 0),
             ("fa_fused", [(1, 2)], 1_000_000, 0),
             ("out_proj", [(2, 2.75)], 1_050_000, 0), ("out_proj", [(2.75, 3.75)], 350_000, 0),
             ("gate_proj", [(2.75, 3.75)] * 3 + [(3.75, 4)], 1_400_000, 0),
             ("lm_head", [(4, 5)], 1_400_000, 0), ("x_gamma0", [(6, 7)], 10, 10),
             ("alloc", [], 0, 0)]
    short = step(tasks)
    phases, makespan = anatomy(short)
    assert makespan == 7.0
    assert phases["q/k/v projections"] == (1_400_000, 1.0), phases
    assert phases["out projection"] == (1_400_000, 1.0), phases
    assert phases["MLP"] == (1_400_000, 1.0), phases
    assert phases["other"] == (20, 1.0), phases
    assert phases[IDLE] == (0, 1.0), phases
    assert sum(t for _, t in phases.values()) == makespan
    # At a longer context the attention runs another microsecond at the end.
    longer = step([t if t[0] != "fa_fused" else ("fa_fused", [(1, 2), (7, 8)], 2_000_000, 0)
                   for t in tasks])
    results = [("1024", anatomy(short)), ("4096", anatomy(longer))]
    assert check(results, stream=1.4e12, peak=1.6e12) == [], check(results, 1.4e12, 1.6e12)
    # A weight phase 20 % slow, attention above the peak, attention not growing.
    slow = step([t if t[0] != "lm_head" else ("lm_head", [(4, 5.25)], 1_400_000, 0)
                 for t in tasks])
    fast = step([t if t[0] != "fa_fused" else ("fa_fused", [(1, 2)], 2_000_000, 0)
                 for t in tasks])
    failures = check([("1024", anatomy(slow)), ("4096", anatomy(fast))], 1.4e12, 1.6e12)
    assert any("LM head" in f for f in failures), failures
    assert any("above the HBM peak" in f for f in failures), failures
    assert any("does not grow" in f for f in failures), failures
    print("qwen3_anatomy: self-test passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pto-sim", required=True)
    parser.add_argument("--config", default=os.path.join(REPO, "configs", "ascend.yaml"))
    parser.add_argument("--trace", action="append", required=True, metavar="CONTEXT=PATH",
                        help="a decode-step trace and its context length (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--check", action="store_true", help="assert the anatomy's properties")
    args = parser.parse_args()
    traces = []
    for item in args.trace:
        context, sep, path = item.partition("=")
        if not sep or not context.isdigit() or not os.path.exists(path):
            parser.error(f"--trace {item}: expected CONTEXT=PATH with a number and an existing "
                         "file")
        traces.append((context, path))
    with tempfile.TemporaryDirectory(prefix="qwen3_anatomy_") as scratch:
        results = [(c, anatomy(simulate(args.pto_sim, args.config, p, scratch)))
                   for c, p in traces]
    print(table(results, args.markdown))
    if not args.check:
        return 0
    stream, peak = hbm_rates(args.pto_sim, args.config)
    failures = check(results, stream, peak)
    for failure in failures:
        print(f"qwen3_anatomy: FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
