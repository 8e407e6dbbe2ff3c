#include "sim/overhead_analysis.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {
namespace {

using Json = nlohmann::json;

enum Engine { kAicEngine = 0, kAivEngine = 1, kEngines = 2 };
constexpr const char* kEngineNames[kEngines] = {"aic", "aiv"};

// Producers as the perf set sees them: a task that never ran on a core stands
// for the latest-ending task among its own producers.
struct Resolved {
  std::vector<TimePs> end;         // kNever: nothing ran upstream
  std::vector<int64_t> represent;  // the task whose end that is; -1 none
};

Resolved ResolveProducers(const LaunchLog& log) {
  const size_t n = log.task_count();
  Resolved r{std::vector<TimePs>(n, kNever), std::vector<int64_t>(n, -1)};
  for (size_t i = 0; i < n; ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    if (t.ran()) {
      r.end[i] = t.end;
      r.represent[i] = static_cast<int64_t>(i);
      continue;
    }
    for (uint32_t p : log.producers(i)) {
      if (p < i && r.represent[p] >= 0 && r.end[p] >= r.end[i]) {
        r.end[i] = r.end[p];
        r.represent[i] = r.represent[p];
      }
    }
  }
  return r;
}

// The producer of task `i` with the largest end, after resolution.
int64_t LatestProducer(const LaunchLog& log, const Resolved& r, size_t i, TimePs* end) {
  int64_t best = -1;
  *end = kNever;
  for (uint32_t p : log.producers(i)) {
    if (p >= i || r.represent[p] < 0) continue;
    if (best < 0 || r.end[p] >= *end) {
      *end = r.end[p];
      best = r.represent[p];
    }
  }
  return best;
}

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

// Time in [window] where each engine is in overhead, and "all"/"has".
struct OverheadTimes {
  TimePs engine[kEngines] = {0, 0};
  TimePs all = 0;
  TimePs has = 0;
};

OverheadTimes SweepOverhead(const LaunchLog& log, const OutputChip& chip, const Resolved& r,
                            TimePs window_start, TimePs window_end, const bool present[]) {
  // (time, engine, busy delta, ready delta)
  std::vector<std::tuple<TimePs, int, int, int>> events;
  for (const CoreInterval& c : log.intervals()) {
    const int e = chip.is_aic(c.core) ? kAicEngine : kAivEngine;
    events.emplace_back(c.start, e, +1, 0);
    events.emplace_back(c.end, e, -1, 0);
  }
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    if (!t.ran() || t.dispatch == kNever) continue;
    TimePs ready = kNever;
    LatestProducer(log, r, i, &ready);
    if (ready == kNever) ready = t.dispatch;
    ready = std::max(ready, window_start);
    const TimePs until = std::min(t.dispatch, window_end);
    if (until <= ready) continue;
    for (int e = 0; e < kEngines; ++e) {
      const bool counts =
          t.shape == TaskShape::kMix ||
          (e == kAicEngine ? t.shape == TaskShape::kAic : t.shape == TaskShape::kAiv);
      if (!counts) continue;
      events.emplace_back(ready, e, 0, +1);
      events.emplace_back(until, e, 0, -1);
    }
  }
  std::sort(events.begin(), events.end());
  const int cores[kEngines] = {chip.aic_count(), chip.aiv_count()};
  int busy[kEngines] = {0, 0};
  int waiting[kEngines] = {0, 0};
  OverheadTimes out;
  for (size_t k = 0; k < events.size();) {
    const TimePs now = std::get<0>(events[k]);
    while (k < events.size() && std::get<0>(events[k]) == now) {
      busy[std::get<1>(events[k])] += std::get<2>(events[k]);
      waiting[std::get<1>(events[k])] += std::get<3>(events[k]);
      ++k;
    }
    if (k == events.size()) break;
    const TimePs from = std::clamp(now, window_start, window_end);
    const TimePs to = std::clamp(std::get<0>(events[k]), window_start, window_end);
    const TimePs span = to - from;
    if (span <= 0) continue;
    bool all = true, any_ready = false, has = true, any_present = false;
    for (int e = 0; e < kEngines; ++e) {
      const bool over = waiting[e] > 0 && busy[e] < cores[e];
      if (over) out.engine[e] += span;
      if (present[e]) {
        any_present = true;
        all = all && over;
      }
      if (waiting[e] > 0) {
        any_ready = true;
        has = has && over;
      }
    }
    if (any_present && all) out.all += span;
    if (any_ready && has) out.has += span;
  }
  return out;
}

}  // namespace

Json AnalyzeOverhead(const LaunchLog& log, const OutputChip& chip) {
  const std::vector<CoreInterval>& intervals = log.intervals();
  TimePs window_start = kNever, window_end = kNever;
  bool present[kEngines] = {false, false};
  for (const CoreInterval& c : intervals) {
    if (window_start == kNever || c.start < window_start) window_start = c.start;
    window_end = std::max(window_end, c.end);
    present[chip.is_aic(c.core) ? kAicEngine : kAivEngine] = true;
  }
  const TimePs makespan = intervals.empty() ? 0 : window_end - window_start;
  const Resolved resolved = ResolveProducers(log);
  Json out;
  out["makespan_us"] = PsToUs(makespan);
  out["window_us"] = {{"start", PsToUs(std::max<TimePs>(window_start, 0))},
                      {"end", PsToUs(std::max<TimePs>(window_end, 0))}};

  // Overhead shares.
  const OverheadTimes oh = SweepOverhead(log, chip, resolved, window_start, window_end, present);
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

  // Per-core order: head/tail overhead and aicore switches.
  std::vector<size_t> order(intervals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(intervals[a].core, intervals[a].start, a) <
           std::tie(intervals[b].core, intervals[b].start, b);
  });
  Stat head[kEngines + 1], tail[kEngines + 1];
  struct CoreSwitch {
    int core;
    int64_t switches = 0;
    TimePs total = 0;
  };
  std::vector<CoreSwitch> switches;
  for (size_t k = 0; k < order.size(); ++k) {
    const CoreInterval& c = intervals[order[k]];
    const CoreInterval* prev =
        k > 0 && intervals[order[k - 1]].core == c.core ? &intervals[order[k - 1]] : nullptr;
    if (prev == nullptr) switches.push_back(CoreSwitch{c.core});
    TimePs h = c.start - c.dispatch;
    if (prev != nullptr) h = std::min(h, c.start - prev->end);
    const int e = chip.is_aic(c.core) ? kAicEngine : kAivEngine;
    for (int slot : {e, static_cast<int>(kEngines)}) {
      head[slot].Add(std::max<TimePs>(h, 0));
      tail[slot].Add(std::max<TimePs>(c.finish - c.end, 0));
    }
    if (prev != nullptr && c.dispatch < prev->end) {
      ++switches.back().switches;
      switches.back().total += std::max<TimePs>(c.start - prev->end, 0);
    }
  }
  Json head_json, tail_json;
  for (int e = 0; e <= kEngines; ++e) {
    const char* key = e == kEngines ? "all" : kEngineNames[e];
    head_json[key] = head[e].ToJson();
    tail_json[key] = tail[e].ToJson();
  }
  out["head_overhead_us"] = std::move(head_json);
  out["tail_overhead_us"] = std::move(tail_json);
  Json per_core = Json::array();
  TimePs min_all = kNever, min_engine[kEngines] = {kNever, kNever};
  for (const CoreSwitch& s : switches) {
    per_core.push_back({{"core", s.core},
                        {"name", chip.CoreName(s.core)},
                        {"switches", s.switches},
                        {"total_us", PsToUs(s.total)}});
    const int e = chip.is_aic(s.core) ? kAicEngine : kAivEngine;
    if (min_all == kNever || s.total < min_all) min_all = s.total;
    if (min_engine[e] == kNever || s.total < min_engine[e]) min_engine[e] = s.total;
  }
  TimePs upper = 0;
  for (TimePs m : min_engine) upper += m == kNever ? 0 : m;
  out["aicore_switch"] = {
      {"per_core", std::move(per_core)},
      {"makespan_bound_us", {PsToUs(min_all == kNever ? 0 : min_all), PsToUs(upper)}}};

  // Scheduler loop cost.
  Json threads = Json::array();
  uint64_t hits = 0, misses = 0, loops_total = 0;
  TimePs span_total = 0;
  for (size_t t = 0; t < log.threads().size(); ++t) {
    const LaunchLog::ThreadLoops& l = log.threads()[t];
    if (l.phases == 0) continue;
    const uint64_t loops = l.max_iter - l.min_iter + 1;
    const TimePs span = l.last_end - l.first_start;
    hits += l.pop_hit;
    misses += l.pop_miss;
    loops_total += loops;
    span_total += span;
    threads.push_back({{"thread", t},
                       {"loops", loops},
                       {"total_us", PsToUs(span)},
                       {"busy_us", PsToUs(l.busy)},
                       {"ns_per_loop", static_cast<double>(span) / 1000.0 / loops},
                       {"pop_hit", l.pop_hit},
                       {"pop_miss", l.pop_miss}});
  }
  out["scheduler_loop"] = {
      {"per_thread", std::move(threads)},
      {"avg_ns_per_loop",
       loops_total ? static_cast<double>(span_total) / 1000.0 / loops_total : 0.0},
      {"pop_hit", hits},
      {"pop_miss", misses}};

  // Critical path.
  int64_t sink = -1;
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    if (t.ran() && (sink < 0 || t.end >= log.task(sink).end)) sink = static_cast<int64_t>(i);
  }
  std::vector<int64_t> path;
  for (int64_t cur = sink; cur >= 0;) {
    path.push_back(cur);
    TimePs unused;
    cur = LatestProducer(log, resolved, static_cast<size_t>(cur), &unused);
  }
  std::reverse(path.begin(), path.end());
  Json hops = Json::array();
  TimePs compute = 0, injected = 0;
  for (size_t k = 0; k < path.size(); ++k) {
    const LaunchLog::TaskInfo& t = log.task(path[k]);
    const TimePs hop_compute = t.end - t.start;
    const TimePs hop_injected = k == 0 ? t.start - t.dispatch : t.start - log.task(path[k - 1]).end;
    compute += hop_compute;
    injected += hop_injected;
    hops.push_back({{"index", path[k]},
                    {"task_id", std::to_string(t.runtime_id)},
                    {"name", log.name(t)},
                    {"dispatch_us", PsToUs(t.dispatch)},
                    {"start_us", PsToUs(t.start)},
                    {"end_us", PsToUs(t.end)},
                    {"compute_us", PsToUs(hop_compute)},
                    {"injected_us", PsToUs(hop_injected)}});
  }
  out["critical_path"] = {{"hops", std::move(hops)},
                          {"compute_us", PsToUs(compute)},
                          {"injected_us", PsToUs(injected)}};
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
      &text, absl::StrFormat("  Avg scheduler loop iteration: %.1f ns; Pop: hit=%d, miss=%d\n",
                             loop["avg_ns_per_loop"].get<double>(), loop["pop_hit"].get<uint64_t>(),
                             loop["pop_miss"].get<uint64_t>()));
  absl::StrAppend(
      &text,
      absl::StrFormat("  critical path: %d hops, compute %.3f us, scheduler-injected %.3f us\n",
                      path["hops"].size(), path["compute_us"].get<double>(),
                      path["injected_us"].get<double>()));
  return text;
}

}  // namespace pto
