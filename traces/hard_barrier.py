# In-kernel hard (FFTS) barrier: the SPMD grid fills every AIV core
# (available_aiv_count(), emitted symbolically) and launches with
# sync_start=True, as the HardSyncallOccupancy verifier requires.
# Completed from the hard-barrier snippet of hw-native-sys/pypto@e2d0f78a
# docs/en/user/performance/02-runtime-overhead.md. The tensors hold 48 bands (a2a3's 48 AIV);
# block i of n takes bands i, i + n, ... so the result is the same on a chip of any size.
# Phase 1: each band b gets 2 * a; barrier; phase 2: band b reads band (b + 1) % 48, written
# by another block, so a missing barrier shows up as wrong data.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

AIV_CORES, TILE_ROWS, COLS = 48, 16, 128
ROWS = AIV_CORES * TILE_ROWS
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)


@pl.jit
def hard_barrier(a: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.spmd(pl.system.available_aiv_count(), sync_start=True):
        i = pl.tile.get_block_idx()
        n = pl.tile.get_block_num()
        for band in pl.range(i, AIV_CORES, n):
            t = pl.load(a, [band * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.mul(t, 2.0), [band * TILE_ROWS, 0], scratch)
        pl.system.cacheinvalid()
        pl.system.fence()
        pl.system.syncall(core_type=pl.KernelType.AIV)
        pl.system.cacheinvalid()
        for band in pl.range(i, AIV_CORES, n):
            u = pl.load(scratch, [((band + 1) % AIV_CORES) * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(u, [band * TILE_ROWS, 0], out)
    return out


scratch = torch.zeros(ROWS, COLS, dtype=torch.float32)
out = torch.zeros(ROWS, COLS, dtype=torch.float32)
hard_barrier(A, scratch, out, config=CFG)
torch.testing.assert_close(out, torch.roll(A * 2.0, -TILE_ROWS, 0), rtol=1e-4, atol=1e-4)
