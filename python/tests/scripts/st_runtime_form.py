"""Programs of our own in the form of upstream's tests/st/runtime files
(hw-native-sys/pypto@e2d0f78a): an Opaque entry whose pl.at scopes are the
tasks, a kernel built by a factory and held under another name, pl.submit, attrs={"split": ...}, module dicts, and the
upstream import paths those files use."""

import sys

import pypto.language as pl
import pypto.runtime
import torch
from pypto.pypto_core.passes import MemoryPlanner
from pypto.runtime.runner import RunConfig

M, N = 64, 64
TILE = {"rows": 16, "cols": N}
CFG = RunConfig(platform="a2a3sim")


@pl.program
class OpaqueEntry:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[M, N], pl.FP32],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            y = pl.maximum(x, pl.muls(x, -1.0))
            out = pl.assemble(out, y, [0, 0])
        for r in pl.range(0, M, TILE["rows"]):
            with pl.at(level=pl.Level.CORE_GROUP):
                band = pl.adds(out[r:r + TILE["rows"], :], 1.0)
                out = pl.assemble(out, band, [r, 0])
        return out


def make_scale_kernel(factor):
    @pl.function(type=pl.FunctionType.InCore)
    def scale(x: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        for b in pl.range(M // TILE["rows"]):
            t = pl.load(x, [b * TILE["rows"], 0], [TILE["rows"], TILE["cols"]])
            pl.store(pl.muls(t, factor), [b * TILE["rows"], 0], out)
        return out

    return scale


def build_program(factor):
    _scale = make_scale_kernel(factor)

    @pl.program
    class Submitted:
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
        def mm(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
               out: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
            acc = pl.matmul(pl.load(a, [0, 0], [M, N]), pl.load(b, [0, 0], [N, N]),
                            out_dtype=pl.FP32)
            pl.store(pl.adds(acc, 1.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                 c: pl.Out[pl.Tensor[[M, N], pl.FP32]], d: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
            c = _scale(a, c)
            d, _ = pl.submit(self.mm, c, b, d)
            return d

    return Submitted


torch.manual_seed(0)
x = torch.randn(M, N)
out = torch.zeros(M, N)
OpaqueEntry.main(x, out, config=CFG)
torch.testing.assert_close(out, x.abs() + 1)

# Upstream's compiled-program call: run() without tensors, then the inputs
# only; the pl.Out argument is allocated and returned.
compiled = pypto.runtime.run(OpaqueEntry, config=CFG)
made = compiled(x)
assert isinstance(made, torch.Tensor) and made.shape == (M, N), made
torch.testing.assert_close(made, x.abs() + 1)

program = build_program(0.5)
a, b = torch.randn(M, N), torch.randn(N, N)
c, d = torch.zeros(M, N), torch.zeros(M, N)
program.main(a, b, c, d, config=CFG)
torch.testing.assert_close(c, a * 0.5)
torch.testing.assert_close(d, (a * 0.5) @ b + 1, rtol=1e-4, atol=1e-4)
print(f"st form: ok ({MemoryPlanner.PYPTO.value} planner named, {len(program.functions)} functions)")
sys.exit(0)
