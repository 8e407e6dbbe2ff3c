# The assertion-free fix: slice the output in the orchestration so each task
# writes its own view; the runtime derives that the regions are disjoint.
# Completed from the pl.slice snippet of hw-native-sys/pypto@e2d0f78a
# docs/en/user/performance/03-dependencies.md and its shared setup block: 4 tasks, no edges.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

N, TILE_ROWS, COLS = 4, 64, 128
ROWS = N * TILE_ROWS
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)


def check(kernel):
    out = torch.zeros(ROWS, COLS, dtype=torch.float32)
    kernel(A, out, config=CFG)
    torch.testing.assert_close(out, A * 2.0, rtol=1e-4, atol=1e-4)


TILE = TILE_ROWS


@pl.jit
def sliced(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.range(N):
        part = pl.slice(out, [TILE, COLS], [i * TILE, 0])   # a distinct region per iteration
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i * TILE, 0], [TILE, COLS])
            pl.store(pl.mul(t, 2.0), [0, 0], part)           # writes `part`, not `out`
    return out


check(sliced)
