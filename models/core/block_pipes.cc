#include "models/core/block_pipes.h"

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
    case trace::Op::FENCE:
    case trace::Op::CACHE_INVALID:
    case trace::Op::SYNCALL:
    case trace::Op::LOOP:
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
  spec->reads.clear();
  spec->writes.clear();
  spec->touches_gm = false;
  spec->gm_write = false;
  auto buffer = [&](int32_t tile) { return kernel.tile_buffers[static_cast<size_t>(tile)]; };
  switch (op.kind) {
    case trace::Op::LOAD:
    case trace::Op::STORE:
      spec->external = true;
      spec->touches_gm = true;
      spec->gm = transfer;
      spec->gm_write = op.kind == trace::Op::STORE;
      break;
    case trace::Op::CACHE_INVALID:
      spec->barrier = true;
      spec->duration = Ns(config.core.dcci_ns);
      return;
    case trace::Op::FENCE:
    case trace::Op::SYNCALL:
    case trace::Op::LOOP:
      spec->barrier = op.kind != trace::Op::LOOP;
      spec->duration = 0;
      return;
    default:
      break;
  }
  for (int32_t src : {op.src0, op.src1, op.src2}) {
    if (src >= 0) spec->reads.push_back(buffer(src));
  }
  if (op.dst >= 0) spec->writes.push_back(buffer(op.dst));
}

}  // namespace pto
