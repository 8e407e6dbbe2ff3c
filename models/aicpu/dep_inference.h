#ifndef PTO_MODELS_AICPU_DEP_INFERENCE_H_
#define PTO_MODELS_AICPU_DEP_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "models/aicpu/overlap.h"
#include "models/aicpu/tensor_map.h"
#include "models/aicpu/tensor_view.h"
#include "proto/task_stream.pb.h"

namespace pto {

using ScopeMode = trace::ScopeBegin::Mode;  // trace::ScopeBegin::AUTO / MANUAL

// One tensor argument of a submit or dummy, as dependency inference sees it.
struct DepArg {
  TensorView view;
  trace::ArgDirection direction = trace::INPUT;
  bool manual_dep = false;  // the tensor's manual_dep flag (its whole lifetime)
  // The task that created the tensor: the alloc task of a pl.create_tensor
  // tensor, or the task that had it as an OUTPUT arg. Unset for external
  // (launch argument) tensors.
  std::optional<TaskSeq> creator;
};

// Why an edge exists; deps.json's edge "source".
enum class EdgeSource { kCreator, kTensorMap, kExplicit };

// "creator" / "tensormap" / "explicit".
const char* EdgeSourceName(EdgeSource source);

struct DepEdge {
  TaskSeq producer = 0;
  EdgeSource source = EdgeSource::kExplicit;
  int arg_index = -1;                // index into the args span; -1 for explicit
  Overlap overlap = Overlap::kNone;  // tensormap edges only
  TensorView producer_view;          // tensormap edges only
};

// What one Infer call did, for the orchestrator's submit cost.
struct InferStats {
  int tensor_args = 0;         // args seen (all directions)
  int lookups = 0;             // tensor-map lookups (Step B)
  int64_t entries_probed = 0;  // tensor-map entries visited by those lookups
  int registrations = 0;       // tensor-map inserts (STEP 4)
  int removals = 0;            // entries dropped by INOUT covering them
  int edges = 0;               // edges reported, before de-duplication
};

// The runtime's dependency inference at submit (submit_task_common): STEP 1
// explicit deps, STEP 3 compute_task_fanin (per non-OUTPUT arg: Step A
// creator retention, Step B tensor-map lookup for INPUT/INOUT), STEP 4
// register_task_outputs (INOUT, OUTPUT_EXISTING). WAR is not tracked.
// Liveness is the caller's business: edges to producers that have already
// retired are reported; the orchestrator skips them when wiring.
class DependencyInference {
 public:
  DependencyInference() = default;
  // `indexed_map`: see TensorMap(bool).
  explicit DependencyInference(bool indexed_map) : tensor_map_(indexed_map) {}
  // Infers the fan-in of task `self` (newer than every task already seen)
  // and registers what it writes, unless `mode` is MANUAL. Replaces `*edges`
  // with every edge reason in the runtime's order: explicit deps, then per
  // arg its creator edge and its tensor-map edges (newest producer first).
  // The same producer may appear several times, as in deps.json; see
  // UniqueProducers. Replaces `*stats` with this call's counts.
  void Infer(TaskSeq self, ScopeMode mode, absl::Span<const DepArg> args,
             absl::Span<const TaskSeq> explicit_deps, std::vector<DepEdge>* edges,
             InferStats* stats);

  // Forgets `producer`'s registrations (it retired).
  void EraseProducer(TaskSeq producer) { tensor_map_.EraseProducer(producer); }

  // Forgets every registration (a new launch).
  void Clear() { tensor_map_.Clear(); }

  const TensorMap& tensor_map() const { return tensor_map_; }

 private:
  TensorMap tensor_map_;
  std::vector<TensorMapMatch> matches_;  // reused across calls
};

// Replaces `*producers` with the distinct producers of `edges`, ascending,
// without `self`: the fan-in the orchestrator wires.
void UniqueProducers(TaskSeq self, absl::Span<const DepEdge> edges,
                     std::vector<TaskSeq>* producers);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_DEP_INFERENCE_H_
