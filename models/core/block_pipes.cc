#include "models/core/block_pipes.h"

#include <algorithm>

#include "common/dtype.h"

namespace pto {

Pipe PipeOf(const CompiledKernel& kernel, const CompiledOp& op) {
  switch (op.kind) {
    case trace::Op::LOAD:
      return Pipe::kMte2;
    case trace::Op::STORE:
      return op.src0 >= 0 && kernel.tiles[static_cast<size_t>(op.src0)].space == trace::ACC
                 ? Pipe::kFixpipe
                 : Pipe::kMte3;
    case trace::Op::MATMUL:
      return Pipe::kCube;
    case trace::Op::MOVE:  // L1 -> L0 on MTE1, L0C out through the FIXPIPE
      return kernel.tiles[static_cast<size_t>(op.src0)].space == trace::ACC ? Pipe::kFixpipe
                                                                            : Pipe::kMte1;
    case trace::Op::ASSEMBLE: {  // TINSERT out of L0C on the FIXPIPE, within L1 on MTE1
      const trace::MemSpace from = kernel.tiles[static_cast<size_t>(op.src1)].space;
      return from == trace::ACC ? Pipe::kFixpipe : from == trace::MAT ? Pipe::kMte1 : Pipe::kVector;
    }
    case trace::Op::EXTRACT:  // TEXTRACT: within L1 on MTE1, within UB on the vector unit
      return kernel.tiles[static_cast<size_t>(op.src0)].space == trace::MAT ? Pipe::kMte1
                                                                            : Pipe::kVector;
    case trace::Op::FENCE:
    case trace::Op::CACHE_INVALID:
    case trace::Op::SYNCALL:
    case trace::Op::LOOP:
    case trace::Op::IF:
    case trace::Op::READ:
      return Pipe::kScalar;
    default:
      return Pipe::kVector;
  }
}

PipeLimits PipeLimitsOf(const CoreParams& core) {
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = static_cast<int>(core.mte2_outstanding);
  limits.in_flight[static_cast<int>(Pipe::kMte3)] = static_cast<int>(core.mte3_outstanding);
  limits.in_flight[static_cast<int>(Pipe::kFixpipe)] = static_cast<int>(core.fixpipe_outstanding);
  return limits;
}

void DescribePipeOp(const CompiledKernel& kernel, const OpRecord& record, const GmRuns& transfer,
                    const ChipConfig& config, PipeOpSpec* spec) {
  const CompiledOp& op = kernel.ops[record.op_index];
  spec->pipe = PipeOf(kernel, op);
  spec->duration = Ns(record.cost_ns);
  spec->external = false;
  spec->barrier = false;
  spec->stalls_issue = false;
  spec->reads.clear();
  spec->writes.clear();
  spec->touches_gm = false;
  spec->gm_write = false;
  auto buffer = [&](int32_t tile, int k) {
    return kernel.tile_buffers[static_cast<size_t>(tile)] + record.slot[k];
  };
  switch (op.kind) {
    case trace::Op::LOAD:
    case trace::Op::STORE:
      spec->external = true;
      spec->touches_gm = true;
      spec->gm = transfer;
      spec->gm_write = op.kind == trace::Op::STORE;
      if (spec->pipe == Pipe::kFixpipe) {
        const CompiledTile& acc = kernel.tiles[static_cast<size_t>(op.src0)];
        spec->duration = Ns(config.core.gm_latency_ns +
                            CyclesToNs(DrainCycles(acc.rows, acc.cols, config.cube), config));
      }
      break;
    case trace::Op::CACHE_INVALID:
      spec->barrier = true;
      spec->duration = Ns(config.core.dcci_ns);
      return;
    case trace::Op::READ:
      // The value decides what the scalar unit issues next (a branch, a
      // loop bound, an offset): nothing later issues until it returns.
      spec->stalls_issue = true;
      return;
    case trace::Op::FENCE:
    case trace::Op::SYNCALL:
    case trace::Op::LOOP:
    case trace::Op::IF:  // a MIX kernel's phi rename: no instruction
      spec->barrier = op.kind != trace::Op::LOOP && op.kind != trace::Op::IF;
      spec->duration = 0;
      return;
    default:
      break;
  }
  const int32_t srcs[3] = {op.src0, op.src1, op.src2};
  for (int k = 0; k < 3; ++k) {
    if (srcs[k] >= 0) spec->reads.push_back(buffer(srcs[k], k + 1));
  }
  if (op.dst >= 0) spec->writes.push_back(buffer(op.dst, 0));
}

void BlockPipes::Begin(const CompiledKernel& kernel) {
  kernel_ = &kernel;
  l0_base_ = std::max(kernel.buffer_count, static_cast<uint32_t>(kernel.tiles.size()));
  next_a_ = next_b_ = 0;
}

void BlockPipes::Add(const OpRecord& record, const GmRuns& transfer, PipeScheduler* pipes) {
  const CompiledOp& op = kernel_->ops[record.op_index];
  // pl.tile.create only names a buffer, and a view (pl.reshape,
  // pl.tile.transpose_view) reads its source's buffer under another shape:
  // no instruction on any pipe. The buffer's next writer still waits for the
  // readers of its last value.
  if (op.kind == trace::Op::CREATE || op.kind == trace::Op::RESHAPE ||
      op.kind == trace::Op::TRANSPOSE_VIEW) {
    return;
  }
  if (op.kind == trace::Op::MATMUL) {
    AddMatmul(op, record, pipes);
    return;
  }
  DescribePipeOp(*kernel_, record, transfer, config_, &spec_);
  pipes->Add(spec_);
}

void BlockPipes::AddMatmul(const CompiledOp& op, const OpRecord& record, PipeScheduler* pipes) {
  const trace::DType dtype = kernel_->tiles[static_cast<size_t>(op.src0)].dtype;
  L0Tiling tile = ChooseL0Tiling(op.m, op.n, op.k, dtype, cube_);
  // The explicit form: the operands were moved into L0A / L0B (pl.move, on
  // MTE1) and the MADs read them there.
  const bool in_l0 = kernel_->tiles[static_cast<size_t>(op.src0)].space == trace::LEFT;
  const int64_t bytes = std::max<int64_t>(1, static_cast<int64_t>(DTypeSize(dtype)));
  // Blocks short enough in K that two of each operand fit their L0: the
  // operands move along K, so they are double-buffered (pypto's L0 model).
  auto fits_twice = [&](const L0Tiling& t) {
    return 2 * t.m0 * t.k0 * bytes <= cube_.l0a_bytes && 2 * t.k0 * t.n0 * bytes <= cube_.l0b_bytes;
  };
  while (!in_l0 && !fits_twice(tile) && tile.k0 > 16) {
    tile.k0 = std::max<int64_t>(16, tile.k0 / 2);
  }
  const int slots = fits_twice(tile) ? 2 : 1;
  const uint32_t a = kernel_->tile_buffers[static_cast<size_t>(op.src0)] + record.slot[1];
  const uint32_t b = kernel_->tile_buffers[static_cast<size_t>(op.src1)] + record.slot[2];
  const uint32_t acc = kernel_->tile_buffers[static_cast<size_t>(op.dst)] + record.slot[0];
  // pl.matmul_acc adds to its accumulator (unless init_cond held: the
  // timing is the same, the first MAD still reads the buffer).
  const int64_t incoming =
      op.src2 >= 0 ? kernel_->tile_buffers[static_cast<size_t>(op.src2)] + record.slot[3]
                   : int64_t{-1};
  // A step's times depend only on its (mt, nt, kb), each the full block or
  // the remainder: at most eight kinds of step per matmul, each costed once.
  struct StepTimes {
    TimePs move = -1;  // -1: not costed yet
    TimePs mad = 0;
  };
  StepTimes step_times[8];
  auto times_of = [&](int64_t mt, int64_t nt, int64_t kb) -> const StepTimes& {
    StepTimes& t = step_times[(mt != tile.m0) * 4 + (nt != tile.n0) * 2 + (kb != tile.k0)];
    if (t.move < 0) {
      t.move = Ns(CyclesToNs(OperandLoadCycles(mt, nt, kb, dtype, config_.cube), config_));
      t.mad = Ns(CyclesToNs(MadCycles(mt, nt, kb, /*k_blocks=*/1, dtype, config_.cube), config_));
    }
    return t;
  };
  // Field by field: the operand lists keep their storage.
  spec_.external = spec_.barrier = spec_.touches_gm = spec_.gm_write = false;
  for (int64_t m_at = 0; m_at < op.m; m_at += tile.m0) {
    const int64_t mt = std::min(tile.m0, op.m - m_at);
    for (int64_t n_at = 0; n_at < op.n; n_at += tile.n0) {
      const int64_t nt = std::min(tile.n0, op.n - n_at);
      for (int64_t k_at = 0; k_at < op.k; k_at += tile.k0) {
        const int64_t kb = std::min(tile.k0, op.k - k_at);
        const StepTimes& times = times_of(mt, nt, kb);
        uint32_t l0a = a, l0b = b;
        if (!in_l0) {
          l0a = l0_base_ + static_cast<uint32_t>(next_a_++ % slots);
          l0b = l0_base_ + 2 + static_cast<uint32_t>(next_b_++ % slots);
          spec_.pipe = Pipe::kMte1;
          spec_.duration = times.move;
          spec_.reads.resize(2);
          spec_.reads[0] = a;
          spec_.reads[1] = b;
          spec_.writes.resize(2);
          spec_.writes[0] = l0a;
          spec_.writes[1] = l0b;
          pipes->Add(spec_);
        }
        spec_.pipe = Pipe::kCube;
        spec_.duration = times.mad;
        // The first K-block (re)writes the accumulator; later ones add to it.
        spec_.reads.resize(2);
        spec_.reads[0] = l0a;
        spec_.reads[1] = l0b;
        if (k_at > 0) {
          spec_.reads.push_back(acc);
        } else if (incoming >= 0) {
          spec_.reads.push_back(static_cast<uint32_t>(incoming));
        }
        spec_.writes.resize(1);
        spec_.writes[0] = acc;
        pipes->Add(spec_);
      }
    }
  }
}

}  // namespace pto
