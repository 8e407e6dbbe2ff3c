import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(self, x: pl.Tensor, y: pl.Out[pl.Tensor]):
        pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            _, t = pl.submit(self.copy, a, out)
            pl.system.task_dummy(deps=[t])
        return out


k = P.main
