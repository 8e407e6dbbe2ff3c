#ifndef PTO_SIM_HAZARD_TAP_H_
#define PTO_SIM_HAZARD_TAP_H_

#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "models/hazard/hazard_detector.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"
#include "sim/hazard_output.h"

namespace pto {

// Feeds the hazard detector from the chip's observations of one launch: each
// submitted task with its dependency edges and predicate read, and every GM
// access its kernels actually made (atomic adds are exempt from reports).
// Tasks of more than one block also log, per block, their accesses and their
// dcci / fence / syncall events, for the hand-off check between blocks.
// Reports come out when tasks retire and at Finish().
class HazardTap : public RunObserver {
 public:
  HazardTap(const trace::StreamHeader& header, int64_t line_bytes);

  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                  uint64_t size) override;
  void OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr, int64_t rows,
                uint64_t row_bytes, uint64_t stride) override;
  void OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) override;
  void OnTaskRetired(const Task& task) override;

  // Flushes what is left and moves every report into `output`.
  void Finish(HazardOutput* output);

 private:
  const trace::StreamHeader& header_;
  std::unique_ptr<HazardDetector> detector_;
  std::vector<TaskSeq> producers_;  // reused
  // Live tasks of more than one block (or lane): their blocks are checked
  // against each other.
  absl::flat_hash_set<TaskSeq> multi_block_;
};

}  // namespace pto

#endif  // PTO_SIM_HAZARD_TAP_H_
