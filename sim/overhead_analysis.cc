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
#include "sim/pipe_stats.h"

namespace pto {
namespace {

using Json = nlohmann::json;

enum Engine { kAicEngine = 0, kAivEngine = 1, kEngines = 2 };
constexpr const char* kEngineNames[kEngines] = {"aic", "aiv"};

struct Stat {
  int64_t records = 0;
  TimePs total = 0;
  TimePs max = 0;
  void Add(TimePs v) {
    ++records;
    total += v;
    max = std::max(max, v);
  }
  Json ToJson() const {
    return {{"records", records},
            {"total", PsToUs(total)},
            {"avg", records ? PsToUs(total) / records : 0.0},
            {"max", PsToUs(max)}};
  }
};

// A pipe's name, or null for none.
Json PipeJson(std::optional<Pipe> pipe) {
  return pipe ? Json(std::string(PipeName(*pipe))) : Json(nullptr);
}

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

struct OverheadTimes {
  TimePs engine[kEngines] = {0, 0};
  TimePs all = 0;
  TimePs has = 0;
};

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
      const bool counts =
          task.shape == TaskShape::kMix ||
          (e == kAicEngine ? task.shape == TaskShape::kAic : task.shape == TaskShape::kAiv);
      if (!counts || !w.present[e]) continue;
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

namespace {

OverheadTimes SumOverhead(const LaunchLog& log, const OutputChip& chip) {
  OverheadTimes out;
  SweepOverheadStates(log, chip, [&out](TimePs from, TimePs to, const OverheadState& s) {
    for (int e = 0; e < kEngines; ++e) {
      if (s.overhead[e]) out.engine[e] += to - from;
    }
    if (s.all) out.all += to - from;
    if (s.has) out.has += to - from;
  });
  return out;
}

}  // namespace

Json AnalyzeOverhead(const LaunchLog& log, const OutputChip& chip) {
  const std::vector<CoreInterval>& intervals = log.intervals();
  const Window window = WindowOf(log, chip);
  const TimePs w0 = window.w0, w1 = window.w1;
  const TimePs makespan = w1 - w0;
  std::map<int, std::vector<size_t>> by_core;  // ordered: deterministic
  for (size_t i = 0; i < intervals.size(); ++i) by_core[intervals[i].core].push_back(i);

  Json out;
  out["makespan_us"] = PsToUs(makespan);
  out["window_us"] = {{"start", PsToUs(w0)}, {"end", PsToUs(w1)}};

  // Part 1: overhead shares.
  const OverheadTimes oh = SumOverhead(log, chip);
  auto share = [makespan](TimePs t) {
    return makespan > 0 ? static_cast<double>(t) / static_cast<double>(makespan) : 0.0;
  };
  out["overhead_us"] = {{"aic", PsToUs(oh.engine[kAicEngine])},
                        {"aiv", PsToUs(oh.engine[kAivEngine])},
                        {"all", PsToUs(oh.all)},
                        {"has", PsToUs(oh.has)}};
  out["overhead_share"] = {{"aic", share(oh.engine[kAicEngine])},
                           {"aiv", share(oh.engine[kAivEngine])},
                           {"all", share(oh.all)},
                           {"has", share(oh.has)}};

  // Parts 2-4: per core, in start order: head/tail and aicore switches.
  Stat head[kEngines + 1], tail[kEngines + 1];
  Json per_core = Json::array();
  TimePs min_all = kNever, min_engine[kEngines] = {kNever, kNever};
  for (auto& [core, list] : by_core) {
    std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) {
      return std::tie(intervals[a].start, intervals[a].end, intervals[a].dispatch) <
             std::tie(intervals[b].start, intervals[b].end, intervals[b].dispatch);
    });
    const int e = chip.is_aic(core) ? kAicEngine : kAivEngine;
    int64_t switches = 0;
    TimePs switched = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      const CoreInterval& c = intervals[list[k]];
      const CoreInterval* prev = k > 0 ? &intervals[list[k - 1]] : nullptr;
      TimePs h = c.start - c.dispatch;
      if (prev != nullptr) h = std::min(h, c.start - prev->end);
      for (int slot : {e, static_cast<int>(kEngines)}) {
        head[slot].Add(std::max<TimePs>(h, 0));
        tail[slot].Add(std::max<TimePs>(c.finish - c.end, 0));
      }
      if (prev == nullptr) continue;
      const TimePs gap = std::min(c.start, w1) - std::max(prev->end, w0);
      if (gap > 0 && c.dispatch < prev->end) {
        ++switches;
        switched += gap;
      }
    }
    per_core.push_back({{"core", core},
                        {"name", chip.CoreName(core)},
                        {"switches", switches},
                        {"total_us", PsToUs(switched)}});
    if (min_all == kNever || switched < min_all) min_all = switched;
    if (min_engine[e] == kNever || switched < min_engine[e]) min_engine[e] = switched;
  }
  Json head_json, tail_json;
  for (int e = 0; e <= kEngines; ++e) {
    const char* key = e == kEngines ? "all" : kEngineNames[e];
    head_json[key] = head[e].ToJson();
    tail_json[key] = tail[e].ToJson();
  }
  out["head_overhead_us"] = std::move(head_json);
  out["tail_overhead_us"] = std::move(tail_json);
  TimePs upper = 0;
  for (TimePs m : min_engine) upper += m == kNever ? 0 : m;
  out["aicore_switch"] = {
      {"per_core", std::move(per_core)},
      {"makespan_bound_us", {PsToUs(min_all == kNever ? 0 : min_all), PsToUs(upper)}}};

  // Part 5: scheduler loop budget.
  Json threads = Json::array();
  uint64_t hits = 0, misses = 0, loops_total = 0;
  TimePs time_total = 0;
  for (size_t t = 0; t < log.threads().size(); ++t) {
    const LaunchLog::ThreadLoops& l = log.threads()[t];
    if (l.records == 0) continue;
    const TimePs total = l.busy + l.idle;
    hits += l.pop_hit;
    misses += l.pop_miss;
    loops_total += l.max_iter;
    time_total += total;
    threads.push_back(
        {{"thread", t},
         {"loops", l.max_iter},
         {"total_us", PsToUs(total)},
         {"busy_us", PsToUs(l.busy)},
         {"idle_us", PsToUs(l.idle)},
         {"ns_per_loop", l.max_iter ? static_cast<double>(total) / 1000.0 / l.max_iter : 0.0},
         {"finishes", l.finishes},
         {"pop_hit", l.pop_hit},
         {"pop_miss", l.pop_miss}});
  }
  out["scheduler_loop"] = {
      {"per_thread", std::move(threads)},
      {"avg_ns_per_loop",
       loops_total ? static_cast<double>(time_total) / 1000.0 / loops_total : 0.0},
      {"pop_hit", hits},
      {"pop_miss", misses}};

  // Part 6: critical path.
  int64_t sink = -1;
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    if (t.ran() && (sink < 0 || t.finish > log.task(sink).finish)) sink = static_cast<int64_t>(i);
  }
  std::vector<int64_t> path;
  for (int64_t cur = sink; cur >= 0; cur = GatingProducer(log, static_cast<size_t>(cur))) {
    path.push_back(cur);
  }
  std::reverse(path.begin(), path.end());
  Json hops = Json::array();
  TimePs compute = 0, injected = 0, path_start = kNever;
  LaunchLog::PipeTime path_pipes;  // summed over the path's tasks
  for (size_t k = 0; k < path.size(); ++k) {
    const LaunchLog::TaskInfo& t = log.task(path[k]);
    const TimePs hop_compute = std::max<TimePs>(t.end - t.start, 0);
    const TimePs hop_injected =
        std::max<TimePs>(k == 0 ? t.start - t.dispatch : t.start - log.task(path[k - 1]).end, 0);
    compute += hop_compute;
    injected += hop_injected;
    if (path_start == kNever || t.start < path_start) path_start = t.start;
    const LaunchLog::PipeTime* pipes = log.pipe_time(static_cast<size_t>(path[k]));
    std::optional<Pipe> hop_bound;
    if (pipes != nullptr) {
      for (int p = 0; p < kPipeCount; ++p) path_pipes.busy[p] += pipes->busy[p];
      path_pipes.span += pipes->span;
      hop_bound = BoundingPipe(pipes->busy);
    }
    hops.push_back({{"index", path[k]},
                    {"bound_pipe", PipeJson(hop_bound)},
                    {"task_id", std::to_string(t.runtime_id)},
                    {"name", log.name(t)},
                    {"dispatch_us", PsToUs(t.dispatch)},
                    {"start_us", PsToUs(t.start)},
                    {"end_us", PsToUs(t.end)},
                    {"finish_us", PsToUs(t.finish)},
                    {"compute_us", PsToUs(hop_compute)},
                    {"injected_us", PsToUs(hop_injected)}});
  }
  // Where the walk stopped: the root's own producers that ran on no core
  // (a dummy, an alloc, a predicated-off task) have no record to walk.
  Json stopped = nullptr;
  if (!path.empty()) {
    const auto root = static_cast<size_t>(path.front());
    for (uint32_t p : log.producers(root)) {
      const LaunchLog::TaskInfo& producer = log.task(p);
      if (producer.ran()) continue;
      stopped = {{"task_id", std::to_string(log.task(root).runtime_id)},
                 {"name", log.name(log.task(root))},
                 {"waits_on_id", std::to_string(producer.runtime_id)},
                 {"waits_on_name", log.name(producer)},
                 {"waits_on_shape", TaskShapeName(producer.shape)}};
      break;
    }
  }
  const TimePs span = sink < 0 ? 0 : log.task(sink).finish - path_start;
  const std::optional<Pipe> bound = BoundingPipe(path_pipes.busy);
  out["critical_path"] = {
      {"hops", path.empty() ? 0 : path.size() - 1},
      {"bound_pipe", PipeJson(bound)},
      {"bound_pipe_share", bound ? static_cast<double>(path_pipes.busy[static_cast<int>(*bound)]) /
                                       static_cast<double>(path_pipes.span)
                                 : 0.0},
      {"span_us", PsToUs(span)},
      {"compute_us", PsToUs(compute)},
      {"injected_us", PsToUs(injected)},
      {"other_us", PsToUs(std::max<TimePs>(span - compute - injected, 0))},
      {"stopped_at", std::move(stopped)},
      {"path", std::move(hops)}};
  return out;
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
      &text, absl::StrFormat("  critical path: %d hops, span %.3f us, compute %.3f us, "
                             "scheduler-injected %.3f us\n",
                             path["hops"].get<int64_t>(), path["span_us"].get<double>(),
                             path["compute_us"].get<double>(), path["injected_us"].get<double>()));
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
