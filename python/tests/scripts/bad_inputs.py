"""One bad input per run, chosen by argv[1]; each must end with exit 2."""

import sys

import pypto.language as pl
import torch
from pypto.runtime import RunConfig


@pl.jit
def copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], c)
    return c


class OnAnAccelerator(torch.Tensor):
    """A CPU tensor that says it lives on another device."""

    @property
    def device(self):
        return torch.device("cuda", 0)


case = sys.argv[1]
a = torch.ones(16, 16)
c = torch.zeros(16, 16)
if case == "platform":
    copy(a, c, config=RunConfig(platform="tpu_v4"))
elif case == "threads":
    copy(a, c, config=RunConfig(aicpu_thread_num=9))
elif case == "ring":
    copy(a, c, config=RunConfig(ring_task_window=[1, 2]))
elif case == "dtype":
    copy(a.to(torch.complex64), c)
elif case == "device":
    copy(a.as_subclass(OnAnAccelerator), c)
elif case == "argument":
    copy("not a tensor", c)
