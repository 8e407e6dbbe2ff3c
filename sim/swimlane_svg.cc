#include "sim/swimlane_svg.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/fnv1a.h"
#include "common/plural.h"
#include "common/xml_escape.h"
#include "sim/spooled_json.h"

namespace pto {
namespace {

// Tableau 20: a kernel's colour is kPalette[FNV-1a(name) % 20], the same in
// every launch and run.
constexpr const char* kPalette[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f",
                                    "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6",
                                    "#e15759", "#ff9d9a", "#79706e", "#bab0ac", "#d37295",
                                    "#fabfd2", "#b07aa1", "#d4a6c8", "#9d7660", "#d7b5a6"};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr double kLeft = 90;
constexpr double kTop = 48;
constexpr double kClusterGap = 4;
constexpr double kPipeStripPx = 7;    // a pipe strip's height, its 1 px gap included
constexpr double kEngineStripPx = 4;  // a MIX engine strip at a lane's foot
constexpr double kLegendEntryPx = 150;
constexpr const char* kCubeColour = "#b03a2e";
constexpr const char* kVectorColour = "#1f618d";
// A colour per pipe, by Pipe.
constexpr const char* kPipeColours[kPipeCount] = {"#7f7f7f", "#2e86c1", "#48c9b0", "#b03a2e",
                                                  "#af7ac5", "#229954", "#d68910"};

// A "nice" axis step (1, 2 or 5 × 10^k µs) giving about `ticks` ticks.
double TickStep(double span_us, int ticks) {
  const double raw = span_us / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

// AIC, AIV0, AIV1 of a cluster, in that order.
int RoleOf(const OutputChip& chip, int core) {
  return chip.is_aic(core) ? 0 : 1 + (core - chip.clusters) % 2;
}

struct Layout {
  TimePs t0 = 0;
  double scale = 0;  // px per ps
  // Times before the axis origin (a receive before the first kernel start)
  // clamp to the plot's left edge rather than spill over the lane labels.
  double X(TimePs t) const { return kLeft + std::max(0.0, static_cast<double>(t - t0) * scale); }
};

// A core's pipe strips from `top` down, one per pipe: its ops merged into
// busy runs where they overlap, touch or are less than min_bar_px apart.
void RenderPipeStrips(std::map<Pipe, std::vector<const LaunchLog::PipeOp*>>& pipes,
                      const Layout& layout, const SwimlaneSvgOptions& options, int core, double top,
                      std::ostream& out) {
  out << "<g class=\"pipes\" data-core=\"" << core << "\">\n";
  double y = top;
  for (auto& [pipe, ops] : pipes) {
    std::sort(ops.begin(), ops.end(), [](const LaunchLog::PipeOp* a, const LaunchLog::PipeOp* b) {
      return std::make_pair(a->start, a->end) < std::make_pair(b->start, b->end);
    });
    const absl::string_view name = PipeName(pipe);
    out << absl::StrFormat(
        "<text x=\"%.0f\" y=\"%.1f\" font-size=\"6\" text-anchor=\"end\">%s</text>\n", kLeft - 4,
        y + kPipeStripPx - 2, name);
    size_t i = 0;
    while (i < ops.size()) {
      const TimePs start = ops[i]->start;
      TimePs end = ops[i]->end;
      size_t n = 1;
      for (++i; i < ops.size() && layout.X(ops[i]->start) - layout.X(end) < options.min_bar_px;
           ++i, ++n) {
        end = std::max(end, ops[i]->end);
      }
      const double x0 = layout.X(start);
      out << absl::StrFormat(
          "<rect class=\"pipe %s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
          "fill=\"%s\"><title>%s busy %s-%s us: %d op%s</title></rect>\n",
          name, x0, y, std::max(layout.X(end) - x0, 0.5), kPipeStripPx - 1,
          kPipeColours[static_cast<int>(pipe)], name, FormatUs(start), FormatUs(end), n,
          n == 1 ? "" : "s");
    }
    y += kPipeStripPx;
  }
  out << "</g>\n";
}

}  // namespace

void RenderSwimlaneSvg(const LaunchLog& log, const OutputChip& chip,
                       const SwimlaneSvgOptions& options, std::ostream& out) {
  const std::vector<CoreInterval>& intervals = log.intervals();
  // Time window over everything drawn.
  TimePs t0 = kNever, t1 = kNever;
  auto widen = [&](TimePs t) {
    if (t0 == kNever || t < t0) t0 = t;
    t1 = std::max(t1, t);
  };
  std::map<int, std::vector<size_t>> by_core;  // ordered: deterministic
  for (size_t i = 0; i < intervals.size(); ++i) {
    widen(intervals[i].start);
    widen(intervals[i].end);
    by_core[intervals[i].core].push_back(i);
  }
  std::map<int, std::vector<size_t>> markers_by_thread;
  for (size_t i = 0; i < log.task_count(); ++i) {
    const LaunchLog::TaskInfo& t = log.task(i);
    if (!t.inline_retired) continue;
    widen(t.inline_at);
    markers_by_thread[std::max(t.inline_thread, 0)].push_back(i);
  }
  if (t0 == kNever) t0 = t1 = 0;
  if (t1 <= t0) t1 = t0 + 1000000;  // 1 µs, for a readable axis
  Layout layout{t0, options.plot_width_px / static_cast<double>(t1 - t0)};

  // Lanes: used cores by cluster, then one marker lane per scheduler thread.
  std::vector<int> cores;
  for (const auto& [core, unused] : by_core) cores.push_back(core);
  std::sort(cores.begin(), cores.end(), [&](int a, int b) {
    return std::make_pair(chip.cluster_of(a), RoleOf(chip, a)) <
           std::make_pair(chip.cluster_of(b), RoleOf(chip, b));
  });
  const double lane_h = options.lane_height_px;
  // Pipe strips: each core's ops by pipe, in time order.
  std::map<int, std::map<Pipe, std::vector<const LaunchLog::PipeOp*>>> pipes_by_core;
  if (options.pipe_strips) {
    for (const LaunchLog::PipeOp& op : log.pipe_ops()) {
      if (by_core.count(op.core) != 0) pipes_by_core[op.core][op.pipe].push_back(&op);
    }
  }
  std::map<int, double> lane_y;
  double y = kTop;
  int previous_cluster = -1;
  for (int core : cores) {
    if (previous_cluster >= 0 && chip.cluster_of(core) != previous_cluster) y += kClusterGap;
    lane_y[core] = y;
    previous_cluster = chip.cluster_of(core);
    y += lane_h;
    auto strips = pipes_by_core.find(core);
    if (strips != pipes_by_core.end()) y += kPipeStripPx * strips->second.size();
  }
  std::map<int, double> marker_y;
  if (!markers_by_thread.empty()) y += kClusterGap;
  for (const auto& [thread, unused] : markers_by_thread) {
    marker_y[thread] = y;
    y += lane_h;
  }
  const double lanes_bottom = y;
  // Kernel names in first-drawn order, each with its colour.
  std::vector<std::pair<std::string, int>> legend;
  std::map<std::string, int> colour_by_name;
  auto colour_of = [&](const LaunchLog::TaskInfo& t) {
    const std::string name(log.name(t));
    auto [it, added] = colour_by_name.emplace(name, 0);
    if (added) {
      Fnv1a64 hash;
      hash.Update(name);
      it->second = static_cast<int>(hash.value() % kPaletteSize);
      legend.emplace_back(name, it->second);
    }
    return it->second;
  };
  // The legend is known before drawing (its rows size the picture): the
  // names of the tasks drawn, sorted.
  bool any_cube = false, any_vector = false;
  for (const CoreInterval& c : intervals) {
    if (const LaunchLog::TaskInfo* t = log.Find(c.task)) colour_of(*t);
  }
  std::sort(legend.begin(), legend.end());
  for (const EngineInterval& e : log.engine_intervals()) (e.cube ? any_cube : any_vector) = true;
  const size_t legend_entries =
      std::min(legend.size(), static_cast<size_t>(options.max_legend_entries)) +
      (legend.size() > static_cast<size_t>(options.max_legend_entries)) + any_cube + any_vector +
      (options.pipe_strips ? kPipeCount : 0);
  const size_t per_row = static_cast<size_t>(
      std::max(1.0, (options.plot_width_px - kLegendEntryPx) / kLegendEntryPx + 1));
  const size_t legend_rows = std::max<size_t>(1, (legend_entries + per_row - 1) / per_row);

  const double width = kLeft + options.plot_width_px + 20;
  const double height = lanes_bottom + 30 + 16 * static_cast<double>(legend_rows);
  out << absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
      width, height, width, height);
  out << "<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"6\" "
         "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#333\"/></marker>"
         "</defs>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::vector<std::string> what;
  if (!options.trace.empty()) what.push_back(options.trace);
  if (!options.launch.empty()) what.push_back(options.launch);
  out << absl::StrFormat(
      "<text class=\"title\" x=\"%.0f\" y=\"14\" font-size=\"12\">pto_sim swimlane%s%s: %s "
      "on %s, %s us</text>\n",
      4.0, what.empty() ? "" : " of ", XmlEscape(absl::StrJoin(what, ", ")),
      CountOf(static_cast<int64_t>(intervals.size()), "core record"),
      CountOf(static_cast<int64_t>(cores.size()), "core"), FormatUs(t1 - t0));

  // Time axis.
  out << "<g class=\"axis\">\n";
  const double span_us = PsToUs(t1 - t0);
  const double step = TickStep(span_us, 10);
  for (double tick = 0; tick <= span_us + 1e-9; tick += step) {
    const double x = kLeft + tick / span_us * options.plot_width_px;
    out << absl::StrFormat(
        "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
        "<text x=\"%.2f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>\n",
        x, kTop - 6, x, lanes_bottom, x, kTop - 10, tick);
  }
  // The axis title has a row of its own, above the tick labels.
  out << absl::StrFormat(
      "<text class=\"axis-title\" x=\"%.0f\" y=\"%.0f\">time (us from %s)</text>\n</g>\n", kLeft,
      kTop - 24, FormatUs(t0));

  // Core lanes, grouped by cluster.
  int open_cluster = -1;
  for (int core : cores) {
    const int cluster = chip.cluster_of(core);
    if (cluster != open_cluster) {
      if (open_cluster >= 0) out << "</g>\n";
      out << "<g class=\"cluster\" data-cluster=\"" << cluster << "\">\n";
      open_cluster = cluster;
    }
    const double ly = lane_y[core];
    out << absl::StrFormat(
        "<g class=\"lane\" data-core=\"%d\"><rect x=\"%.0f\" y=\"%.1f\" width=\"%d\" "
        "height=\"%.1f\" fill=\"%s\"/><text x=\"4\" y=\"%.1f\">%s</text>\n",
        core, kLeft, ly, options.plot_width_px, lane_h,
        RoleOf(chip, core) == 0 ? "#f4f4f4" : "#fafafa", ly + lane_h - 4, chip.CoreName(core));
    std::vector<size_t>& list = by_core[core];
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
      return std::make_pair(intervals[a].start, a) < std::make_pair(intervals[b].start, b);
    });
    // Runs of sub-pixel bars become one aggregate.
    double agg_x0 = 0, agg_x1 = 0;
    int agg_count = 0;
    auto flush = [&]() {
      if (agg_count == 0) return;
      out << absl::StrFormat(
          "<rect class=\"agg\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
          "fill=\"#888\"><title>%d records</title></rect>\n",
          agg_x0, ly + 2, std::max(agg_x1 - agg_x0, 1.0), lane_h - 4, agg_count);
      agg_count = 0;
    };
    for (size_t i : list) {
      const CoreInterval& c = intervals[i];
      const double x0 = layout.X(c.start);
      const double x1 = layout.X(c.end);
      if (x1 - x0 < options.min_bar_px) {
        if (agg_count > 0 && x0 > agg_x1 + options.min_bar_px) flush();
        if (agg_count == 0) agg_x0 = x0;
        agg_x1 = std::max(agg_count == 0 ? x1 : agg_x1, x1);
        ++agg_count;
        continue;
      }
      flush();
      // A visible wait between receiving the task and starting it (a staged
      // early dispatch waiting for its producers, or slow setup).
      const double xr = layout.X(c.receive);
      if (x0 - xr >= options.min_bar_px) {
        out << absl::StrFormat(
            "<rect class=\"wait\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"2\" "
            "fill=\"#999\"><title>received %s us, started %s us</title></rect>\n",
            xr, ly + lane_h / 2 - 1, x0 - xr, FormatUs(c.receive), FormatUs(c.start));
      }
      const LaunchLog::TaskInfo* t = log.Find(c.task);
      std::string cls = "bar";
      std::string fill = "#bbb";
      std::string stroke;
      std::string label = "task";
      if (t != nullptr) {
        fill = kPalette[colour_of(*t)];
        label = TaskLabel(log.name(*t), t->runtime_id);
        if (t->shape == TaskShape::kMix) {
          cls += " mix";
          stroke = " stroke=\"#222\" stroke-width=\"1.2\"";
        }
        if (t->block_num > 1) {
          cls += " spmd";
          stroke = " stroke=\"#000\" stroke-dasharray=\"3,2\"";
        }
      }
      out << absl::StrFormat(
          "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"%s>"
          "<title>%s block %d on %s: start %s us, end %s us</title></rect>\n",
          cls, x0, ly + 2, x1 - x0, lane_h - 4, fill, stroke, XmlEscape(label), c.block,
          chip.CoreName(core), FormatUs(c.start), FormatUs(c.end));
    }
    flush();
    // Inside MIX blocks: when this core's engine was busy (cube on the AIC,
    // vector on the AIVs), a strip along the lane's foot, so the overlap of
    // cube and vector work across the cluster's lanes is visible.
    for (const EngineInterval& e : log.engine_intervals()) {
      if (e.core != static_cast<int>(core)) continue;
      const double x0 = layout.X(e.start);
      const double x1 = layout.X(e.end);
      if (x1 - x0 < options.min_bar_px) continue;
      // Outlined in white so the strip stands out on the bar it crosses.
      out << absl::StrFormat(
          "<rect class=\"engine %s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
          "fill=\"%s\" stroke=\"white\" stroke-width=\"0.6\"><title>%s busy %s-%s us</title>"
          "</rect>\n",
          e.cube ? "cube" : "vector", x0, ly + lane_h - kEngineStripPx - 1, x1 - x0, kEngineStripPx,
          e.cube ? kCubeColour : kVectorColour, e.cube ? "cube" : "vector", FormatUs(e.start),
          FormatUs(e.end));
    }
    out << "</g>\n";
    if (auto strips = pipes_by_core.find(core); strips != pipes_by_core.end()) {
      RenderPipeStrips(strips->second, layout, options, core, ly + lane_h, out);
    }
  }
  if (open_cluster >= 0) out << "</g>\n";

  // Inline retirements: predicated skips and dummies.
  for (const auto& [thread, list] : markers_by_thread) {
    const double ly = marker_y[thread];
    out << absl::StrFormat(
        "<g class=\"lane aicpu\" data-thread=\"%d\"><text x=\"4\" y=\"%.1f\">AICPU_%d</text>\n",
        thread, ly + lane_h - 4, thread);
    for (size_t i : list) {
      const LaunchLog::TaskInfo& t = log.task(i);
      const double x = layout.X(t.inline_at);
      const double cy = ly + lane_h / 2;
      const std::string title = absl::StrCat(t.predicated_skip ? "predicated skip: " : "dummy: ",
                                             XmlEscape(TaskLabel(log.name(t), t.runtime_id)),
                                             " at ", FormatUs(t.inline_at), " us");
      if (t.predicated_skip) {
        out << absl::StrFormat(
            "<path class=\"marker skip\" d=\"M%.2f,%.1f l6,6 m0,-6 l-6,6\" "
            "transform=\"translate(-3,-3)\" "
            "stroke=\"#d00\" stroke-width=\"2\"><title>%s</title></path>\n",
            x, cy, title);
      } else {
        out << absl::StrFormat(
            "<path class=\"marker dummy\" d=\"M%.2f,%.1f l4,4 l-4,4 l-4,-4 z\" "
            "transform=\"translate(0,-4)\" fill=\"#777\"><title>%s</title></path>\n",
            x, cy, title);
      }
    }
    out << "</g>\n";
  }

  // Dependency arrows between tasks that ran, for small graphs.
  std::vector<std::pair<size_t, uint32_t>> pairs;
  for (size_t s = 0;
       s < log.task_count() && pairs.size() <= static_cast<size_t>(options.max_arrows); ++s) {
    if (!log.task(s).ran()) continue;
    for (uint32_t p : log.producers(s)) {
      if (log.task(p).ran()) pairs.emplace_back(s, p);
    }
  }
  if (!pairs.empty() && pairs.size() <= static_cast<size_t>(options.max_arrows)) {
    out << "<g class=\"deps\">\n";
    for (const auto& [s, p] : pairs) {
      const LaunchLog::TaskInfo& succ = log.task(s);
      const LaunchLog::TaskInfo& pred = log.task(p);
      auto lane_of = [&](const LaunchLog::TaskInfo& t) {
        auto it = lane_y.find(t.anchor_core);
        return (it == lane_y.end() ? kTop : it->second) + lane_h / 2;
      };
      out << absl::StrFormat(
          "<line class=\"dep\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\" "
          "stroke-width=\"0.8\" stroke-opacity=\"0.7\" marker-end=\"url(#arrow)\"/>\n",
          layout.X(pred.end), lane_of(pred), layout.X(succ.start), lane_of(succ));
    }
    out << "</g>\n";
  }

  // Legend: a kernel name once each, then the strips' colours.
  out << "<g class=\"legend\">\n";
  double lx = kLeft;
  double lyy = lanes_bottom + 20;
  auto entry = [&](const std::string& cls, const std::string& name, const char* colour,
                   double swatch_h) {
    if (lx > kLeft + options.plot_width_px - kLegendEntryPx) {
      lx = kLeft;
      lyy += 16;
    }
    out << absl::StrFormat(
        "<g class=\"%s\" data-name=\"%s\"><rect x=\"%.0f\" y=\"%.1f\" width=\"10\" "
        "height=\"%.0f\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text></g>\n",
        cls, XmlEscape(name), lx, lyy - 5 - swatch_h / 2, swatch_h, colour, lx + 14, lyy,
        XmlEscape(name));
    lx += kLegendEntryPx;
  };
  const size_t shown = std::min(legend.size(), static_cast<size_t>(options.max_legend_entries));
  for (size_t i = 0; i < shown; ++i) {
    entry("entry", legend[i].first, kPalette[legend[i].second], 10);
  }
  if (shown < legend.size()) {
    entry("more", absl::StrCat("+", legend.size() - shown, " more kernels"), "white", 10);
  }
  if (any_cube) entry("strip", "cube busy (MIX)", kCubeColour, kEngineStripPx);
  if (any_vector) entry("strip", "vector busy (MIX)", kVectorColour, kEngineStripPx);
  if (options.pipe_strips) {
    for (int p = 0; p < kPipeCount; ++p) {
      entry("strip", absl::StrCat("pipe ", PipeName(static_cast<Pipe>(p))), kPipeColours[p],
            kPipeStripPx - 1);
    }
  }
  out << "</g>\n</svg>\n";
}

absl::Status WriteSwimlaneSvg(const LaunchLog& log, const OutputChip& chip,
                              const SwimlaneSvgOptions& options, const std::string& dir) {
  AtomicFile file(absl::StrCat(dir, "/swimlane.svg"));
  if (absl::Status s = file.Open(); !s.ok()) return s;
  RenderSwimlaneSvg(log, chip, options, file.out());
  return file.Commit();
}

}  // namespace pto
