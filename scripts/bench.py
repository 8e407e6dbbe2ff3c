#!/usr/bin/env python3
"""End-to-end speed of pto_sim: this tree against a git revision, in one run.

    scripts/bench.py --rev main                 # the default workloads, 3 rounds
    scripts/bench.py --rev HEAD~3 --rounds 5 --workloads stress_100k,qwen3
    scripts/bench.py --rev main --build-dir build    # reuse an existing Release build

Builds REV in a temporary `git worktree` and this tree (Release, into
build-bench/), makes every input with *this* tree's tools (so both builds
replay identical traces; when REV reads another task-stream version, each
build replays the traces its own tools make, and the log says so), then runs each workload on both builds in
alternation (ABAB..., so load from other processes hits both alike) and prints
a side-by-side table, one row per build:

  wall s, user s   whole-process wall clock and user CPU time, best round by wall
  tasks/s          simulated tasks (the summary's `tasks`) / wall, and / user CPU
                   (the steadier figure on a shared machine)
  activations/task SystemC process activations per simulated task, from
                   `pto_sim --engine-stats` ("–" for a build without the flag)
  calendar/task    the chip calendar's wakes (the model's own events) per task,
                   from the same line ("–" for a build before the calendar)
  peak RSS MiB     peak resident set of the pto_sim process (getrusage of the child)
  speed-up         REV / this tree, by wall and by user CPU (> 1: this tree is faster)

Workloads: stress_100k, stress_1m, stress_4m (tools/stress_trace.cc, seed 42;
--timing-only --summary-only), stress_1m_out (the same with every output on,
--out DIR), qwen3 (traces/qwen3_14b_decode.py, --timing-only --summary-only),
pipeline (traces/manual_scope_pipeline.py, functional, every output on),
stress_1m_regions (stress_1m whose every task loads, updates and stores one of 4096 small
tensors: tools/stress_trace.cc --regions 4096, so the hazard detector has a region per task). A `_nohz` suffix on any workload adds --no-hazards, to measure the detector's cost:
    scripts/bench.py --rev HEAD~1 --workloads qwen3,qwen3_nohz,stress_1m_regions,stress_1m_regions_nohz
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_WORKLOADS = "stress_100k,stress_1m,stress_1m_out,qwen3,pipeline"
STRESS_TASKS = {"stress_100k": 100_000, "stress_1m": 1_000_000, "stress_4m": 4_000_000}


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(cmd, **kwargs):
    subprocess.run(cmd, check=True, **kwargs)


def build(source, build_dir, targets):
    env = dict(os.environ)
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        env["CCACHE_BASEDIR"] = source  # same relative paths in both trees: shared cache hits
        launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
        run(["cmake", "-S", source, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DPTO_BUILD_TESTS=OFF", "-DPTO_BUILD_BENCHMARKS=OFF"] + launcher,
            env=env, stdout=subprocess.DEVNULL)
    run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2), "--target"] + targets,
        env=env, stdout=subprocess.DEVNULL)


def measure(cmd):
    """Runs cmd; returns (wall seconds, user CPU seconds, peak RSS KiB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {code}: {err.decode()[-500:]}")
    return wall, usage.ru_utime, usage.ru_maxrss, out.decode()


def tasks_of(summary):
    return sum(int(n) for n in re.findall(r"^\s+tasks (\d+)", summary, re.M))


def activations_per_task(summary):
    """SystemC process activations per task (--engine-stats), or None."""
    found = re.search(r"^engine: \d+ process activations \(([\d.]+) per task\)", summary, re.M)
    return float(found.group(1)) if found else None


def calendar_events_per_task(summary):
    """The chip calendar's wakes per task (--engine-stats), or None."""
    found = re.search(r"calendar events \(([\d.]+) per task\)", summary)
    return float(found.group(1)) if found else None


def has_engine_stats(sim):
    help_text = subprocess.run([sim, "--help"], capture_output=True, text=True).stdout
    return "--engine-stats" in help_text


def stream_version(source):
    """The task-stream schema version a source tree reads and writes."""
    for header, pattern in (("proto/stream_version.h", r"kTaskStreamVersion = (\d+)"),
                            ("sim/trace_reader.h", r"kTraceVersion = (\d+)")):
        path = os.path.join(source, header)
        if os.path.exists(path):
            match = re.search(pattern, open(path).read())
            if match:
                return int(match.group(1))
    return None


def make_inputs(build_dir, source, workloads, work):
    """The traces and extra arguments of each workload, made by the tools of
    `build_dir` from the kernel descriptions of `source`, into `work`."""
    os.makedirs(work, exist_ok=True)
    inputs = {}
    ptoc = os.path.join(build_dir, "frontend", "ptoc")
    for name in workloads:
        plain = name.removesuffix("_nohz")
        base = plain.removesuffix("_out")
        if base == "stress_1m_regions":
            trace = os.path.join(work, f"{base}.pb")
            if not os.path.exists(trace):
                run([os.path.join(build_dir, "tools", "stress_trace_gen"), "--tasks", "1000000",
                     "--seed", "42", "--regions", "4096", "-o", trace])
            extra = ["--timing-only", "--summary-only"]
        elif base in STRESS_TASKS:
            trace = os.path.join(work, f"{base}.pb")
            if not os.path.exists(trace):
                run([os.path.join(build_dir, "tools", "stress_trace_gen"), "--tasks",
                     str(STRESS_TASKS[base]), "--seed", "42", "-o", trace])
            extra = ["--timing-only"]
            extra += ["--out", "{out}"] if plain.endswith("_out") else ["--summary-only"]
        elif base == "qwen3":
            trace = os.path.join(work, "qwen3_14b_decode.pb")
            run([ptoc, "qwen3_14b_decode.py", "--timing-only", "-o", trace],
                cwd=os.path.join(source, "traces"))
            extra = ["--timing-only", "--summary-only"]
        elif base == "copy_ub_small":
            # Long blocks: 48 of 49 152 one-row loads each (a calibration workload).
            trace = os.path.join(source, "traces", "calibration", "copy_ub_small.pbtxt")
            extra = ["--timing-only", "--summary-only"]
        elif base == "pipeline":
            trace = os.path.join(work, "manual_scope_pipeline.pb")
            run([ptoc, "manual_scope_pipeline.py", "-o", trace], cwd=os.path.join(source, "traces"))
            extra = ["--out", "{out}"]
        else:
            sys.exit(f"bench: unknown workload '{name}'; known: {DEFAULT_WORKLOADS},stress_4m,"
                     "stress_1m_regions, copy_ub_small (and each with _nohz)")
        if name.endswith("_nohz"):
            extra = extra + ["--no-hazards"]
        inputs[name] = (trace, extra)
    return inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", required=True, help="git revision to compare against")
    parser.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"),
                        help="this tree's build directory (default build-bench/; an existing "
                             "Release build such as build/ is only brought up to date)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary worktree")
    args = parser.parse_args()
    workloads = [w for w in args.workloads.split(",") if w]

    work = tempfile.mkdtemp(prefix="pto_bench_")
    base_src = os.path.join(work, "base")
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", args.rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    log(f"building {args.rev} ({rev}) in a temporary worktree")
    run(["git", "-C", ROOT, "worktree", "add", "--detach", base_src, rev],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Both builds replay traces made by this tree's tools, unless REV reads
        # another stream version: then each replays what its own tools make
        # from its own kernel descriptions (the same workloads, as written at
        # each revision).
        base_version, cur_version = stream_version(base_src), stream_version(ROOT)
        own_inputs = base_version != cur_version
        base_build = os.path.join(base_src, "build-bench")
        # ptoc FILE.py runs the script with its build's pypto package.
        tools = ["pto_sim", "ptoc", "pypto", "stress_trace_gen"]
        build(base_src, base_build, tools if own_inputs else ["pto_sim"])
        log("building this tree")
        cur_build = os.path.abspath(args.build_dir)
        build(ROOT, cur_build, tools)
        sims = {rev: os.path.join(base_build, "sim", "pto_sim"),
                "this tree": os.path.join(cur_build, "sim", "pto_sim")}
        cur_inputs = make_inputs(cur_build, ROOT, workloads, os.path.join(work, "inputs"))
        inputs_of = {label: cur_inputs for label in sims}
        if own_inputs:
            log(f"stream versions differ ({rev}: {base_version}, this tree: {cur_version}): "
                f"each build replays traces made by its own tools")
            inputs_of[rev] = make_inputs(base_build, base_src, workloads,
                                         os.path.join(work, "inputs_base"))
        # Each build runs with the configuration it shipped with: a change of
        # defaults is part of what is measured, and an older build may reject
        # a newer key's value.
        configs = {rev: os.path.join(base_src, "configs", "ascend.yaml"),
                   "this tree": os.path.join(ROOT, "configs", "ascend.yaml")}
        engine_flag = {label: has_engine_stats(sim) for label, sim in sims.items()}
        results = {}
        for name in workloads:
            for rnd in range(args.rounds):
                for label, sim in sims.items():
                    trace, extra = inputs_of[label][name]
                    out = os.path.join(work, f"out_{rnd}")
                    cmd = [sim, "--config", configs[label], "--trace", trace]
                    cmd += [a.replace("{out}", out) for a in extra]
                    if engine_flag[label]:
                        cmd.append("--engine-stats")
                    wall, user, rss, summary = measure(cmd)
                    shutil.rmtree(out, ignore_errors=True)
                    best = results.get((name, label))
                    if best is None or wall < best[0]:
                        results[(name, label)] = (wall, user, rss, tasks_of(summary),
                                                  activations_per_task(summary),
                                                  calendar_events_per_task(summary))
                    log(f"{name} on {label}: {wall:.2f} s wall, {user:.2f} s user, "
                        f"{rss / 1024:.0f} MiB")
        print_table(workloads, list(sims), results)
    finally:
        if not args.keep:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base_src],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(work, ignore_errors=True)


def print_table(workloads, labels, results):
    """Best round by wall time; tasks/s from wall (and, steadier on a shared
    machine, from user CPU); SystemC activations and calendar wakes per task."""
    base, cur = labels

    def per_task(value):
        return f"{value:.2f}" if value is not None else "–"

    print(f"| workload | tasks | build | wall s | user s | tasks/s (wall) | tasks/s (user) "
          f"| activations/task | calendar/task | peak RSS MiB |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in workloads:
        for label in (base, cur):
            wall, user, rss, tasks, activations, calendar = results[(name, label)]
            print(f"| {name} | {tasks} | {label} | {wall:.2f} | {user:.2f} | {tasks / wall:,.0f} "
                  f"| {tasks / max(user, 1e-9):,.0f} | {per_task(activations)} "
                  f"| {per_task(calendar)} | {rss / 1024:.0f} |")
        bw, bu = results[(name, base)][:2]
        cw, cu = results[(name, cur)][:2]
        print(f"| {name} | | speed-up | {bw / cw:.2f}x | {bu / max(cu, 1e-9):.2f}x | | | | | |")


if __name__ == "__main__":
    main()
