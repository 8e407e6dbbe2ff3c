#ifndef PTO_SIM_SWEEP_RUN_METRICS_H_
#define PTO_SIM_SWEEP_RUN_METRICS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace pto {

// The numbers regression suites and sweeps compare, by name, for one run.
using MetricMap = std::map<std::string, double>;

struct RunMetrics {
  MetricMap total;  // the whole run (launches summed; shares weighted by makespan)
  // Per launch, keyed "<launch name>" or, when two launches share a name,
  // "<launch name>#<index>"; in launch order.
  std::vector<std::pair<std::string, MetricMap>> launches;

  // Every metric by its full name: "makespan_us" for the total,
  // "<launch>.makespan_us" per launch. Launch metrics are listed only for
  // traces with more than one launch (for one they equal the total).
  MetricMap Flatten() const;
};

// Whether a metric is a count (compared exactly), a share (a fraction, with
// an absolute tolerance) or a time (with a relative tolerance).
enum class MetricKind { kTime, kCount, kShare };
MetricKind KindOf(const std::string& metric_name);

// Reads the metrics from a parsed stats.json (single- or multi-launch).
// Overhead shares and critical_path_injected_us (the scheduler's gaps on the
// critical path) come from "scheduler_overhead", which --summary-only runs do
// not write; they are then absent from the maps.
absl::StatusOr<RunMetrics> MetricsFromStats(const nlohmann::json& stats);

// Loads DIR/stats.json, skipping the per-record arrays.
absl::StatusOr<RunMetrics> ReadRunMetrics(const std::string& stats_json_path);

}  // namespace pto

#endif  // PTO_SIM_SWEEP_RUN_METRICS_H_
