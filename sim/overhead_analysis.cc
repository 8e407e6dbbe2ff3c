#include "sim/overhead_analysis.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/plural.h"
#include "sim/overhead_analyzer.h"
#include "sim/pipe_stats.h"

namespace pto {
namespace {

using Json = nlohmann::json;

enum Engine { kAicEngine = 0, kAivEngine = 1, kEngines = 2 };

// The producer of task `i` with the largest end among those that ran (ties:
// the larger runtime id), or -1.
int64_t GatingProducer(const LaunchLog& log, size_t i) {
  int64_t best = -1;
  for (uint32_t p : log.producers(i)) {
    const LaunchLog::TaskInfo& t = log.task(p);
    if (!t.ran()) continue;
    if (best < 0) {
      best = p;
      continue;
    }
    const LaunchLog::TaskInfo& b = log.task(best);
    if (std::make_pair(t.end, t.runtime_id) > std::make_pair(b.end, b.runtime_id)) best = p;
  }
  return best;
}

// The window and per-engine used-core counts the model works over.
struct Window {
  TimePs w0 = 0;
  TimePs w1 = 0;
  int cores[kEngines] = {0, 0};
  bool present[kEngines] = {false, false};
};

Window WindowOf(const LaunchLog& log, const OutputChip& chip) {
  Window w;
  std::vector<bool> seen;
  bool any = false;
  for (const CoreInterval& c : log.intervals()) {
    w.w0 = any ? std::min(w.w0, c.start) : c.start;
    w.w1 = any ? std::max(w.w1, c.end) : c.end;
    any = true;
    const int e = chip.is_aic(c.core) ? kAicEngine : kAivEngine;
    w.present[e] = true;
    if (seen.size() <= static_cast<size_t>(c.core)) seen.resize(c.core + 1, false);
    if (!seen[c.core]) {
      seen[c.core] = true;
      ++w.cores[e];
    }
  }
  return w;
}

}  // namespace

void SweepOverheadStates(
    const LaunchLog& log, const OutputChip& chip,
    const std::function<void(TimePs from, TimePs to, const OverheadState& state)>& visit) {
  const Window w = WindowOf(log, chip);
  // (time, engine, running delta, waiting delta), clamped to the window.
  std::vector<std::tuple<TimePs, int, int, int>> events;
  auto clamp = [&](TimePs t) { return std::clamp(t, w.w0, w.w1); };
  for (const CoreInterval& c : log.intervals()) {
    const int e = chip.is_aic(c.core) ? kAicEngine : kAivEngine;
    const TimePs s = clamp(c.start), t = clamp(c.end);
    if (t <= s) continue;
    events.emplace_back(s, e, +1, 0);
    events.emplace_back(t, e, -1, 0);
  }
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& task = log.task(i);
    if (!task.ran()) continue;
    const int64_t gate = GatingProducer(log, i);
    const TimePs ready = clamp(gate >= 0 ? log.task(gate).end : task.dispatch);
    const TimePs dispatched = clamp(task.dispatch);
    if (dispatched <= ready) continue;
    for (int e = 0; e < kEngines; ++e) {
      if (!OverheadAnalyzer::WaitsOnEngine(task.shape, e == kAivEngine) || !w.present[e]) {
        continue;
      }
      events.emplace_back(ready, e, 0, +1);
      events.emplace_back(dispatched, e, 0, -1);
    }
  }
  std::sort(events.begin(), events.end());
  int running[kEngines] = {0, 0};
  OverheadState state;
  for (int e = 0; e < kEngines; ++e) state.present[e] = w.present[e];
  for (size_t k = 0; k < events.size();) {
    const TimePs now = std::get<0>(events[k]);
    while (k < events.size() && std::get<0>(events[k]) == now) {
      running[std::get<1>(events[k])] += std::get<2>(events[k]);
      state.ready_tasks[std::get<1>(events[k])] += std::get<3>(events[k]);
      ++k;
    }
    if (k == events.size()) break;
    bool all = true, any_present = false, any_work = false, has = true;
    for (int e = 0; e < kEngines; ++e) {
      state.idle_cores[e] = w.cores[e] - running[e];
      state.overhead[e] = w.present[e] && state.idle_cores[e] > 0 && state.ready_tasks[e] > 0;
      if (!w.present[e]) continue;
      any_present = true;
      all = all && state.overhead[e];
      if (state.ready_tasks[e] > 0) {
        any_work = true;
        has = has && state.idle_cores[e] > 0;
      }
    }
    state.all = any_present && all;
    state.has = any_work && has;
    visit(now, std::get<0>(events[k]), state);
  }
}

Json AnalyzeOverhead(const LaunchLog& log, const OutputChip& chip) {
  // The whole launch at once through the online analyzer: every task, its
  // intervals and pipe time, then every completion.
  OverheadAnalyzer analyzer(chip);
  std::vector<TaskSeq> producers;
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    producers.assign(log.producers(i).begin(), log.producers(i).end());
    analyzer.AddTask(i, i, t.runtime_id, log.name(t), t.shape, producers, t.submit_start);
  }
  for (CoreInterval c : log.intervals()) {
    const int64_t index = log.IndexOf(c.task);
    c.task = index < 0 ? kNoTask : static_cast<TaskSeq>(index);
    analyzer.AddInterval(c);
  }
  for (size_t i = 0; i < log.task_count(); ++i) {
    if (const LaunchLog::PipeTime* pipes = log.pipe_time(i)) {
      analyzer.AddPipeTime(i, pipes->busy, pipes->span);
    }
  }
  analyzer.SetThreadLoops(log.threads());
  return analyzer.Finish();
}

std::string DescribeOverhead(const Json& a) {
  const Json& share = a["overhead_share"];
  const Json& loop = a["scheduler_loop"];
  const Json& path = a["critical_path"];
  std::string text = absl::StrFormat(
      "  scheduler overhead (share of makespan): AIC %.1f%%, AIV %.1f%%, all %.1f%%, has %.1f%%\n",
      100 * share["aic"].get<double>(), 100 * share["aiv"].get<double>(),
      100 * share["all"].get<double>(), 100 * share["has"].get<double>());
  absl::StrAppend(&text, absl::StrFormat("  head overhead avg %.3f us, tail overhead avg %.3f us\n",
                                         a["head_overhead_us"]["all"]["avg"].get<double>(),
                                         a["tail_overhead_us"]["all"]["avg"].get<double>()));
  absl::StrAppend(
      &text, absl::StrFormat("  Avg scheduler loop iteration: %.0f ns; Pop: hit=%d, miss=%d\n",
                             loop["avg_ns_per_loop"].get<double>(), loop["pop_hit"].get<uint64_t>(),
                             loop["pop_miss"].get<uint64_t>()));
  absl::StrAppend(
      &text,
      absl::StrFormat("  critical path: %s, span %.3f us, compute %.3f us, "
                      "scheduler-injected %.3f us\n",
                      CountOf(path["hops"].get<int64_t>(), "hop"), path["span_us"].get<double>(),
                      path["compute_us"].get<double>(), path["injected_us"].get<double>()));
  if (path.contains("unavailable")) {
    absl::StrAppend(
        &text, "  critical path not available: ", path["unavailable"].get<std::string>(), "\n");
  }
  if (const Json& stop = path.value("stopped_at", Json()); stop.is_object()) {
    absl::StrAppend(
        &text, absl::StrFormat("  critical path starts at '%s' (task %s): it waited for %s task "
                               "'%s' (task %s), which ran on no core, so the walk (over core "
                               "records, as the runtime's tool does) stops there\n",
                               stop["name"].get<std::string>(), stop["task_id"].get<std::string>(),
                               absl::AsciiStrToLower(stop["waits_on_shape"].get<std::string>()),
                               stop["waits_on_name"].get<std::string>(),
                               stop["waits_on_id"].get<std::string>()));
  }
  if (path.contains("bound_pipe") && path["bound_pipe"].is_string()) {
    absl::StrAppend(&text, absl::StrFormat("  critical path bound by %s (%.0f %%)\n",
                                           path["bound_pipe"].get<std::string>(),
                                           100 * path["bound_pipe_share"].get<double>()));
  }
  return text;
}

}  // namespace pto
