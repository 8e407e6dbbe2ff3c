#ifndef PTO_SIM_REGRESS_BASELINE_H_
#define PTO_SIM_REGRESS_BASELINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/regress/suite.h"
#include "sim/sweep/run_metrics.h"

namespace pto {

// A suite's timing baselines: per case, the metrics recorded by the last
// `--update-baselines`. Stored as JSON with sorted keys, so a change in
// simulated time is a small, reviewable diff.
using Baselines = std::map<std::string, MetricMap>;

// The metrics a baseline records: times, counts and shares of the run and of
// each launch; not checks or hazards (those are expectations of their own).
MetricMap BaselineMetrics(const RunMetrics& run);

// A missing file is an empty set of baselines; a malformed one is an error
// naming the file.
absl::StatusOr<Baselines> LoadBaselines(const std::string& path);
absl::Status SaveBaselines(const std::string& path, const std::string& suite_name,
                           const Baselines& baselines);

struct MetricDrift {
  std::string metric;
  double baseline = 0;  // NaN when the baseline lacks the metric
  double measured = 0;  // NaN when the run lacks it
  std::string allowed;  // the tolerance, e.g. "±1%", "±0.01", "exact"
};

// The metrics outside their tolerance (or present on only one side).
std::vector<MetricDrift> CompareToBaseline(const MetricMap& baseline, const MetricMap& measured,
                                           const Tolerance& tolerance);

// A table: metric, baseline, measured, change, allowed.
std::string FormatDrifts(const std::vector<MetricDrift>& drifts);

}  // namespace pto

#endif  // PTO_SIM_REGRESS_BASELINE_H_
