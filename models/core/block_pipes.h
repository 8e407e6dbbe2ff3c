#ifndef PTO_MODELS_CORE_BLOCK_PIPES_H_
#define PTO_MODELS_CORE_BLOCK_PIPES_H_

// What each executed op of a (non-MIX) block is on its core's pipes: the
// pipe, its time or its transfer, the buffers it reads and writes
// (CompiledKernel::tile_buffers, plus the record's runtime pl.MemRef slot)
// and its GM bytes. The PipeScheduler orders
// them; the core issues their transfers.

#include <cstdint>

#include "models/base/chip_config.h"
#include "models/core/execution_profile.h"
#include "models/core/kernel_program.h"
#include "models/core/op_cost.h"
#include "models/core/pipe_scheduler.h"
#include "models/gm/gm_request.h"

namespace pto {

// LOAD -> MTE2 (GM -> UB on the AIV, GM -> L1 on the AIC); STORE -> FIXPIPE
// from an accumulator (L0C), MTE3 otherwise; MATMUL -> CUBE (its operand
// moves from L1, BlockPipes, MTE1); MOVE -> MTE1, FIXPIPE out of an
// accumulator (a non-MIX kernel moves on the cube only); every other compute
// op -> VECTOR; FENCE, CACHE_INVALID and SYNCALL -> SCALAR.
Pipe PipeOf(const CompiledKernel& kernel, const CompiledOp& op);

// Each GM-facing pipe's outstanding transfers (core.mte2_outstanding, ...).
PipeLimits PipeLimitsOf(const CoreParams& core);

// `record`'s op as one pipe op, into `spec` (its storage reused). A LOAD or
// STORE is external (the memory system times `transfer`; `duration` is its
// core-side least time: the record's cost, or for a FIXPIPE store
// core.gm_latency_ns + the drain of its accumulator tile); FENCE,
// CACHE_INVALID and SYNCALL are barriers (a dcci takes core.dcci_ns);
// compute ops hold their pipe for the record's cost.
void DescribePipeOp(const CompiledKernel& kernel, const OpRecord& record, const GmRuns& transfer,
                    const ChipConfig& config, PipeOpSpec* spec);

// A segment's ops onto the pipes. A MATMUL becomes its L0 steps (the tiling
// of op_cost.h's ChooseL0Tiling): per output tile and K-block an MTE1 op
// moving the A and B blocks from L1 into an L0A and an L0B slot, then a CUBE
// op (the MAD) reading them into the accumulator's buffer. The K-block is
// halved until two blocks of each operand fit L0A and L0B: the operands
// move along K, so they are double-buffered, and the next block's move
// overlaps this one's MAD (across consecutive matmuls too: the slots rotate
// over the segment). A lone block therefore pays its move and its MAD;
// pypto's closed form, max(load, mad), assumes full overlap. The drain out
// of L0C is the FIXPIPE store's, not the matmul's.
class BlockPipes {
 public:
  explicit BlockPipes(const ChipConfig& config) : config_(config), cube_(CubeCostModelOf(config)) {}

  // A new segment of `kernel`: the L0 slots start empty.
  void Begin(const CompiledKernel& kernel);
  // Adds `record`'s pipe ops (`transfer`: a LOAD's or STORE's runs).
  void Add(const OpRecord& record, const GmRuns& transfer, PipeScheduler* pipes);

 private:
  void AddMatmul(const CompiledOp& op, const OpRecord& record, PipeScheduler* pipes);

  const ChipConfig& config_;
  CubeCostModel cube_;
  const CompiledKernel* kernel_ = nullptr;
  // Buffer ids past the kernel's (CompiledKernel::buffer_count): L0A 0-1,
  // L0B 2-3.
  uint32_t l0_base_ = 0;
  uint64_t next_a_ = 0;  // L0 slots used so far, for the rotation
  uint64_t next_b_ = 0;
  PipeOpSpec spec_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_BLOCK_PIPES_H_
