#ifndef PTO_MODELS_CORE_EXECUTION_PROFILE_H_
#define PTO_MODELS_CORE_EXECUTION_PROFILE_H_

#include <cstdint>
#include <vector>

#include "models/core/kernel_program.h"
#include "proto/task_stream.pb.h"

namespace pto {

// What a rename record stands for: a LOOP's carried tiles took their init
// values (loop entry) or their next values (an iteration's end), or an IF's
// phi tiles took their then or else values (the arm's end), all at once.
enum class CarryCopy : uint8_t { kNone, kInit, kNext, kThen, kElse };

// One executed op instance (a loop body op appears once per iteration). In a
// MIX kernel a loop with carries adds a zero-cost LOOP record at its entry
// (when a carry has an init) and at every iteration's end, and an IF with
// phis a zero-cost IF record at its arm's end, so that the MIX pipeline can
// follow renamed values from the op that wrote them to the op that reads them.
struct OpRecord {
  // Index into CompiledKernel::ops; for a CostSummary kernel, the phase.
  uint32_t op_index = 0;
  // KIND_UNSPECIFIED for a CostSummary phase.
  trace::Op::Kind kind = trace::Op::KIND_UNSPECIFIED;
  EngineKind engine = EngineKind::kVector;
  CarryCopy carry = CarryCopy::kNone;  // LOOP and IF rename records only
  int64_t elements = 0;
  int64_t gm_bytes_read = 0;
  int64_t gm_bytes_written = 0;
  double cost_ns = 0;
  // The runtime pl.MemRef slot (CompiledTile::has_slot) of the op's dst,
  // src0, src1 and src2 tiles when it ran, 0 for the others: the tile lived
  // in CompiledKernel::tile_buffers[tile] + slot.
  uint32_t slot[4] = {0, 0, 0, 0};
};

// What one block of a kernel did and what it cost. Reused across blocks:
// Clear() keeps the record storage, so steady-state runs do not allocate.
struct ExecutionProfile {
  std::vector<OpRecord> records;
  double cube_ns = 0;
  double vector_ns = 0;
  int64_t gm_bytes_read = 0;
  int64_t gm_bytes_written = 0;

  void Clear() {
    records.clear();
    cube_ns = vector_ns = 0;
    gm_bytes_read = gm_bytes_written = 0;
  }
  void Add(const OpRecord& r) {
    records.push_back(r);
    (r.engine == EngineKind::kCube ? cube_ns : vector_ns) += r.cost_ns;
    gm_bytes_read += r.gm_bytes_read;
    gm_bytes_written += r.gm_bytes_written;
  }
  double op_ns() const { return cube_ns + vector_ns; }
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_EXECUTION_PROFILE_H_
