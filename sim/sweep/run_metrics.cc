#include "sim/sweep/run_metrics.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "sim/stats_file.h"
#include "sim/stats_schema.h"

namespace pto {
namespace {

using Json = nlohmann::json;

bool Has(const Json& j, const char* key) { return j.is_object() && j.contains(key); }

// One launch's metrics, plus the two sums its overhead share is made of.
struct LaunchNumbers {
  MetricMap metrics;
  double overhead_us = 0;         // time with an idle core and ready work
  double overhead_window_us = 0;  // the analysis's makespan
  bool has_overhead = false;
};

// The schema's metrics of one launch. An absent key reads as 0, except the
// overhead model's, which --summary-only runs do not write: those are left
// out of the map.
LaunchNumbers FromLaunch(const Json& launch) {
  LaunchNumbers n;
  n.has_overhead = Has(launch, "scheduler_overhead") && launch["scheduler_overhead"].is_object();
  for (const std::string& name : StatMetricNames()) {
    const StatSpec& spec = *FindMetric(name);
    const double value = StatNumber(launch, spec.path);
    if (std::isnan(value) && spec.conditional) continue;
    n.metrics[name] = std::isnan(value) ? 0.0 : value;
  }
  if (n.has_overhead) {
    n.overhead_us = StatNumber(launch, kStatOverheadAllUs);
    n.overhead_window_us = StatNumber(launch, kStatOverheadWindowUs);
  }
  return n;
}

}  // namespace

MetricKind KindOf(const std::string& metric_name) {
  const StatSpec* spec = FindMetric(metric_name.substr(metric_name.rfind('.') + 1));
  if (spec == nullptr) return MetricKind::kCount;
  switch (spec->unit) {
    case StatUnit::kFraction:
      return MetricKind::kShare;
    case StatUnit::kMicroseconds:
    case StatUnit::kNanoseconds:
      return MetricKind::kTime;
    default:
      return MetricKind::kCount;
  }
}

MetricMap RunMetrics::Flatten() const {
  MetricMap flat = total;
  if (launches.size() < 2) return flat;
  for (const auto& [name, metrics] : launches) {
    for (const auto& [metric, value] : metrics) flat[absl::StrCat(name, ".", metric)] = value;
  }
  return flat;
}

absl::StatusOr<RunMetrics> MetricsFromStats(const Json& stats) {
  std::vector<const Json*> launch_json;
  if (Has(stats, "per_launch") && stats["per_launch"].is_array()) {
    for (const Json& launch : stats["per_launch"]) launch_json.push_back(&launch);
  } else {
    launch_json.push_back(&stats);
  }
  std::vector<LaunchNumbers> numbers;
  std::map<std::string, int> name_count;
  for (const Json* launch : launch_json) {
    numbers.push_back(FromLaunch(*launch));
    const std::string name = Has(*launch, "name") && (*launch)["name"].is_string()
                                 ? (*launch)["name"].get<std::string>()
                                 : "launch";
    ++name_count[name];
  }
  RunMetrics run;
  MetricMap& total = run.total;
  double weighted_aic = 0, weighted_aiv = 0, overhead = 0, window = 0;
  bool all_have_overhead = true;
  for (size_t i = 0; i < numbers.size(); ++i) {
    const Json& launch = *launch_json[i];
    std::string name = Has(launch, "name") && launch["name"].is_string()
                           ? launch["name"].get<std::string>()
                           : "launch";
    if (name_count[name] > 1) name = absl::StrCat(name, "#", i);
    const MetricMap& m = numbers[i].metrics;
    for (const auto& [metric, value] : m) {
      if (FindMetric(metric)->total == StatTotal::kSum) total[metric] += value;
    }
    weighted_aic += m.at("aic_busy_share") * m.at("makespan_us");
    weighted_aiv += m.at("aiv_busy_share") * m.at("makespan_us");
    all_have_overhead = all_have_overhead && numbers[i].has_overhead;
    overhead += numbers[i].overhead_us;
    window += numbers[i].overhead_window_us;
    run.launches.emplace_back(name, m);
  }
  // Times are whole picoseconds: round the sums so float noise never shows.
  for (auto& [metric, value] : total) {
    if (KindOf(metric) == MetricKind::kTime) value = std::round(value * 1e6) / 1e6;
  }
  const double makespan = total["makespan_us"];
  total["aic_busy_share"] = makespan > 0 ? weighted_aic / makespan : 0.0;
  total["aiv_busy_share"] = makespan > 0 ? weighted_aiv / makespan : 0.0;
  if (all_have_overhead) total["overhead_share"] = window > 0 ? overhead / window : 0.0;
  return run;
}

absl::StatusOr<RunMetrics> ReadRunMetrics(const std::string& stats_json_path) {
  absl::StatusOr<Json> stats = LoadStatsSummary(stats_json_path);
  if (!stats.ok()) return stats.status();
  return MetricsFromStats(*stats);
}

}  // namespace pto
