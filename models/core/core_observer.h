#ifndef PTO_MODELS_CORE_CORE_OBSERVER_H_
#define PTO_MODELS_CORE_CORE_OBSERVER_H_

// What a core tells the outside world as it runs blocks: the records it
// keeps (CoreInterval, reported by the scheduler that observes the FIN) and
// the callbacks it makes itself. The chip's RunObserver (models/run_observer.h)
// is one of these; so is a test's recorder.

#include <array>
#include <cstdint>

#include "absl/types/span.h"
#include "models/base/ids.h"
#include "models/base/time.h"
#include "models/core/pipe_scheduler.h"
#include "proto/task_stream.pb.h"

namespace pto {

// One block (or one core's share of a MIX block) on one core.
struct CoreInterval {
  int32_t core = -1;
  TaskSeq task = kNoTask;
  int64_t block = 0;
  uint32_t reg_task_id = 0;  // per-core dispatch token, unique on that core
  int32_t thread = -1;       // the scheduler thread that dispatched it
  TimePs dispatch = 0;       // the scheduler's dispatch register write
  TimePs receive = 0;        // the core saw the dispatch
  TimePs start = 0;          // the kernel started
  TimePs end = 0;            // the kernel ended (FIN raised)
  TimePs finish = 0;         // the scheduler observed the FIN
};

// A stretch of one engine's busy time inside a MIX block, on the core that
// runs it: the cube on the AIC, the vector side on each AIV.
struct EngineInterval {
  int32_t core = -1;
  TaskSeq task = kNoTask;
  int64_t block = 0;
  bool cube = false;
  TimePs start = 0;
  TimePs end = 0;
};

// One op of a block on its core's pipes (op programs outside MIX).
struct PipeOpInterval {
  Pipe pipe = Pipe::kScalar;
  trace::Op::Kind kind = trace::Op::KIND_UNSPECIFIED;
  uint32_t op = 0;  // its index in the kernel's program (CompiledKernel::ops)
  TimePs start = 0;
  TimePs end = 0;
};

// A block's segment (its ops between SYNCALLs) once its pipes finished.
struct PipeSegment {
  int32_t core = -1;
  bool aic = false;  // the core is an AIC; else an AIV
  TaskSeq task = kNoTask;
  int64_t block = 0;
  TimePs start = 0;  // the first op's start
  TimePs end = 0;    // the last op's end
  // Per pipe (by Pipe): the time it had at least one op running.
  std::array<TimePs, kPipeCount> busy{};
  absl::Span<const PipeOpInterval> ops;  // in program order; valid during the call
};

// Every callback has a default so observers take only what they need.
class CoreObserver {
 public:
  virtual ~CoreObserver() = default;
  // A MIX block's engine was busy (reported when the core's segment ends).
  virtual void OnEngineBusy(const EngineInterval& interval) {}
  // Whether OnPipeOps is wanted: the cores collect a segment's ops only
  // then, so runs without pipe outputs pay nothing for them. Asked at every
  // segment's end; may change between launches.
  virtual bool wants_pipe_ops() const { return false; }
  virtual void OnPipeOps(const PipeSegment& segment) {}
  // A core's kernel touched GM on behalf of `task` (block `block`): every
  // load row, store row and atomic add, as the executor issued it.
  enum class GmAccess : uint8_t { kRead, kWrite, kAtomicAdd };
  virtual void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                          uint64_t size) {}
  // A tile transfer's rows at once: `rows` runs of `row_bytes`, `stride`
  // bytes apart from `addr`. By default one OnGmAccess per row, in order.
  virtual void OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                        int64_t rows, uint64_t row_bytes, uint64_t stride) {
    for (int64_t r = 0; r < rows; ++r) {
      OnGmAccess(task, block, core, kind, addr + static_cast<uint64_t>(r) * stride, row_bytes);
    }
  }
  // A core's kernel ordered or published GM data between the blocks of
  // `task`: a dcci over the whole cache or over the line holding `addr`, a
  // fence, or arriving at a syncall; in the block's program order with its
  // OnGmAccess calls.
  // A cost-summary block's share of its kernel's bytes_in (kRead) or
  // bytes_out (kWrite), as the core hands it to the memory system: such a
  // kernel touches no rows a core could report.
  virtual void OnSummaryBytes(TaskSeq task, int64_t block, int core, GmAccess kind,
                              uint64_t bytes) {}
  enum class BlockSync : uint8_t { kCacheInvalidAll, kCacheInvalidLine, kFence, kSyncall };
  virtual void OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) {}
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_CORE_OBSERVER_H_
