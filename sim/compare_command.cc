#include "sim/compare_command.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "sim/stats_file.h"

namespace pto {
namespace {

using Json = nlohmann::json;

// A number at a '/'-separated path (array elements by index), or NaN when
// absent.
double At(const Json& j, const std::string& path) {
  const Json* node = &j;
  size_t begin = 0;
  while (begin <= path.size()) {
    const size_t end = std::min(path.find('/', begin), path.size());
    const std::string key = path.substr(begin, end - begin);
    if (node->is_array()) {
      char* rest = nullptr;
      const unsigned long index = std::strtoul(key.c_str(), &rest, 10);
      if (key.empty() || *rest != '\0' || index >= node->size()) return NAN;
      node = &(*node)[index];
    } else {
      if (!node->is_object() || !node->contains(key)) return NAN;
      node = &(*node)[key];
    }
    begin = end + 1;
  }
  return node->is_number() ? node->get<double>() : NAN;
}

void Row(std::ostream& out, const std::string& label, double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return;
  auto num = [](double v) { return std::isnan(v) ? std::string("-") : absl::StrFormat("%.6g", v); };
  std::string delta = "-", percent = "-";
  if (!std::isnan(a) && !std::isnan(b)) {
    delta = absl::StrFormat("%+.6g", b - a);
    percent = a != 0 ? absl::StrFormat("%+.1f%%", 100.0 * (b - a) / std::fabs(a))
                     : (b == a ? "+0.0%" : "n/a");
  }
  out << absl::StrFormat("  %-34s %14s %14s %14s %9s\n", label, num(a), num(b), delta, percent);
}

// Metric table rows: label, path in a launch summary (or the totals).
constexpr std::pair<const char*, const char*> kMetrics[] = {
    {"makespan_us", "makespan_us"},
    {"device_wall_us", "device_wall_us"},
    {"tasks", "tasks"},
    {"task_dispatches", "task_dispatches"},
    {"block_dispatches", "block_dispatches"},
    {"predicated_skips", "predicated_skips"},
    {"edges", "edges"},
    {"busy_share.aic", "engine_busy_share/aic"},
    {"busy_share.aiv", "engine_busy_share/aiv"},
    {"early_dispatched_blocks", "early_dispatched_blocks"},
    {"orchestrator_busy_us", "orchestrator_busy_us"},
    {"submit_us_per_task", "orchestrator/submit_us_per_task"},
    {"scheduler_busy_us", "scheduler_busy_us"},
    {"scheduler_ns_per_loop", "schedulers/ns_per_loop"},
    {"ring0.peak_task_window", "rings/0/peak_task_window"},
    {"ring0.orch_blocked_us", "rings/0/orchestrator_blocked_us"},
    {"ring1.peak_task_window", "rings/1/peak_task_window"},
    {"ring1.orch_blocked_us", "rings/1/orchestrator_blocked_us"},
    {"ring2.peak_task_window", "rings/2/peak_task_window"},
    {"ring2.orch_blocked_us", "rings/2/orchestrator_blocked_us"},
    {"ring3.peak_task_window", "rings/3/peak_task_window"},
    {"ring3.orch_blocked_us", "rings/3/orchestrator_blocked_us"},
    {"overhead_share.aic", "scheduler_overhead/overhead_share/aic"},
    {"overhead_share.aiv", "scheduler_overhead/overhead_share/aiv"},
    {"overhead_share.all", "scheduler_overhead/overhead_share/all"},
    {"overhead_share.has", "scheduler_overhead/overhead_share/has"},
    {"head_overhead_avg_us", "scheduler_overhead/head_overhead_us/all/avg"},
    {"tail_overhead_avg_us", "scheduler_overhead/tail_overhead_us/all/avg"},
    {"sched_loop_ns", "scheduler_overhead/scheduler_loop/avg_ns_per_loop"},
    {"pop_hit", "scheduler_overhead/scheduler_loop/pop_hit"},
    {"pop_miss", "scheduler_overhead/scheduler_loop/pop_miss"},
    {"critical_path.hops", "scheduler_overhead/critical_path/hops"},
    {"critical_path.span_us", "scheduler_overhead/critical_path/span_us"},
    {"critical_path.compute_us", "scheduler_overhead/critical_path/compute_us"},
    {"critical_path.injected_us", "scheduler_overhead/critical_path/injected_us"},
};

const Json* Hops(const Json& summary) {
  if (!summary.contains("scheduler_overhead")) return nullptr;
  const Json& oh = summary["scheduler_overhead"];
  if (!oh.is_object() || !oh.contains("critical_path")) return nullptr;
  const Json& hops = oh["critical_path"]["path"];
  return hops.is_array() ? &hops : nullptr;
}

void CompareSummaries(const Json& a, const Json& b, std::ostream& out) {
  out << absl::StrFormat("  %-34s %14s %14s %14s %9s\n", "metric", "A", "B", "delta", "delta%");
  for (const auto& [label, path] : kMetrics) Row(out, label, At(a, path), At(b, path));
  const Json* ha = Hops(a);
  const Json* hb = Hops(b);
  if (ha == nullptr && hb == nullptr) return;
  const size_t na = ha ? ha->size() : 0, nb = hb ? hb->size() : 0;
  out << "  critical path, hop by hop (scheduler-injected us before each hop; root first):\n";
  for (size_t k = 0; k < std::max(na, nb); ++k) {
    const Json* x = k < na ? &(*ha)[k] : nullptr;
    const Json* y = k < nb ? &(*hb)[k] : nullptr;
    const std::string name_a = x ? (*x)["name"].get<std::string>() : "-";
    const std::string name_b = y ? (*y)["name"].get<std::string>() : "-";
    const std::string label = name_a == name_b
                                  ? absl::StrFormat("hop %d %s", k, name_a)
                                  : absl::StrFormat("hop %d %s / %s", k, name_a, name_b);
    Row(out, label, x ? (*x)["injected_us"].get<double>() : NAN,
        y ? (*y)["injected_us"].get<double>() : NAN);
  }
}

}  // namespace

int RunCompareCommand(const std::string& a_path, const std::string& b_path, std::ostream& out,
                      std::ostream& err) {
  absl::StatusOr<Json> a = LoadStatsSummary(a_path);
  absl::StatusOr<Json> b = a.ok() ? LoadStatsSummary(b_path) : a;
  for (const absl::StatusOr<Json>* s : {&a, &b}) {
    if (!s->ok()) {
      err << "pto_sim compare: error: " << s->status().message() << "\n";
      return 2;
    }
  }
  out << "A: " << a_path << "\nB: " << b_path << "\n";
  const bool multi_a = a->contains("per_launch"), multi_b = b->contains("per_launch");
  if (!multi_a && !multi_b) {
    CompareSummaries(*a, *b, out);
    return 0;
  }
  out << "totals:\n";
  CompareSummaries(*a, *b, out);
  const Json empty = Json::array();
  const Json& la = multi_a ? (*a)["per_launch"] : empty;
  const Json& lb = multi_b ? (*b)["per_launch"] : empty;
  if (la.size() != lb.size()) {
    out << absl::StrFormat("launch counts differ: A has %d, B has %d; comparing the first %d\n",
                           multi_a ? la.size() : 1, multi_b ? lb.size() : 1,
                           std::min(la.size(), lb.size()));
  }
  for (size_t i = 0; i < std::min(la.size(), lb.size()); ++i) {
    const std::string name = la[i].value("name", std::string());
    out << absl::StrFormat("launch %d '%s':\n", i, name);
    CompareSummaries(la[i], lb[i], out);
  }
  return 0;
}

}  // namespace pto
