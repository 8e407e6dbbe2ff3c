import torch
from pypto.runtime import RunConfig

from .kernels import double
from .shapes import COLS, ROWS

if __name__ == "__main__":
    x = torch.arange(ROWS * COLS, dtype=torch.float32).reshape(ROWS, COLS)
    y = torch.zeros_like(x)
    double(x, y, config=RunConfig())
    assert torch.allclose(y, 2 * x), f"max diff {(y - 2 * x).abs().max().item()}"
    print("OK")
