#ifndef PTO_FRONTEND_REFERENCE_H_
#define PTO_FRONTEND_REFERENCE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// Evaluates a launch sequentially (tasks in program order, every block of an
// SPMD task in index order) on ptoc's own copy of GM, so an orchestration
// body that reads a device value (`if cnt[0, 0] > 5:`) gets it at compile
// time.
class ReferenceEvaluator {
 public:
  virtual ~ReferenceEvaluator() = default;
  // Runs the submits of one launch. `gm` holds every header tensor's bytes at
  // its gm_addr and is updated in place; it grows to cover new tensors.
  virtual absl::Status RunLaunch(const trace::StreamHeader& header,
                                 const std::vector<trace::StreamRecord>& launch,
                                 std::vector<uint8_t>* gm) = 0;
};

// The reference built on the functional tile executor of models/core
// (CompileKernel + TileExecutor), with a2a3 default core counts for the
// available_*_count() widths. A predicate is evaluated by reading the gate
// element (sign-extended) before the task runs.
std::unique_ptr<ReferenceEvaluator> MakeTileExecutorReference();

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_REFERENCE_H_
