import sys

import torch

from .model import ROWS, scale_rows, uses_broken

if __name__ == "__main__":
    x = torch.randn(ROWS, 64)
    out = torch.zeros(ROWS, 64)
    if sys.argv[1:] == ["broken"]:
        uses_broken(x, out)
    scale_rows(x, out)
    assert torch.allclose(out, 3 * x), f"{(out - 3 * x).abs().max()}"
    print("OK")
