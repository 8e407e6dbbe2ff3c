# Double buffering an in-core loop (the technique of hw-native-sys/pypto@e2d0f78a
# docs/en/user/performance/04-incore.md, "Double buffering"): eight tiles go
# load -> exp -> store. Single-buffered, each load waits until exp has read
# the previous tile out of the one buffer; with pl.pipeline(stage=2) the body
# is cloned, each clone has its own buffers, and the next tile's load overlaps
# this one's compute and store. With explicit slots (pl.MemRef("name",
# slots=2)[i % 2], the page's "With explicit slots") the loop stays
# sequential and only the slotted buffer's same-buffer hazard goes:
# explicit_slots slots the loaded tile only, and the exp result's one buffer
# still makes the next exp wait for this store, so it is no faster than
# single_buffer; explicit_slots_both slots the result too. Each kernel reads
# its own input, so none finds another's tiles in L2 (docs/pipes.md).
import pypto.language as pl
import torch

TILES, TILE_ROWS, COLS = 8, 64, 128
ROWS = TILES * TILE_ROWS


@pl.jit
def single_buffer(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(TILES):
            t = pl.load(src, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.exp(t), [i * TILE_ROWS, 0], dst)
    return dst


@pl.jit
def pipelined(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(TILES, stage=2):
            t = pl.load(src, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.exp(t), [i * TILE_ROWS, 0], dst)
    return dst


@pl.jit
def explicit_slots(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(TILES):
            t: pl.Tile[[TILE_ROWS, COLS], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = (
                pl.load(src, [i * TILE_ROWS, 0], [TILE_ROWS, COLS], target_memory=pl.Mem.Vec)
            )
            pl.store(pl.exp(t), [i * TILE_ROWS, 0], dst)
    return dst


@pl.jit
def explicit_slots_both(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(TILES):
            t: pl.Tile[[TILE_ROWS, COLS], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = (
                pl.load(src, [i * TILE_ROWS, 0], [TILE_ROWS, COLS], target_memory=pl.Mem.Vec)
            )
            e: pl.Tile[[TILE_ROWS, COLS], pl.FP32, pl.MemRef("out", slots=2)[i % 2], pl.Mem.Vec] = (
                pl.exp(t)
            )
            pl.store(e, [i * TILE_ROWS, 0], dst)
    return dst


torch.manual_seed(0)
for kernel in (single_buffer, pipelined, explicit_slots, explicit_slots_both):
    x = torch.randn(ROWS, COLS, dtype=torch.float32)
    y = torch.zeros(ROWS, COLS, dtype=torch.float32)
    kernel(x, y)
    torch.testing.assert_close(y, torch.exp(x), rtol=1e-4, atol=1e-4)
