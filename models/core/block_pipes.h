#ifndef PTO_MODELS_CORE_BLOCK_PIPES_H_
#define PTO_MODELS_CORE_BLOCK_PIPES_H_

// What each executed op of a (non-MIX) block is on its core's pipes: the
// pipe, its time or its transfer, the buffers it reads and writes
// (CompiledKernel::tile_buffers) and its GM bytes. The PipeScheduler orders
// them; the core issues their transfers.

#include "models/base/chip_config.h"
#include "models/core/execution_profile.h"
#include "models/core/kernel_program.h"
#include "models/core/pipe_scheduler.h"
#include "models/gm/gm_request.h"

namespace pto {

// LOAD -> MTE2 (GM -> UB on the AIV, GM -> L1 on the AIC); STORE -> FIXPIPE
// from an accumulator (L0C), MTE3 otherwise; MATMUL -> CUBE; MOVE -> MTE1,
// FIXPIPE out of an accumulator (a non-MIX kernel moves on the cube only); every other
// compute op -> VECTOR; FENCE, CACHE_INVALID and SYNCALL -> SCALAR.
Pipe PipeOf(const CompiledKernel& kernel, const CompiledOp& op);

// Each GM-facing pipe's outstanding transfers (core.mte2_outstanding, ...).
PipeLimits PipeLimitsOf(const CoreParams& core);

// `record`'s op as a pipe op, into `spec` (its storage reused). A LOAD or
// STORE is external (the memory system times `transfer`); FENCE,
// CACHE_INVALID and SYNCALL are barriers (a dcci takes core.dcci_ns);
// compute ops hold their pipe for the record's cost.
void DescribePipeOp(const CompiledKernel& kernel, const OpRecord& record, const GmRuns& transfer,
                    const ChipConfig& config, PipeOpSpec* spec);

}  // namespace pto

#endif  // PTO_MODELS_CORE_BLOCK_PIPES_H_
