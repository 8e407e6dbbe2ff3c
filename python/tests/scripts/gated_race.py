# A race no schedule hides: in a manual scope an SPMD task writes y, a gate
# task writes a flag, and a predicated SPMD task with deps=[t_gate] reads and
# rewrites y. Nothing orders the two tasks on y, so the device may run the
# update before the first write lands, or after.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

BLOCKS, TILE_ROWS, COLS = 4, 64, 128
ROWS = BLOCKS * TILE_ROWS

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)


@pl.jit
def gated_race(a: pl.Tensor, flag: pl.Out[pl.Tensor], y: pl.Out[pl.Tensor]):
    with pl.manual_scope():
        with pl.spmd(BLOCKS) as t_write:
            i = pl.tile.get_block_idx()
            t = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.mul(t, 2.0), [i * TILE_ROWS, 0], y)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate") as t_gate:
            one = pl.full([1, 8], dtype=pl.INT32, value=1)
            pl.store(one, [0, 0], flag)
        with pl.spmd(BLOCKS, deps=[t_gate], predicate=(flag[0, 0] > 0)) as _update:
            i = pl.tile.get_block_idx()
            t = pl.load(y, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.add(t, 1.0), [i * TILE_ROWS, 0], y)
    return y


flag = torch.zeros(1, 8, dtype=torch.int32)
y = torch.zeros(ROWS, COLS, dtype=torch.float32)
gated_race(A, flag, y, config=RunConfig(platform="a2a3sim"))
