"""A kernel script in the upstream examples' style: argparse, f-strings, dict
goldens, torch.allclose and the __main__ guard, all run by CPython."""

import argparse

import pypto.language as pl
import torch
from pypto.runtime import RunConfig

ROWS = 64
COLS = 64
SCALE = 2.0


@pl.jit
def scaled_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [ROWS, COLS])
        tb = pl.load(b, [0, 0], [ROWS, COLS])
        pl.store(pl.mul(pl.add(ta, tb), SCALE), [0, 0], c)
    return c


@pl.jit
def row_copy(src: pl.Tensor, dst: pl.Out[pl.Tensor]):
    for r in pl.range(0, ROWS, 16):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(src, [r, 0], [16, COLS])
            pl.store(t, [r, 0], dst)
    return dst


def goldens(a, b):
    return {"scaled_add": (a + b) * SCALE, "row_copy": a.clone()}


def main():
    parser = argparse.ArgumentParser(description="harness-style kernels")
    parser.add_argument("--platform", default="a2a3sim")
    parser.add_argument("--wrong-golden", action="store_true")
    args = parser.parse_args()
    config = RunConfig(platform=args.platform)
    torch.manual_seed(7)
    a = torch.randn(ROWS, COLS, dtype=torch.float32)
    b = torch.randn(ROWS, COLS, dtype=torch.float32)
    expected = goldens(a, b)
    results = {"scaled_add": torch.zeros_like(a), "row_copy": torch.zeros_like(a)}
    scaled_add(a, b, results["scaled_add"], config=config)
    row_copy(a, results["row_copy"], config=config)
    if args.wrong_golden:
        expected["scaled_add"] = a * b
    for name, got in results.items():
        want = expected[name]
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-5), (
            f"{name}: max diff = {(got - want).abs().max().item():.3g}"
        )
        print(f"{name}: OK, sum {got.sum().item():.4f}")
    print("OK")


if __name__ == "__main__":
    main()
