#!/usr/bin/env python3
"""What a kernel call costs a python3 script beyond its simulation.

    PYTHONPATH=build/python /usr/bin/python3 scripts/launch_overhead.py [--launches N]

Runs N calls of a small copy kernel after one warm-up call (which starts the
script's chip), then replays the chip's kept stream with pto_sim alone: the
overhead per launch is (wall of the N calls - the replay's wall) / N, i.e.
ptoc, the pipe and the write-back (docs/python.md, issue 22's <= 50 ms).
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=40)
    args = parser.parse_args()
    keep = tempfile.mkdtemp(prefix="launch_overhead_")
    os.environ.update(PTO_SIM_KEEP="1", PTO_SIM_QUIET="1", TMPDIR=keep)
    tempfile.tempdir = None  # the package's directories go under `keep`

    import pypto.language as pl
    import torch
    from pypto import _paths

    @pl.jit
    def copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], c)
        return c

    a, c = torch.ones(16, 16), torch.zeros(16, 16)
    copy(a, c)  # warm-up: the chip starts
    start = time.perf_counter()
    for _ in range(args.launches):
        copy(a, c)
    calls = time.perf_counter() - start
    from pypto._chip import _close_at_exit

    _close_at_exit()  # ends the stream so that it replays
    chip = next(d for d in os.listdir(keep) if d.startswith("pypto_chip_"))
    stream = os.path.join(keep, chip, "stream.pb")
    start = time.perf_counter()
    subprocess.run([_paths.PTO_SIM, "--config", os.path.join(ROOT, "configs", "ascend.yaml"),
                    "--trace", stream], check=True, stdout=subprocess.DEVNULL)
    replay = time.perf_counter() - start
    n = args.launches
    print(f"{n} calls: {calls * 1e3 / n:.1f} ms wall each; the replay of all {n + 1} launches "
          f"{replay * 1e3:.0f} ms; overhead {(calls - replay) * 1e3 / n:.1f} ms per launch")
    shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    main()
