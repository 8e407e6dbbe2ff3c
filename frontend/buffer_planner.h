#ifndef PTO_FRONTEND_BUFFER_PLANNER_H_
#define PTO_FRONTEND_BUFFER_PLANNER_H_

// ptoc's default buffer planner: which on-chip allocation (TileDecl.buffer)
// each tile of a kernel lives in, after PyPTO's MemoryReuse pass
// (hw-native-sys/pypto@e2d0f78a docs/en/dev/passes/33-memory_reuse.md):
//
// - A tile lives from the op that writes it to the last op that reads it; a
//   tile written before a device loop and read inside it lives to the loop's
//   end, since every iteration reads it.
// - Semantic aliases come first: a loop carry's tiles (init, carried, next)
//   are one buffer, an accumulating matmul writes its accumulator's buffer
//   (the cube's mad_acc) and pl.tile.assemble its target's when that value
//   is not read again, and a view (pl.reshape, pl.tile.transpose_view) is
//   its source's buffer.
// - Within one memory space the rest are packed largest first: a tile joins
//   the first buffer none of whose members is alive with it. Touching is
//   sharing in place (an op reads one and writes the other), unless the op
//   reads its input while it writes its output (recip, rsqrt, reductions,
//   expands, concat, an assemble's source, a broadcast's vector, moves,
//   widening casts).
// - The F copies of a pl.pipeline(N, stage=F) body run concurrently, so
//   copies k and j of one pipeline never share a buffer unless k = j mod D,
//   D the depth granted in that space: F, or less when F copies do not fit
//   its capacity (then a warning names requested and granted depth).
// - A space whose buffers still exceed its capacity at depth 1 is an error.
// - Tiles bound to a pl.MemRef are the author's: never packed, never shared.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// Which copy of which pl.pipeline body wrote a tile; group -1: none.
struct PipelineStage {
  int32_t group = -1;
  int32_t stage = 0;
};

// A pl.pipeline loop: its requested depth (stage=F) and where it is.
struct PipelineGroup {
  int32_t depth = 1;
  std::string origin;  // "file.py:line"
};

struct BufferPlanOptions {
  std::vector<PipelineStage> stages;  // per tile; absent = not in a copy
  std::vector<PipelineGroup> groups;
  // A space's capacity in bytes; 0 = unknown (not checked).
  std::function<uint64_t(trace::MemSpace)> capacity;
  // Per tile: bound to a pl.MemRef allocation (absent = no). Such a tile,
  // and any tile one buffer with it by semantics, is left where it is
  // (BufferPlan::kPinned), and no other tile is packed with it.
  std::vector<bool> pinned;
};

struct BufferPlan {
  static constexpr uint32_t kPinned = 0xffffffffu;
  std::vector<uint32_t> buffer;  // per tile, dense 0..count-1, or kPinned
  // Per tile: for a kPinned tile not bound itself, the bound tile whose
  // buffer it shares (a carry of a pl.MemRef tile); -1 otherwise.
  std::vector<int32_t> same_as;
  uint32_t count = 0;
  std::vector<uint64_t> buffer_bytes;  // per buffer: its largest member
  std::vector<std::string> warnings;   // "origin: warning: ..."
};

// Plans `program`'s buffers; InvalidArgument naming `kernel_name`, the space,
// its footprint and capacity when the tiles cannot fit even at depth 1.
absl::StatusOr<BufferPlan> PlanBuffers(const trace::KernelProgram& program,
                                       const BufferPlanOptions& options,
                                       const std::string& kernel_name);

// The bytes of one tile.
uint64_t TileDeclBytes(const trace::TileDecl& tile);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_BUFFER_PLANNER_H_
