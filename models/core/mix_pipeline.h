#ifndef PTO_MODELS_CORE_MIX_PIPELINE_H_
#define PTO_MODELS_CORE_MIX_PIPELINE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "models/core/execution_profile.h"
#include "models/core/kernel_program.h"

namespace pto {

// The cross-core ring between the cube (AIC) and vector (AIV) engines of one
// MIX block (hw-native-sys/pypto@e2d0f78a include/pypto/ir/transforms/utils/cross_core_pipe.h;
// hw-native-sys/simpler@6ebaf771 docs/tpush-tpop.md).
struct MixRingParams {
  int64_t slot_num = 2;  // slots per direction
  trace::SplitMode split = trace::SPLIT_NONE;
  // A push moves the crossing tile into a ring slot; a pop copies it out.
  double transfer_latency_ns = 0;
  double transfer_bytes_per_ns = 1;
  // The AIV's GM rates (CoreGmRatesOf), to split a halved vector LOAD/STORE
  // into its fixed and per-byte parts.
  double gm_read_bytes_per_ns = 0;
  double gm_write_bytes_per_ns = 0;
};

// The per-byte part of a record's GM transfer at the ring's AIV rates (0 when
// they are unset).
double GmBytesNs(const OpRecord& record, const MixRingParams& params);

// One stretch of time an engine was busy, relative to the segment's start.
struct EngineBusy {
  EngineKind engine = EngineKind::kCube;
  double start_ns = 0;
  double end_ns = 0;
};

struct MixTimeline {
  double cube_end_ns = 0;        // the cube engine's last op or push ended
  double vector_end_ns = 0;      // each AIV's last op or push ended
  std::vector<EngineBusy> busy;  // per engine, merged, in time order per engine
  int64_t pushes = 0;            // tiles that crossed the ring
  double slot_wait_ns = 0;       // producers waiting for a free slot
  double data_wait_ns = 0;       // consumers waiting for a pushed tile
  // Per record: when its op started on its engine (after its pops) and
  // ended (before its push); -1 for a carry copy, which runs nowhere.
  std::vector<double> op_start_ns;
  std::vector<double> op_end_ns;
};

// Times the executed ops of one MIX block (or one segment of it, between
// syncalls) as the two engines run them: each engine runs its own ops in
// program order, concurrently with the other, and they meet only where a
// tile written by one engine is read by the other. That tile crosses the
// ring (a2a3: `slot_num` slots in GM, hw-native-sys/pypto@e2d0f78a
// docs/en/dev/passes/22-inject_gm_pipe_buffer.md): when the
// producing op ends, the producer pushes it into a free slot — blocking while
// all slots of that direction are full — and the push takes a transfer; the
// consumer's first read of it waits until it landed, then copies it out
// (another transfer), which frees the slot. Split modes halve the vector
// side between the two AIVs, which run in parallel; without a split each
// AIV runs the whole vector side. A single-tile kernel therefore runs its
// engines one after the other; a loop of tiles overlaps them, and a ring
// whose transfers take longer than the engines' own work per tile runs
// faster with more slots. A LOOP record of a carry copy (OpRecord::carry)
// takes no time on either engine; a later read of the carried tile depends on
// the op that wrote the carry's init or next, across the ring if that op ran
// on the other engine. Returns Aborted when the engines wait on each other
// forever.
absl::StatusOr<MixTimeline> ScheduleMixBlock(absl::Span<const OpRecord> records,
                                             const CompiledKernel& kernel,
                                             const MixRingParams& params);

// Time both engines were busy at once (the overlap the ring bought).
double EngineOverlapNs(const MixTimeline& timeline);
// Busy time of one engine.
double EngineBusyNs(const MixTimeline& timeline, EngineKind engine);

}  // namespace pto

#endif  // PTO_MODELS_CORE_MIX_PIPELINE_H_
