# The manual-scope pipeline of hw-native-sys/pypto@e2d0f78a
# tests/st/runtime/scheduling/test_manual_scope_pipeline.py in the
# @pl.program form with pl.submit. In a manual scope only deps= edges exist.
#  (a) pipeline: a 4x4 grid of 32x32 tiles; per tile stage1 scratch = 2x, then
#      stage2 out = scratch + 1 with deps=[stage1_tid]: 32 tasks, 16 edges.
#  (b) phase fence: 4 phases x 4 branches over [1024, 64] (64-row bands); every
#      task of phase p+1 waits for all 4 of phase p through a TaskId array.
#  (c) branch chains: 4 independent chains of 4 steps, each step deps=[prev].
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

N, T = 128, 32
PHASES, BRANCHES, TILE_M, BIG_N = 4, 4, 64, 64
CFG = RunConfig(platform="a2a3sim")


@pl.program
class ManualScopePipeline:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor, y: pl.Out[pl.Tensor]):
        pl.store(pl.mul(pl.load(x, [0, 0], [T, T]), 2.0), [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def plus_one(self, x: pl.Tensor, y: pl.Out[pl.Tensor]):
        pl.store(pl.add(pl.load(x, [0, 0], [T, T]), 1.0), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def pipeline(self, x: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            for i in pl.range(4):
                for j in pl.parallel(4):
                    xs = pl.slice(x, [T, T], [i * T, j * T])
                    ss = pl.slice(scratch, [T, T], [i * T, j * T])
                    os = pl.slice(out, [T, T], [i * T, j * T])
                    _, stage1_tid = pl.submit(self.double, xs, ss)
                    _, stage2_tid = pl.submit(self.plus_one, ss, os, deps=[stage1_tid])
        return out


@pl.program
class PhaseFence:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, band: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(band, [0, 0], [TILE_M, BIG_N]), 0.25), [0, 0], band)

    @pl.function(type=pl.FunctionType.Orchestration)
    def phases(self, data: pl.InOut[pl.Tensor]):
        tids = pl.array.create(BRANCHES, pl.TASK_ID)
        with pl.manual_scope():
            for p in pl.range(PHASES):
                for b in pl.parallel(BRANCHES):
                    band = pl.slice(data, [TILE_M, BIG_N], [(p * BRANCHES + b) * TILE_M, 0])
                    _, tid = pl.submit(self.bump, band, deps=[tids])
                    tids[b] = tid
        return data


@pl.program
class BranchChains:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, band: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(band, [0, 0], [TILE_M, BIG_N]), 1.0), [0, 0], band)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chains(self, data: pl.InOut[pl.Tensor]):
        with pl.manual_scope():
            for branch in pl.parallel(BRANCHES):
                prev = None
                for s in pl.range(4):
                    band = pl.slice(data, [TILE_M, BIG_N], [branch * TILE_M, 0])
                    _, prev = pl.submit(self.step, band, deps=[prev])
        return data


torch.manual_seed(0)
X = torch.randn(N, N, dtype=torch.float32)
scratch = torch.zeros(N, N, dtype=torch.float32)
out = torch.zeros(N, N, dtype=torch.float32)
ManualScopePipeline.pipeline(X, scratch, out, config=CFG)
torch.testing.assert_close(out, X * 2.0 + 1.0, rtol=1e-5, atol=1e-5)

DATA = torch.randn(PHASES * BRANCHES * TILE_M, BIG_N, dtype=torch.float32)
data = DATA.clone()
PhaseFence.phases(data, config=CFG)
torch.testing.assert_close(data, DATA + 0.25, rtol=1e-5, atol=1e-5)

CHAIN = torch.randn(BRANCHES * TILE_M, BIG_N, dtype=torch.float32)
chain = CHAIN.clone()
BranchChains.chains(chain, config=CFG)
torch.testing.assert_close(chain, CHAIN + 4.0, rtol=1e-5, atol=1e-5)
