#ifndef PTO_SIM_PIPE_STATS_H_
#define PTO_SIM_PIPE_STATS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "models/base/ids.h"
#include "models/base/time.h"
#include "models/core/core_observer.h"
#include "models/core/pipe_scheduler.h"
#include "nlohmann/json.hpp"

namespace pto {

using PipeTimes = std::array<TimePs, kPipeCount>;  // by Pipe

// The pipe with the most busy time (the first in Pipe order on a tie);
// none when every pipe is idle.
std::optional<Pipe> BoundingPipe(const PipeTimes& busy);

// One launch's pipe totals for stats.json ("pipes"), from the cores'
// OnPipeOps (op programs outside MIX):
//   busy_ns {aic, aiv} {<pipe>}: the union of the time each pipe had an op
//     running, summed over the cores of that type;
//   op_ns {<pipe>} {<op kind>}: the ops' own end - start, summed (a DMA
//     pipe's transfers in flight together each count);
//   bound_tasks {<pipe>}: tasks whose pipe with the most busy time over
//     their blocks is that pipe.
// A task's totals are kept from its first segment until Retire, so memory
// follows the tasks in flight, not the launch.
class PipeStats {
 public:
  void Add(const PipeSegment& segment);
  // `task` retired: its bounding pipe over its blocks (counted in
  // bound_tasks), or none when it ran nothing on the pipes.
  std::optional<Pipe> Retire(TaskSeq task);
  nlohmann::json ToJson() const;
  bool empty() const { return !any_; }
  // Busy time per pipe over one core type's cores.
  const PipeTimes& busy(bool aic) const { return busy_[aic ? 0 : 1]; }
  uint64_t bound_tasks(Pipe pipe) const { return bound_tasks_[static_cast<int>(pipe)]; }

 private:
  bool any_ = false;
  std::array<PipeTimes, 2> busy_{};  // [AIC, AIV]
  // [pipe][op kind]
  std::array<std::vector<TimePs>, kPipeCount> op_time_;
  absl::flat_hash_map<TaskSeq, PipeTimes> in_flight_;
  std::array<uint64_t, kPipeCount> bound_tasks_{};
};

// The summary's line: each core type's busy pipes and the tasks each pipe
// bound, e.g. "pipes: AIV busy mte2 4.000 us, vector 0.016 us, mte3 4.000
// us; tasks bound by mte2 1".
std::string DescribePipes(const PipeStats& stats);

}  // namespace pto

#endif  // PTO_SIM_PIPE_STATS_H_
