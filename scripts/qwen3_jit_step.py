#!/usr/bin/env python3
"""One decode step of upstream PyPTO's Qwen3 JIT package, simulated as written.

hw-native-sys/pypto's examples/models/qwen3_jit (qwen3_decode.py and its
kernels/) is the model package kernel authors run. Its own __main__ only
lowers the program, with torch.empty arguments; this script calls
qwen3_decode itself on inputs a decode step has: the weights, caches and
activations as torch.device("meta") tensors (shapes only: the single
layer's BF16 weights are 1.5 GB) and seq_lens as a CPU tensor, since the
orchestration reads it (pl.read) to place each request's RoPE rows and
cache writes. pto_sim then times the step (timing only).

  PYPTO_EXAMPLES=<pypto checkout>/examples PYTHONPATH=build/python \\
      /usr/bin/python3 scripts/qwen3_jit_step.py [--context 4096]

Record the stream to look inside it (docs/performance.md compares it with
traces/qwen3_14b_decode.py):

  PYPTO_EXAMPLES=... PYTHONPATH=build/python build/frontend/ptoc \\
      scripts/qwen3_jit_step.py -o qwen3_jit.pb
  scripts/qwen3_anatomy.py --pto-sim build/sim/pto_sim --trace 4096=qwen3_jit.pb

The package is not part of this repository: PYPTO_EXAMPLES names a checkout's
examples/ directory (checked at hw-native-sys/pypto@e2d0f78a). Exit codes:
0 the step ran, 2 no PYPTO_EXAMPLES or a bad --context.
"""

import argparse
import os
import sys

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--context", type=int, default=int(os.environ.get("CONTEXT", "4096")),
                        help="every request's sequence length, 1..MAX_SEQ (default 4096)")
    args = parser.parse_args()
    examples = os.environ.get("PYPTO_EXAMPLES")
    if not examples or not os.path.isdir(os.path.join(examples, "models", "qwen3_jit")):
        print("qwen3_jit_step.py: set PYPTO_EXAMPLES to a pypto checkout's examples/ directory "
              "(it holds models/qwen3_jit)", file=sys.stderr)
        return 2
    sys.path.insert(0, examples)
    from models.qwen3_jit import config as c  # noqa: E402 (the checkout's package)
    from models.qwen3_jit.qwen3_decode import qwen3_decode  # noqa: E402

    if not 1 <= args.context <= c.MAX_SEQ:
        print(f"qwen3_jit_step.py: --context {args.context} is outside 1..{c.MAX_SEQ}",
              file=sys.stderr)
        return 2

    def shapes(*shape, dtype=torch.bfloat16):
        return torch.empty(shape, dtype=dtype, device="meta")

    qwen3_decode(
        shapes(c.BATCH, c.HIDDEN),  # hidden_states
        shapes(1, c.HIDDEN, dtype=torch.float32),  # input_rms_weight
        shapes(c.HIDDEN, c.HIDDEN),  # wq
        shapes(c.HIDDEN, c.KV_HIDDEN),  # wk
        shapes(c.HIDDEN, c.KV_HIDDEN),  # wv
        torch.full((c.BATCH,), args.context, dtype=torch.int32),  # seq_lens
        shapes(c.MAX_SEQ, c.HEAD_DIM, dtype=torch.float32),  # rope_cos
        shapes(c.MAX_SEQ, c.HEAD_DIM, dtype=torch.float32),  # rope_sin
        shapes(c.CACHE_ROWS, c.HEAD_DIM),  # k_cache
        shapes(c.CACHE_ROWS, c.HEAD_DIM),  # v_cache
        shapes(c.HIDDEN, c.HIDDEN),  # wo
        shapes(1, c.HIDDEN, dtype=torch.float32),  # post_rms_weight
        shapes(c.HIDDEN, c.INTERMEDIATE),  # w_gate
        shapes(c.HIDDEN, c.INTERMEDIATE),  # w_up
        shapes(c.INTERMEDIATE, c.HIDDEN),  # w_down
        shapes(c.BATCH, c.HIDDEN),  # out
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
