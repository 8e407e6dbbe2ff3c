# A reduced paged attention with per-request context lengths (docs/ptoc.md,
# "Device-side control"): one SPMD block per request reads its context length
# and its block table with pl.read, walks its KV blocks with a device loop
# whose trip count is ceil(len / BLOCK), and takes the last block's valid
# width with pl.load(valid_shape=) and pl.tile.fillpad -- the ragged-tail
# idiom of hw-native-sys/pypto@e2d0f78a examples/models/06_paged_attention_dynamic.py,
# in one vector kernel: one query row per request, online softmax carried
# across blocks. Each block's time follows its own request's length.
import math

import pypto.language as pl
import torch

BATCH, HEAD_DIM, BLOCK = 4, 64, 64
CONTEXT_LENS = [100, 300, 700, 1500]
MAX_BLOCKS = 24  # per request: 1536 tokens
SCALE = 1.0 / math.sqrt(HEAD_DIM)


@pl.jit
def ragged_attention(query_t: pl.Tensor, key_cache_t: pl.Tensor, value_cache: pl.Tensor,
                     block_table: pl.Tensor, context_lens: pl.Tensor, scores: pl.Tensor,
                     out: pl.Out[pl.Tensor]):
    for b in pl.spmd(BATCH):
        ctx = pl.read(context_lens, [b])
        q = pl.load(query_t, [0, b], [HEAD_DIM, 1])  # this request's query, as a column
        mi = pl.tile.full([1, 1], pl.FP32, -1e30)
        li = pl.tile.full([1, 1], pl.FP32, 0.0)
        oi = pl.tile.full([1, HEAD_DIM], pl.FP32, 0.0)
        for bn in pl.range((ctx + BLOCK - 1) // BLOCK):
            page = pl.read(block_table, [b, bn])
            # Scores of the block's tokens: K^T [HEAD_DIM, BLOCK] times q.
            kt = pl.load(key_cache_t, [page * HEAD_DIM, 0], [HEAD_DIM, BLOCK])
            s = pl.mul(pl.col_sum(pl.row_expand_mul(kt, q)), SCALE)
            pl.store(s, [b, 0], scores)
            # Only the first `valid` tokens of the last block are real.
            valid = pl.min(BLOCK, ctx - bn * BLOCK)
            sv = pl.load(scores, [b, 0], [1, BLOCK], valid_shape=[1, valid])
            sp = pl.tile.fillpad(sv, pad_value=pl.PadValue.min)
            tmp = pl.create_tile([1, BLOCK], dtype=pl.FP32)
            m_new = pl.maximum(mi, pl.row_max(sp, tmp))
            p = pl.exp(pl.row_expand_sub(sp, m_new))
            alpha = pl.exp(pl.sub(mi, m_new))
            li = pl.add(pl.mul(alpha, li), pl.row_sum(p, tmp))
            v = pl.load(value_cache, [page * BLOCK, 0], [BLOCK, HEAD_DIM],
                        valid_shape=[valid, HEAD_DIM])
            vp = pl.tile.fillpad(v, pad_value=pl.PadValue.zero)
            pv = pl.col_sum(pl.row_expand_mul(vp, pl.reshape(p, [BLOCK, 1])))
            oi = pl.add(pl.row_expand_mul(oi, alpha), pv)
            mi = m_new
        pl.store(pl.row_expand_div(oi, li), [b, 0], out)
    return out


torch.manual_seed(0)
pages = BATCH * MAX_BLOCKS
query = torch.randn(BATCH, HEAD_DIM)
keys = torch.randn(pages, BLOCK, HEAD_DIM)  # keys[page] is one block's tokens
values = torch.randn(pages, BLOCK, HEAD_DIM)
table = torch.randperm(pages, dtype=torch.int64).to(torch.int32).reshape(BATCH, MAX_BLOCKS)
lens = torch.tensor(CONTEXT_LENS, dtype=torch.int32)
out = torch.zeros(BATCH, HEAD_DIM)
scores = torch.zeros(BATCH, BLOCK)
ragged_attention(query.t().contiguous(), keys.transpose(1, 2).reshape(pages * HEAD_DIM, BLOCK),
                 values.reshape(pages * BLOCK, HEAD_DIM), table, lens, scores, out)

expected = torch.zeros(BATCH, HEAD_DIM)
for b, n in enumerate(CONTEXT_LENS):
    rows = table[b].long()
    k = keys[rows].reshape(-1, HEAD_DIM)[:n]
    v = values[rows].reshape(-1, HEAD_DIM)[:n]
    expected[b] = torch.softmax(query[b] @ k.t() * SCALE, dim=0) @ v
torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
