# The three manual-scope topologies of manual_scope_pipeline.py written with
# `with pl.at(..., deps=[...]) as tid:` (hw-native-sys/pypto@e2d0f78a
# tests/st/runtime/scheduling/test_pl_at_deps_pipeline.py), in the
# @pl.program form: the pipeline (32 tasks, 16 edges), the phase fence (every
# task of phase p+1 after all of phase p) and 4 independent branch chains.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

N, T = 128, 32
PHASES, BRANCHES, TILE_M, BIG_N = 4, 4, 64, 64
CFG = RunConfig(platform="a2a3sim")


@pl.program
class PlAtDepsPipeline:
    @pl.function(type=pl.FunctionType.Orchestration)
    def pipeline(self, x: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            for i in pl.range(4):
                for j in pl.parallel(4):
                    with pl.at(level=pl.Level.CORE_GROUP) as stage1_tid:
                        t = pl.load(x, [i * T, j * T], [T, T])
                        pl.store(pl.mul(t, 2.0), [i * T, j * T], scratch)
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[stage1_tid]) as stage2_tid:
                        s = pl.load(scratch, [i * T, j * T], [T, T])
                        pl.store(pl.add(s, 1.0), [i * T, j * T], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def phases(self, data: pl.InOut[pl.Tensor]):
        tids = pl.array.create(BRANCHES, pl.TASK_ID)
        with pl.manual_scope():
            for p in pl.range(PHASES):
                for b in pl.parallel(BRANCHES):
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[tids]) as tid:
                        row = (p * BRANCHES + b) * TILE_M
                        t = pl.load(data, [row, 0], [TILE_M, BIG_N])
                        pl.store(pl.add(t, 0.25), [row, 0], data)
                    tids[b] = tid
        return data

    @pl.function(type=pl.FunctionType.Orchestration)
    def chains(self, data: pl.InOut[pl.Tensor]):
        with pl.manual_scope():
            for branch in pl.parallel(BRANCHES):
                prev = None
                for s in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[prev]) as prev:
                        t = pl.load(data, [branch * TILE_M, 0], [TILE_M, BIG_N])
                        pl.store(pl.add(t, 1.0), [branch * TILE_M, 0], data)
        return data


torch.manual_seed(0)
X = torch.randn(N, N, dtype=torch.float32)
scratch = torch.zeros(N, N, dtype=torch.float32)
out = torch.zeros(N, N, dtype=torch.float32)
PlAtDepsPipeline.pipeline(X, scratch, out, config=CFG)
torch.testing.assert_close(out, X * 2.0 + 1.0, rtol=1e-5, atol=1e-5)

DATA = torch.randn(PHASES * BRANCHES * TILE_M, BIG_N, dtype=torch.float32)
data = DATA.clone()
PlAtDepsPipeline.phases(data, config=CFG)
torch.testing.assert_close(data, DATA + 0.25, rtol=1e-5, atol=1e-5)

CHAIN = torch.randn(BRANCHES * TILE_M, BIG_N, dtype=torch.float32)
chain = CHAIN.clone()
PlAtDepsPipeline.chains(chain, config=CFG)
torch.testing.assert_close(chain, CHAIN + 4.0, rtol=1e-5, atol=1e-5)
