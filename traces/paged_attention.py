# The SPMD paged attention of hw-native-sys/pypto@e2d0f78a
# examples/models/09_paged_attention_spmd.py with its defaults: batch 4,
# 16 heads of 128, block size 128, context 8192 (64 active KV blocks per
# request of 256), q_tile 16. Per KV block bn, four SPMD tasks of 4 blocks
# (one batch item per block): QK matmul (sync_start) -> softmax prepare ->
# PV matmul -> online update, then one normalize: 64 x 4 + 1 = 257 tasks.
# Auto scope, no explicit deps: every edge comes from the tensor map. Each
# bn iteration's QK / softmax / PV tasks use fresh buffers (independent of
# other iterations); the online updates chain through mi / li / oi.
#
# Built with `ptoc --timing-only`: the online softmax needs row broadcasts
# (row_expand_*), which ptoc's tile ops do not have, so the update works on
# the same shapes with elementwise ops and the trace carries no checks.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

BATCH, HEADS, HEAD_DIM, BLOCK = 4, 16, 128, 128
MAX_MODEL_LEN, CONTEXT, Q_TILE = 32768, 8192, 16
MAX_BLOCKS = MAX_MODEL_LEN // BLOCK  # 256 per request
ACTIVE = CONTEXT // BLOCK  # 64
CORES = 4
ROWS = BATCH * Q_TILE  # 64: one 16-row q tile per batch item
CFG = RunConfig(platform="a2a3")


@pl.jit
def paged_attention(query: pl.Tensor, key_cache: pl.Tensor, value_cache: pl.Tensor,
                    out: pl.Out[pl.Tensor]):
    mi = pl.create_tensor([ROWS, 1], pl.FP32)
    li = pl.create_tensor([ROWS, 1], pl.FP32)
    oi = pl.create_tensor([ROWS, HEAD_DIM], pl.FP32)
    for bn in pl.range(ACTIVE):
        sij = pl.create_tensor([ROWS, BLOCK], pl.FP32)
        pij = pl.create_tensor([ROWS, BLOCK], pl.BF16)
        mij = pl.create_tensor([ROWS, 1], pl.FP32)
        lij = pl.create_tensor([ROWS, 1], pl.FP32)
        oi_new = pl.create_tensor([ROWS, HEAD_DIM], pl.FP32)
        with pl.spmd(CORES, sync_start=True, name_hint="SpmdQkMatmul"):
            b = pl.tile.get_block_idx()
            q = pl.load(query, [b * Q_TILE, 0], [Q_TILE, HEAD_DIM])
            k = pl.load(key_cache, [(b * MAX_BLOCKS + bn) * BLOCK, 0], [BLOCK, HEAD_DIM])
            pl.store(pl.matmul(q, pl.tile.transpose_view(k), out_dtype=pl.FP32), [b * Q_TILE, 0], sij)
        with pl.spmd(CORES, name_hint="SpmdSoftmaxPrepare"):
            b = pl.tile.get_block_idx()
            s = pl.mul(pl.load(sij, [b * Q_TILE, 0], [Q_TILE, BLOCK]), 0.08838834764831845)
            tmp = pl.create_tile([Q_TILE, BLOCK], dtype=pl.FP32)  # the reductions' scratch
            m = pl.row_max(s, tmp)
            p = pl.exp(s)
            pl.store(m, [b * Q_TILE, 0], mij)
            pl.store(pl.row_sum(p, tmp), [b * Q_TILE, 0], lij)
            pl.store(pl.cast(p, pl.BF16), [b * Q_TILE, 0], pij)
        with pl.spmd(CORES, name_hint="SpmdPvMatmul"):
            b = pl.tile.get_block_idx()
            p = pl.load(pij, [b * Q_TILE, 0], [Q_TILE, BLOCK])
            v = pl.load(value_cache, [(b * MAX_BLOCKS + bn) * BLOCK, 0], [BLOCK, HEAD_DIM])
            pl.store(pl.matmul(p, v, out_dtype=pl.FP32), [b * Q_TILE, 0], oi_new)
        with pl.spmd(CORES, name_hint="SpmdOnlineUpdate"):
            b = pl.tile.get_block_idx()
            m_new = pl.load(mij, [b * Q_TILE, 0], [Q_TILE, 1])
            m_old = pl.load(mi, [b * Q_TILE, 0], [Q_TILE, 1])
            m = pl.maximum(m_old, m_new)
            alpha = pl.exp(pl.sub(m_old, m))
            beta = pl.exp(pl.sub(m_new, m))
            l = pl.add(pl.mul(pl.load(li, [b * Q_TILE, 0], [Q_TILE, 1]), alpha),
                       pl.mul(pl.load(lij, [b * Q_TILE, 0], [Q_TILE, 1]), beta))
            o = pl.add(pl.load(oi, [b * Q_TILE, 0], [Q_TILE, HEAD_DIM]),
                       pl.load(oi_new, [b * Q_TILE, 0], [Q_TILE, HEAD_DIM]))
            pl.store(m, [b * Q_TILE, 0], mi)
            pl.store(l, [b * Q_TILE, 0], li)
            pl.store(o, [b * Q_TILE, 0], oi)
    with pl.spmd(CORES, name_hint="SpmdNormalize"):
        b = pl.tile.get_block_idx()
        o = pl.load(oi, [b * Q_TILE, 0], [Q_TILE, HEAD_DIM])
        pl.load(li, [b * Q_TILE, 0], [Q_TILE, 1])
        pl.store(pl.mul(o, 1.0), [b * Q_TILE, 0], out)
    return out


# The operands are shapes without contents (this workload is timing-only:
# torch.device("meta") under python3, ptoc --timing-only).
DEVICE = "meta"
torch.manual_seed(0)
query = torch.randn(BATCH * HEADS, HEAD_DIM, dtype=torch.bfloat16, device=DEVICE)
key_cache = torch.randn(BATCH * MAX_BLOCKS * BLOCK, HEAD_DIM, dtype=torch.bfloat16, device=DEVICE)
value_cache = torch.randn(BATCH * MAX_BLOCKS * BLOCK, HEAD_DIM, dtype=torch.bfloat16, device=DEVICE)
out = torch.zeros(BATCH * HEADS, HEAD_DIM, dtype=torch.float32, device=DEVICE)
paged_attention(query, key_cache, value_cache, out, config=CFG)
