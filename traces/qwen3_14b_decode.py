# The Qwen3-14B decode step of hw-native-sys/pypto-lib@634e77bd
# models/qwen3_14b/decode_fwd.py: token embedding, one 16-row window
# (pa_tiling, copy_hidden, x_gamma0), 40 decoder layers of 277 submissions
# each, the final RMSNorm + LM head and greedy sampling. Batch 16 (= the
# padded M of every matmul), context 3300 tokens, BF16 weights and KV cache.
#
# Built with `ptoc --timing-only` (the weights are ~26 GiB): tensors are shapes
# only and pto_sim times every task without computing it. Each task's work is
# written with supported tile ops of the source kernel's shapes and dtypes;
# where ptoc has no construct the nearest one of the same cost stands in:
#  * matmul accumulation over K chunks: pl.matmul_acc into one L0C
#    accumulator (pl.tile.create, no contents yet) in a pl.pipeline(stage=2)
#    loop, init_cond=(kk == 0) overwriting at the first chunk (upstream
#    examples/models/qwen3_jit/kernels/projection.py at
#    hw-native-sys/pypto@e2d0f78a writes that as `if k0 == 0: matmul else:
#    matmul_acc`; ptoc has no device-side `if`), stored once after the K
#    loop (matmul_k_loop).
#    PIPELINED = False keeps the earlier single-buffered pl.range form, whose
#    every chunk is a plain pl.matmul (the time is every step's, the value
#    the last step's): the comparison workload regress/ derives from this
#    file;
#  * per-column gamma and per-row inv_rms broadcasts: a scalar pl.mul of the
#    same tile shape (the gamma row is 1/16 of the tile's bytes);
#  * zero-seeding: a loaded tile times 0.0, stored as often as the source
#    (also the zero that starts each RMS sum of squares);
#  * the fused attention (CANN FusedInferAttentionScore), PA tiling and the
#    top-k sampler are external kernels with a cost summary.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

# >>> model sizes (regress/qwen3_layer_small.sizes replaces this block for the
# functional one-layer copy the runtime suite runs)
LAYERS = 40
HIDDEN, INTER, VOCAB = 5120, 17408, 152064
HEADS, KV_HEADS, HEAD_DIM = 40, 8, 128
KV_DIM = KV_HEADS * HEAD_DIM  # 1024
BATCH = 16  # BATCH_PAD: the M of every matmul
CONTEXT, MAX_SEQ, PAGE = 3300, 4096, 128

# Tiling constants of constants.py.
TN, TK = 256, 256
QKV_K_SLICE, QKV_K_CHUNKS, QKV_OK, N_SUB = 1024, 4, 5, 2
Q_ON, KV_ON = 10, 2
OUT_TN, OUT_TK, OUT_INNER_TK, K_SPLITS_OUT = 512, 1024, 64, 5
N_OUT_DIRECT_BLOCKS = 24
OUT_TASKS = K_SPLITS_OUT * (HIDDEN // OUT_TN)  # 50
MLP_TN, MLP_K_SLICE, MLP_INNER_TK, K_SPLITS_MLP = 1024, 1024, 64, 5
MLP_ON, GATE_UP_SPMD_N = INTER // 1024, 6  # 17 column tiles, 6 of them as one SPMD task
DOWN_TN, DOWN_TK, DOWN_ON, K_SPLITS = 1024, 64, 5, INTER // 1024
XG_BLOCKS, LM_BLOCKS = 5, 24
CHUNK = 256  # vector-side column chunk
LM_CHUNK, LM_TK = 192, 512
LM_CHUNKS_PER_BLOCK = VOCAB // LM_CHUNK // LM_BLOCKS  # 33
SAMPLE_CHUNKS = (VOCAB + 511) // 512  # 297
# The weights and caches are shapes without contents (40 layers of BF16 would
# not fit in memory): torch.device("meta") under python3, and ptoc compiles
# this file --timing-only.
DEVICE = "meta"
# <<< model sizes

CFG = RunConfig(platform="a2a3")
PIPELINED = True  # the projections' K loops double-buffered (see the header)


# --- external kernels: known by their cost only ------------------------------
@pl.jit.extern(core_type=pl.KernelType.AIV, fixed_cycles=3300,
               bytes_in=BATCH * 4, bytes_out=BATCH * (MAX_SEQ // PAGE) * 4)
def pa_tiling(context_lens: pl.Tensor, pa_meta: pl.Out[pl.Tensor]):
    ...


# QK-norm + RoPE + KV-cache write + paged attention over CONTEXT tokens for
# BATCH rows, 40 query heads on 8 KV heads; one in-kernel cube<->vector barrier.
# The vendor kernel takes every cluster of the chip (24 on a2a3), co-resident
# (sync_start) for its barrier; its work is the call's, split over them.
@pl.jit.extern(core_type=pl.KernelType.MIX, block_num=pl.system.available_cluster_count(),
               barrier_phases=1,
               cube_flops=2 * 2 * BATCH * HEADS * CONTEXT * HEAD_DIM,
               vector_elements=6 * BATCH * HEADS * CONTEXT + 8 * BATCH * (HIDDEN + 2 * KV_DIM),
               bytes_in=2 * BATCH * CONTEXT * KV_DIM * 2 + BATCH * (HIDDEN + 2 * KV_DIM) * 4,
               bytes_out=BATCH * HIDDEN * 2 + 2 * BATCH * KV_DIM * 2)
def fa_fused(q_proj: pl.Tensor, k_proj: pl.Tensor, v_proj: pl.Tensor, inv_rms: pl.Tensor,
             pa_meta: pl.Tensor, k_cache: pl.InOut[pl.Tensor], v_cache: pl.InOut[pl.Tensor],
             attn_out: pl.Out[pl.Tensor]):
    ...


# Top-k over the vocabulary of one row (sort32 / mrgsort over 297 chunks of 512).
@pl.jit.extern(core_type=pl.KernelType.AIV, vector_elements=4 * SAMPLE_CHUNKS * 512,
               bytes_in=VOCAB * 4, bytes_out=8)
def greedy_sample(logits: pl.Tensor, tokens: pl.Out[pl.Tensor]):
    ...


# --- helpers spliced into the orchestration ----------------------------------
@pl.jit.inline
def zero_columns(dst, col_tiles, width):
    # Zero `col_tiles` tiles of [BATCH, width] of `dst` (a loaded tile x 0.0).
    z = pl.mul(pl.load(dst, [0, 0], [BATCH, width]), 0.0)
    for c in pl.range(col_tiles):
        pl.store(z, [0, c * width], dst)


@pl.jit.inline
def sum_squares(src, chunks):
    # inv_rms = rsqrt(mean of squares + eps) per row, over `chunks` column
    # chunks of [BATCH, CHUNK] FP32; `acc` is carried across the loop.
    acc = pl.mul(pl.load(src, [0, 0], [BATCH, 1]), 0.0)
    tmp = pl.create_tile([BATCH, CHUNK], dtype=pl.FP32)  # the row sum's scratch
    for c in pl.range(chunks):
        t = pl.load(src, [0, c * CHUNK], [BATCH, CHUNK])
        acc = pl.add(acc, pl.row_sum(pl.mul(t, t), tmp))
    return pl.rsqrt(pl.add(pl.mul(acc, 1.0 / HIDDEN), 1e-6))


@pl.jit.inline
def matmul_k_loop(a, a_col, w, w_row, w_col, width, k_chunks, k_step, dst, dst_col):
    # dst[:, dst_col:+width] += a[:, a_col:+K] @ w[w_row:+K, w_col:+width], K in
    # k_chunks steps of k_step (BF16 in, FP32 accumulate, atomic add out).
    if PIPELINED:
        acc = pl.tile.create([BATCH, width], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kk in pl.pipeline(k_chunks, stage=2):
            x = pl.load(a, [0, a_col + kk * k_step], [BATCH, k_step])
            y = pl.load(w, [w_row + kk * k_step, w_col], [k_step, width])
            acc = pl.matmul_acc(acc, x, y, init_cond=(kk == 0))
    else:
        for kk in pl.range(k_chunks):
            x = pl.load(a, [0, a_col + kk * k_step], [BATCH, k_step])
            y = pl.load(w, [w_row + kk * k_step, w_col], [k_step, width])
            acc = pl.matmul(x, y, out_dtype=pl.FP32)
    pl.store(acc, [0, dst_col], dst, atomic=pl.AtomicType.Add)


@pl.jit.inline
def decode_layer(layer, x, normed, prev_normed_tid, wq, wk, wv, wo, wgate, wup, wdown,
                 k_cache, v_cache, pa_meta, pa_tid):
    q_proj = pl.create_tensor([BATCH, HIDDEN], pl.FP32)
    k_proj = pl.create_tensor([BATCH, KV_DIM], pl.FP32)
    v_proj = pl.create_tensor([BATCH, KV_DIM], pl.FP32)
    inv_rms = pl.create_tensor([BATCH, 1], pl.FP32)
    attn_out = pl.create_tensor([BATCH, HIDDEN], pl.BF16)
    attn_proj = pl.create_tensor([BATCH, HIDDEN], pl.FP32)
    gate_acc = pl.create_tensor([BATCH, INTER], pl.FP32)
    up_acc = pl.create_tensor([BATCH, INTER], pl.FP32)
    down_acc = pl.create_tensor([BATCH, HIDDEN], pl.FP32)
    post_norm = pl.create_tensor([BATCH, HIDDEN], pl.FP32)
    mlp_norm_in = pl.create_tensor([BATCH, HIDDEN], pl.BF16)
    post_inv_rms = pl.create_tensor([BATCH, 1], pl.FP32)
    mlp_tile = pl.create_tensor([BATCH, INTER], pl.BF16)
    w_row = layer * HIDDEN
    out_tids = pl.array.create(OUT_TASKS, pl.TASK_ID)
    gate_tids = pl.array.create(MLP_ON * K_SPLITS_MLP, pl.TASK_ID)
    up_tids = pl.array.create(MLP_ON * K_SPLITS_MLP, pl.TASK_ID)
    silu_tids = pl.array.create(K_SPLITS, pl.TASK_ID)
    down_tids = pl.array.create(DOWN_ON * K_SPLITS, pl.TASK_ID)
    with pl.manual_scope():
        seed_dummy = pl.system.task_dummy(deps=[])
        with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True,
                   name_hint="attn_out_seed") as attn_seed_tid:
            # Rows b >= batch only: none at batch 16 beyond one tile's pass.
            pl.store(pl.mul(pl.load(attn_out, [0, 0], [BATCH, CHUNK]), 0.0), [0, 0], attn_out)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev_normed_tid[0], seed_dummy],
                   allow_early_resolve=True, name_hint="rms_recip") as rms_tid:
            pl.store(sum_squares(x, HIDDEN // CHUNK), [0, 0], inv_rms)
        with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True,
                   name_hint="q_seed") as q_seed_tid:
            zero_columns(q_proj, Q_ON, N_SUB * TN)
        with pl.spmd(Q_ON * QKV_OK, deps=[prev_normed_tid[0], q_seed_tid],
                     allow_early_resolve=True, name_hint="q_proj") as q_tid:
            b = pl.tile.get_block_idx()
            for sub in range(N_SUB):
                col = (b // QKV_OK) * N_SUB * TN + sub * TN
                matmul_k_loop(normed, (b % QKV_OK) * QKV_K_SLICE, wq,
                              w_row + (b % QKV_OK) * QKV_K_SLICE, col, TN, QKV_K_CHUNKS, TK,
                              q_proj, col)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev_normed_tid[0], seed_dummy],
                   allow_early_resolve=False, name_hint="kv_seed") as kv_seed_tid:
            zero_columns(k_proj, KV_ON, N_SUB * TN)
            zero_columns(v_proj, KV_ON, N_SUB * TN)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[prev_normed_tid[0], seed_dummy],
                   allow_early_resolve=True, name_hint="mlp_out_seed") as mlp_seed_tid:
            zero_columns(down_acc, HIDDEN // 512, 512)
            zero_columns(gate_acc, INTER // 512, 512)
            zero_columns(up_acc, INTER // 512, 512)
            zero_columns(attn_proj, HIDDEN // 512, 512)
        with pl.spmd(KV_ON * QKV_OK, deps=[kv_seed_tid], allow_early_resolve=True,
                     name_hint="k_proj") as k_tid:
            b = pl.tile.get_block_idx()
            for sub in range(N_SUB):
                col = (b // QKV_OK) * N_SUB * TN + sub * TN
                matmul_k_loop(normed, (b % QKV_OK) * QKV_K_SLICE, wk,
                              w_row + (b % QKV_OK) * QKV_K_SLICE, col, TN, QKV_K_CHUNKS, TK,
                              k_proj, col)
        with pl.spmd(KV_ON * QKV_OK, deps=[kv_seed_tid], allow_early_resolve=True,
                     name_hint="v_proj") as v_tid:
            b = pl.tile.get_block_idx()
            for sub in range(N_SUB):
                col = (b // QKV_OK) * N_SUB * TN + sub * TN
                matmul_k_loop(normed, (b % QKV_OK) * QKV_K_SLICE, wv,
                              w_row + (b % QKV_OK) * QKV_K_SLICE, col, TN, QKV_K_CHUNKS, TK,
                              v_proj, col)
        fa_tid = fa_fused(q_proj, k_proj, v_proj, inv_rms, pa_meta,
                          pl.slice(k_cache, [BATCH * MAX_SEQ, KV_DIM], [layer * BATCH * MAX_SEQ, 0]),
                          pl.slice(v_cache, [BATCH * MAX_SEQ, KV_DIM], [layer * BATCH * MAX_SEQ, 0]),
                          attn_out,
                          deps=[q_tid, k_tid, v_tid, rms_tid, pa_tid[0], attn_seed_tid,
                                mlp_seed_tid],
                          sync_start=True, allow_early_resolve=True, name_hint="fa_fused")

        # Output projection: 50 (n, k) tiles; 26 single tasks behind a dummy,
        # 24 as one SPMD task straight after the attention.
        out_dummy = pl.system.task_dummy(deps=[fa_tid])
        for idx in pl.parallel(OUT_TASKS - N_OUT_DIRECT_BLOCKS):
            with pl.at(level=pl.Level.CORE_GROUP, deps=[out_dummy], name_hint="out_proj") as t:
                n, k = idx // K_SPLITS_OUT, idx % K_SPLITS_OUT
                matmul_k_loop(attn_out, k * OUT_TK, wo, w_row + k * OUT_TK, n * OUT_TN, OUT_TN,
                              OUT_TK // OUT_INNER_TK, OUT_INNER_TK, attn_proj, n * OUT_TN)
            out_tids[idx] = t
        with pl.spmd(N_OUT_DIRECT_BLOCKS, deps=[fa_tid], name_hint="out_proj") as out_spmd_tid:
            idx = pl.tile.get_block_idx() + (OUT_TASKS - N_OUT_DIRECT_BLOCKS)
            n, k = idx // K_SPLITS_OUT, idx % K_SPLITS_OUT
            matmul_k_loop(attn_out, k * OUT_TK, wo, w_row + k * OUT_TK, n * OUT_TN, OUT_TN,
                          OUT_TK // OUT_INNER_TK, OUT_INNER_TK, attn_proj, n * OUT_TN)
        for idx in range(OUT_TASKS - N_OUT_DIRECT_BLOCKS, OUT_TASKS):
            out_tids[idx] = out_spmd_tid

        # Residual add + post-attention RMSNorm input, 1024 columns per task.
        cast_tids = pl.array.create(K_SPLITS_MLP, pl.TASK_ID)
        for c in pl.unroll(K_SPLITS_MLP):
            with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True,
                       deps=[out_tids[n * K_SPLITS_OUT + k] for n in (2 * c, 2 * c + 1)
                             for k in range(K_SPLITS_OUT)],
                       name_hint="residual_rms_cast") as t:
                for j in pl.range(MLP_K_SLICE // CHUNK):
                    col = c * MLP_K_SLICE + j * CHUNK
                    r = pl.add(pl.load(x, [0, col], [BATCH, CHUNK]),
                               pl.load(attn_proj, [0, col], [BATCH, CHUNK]))
                    pl.store(r, [0, col], post_norm)
                    pl.store(pl.cast(pl.mul(r, 1.0), pl.BF16), [0, col], mlp_norm_in)
            cast_tids[c] = t
        with pl.at(level=pl.Level.CORE_GROUP, deps=[out_tids],
                   name_hint="post_rms_reduce") as post_rms_tid:
            # Its own residual sum (x + attn_proj): the casts are not its producers.
            acc = pl.mul(pl.load(x, [0, 0], [BATCH, 1]), 0.0)
            tmp = pl.create_tile([BATCH, CHUNK], dtype=pl.FP32)
            for c in pl.range(HIDDEN // CHUNK):
                r = pl.add(pl.load(x, [0, c * CHUNK], [BATCH, CHUNK]),
                           pl.load(attn_proj, [0, c * CHUNK], [BATCH, CHUNK]))
                acc = pl.add(acc, pl.row_sum(pl.mul(r, r), tmp))
            pl.store(pl.rsqrt(pl.add(pl.mul(acc, 1.0 / HIDDEN), 1e-6)), [0, 0], post_inv_rms)

        # Gate and up projections: per K slice, 6 column tiles as one SPMD task
        # each, the other 11 as single tasks released late through a dummy.
        gate_late = pl.array.create(K_SPLITS_MLP, pl.TASK_ID)
        up_late = pl.array.create(K_SPLITS_MLP, pl.TASK_ID)
        for k in pl.unroll(K_SPLITS_MLP):
            gate_late[k] = pl.system.task_dummy(deps=[cast_tids[k]])
            up_late[k] = pl.system.task_dummy(deps=[cast_tids[k]])
            for w, acc, tids, name in ((wgate, gate_acc, gate_tids, "gate_proj"),
                                       (wup, up_acc, up_tids, "up_proj")):
                with pl.spmd(GATE_UP_SPMD_N, deps=[cast_tids[k]], name_hint=name) as t:
                    n = pl.tile.get_block_idx()
                    matmul_k_loop(mlp_norm_in, k * MLP_K_SLICE, w, w_row + k * MLP_K_SLICE,
                                  n * MLP_TN, MLP_TN, MLP_K_SLICE // MLP_INNER_TK, MLP_INNER_TK,
                                  acc, n * MLP_TN)
                for n in range(GATE_UP_SPMD_N):
                    tids[n * K_SPLITS_MLP + k] = t
        for n in pl.parallel(GATE_UP_SPMD_N, MLP_ON):
            for k in pl.range(K_SPLITS_MLP):
                for w, acc, tids, name, late in ((wgate, gate_acc, gate_tids, "gate_proj", gate_late),
                                                 (wup, up_acc, up_tids, "up_proj", up_late)):
                    with pl.at(level=pl.Level.CORE_GROUP, deps=[late[k]], name_hint=name) as t:
                        matmul_k_loop(mlp_norm_in, k * MLP_K_SLICE, w, w_row + k * MLP_K_SLICE,
                                      n * MLP_TN, MLP_TN, MLP_K_SLICE // MLP_INNER_TK,
                                      MLP_INNER_TK, acc, n * MLP_TN)
                    tids[n * K_SPLITS_MLP + k] = t

        # SiLU(gate) * up, scaled by the post-attention inv_rms, per 1024 columns.
        for n in pl.parallel(MLP_ON):
            with pl.at(level=pl.Level.CORE_GROUP,
                       deps=[post_rms_tid] + [gate_tids[n * K_SPLITS_MLP + k]
                                              for k in range(K_SPLITS_MLP)]
                       + [up_tids[n * K_SPLITS_MLP + k] for k in range(K_SPLITS_MLP)],
                       name_hint="silu") as t:
                for j in pl.range(MLP_TN // CHUNK):
                    col = n * MLP_TN + j * CHUNK
                    g = pl.mul(pl.load(gate_acc, [0, col], [BATCH, CHUNK]), 1.0)
                    sig = pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))
                    u = pl.load(up_acc, [0, col], [BATCH, CHUNK])
                    pl.store(pl.cast(pl.mul(pl.mul(g, sig), u), pl.BF16), [0, col], mlp_tile)
            silu_tids[n] = t

        # Down projection: 5 column tiles x 17 K slices, each after its SiLU.
        for n in pl.parallel(DOWN_ON):
            for k in pl.range(K_SPLITS):
                with pl.at(level=pl.Level.CORE_GROUP, deps=[silu_tids[k]],
                           allow_early_resolve=True, name_hint="down_proj") as t:
                    matmul_k_loop(mlp_tile, k * 1024, wdown, layer * INTER + k * 1024,
                                  n * DOWN_TN, DOWN_TN, 1024 // DOWN_TK, DOWN_TK, down_acc,
                                  n * DOWN_TN)
                down_tids[n * K_SPLITS + k] = t

    # Outside the manual scope: the residual and the next layer's normed input,
    # tracked automatically on x / normed besides the explicit fan-in.
    with pl.spmd(XG_BLOCKS, deps=[down_tids[i] for i in range(DOWN_ON * K_SPLITS)],
                 allow_early_resolve=True, name_hint="dcr_xgamma") as dcr_tid:
        col = pl.tile.get_block_idx() * 1024
        for j in pl.range(1024 // CHUNK):
            r = pl.add(pl.load(down_acc, [0, col + j * CHUNK], [BATCH, CHUNK]),
                       pl.load(post_norm, [0, col + j * CHUNK], [BATCH, CHUNK]))
            pl.store(r, [0, col + j * CHUNK], x)
            pl.store(pl.cast(pl.mul(r, 1.0), pl.BF16), [0, col + j * CHUNK], normed)
    prev_normed_tid[0] = dcr_tid


@pl.jit
def decode_fwd(tokens_in: pl.Tensor, embed: pl.Tensor, context_lens: pl.Tensor,
               wq: pl.Tensor, wk: pl.Tensor, wv: pl.Tensor, wo: pl.Tensor, wgate: pl.Tensor,
               wup: pl.Tensor, wdown: pl.Tensor, lm_w: pl.Tensor,
               k_cache: pl.InOut[pl.Tensor], v_cache: pl.InOut[pl.Tensor],
               hidden: pl.Out[pl.Tensor], x: pl.Out[pl.Tensor], normed: pl.Out[pl.Tensor],
               pa_meta: pl.Out[pl.Tensor], logits: pl.Out[pl.Tensor],
               tokens_out: pl.Out[pl.Tensor], final_inv_rms: pl.Out[pl.Tensor]):
    # Token embedding: one row copy per batch row (the token ids are host data).
    for b in pl.parallel(BATCH):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="token_embed"):
            for c in pl.range(HIDDEN // CHUNK):
                t = pl.load(embed, [(b * 9973) % VOCAB, c * CHUNK], [1, CHUNK])
                pl.store(pl.cast(t, pl.FP32), [b, c * CHUNK], hidden)

    # One 16-row window.
    pa_tid = pl.array.create(1, pl.TASK_ID)
    prev_normed_tid = pl.array.create(1, pl.TASK_ID)
    pa_tid[0] = pa_tiling(context_lens, pa_meta, allow_early_resolve=True)
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True,
               name_hint="copy_hidden") as copy_tid:
        for c in pl.range(HIDDEN // CHUNK):
            pl.store(pl.load(hidden, [0, c * CHUNK], [BATCH, CHUNK]), [0, c * CHUNK], x)
    window_dummy = pl.system.task_dummy(deps=[copy_tid])
    with pl.manual_scope():
        with pl.spmd(XG_BLOCKS, deps=[copy_tid, window_dummy], allow_early_resolve=True,
                     name_hint="x_gamma0") as xg_tid:
            col = pl.tile.get_block_idx() * 1024
            for j in pl.range(1024 // CHUNK):
                t = pl.load(x, [0, col + j * CHUNK], [BATCH, CHUNK])
                pl.store(pl.cast(pl.mul(t, 1.0), pl.BF16), [0, col + j * CHUNK], normed)
        prev_normed_tid[0] = xg_tid

    for layer in pl.range(LAYERS):
        decode_layer(layer, x, normed, prev_normed_tid, wq, wk, wv, wo, wgate, wup, wdown,
                     k_cache, v_cache, pa_meta, pa_tid)

    # Final RMSNorm, then the LM head: 24 blocks of 33 vocabulary chunks of 192.
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True,
               name_hint="final_rmsnorm") as final_tid:
        pl.store(sum_squares(x, HIDDEN // CHUNK), [0, 0], final_inv_rms)
        for c in pl.range(HIDDEN // CHUNK):
            t = pl.mul(pl.load(x, [0, c * CHUNK], [BATCH, CHUNK]), 1.0)
            pl.store(pl.cast(t, pl.BF16), [0, c * CHUNK], normed)
    # The weight is [VOCAB, HIDDEN]: each K chunk is accumulated through a
    # transposed view (pl.tile.transpose_view, free) in a pl.pipeline(stage=2)
    # loop, as hw-native-sys/pypto-lib@634e77bd
    # models/qwen3_14b/rms_lm_head.py does (its peeled first step is init_cond
    # here, as in matmul_k_loop).
    for lm_core in pl.spmd(LM_BLOCKS, allow_early_resolve=True, name_hint="lm_head"):
        for ch in pl.range(LM_CHUNKS_PER_BLOCK):
            col = (lm_core * LM_CHUNKS_PER_BLOCK + ch) * LM_CHUNK
            if PIPELINED:
                acc = pl.tile.create([BATCH, LM_CHUNK], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for kk in pl.pipeline(HIDDEN // LM_TK, stage=2):
                    a = pl.load(normed, [0, kk * LM_TK], [BATCH, LM_TK])
                    w = pl.load(lm_w, [col, kk * LM_TK], [LM_CHUNK, LM_TK])
                    acc = pl.matmul_acc(acc, a, pl.tile.transpose_view(w), init_cond=(kk == 0))
            else:
                for kk in pl.range(HIDDEN // LM_TK):
                    a = pl.load(normed, [0, kk * LM_TK], [BATCH, LM_TK])
                    w = pl.load(lm_w, [col, kk * LM_TK], [LM_CHUNK, LM_TK])
                    acc = pl.matmul(a, pl.tile.transpose_view(w), out_dtype=pl.FP32)
            pl.store(acc, [0, col], logits)
    for b in pl.parallel(BATCH):
        greedy_sample(pl.slice(logits, [1, VOCAB], [b, 0]), pl.slice(tokens_out, [1, 1], [b, 0]))
    return tokens_out


# Harness: weights stacked by layer (row block `layer` of each), BF16.
torch.manual_seed(0)
tokens_in = torch.zeros(BATCH, 1, dtype=torch.int32, device=DEVICE)
embed = torch.randn(VOCAB, HIDDEN, dtype=torch.bfloat16, device=DEVICE)
context_lens = torch.full((BATCH,), CONTEXT, dtype=torch.int32, device=DEVICE)
wq = torch.randn(LAYERS * HIDDEN, HEADS * HEAD_DIM, dtype=torch.bfloat16, device=DEVICE)
wk = torch.randn(LAYERS * HIDDEN, KV_DIM, dtype=torch.bfloat16, device=DEVICE)
wv = torch.randn(LAYERS * HIDDEN, KV_DIM, dtype=torch.bfloat16, device=DEVICE)
wo = torch.randn(LAYERS * HIDDEN, HIDDEN, dtype=torch.bfloat16, device=DEVICE)
wgate = torch.randn(LAYERS * HIDDEN, INTER, dtype=torch.bfloat16, device=DEVICE)
wup = torch.randn(LAYERS * HIDDEN, INTER, dtype=torch.bfloat16, device=DEVICE)
wdown = torch.randn(LAYERS * INTER, HIDDEN, dtype=torch.bfloat16, device=DEVICE)
lm_w = torch.randn(VOCAB, HIDDEN, dtype=torch.bfloat16, device=DEVICE)
k_cache = torch.randn(LAYERS * BATCH * MAX_SEQ, KV_DIM, dtype=torch.bfloat16, device=DEVICE)
v_cache = torch.randn(LAYERS * BATCH * MAX_SEQ, KV_DIM, dtype=torch.bfloat16, device=DEVICE)
hidden = torch.zeros(BATCH, HIDDEN, dtype=torch.float32, device=DEVICE)
x = torch.zeros(BATCH, HIDDEN, dtype=torch.float32, device=DEVICE)
normed = torch.zeros(BATCH, HIDDEN, dtype=torch.bfloat16, device=DEVICE)
pa_meta = torch.zeros(BATCH, MAX_SEQ // PAGE, dtype=torch.int32, device=DEVICE)
logits = torch.zeros(BATCH, VOCAB, dtype=torch.float32, device=DEVICE)
tokens_out = torch.zeros(BATCH, 1, dtype=torch.int32, device=DEVICE)
final_inv_rms = torch.zeros(BATCH, 1, dtype=torch.float32, device=DEVICE)
decode_fwd(tokens_in, embed, context_lens, wq, wk, wv, wo, wgate, wup, wdown, lm_w, k_cache,
           v_cache, hidden, x, normed, pa_meta, logits, tokens_out, final_inv_rms, config=CFG)
# The final RMSNorm's inv_rms of the last layer's output x (checked in the
# functional one-layer copy; --timing-only keeps no values and no checks).
mean_square = (x * x) @ torch.full((HIDDEN, 1), 1.0 / HIDDEN, device=DEVICE)
torch.testing.assert_close(final_inv_rms, (mean_square + 1e-6) ** -0.5, rtol=1e-4, atol=1e-6)
