# Predicated dispatch in the @pl.program form (hw-native-sys/pypto@e2d0f78a
# tests/st/runtime/scheduling/test_predicated_dispatch.py). In a manual scope:
# x_producer writes x := 42, clobber writes x := 999 only when gate[0, 0] > 0
# (deps on the producer), consumer copies x to out (deps on clobber). With
# gate = 0 the clobber task retires inline and the consumer still unlocks.
# The first class uses pl.spmd_submit, the second `with pl.spmd(...) as tid`.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

ROWS, COLS = 128, 128
CFG = RunConfig(platform="a2a3sim")


@pl.program
class PredicatedSubmit:
    @pl.function(type=pl.FunctionType.InCore)
    def x_producer(self, x: pl.InOut[pl.Tensor]):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        pl.store(pl.add(pl.mul(t, 0.0), 42.0), [0, 0], x)

    @pl.function(type=pl.FunctionType.InCore)
    def clobber(self, x: pl.InOut[pl.Tensor]):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        pl.store(pl.add(pl.mul(t, 0.0), 999.0), [0, 0], x)

    @pl.function(type=pl.FunctionType.InCore)
    def consumer(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):
        pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, gate: pl.Tensor, x: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            _, xp_tid = pl.spmd_submit(self.x_producer, x, core_num=1)
            _, clobber_tid = pl.spmd_submit(self.clobber, x, core_num=1, deps=[xp_tid],
                                            predicate=(gate[0, 0] > 0))
            _, consumer_tid = pl.spmd_submit(self.consumer, x, out, core_num=1,
                                             deps=[clobber_tid])
        return out


@pl.program
class PredicatedScope:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, gate: pl.Tensor, x: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            with pl.spmd(1) as xp_tid:
                i = pl.tile.get_block_idx()
                t = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
                pl.store(pl.add(pl.mul(t, 0.0), 42.0), [i * ROWS, 0], x)
            with pl.spmd(1, deps=[xp_tid], predicate=(gate[0, 0] > 0)) as clobber_tid:
                i = pl.tile.get_block_idx()
                t = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
                pl.store(pl.add(pl.mul(t, 0.0), 999.0), [i * ROWS, 0], x)
            with pl.spmd(1, deps=[clobber_tid]) as consumer_tid:
                i = pl.tile.get_block_idx()
                pl.store(pl.load(x, [i * ROWS, 0], [ROWS, COLS]), [i * ROWS, 0], out)
        return out


for program in (PredicatedSubmit, PredicatedScope):
    for g in (0, 1):
        gate = torch.full((1, 1), g, dtype=torch.int32)
        x = torch.zeros(ROWS, COLS, dtype=torch.float32)
        out = torch.zeros(ROWS, COLS, dtype=torch.float32)
        program.main(gate, x, out, config=CFG)
        expected = torch.full((ROWS, COLS), 999.0 if g else 42.0, dtype=torch.float32)
        torch.testing.assert_close(out, expected, rtol=0, atol=0)
