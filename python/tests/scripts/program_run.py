"""A @pl.program launched through pypto.runtime.run, as upstream's run() is used."""

import pypto.language as pl
import torch
from pypto.runtime import RunConfig, run

T = 32


@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):
        for j in pl.parallel(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, j * T], [T, T])
                pl.store(pl.add(t, t), [0, j * T], out)
        return out


x = torch.randn(T, 2 * T)
out = torch.zeros(T, 2 * T)
run(Twice, x, out, config=RunConfig(aicpu_thread_num=3))
assert torch.allclose(out, 2 * x), f"{(out - 2 * x).abs().max()}"
print(sorted(Twice.functions), Twice.functions["main"].func_type)
print("OK")
