#ifndef PTO_SIM_HAZARD_TAP_H_
#define PTO_SIM_HAZARD_TAP_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "models/aicpu/dep_inference.h"
#include "models/hazard/hazard_detector.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"
#include "sim/hazard_output.h"

namespace pto {

// Feeds the hazard detector from the chip's observations of one launch: each
// submitted task with its ring place, dependency edges and predicate read,
// every GM access its kernels actually made, and the orchestration's host
// reads. Tasks of more than one block also log, per block, their accesses
// and their dcci / fence / syncall events, for the hand-off check between
// blocks. A task's accesses are complete when it completes; the detector
// checks tasks in submission order, so the reports do not depend on when
// anything ran. `task_windows` are the launch's ring task windows.
//
// The runtime's tensor map forgets a producer when it retires, so whether a
// consumer gets a tensor-map edge depends on timing (a producer that
// retired before the consumer's submit is ordered by time instead). The tap
// therefore runs the same inference on a tensor map of its own that forgets
// a producer only once the detector retires it (when the window or a host
// read orders it before everything still to come): the edges the program
// implies, whatever the timing.
class HazardTap : public RunObserver {
 public:
  HazardTap(const trace::StreamHeader& header, int64_t line_bytes,
            const std::array<int64_t, HazardDetector::kRings>& task_windows);

  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                  uint64_t size) override;
  void OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr, int64_t rows,
                uint64_t row_bytes, uint64_t stride) override;
  void OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) override;
  void OnTaskCompleted(const Task& task) override;
  void OnHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                  const std::string& origin) override;

  // Flushes what is left and moves every report into `output`.
  void Finish(HazardOutput* output);
  // Tasks the detector did not check (HazardDetector::unchecked_tasks).
  int64_t unchecked_tasks() const { return detector_->unchecked_tasks(); }

 private:
  bool ManualDep(uint32_t tensor_id);

  const trace::StreamHeader& header_;
  std::unique_ptr<HazardDetector> detector_;
  DependencyInference program_deps_{/*indexed_map=*/true};
  static constexpr int8_t kUnknown = -1;
  std::vector<int8_t> manual_dep_;      // by tensor id: 1, 0 or kUnknown
  std::vector<DepArg> dep_args_;        // reused
  std::vector<DepEdge> program_edges_;  // reused
  std::vector<TaskSeq> producers_;      // reused
  // Live tasks of more than one block (or lane): their blocks are checked
  // against each other.
  absl::flat_hash_set<TaskSeq> multi_block_;
};

}  // namespace pto

#endif  // PTO_SIM_HAZARD_TAP_H_
