import pypto.language as pl

CHUNK = {"rows": 16, "cols": 64}


@pl.program
class P:
    @pl.function
    def stage(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(4):
                r = i * CHUNK["rows"]
                acc = pl.add(acc, x[r:r + 16, :])
            out = pl.assemble(out, acc, [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = self.stage(a, out)
        return out


k = P.main
