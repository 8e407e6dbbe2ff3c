#ifndef PTO_SIM_SWEEP_SWEEP_TABLE_H_
#define PTO_SIM_SWEEP_SWEEP_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/sweep/run_metrics.h"
#include "sim/sweep/sweep_grid.h"

namespace pto {

// What a sweep simulates; shards of one sweep share it, and sweep-merge
// refuses shards whose specs differ.
struct SweepSpec {
  std::string config;
  std::vector<std::string> traces;
  std::vector<SweepAxis> axes;
  std::vector<std::string> sets;  // fixed --set overrides on every point
  bool summary_only = false;
  std::string chart_metric = "makespan_us";
  std::string chart_key;  // empty: the first axis

  int PointCount() const;
  std::string ChartKey() const;
};

// One simulated point: no wall-clock numbers, so rows repeat byte for byte.
struct SweepRow {
  int point = 0;
  std::string trace;
  std::vector<std::string> values;  // one per axis
  int exit_code = 0;
  std::string error;  // the run's last error line when it failed
  MetricMap metrics;  // whole-run metrics; empty when the run wrote none
  int launches = 0;   // the run's launch count (metrics sum them); 0: no run file
};

// The numeric columns of sweep.csv / sweep.json, in order.
const std::vector<std::string>& SweepMetricColumns();

// CSV: point, trace, the varied keys by config name, exit_code, the metric
// columns, error. Rows in point order.
std::string SweepCsv(const SweepSpec& spec, const std::vector<SweepRow>& rows);

// {"sweep": spec, "rows": [...]}, rows in point order.
nlohmann::json SweepJson(const SweepSpec& spec, const std::vector<SweepRow>& rows);

struct SweepTable {
  SweepSpec spec;
  std::vector<SweepRow> rows;
};

// Reads back SweepJson's output; errors name `source` and the bad field.
absl::StatusOr<SweepTable> ParseSweepJson(const nlohmann::json& j, const std::string& source);

}  // namespace pto

#endif  // PTO_SIM_SWEEP_SWEEP_TABLE_H_
