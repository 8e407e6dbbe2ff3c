#include "sim/sweep/run_metrics.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "sim/stats_file.h"

namespace pto {
namespace {

using Json = nlohmann::json;

double Number(const Json& j, std::initializer_list<const char*> path) {
  const Json* node = &j;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return 0.0;
    node = &(*node)[key];
  }
  return node->is_number() ? node->get<double>() : 0.0;
}

bool Has(const Json& j, const char* key) { return j.is_object() && j.contains(key); }

// One launch's metrics, plus the two sums its overhead share is made of.
struct LaunchNumbers {
  MetricMap metrics;
  double overhead_us = 0;         // time with an idle core and ready work
  double overhead_window_us = 0;  // the analysis's makespan
  bool has_overhead = false;
};

LaunchNumbers FromLaunch(const Json& launch) {
  LaunchNumbers n;
  MetricMap& m = n.metrics;
  for (const char* key :
       {"makespan_us", "device_wall_us", "orchestrator_busy_us", "scheduler_busy_us", "tasks",
        "task_dispatches", "block_dispatches", "predicated_skips", "early_dispatched_blocks"}) {
    m[key] = Number(launch, {key});
  }
  m["hazards"] = Has(launch, "hazards") && launch["hazards"].is_array()
                     ? static_cast<double>(launch["hazards"].size())
                     : 0.0;
  m["aic_busy_share"] = Number(launch, {"engine_busy_share", "aic"});
  m["aiv_busy_share"] = Number(launch, {"engine_busy_share", "aiv"});
  m["checks_passed"] = Number(launch, {"checks", "passed"});
  m["checks_failed"] = Number(launch, {"checks", "failed"});
  if (Has(launch, "scheduler_overhead") && launch["scheduler_overhead"].is_object()) {
    n.has_overhead = true;
    n.overhead_us = Number(launch, {"scheduler_overhead", "overhead_us", "all"});
    n.overhead_window_us = Number(launch, {"scheduler_overhead", "makespan_us"});
    m["overhead_share"] = Number(launch, {"scheduler_overhead", "overhead_share", "all"});
    m["critical_path_injected_us"] =
        Number(launch, {"scheduler_overhead", "critical_path", "injected_us"});
  }
  return n;
}

}  // namespace

const std::vector<std::string>& MetricNames() {
  static const auto* names = new std::vector<std::string>{"makespan_us",
                                                          "device_wall_us",
                                                          "orchestrator_busy_us",
                                                          "scheduler_busy_us",
                                                          "tasks",
                                                          "task_dispatches",
                                                          "block_dispatches",
                                                          "predicated_skips",
                                                          "early_dispatched_blocks",
                                                          "overhead_share",
                                                          "aic_busy_share",
                                                          "aiv_busy_share",
                                                          "hazards",
                                                          "checks_passed",
                                                          "checks_failed"};
  return *names;
}

MetricKind KindOf(const std::string& metric_name) {
  const std::string leaf = metric_name.substr(metric_name.rfind('.') + 1);
  if (leaf.size() > 6 && leaf.compare(leaf.size() - 6, 6, "_share") == 0) {
    return MetricKind::kShare;
  }
  if (leaf.size() > 3 && leaf.compare(leaf.size() - 3, 3, "_us") == 0) return MetricKind::kTime;
  return MetricKind::kCount;
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
      if (KindOf(metric) != MetricKind::kShare) total[metric] += value;
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
