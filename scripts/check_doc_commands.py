#!/usr/bin/python3
"""Runs the commands README.md and docs/ show, so they cannot drift.

Every code block (indented by four spaces, or fenced) that holds a command
line (build/..., pto_sim, ptoc, scripts/..., ctest, cmake, python3, ...)
carries a marker on the line before it:

    <!-- doc-test: run -->              the block's commands run here, each must exit 0
    <!-- doc-test: run, last exits N --> ... the last one must exit N (a failure shown on purpose)
    <!-- doc-test: illustrative, WHY --> shown, not run (bench, sanitizers, Slurm,
                                         a rewrite of a committed file, ...)

A block without a marker fails the check. `run` blocks run in order, each in
one `bash -e` (an `export` holds for the block's later lines), in a fresh
workspace: a temporary directory with the repository's tracked top-level
entries linked in and a `build/` whose directories link to the build's, except
`build/traces`, a copy of its light traces, so a command that writes a trace
there writes the copy. pto_sim and ptoc are on PATH (the build's).

Usage: scripts/check_doc_commands.py --repo DIR --build DIR [--only FILE]
       scripts/check_doc_commands.py --self-test
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMAND = re.compile(
    r"^\s*(\$ )?(build/|pto_sim( |$)|ptoc( |$)|scripts/|ctest |cmake |/usr/bin/python3|python3 |"
    r"PTO_[A-Z_]+=|export |sudo |apt-get |out/)")
MARKER = re.compile(r"^<!-- doc-test: (run|illustrative)(,.*)? -->\s*$")
LAST_EXITS = re.compile(r"last exits (\d+)")
LIGHT_TRACE_BYTES = 20 << 20
TIMEOUT_SECONDS = 240


def doc_files(repo):
    return (["README.md"] + sorted(os.path.relpath(p, repo)
                                   for p in glob.glob(os.path.join(repo, "docs", "*.md")))
            + ["regress/README.md"])


def blocks(text):
    """(first line number, lines, marker or None) of each code block holding a command."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fenced = line.strip().startswith("```")
        indented = line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip())
        if not fenced and not indented:
            i += 1
            continue
        start = i
        body = []
        if fenced:
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
        else:
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
        marker = None
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            m = MARKER.match(lines[j].strip())
            if m:
                expected = LAST_EXITS.search(m.group(2) or "")
                marker = (m.group(1), int(expected.group(1)) if expected else 0)
        if any(COMMAND.match(b) for b in body):
            out.append((start + 1, body, marker))
    return out


def commands(body):
    """The block's command lines, continuations joined, output lines dropped."""
    out = []
    pending = None
    for line in body:
        if pending is not None:
            pending += "\n" + line
            if not line.rstrip().endswith("\\"):
                out.append(pending)
                pending = None
            continue
        if not COMMAND.match(line):
            continue
        line = re.sub(r"^\s*\$ ", "", line)
        if line.rstrip().endswith("\\"):
            pending = line
        else:
            out.append(line)
    if pending is not None:
        out.append(pending)
    return out


def tracked_top_level(repo):
    """The repository's top-level entries git tracks (all of them outside git)."""
    r = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout:
        return set(os.listdir(repo))
    return {path.split("/", 1)[0] for path in r.stdout.splitlines()}


def workspace(repo, build):
    ws = tempfile.mkdtemp(prefix="pto_doc_commands_")
    for name in sorted(tracked_top_level(repo)):
        if name in (".git", "build") or name.startswith("build-"):
            continue
        os.symlink(os.path.join(repo, name), os.path.join(ws, name))
    os.mkdir(os.path.join(ws, "build"))
    for name in os.listdir(build):
        if name == "traces":
            continue
        os.symlink(os.path.join(build, name), os.path.join(ws, "build", name))
    traces = os.path.join(ws, "build", "traces")
    os.mkdir(traces)
    for path in glob.glob(os.path.join(build, "traces", "*.pb")):
        if os.path.getsize(path) <= LIGHT_TRACE_BYTES:
            shutil.copy(path, traces)
    return ws


def check(repo, build, only):
    failures = 0
    ran = 0
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(build, "sim"), os.path.join(build, "frontend"),
                                   env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    env["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
    for doc in doc_files(repo):
        if only and doc != only:
            continue
        with open(os.path.join(repo, doc), encoding="utf-8") as f:
            text = f.read()
        for line, body, marker in blocks(text):
            where = f"{doc}:{line}"
            if marker is None:
                print(f"FAIL {where}: a code block with commands has no <!-- doc-test: run --> or "
                      "<!-- doc-test: illustrative, why --> marker on the line before it")
                failures += 1
                continue
            kind, expected = marker
            if kind != "run":
                continue
            ws = workspace(repo, build)
            try:
                lines = commands(body)
                # The last command runs outside `set -e` when it must fail.
                script = "set -e\n" + "\n".join(lines[:-1]) + "\nset +e\n" + lines[-1] + "\n"
                r = subprocess.run(["bash", "-c", script], cwd=ws, env=env, capture_output=True,
                                   text=True, timeout=TIMEOUT_SECONDS)
                ran += 1
                if r.returncode != expected:
                    print(f"FAIL {where}: exit {r.returncode}, expected {expected}\n{script}"
                          f"--- stdout\n{r.stdout[-2000:]}--- stderr\n{r.stderr[-2000:]}")
                    failures += 1
                else:
                    print(f"ok   {where}: {len(lines)} command(s)")
            except subprocess.TimeoutExpired:
                print(f"FAIL {where}: still running after {TIMEOUT_SECONDS} s")
                failures += 1
            finally:
                shutil.rmtree(ws, ignore_errors=True)
    print(f"doc commands: {ran} block(s) run, {failures} failure(s)")
    return 1 if failures else 0


def self_test():
    text = "\n".join([
        "Intro", "", "<!-- doc-test: run -->", "", "    build/sim/pto_sim --x \\",
        "        --y   # joined", "    output line", "", "Text", "",
        "    scripts/bench.py --rev main", "", "<!-- doc-test: illustrative, slow -->",
        "```sh", "ctest --test-dir build", "```", "", "    just output", ""])
    found = blocks(text)
    assert [(b[0], b[2]) for b in found] == [(5, ("run", 0)), (11, None),
                                             (14, ("illustrative", 0))], found
    assert blocks("<!-- doc-test: run, last exits 1 -->\n\n    ptoc x\n")[0][2] == ("run", 1)
    assert commands(found[0][1]) == ["build/sim/pto_sim --x \\\n    --y   # joined"], \
        commands(found[0][1])
    assert commands(["$ ptoc a.py -o b.pb", "b.pb written"]) == ["ptoc a.py -o b.pb"]
    print("self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo")
    parser.add_argument("--build")
    parser.add_argument("--only", help="one file, as README.md or docs/ptoc.md")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.repo or not args.build:
        parser.error("--repo and --build are required")
    return check(os.path.abspath(args.repo), os.path.abspath(args.build), args.only)


if __name__ == "__main__":
    sys.exit(main())
