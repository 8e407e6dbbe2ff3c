#include "sim/sweep/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/xml_escape.h"

namespace pto {
namespace {

constexpr double kWidth = 820, kHeight = 440;
constexpr double kLeft = 80, kRight = 300, kTop = 40, kBottom = 60;
// Tick labels: an estimate of a 12 px sans-serif digit's width, and the
// least space between two labels.
constexpr double kCharWidth = 7, kLabelGap = 6;
constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// Legend labels use the last part of a key ("clusters" for chip.clusters)
// unless two varied keys share it.
std::vector<std::string> ShortKeys(const std::vector<SweepAxis>& axes) {
  std::vector<std::string> names;
  std::map<std::string, int> uses;
  for (const SweepAxis& axis : axes) {
    names.push_back(axis.key.substr(axis.key.rfind('.') + 1));
    ++uses[names.back()];
  }
  for (size_t a = 0; a < axes.size(); ++a) {
    if (uses[names[a]] > 1) names[a] = axes[a].key;
  }
  return names;
}

// A round step for about five ticks over [0, top].
double TickStep(double top) {
  const double raw = top / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

}  // namespace

absl::StatusOr<std::string> RenderSweepChart(const SweepSpec& spec,
                                             const std::vector<SweepRow>& rows,
                                             const std::string& metric, const std::string& key) {
  const auto metric_it =
      std::find(SweepMetricColumns().begin(), SweepMetricColumns().end(), metric);
  if (metric_it == SweepMetricColumns().end()) {
    return absl::InvalidArgumentError(absl::StrCat("--chart-metric '", metric,
                                                   "': expected one of ",
                                                   absl::StrJoin(SweepMetricColumns(), ", ")));
  }
  int key_axis = -1;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    if (spec.axes[a].key == key) key_axis = static_cast<int>(a);
  }
  if (key_axis < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--chart-key '", key, "': not a varied key (vary it with --vary)"));
  }
  const std::vector<std::string>& xs = spec.axes[key_axis].values;
  // X positions: to scale when every value is a number, else by order.
  std::vector<double> x_value(xs.size());
  bool numeric = true;
  for (size_t i = 0; i < xs.size(); ++i) {
    numeric = numeric && absl::SimpleAtod(xs[i], &x_value[i]);
  }
  if (!numeric) {
    for (size_t i = 0; i < xs.size(); ++i) x_value[i] = static_cast<double>(i);
  }
  double x_min = *std::min_element(x_value.begin(), x_value.end());
  double x_max = *std::max_element(x_value.begin(), x_value.end());
  if (x_max == x_min) x_max = x_min + 1;

  // Series: everything but the charted key, in first-appearance (point) order.
  const std::vector<std::string> short_keys = ShortKeys(spec.axes);
  std::vector<std::string> series_names;
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  // Failed points: their x position and exit codes, marked on the x axis;
  // a series' line breaks there.
  std::map<double, std::set<int>> failed;
  std::map<std::string, std::set<double>> gaps;
  int most_launches = 0;
  double y_max = 0;
  for (const SweepRow& row : rows) {
    std::vector<std::string> label;
    if (spec.traces.size() > 1) label.push_back(row.trace);
    for (size_t a = 0; a < spec.axes.size(); ++a) {
      if (static_cast<int>(a) != key_axis) label.push_back(short_keys[a] + "=" + row.values[a]);
    }
    const std::string name = label.empty() ? metric : absl::StrJoin(label, ", ");
    if (series.find(name) == series.end()) {
      series_names.push_back(name);
      series[name];
    }
    const size_t xi = std::find(xs.begin(), xs.end(), row.values[key_axis]) - xs.begin();
    auto value = row.metrics.find(metric);
    if (row.exit_code != 0 || value == row.metrics.end()) {
      failed[x_value[xi]].insert(row.exit_code);
      gaps[name].insert(x_value[xi]);
      continue;
    }
    most_launches = std::max(most_launches, row.launches);
    series[name].emplace_back(x_value[xi], value->second);
    y_max = std::max(y_max, value->second);
  }
  const double step = y_max > 0 ? TickStep(y_max) : 1;
  const double y_top = step * std::ceil(y_max / step + 1e-9);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double y) { return kTop + plot_h - (y_top > 0 ? y / y_top : 0) * plot_h; };

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      kWidth, kHeight, kWidth, kHeight);
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.1f\" y=\"18\" font-size=\"15\" text-anchor=\"middle\">%s "
                        "against %s</text>\n",
                        kLeft + plot_w / 2, XmlEscape(metric), XmlEscape(key));
  std::string subtitle = absl::StrCat(spec.traces.size() == 1 ? "trace " : "traces ",
                                      absl::StrJoin(spec.traces, ", "));
  if (most_launches > 1) {
    absl::StrAppend(&subtitle, "; each point sums a run's launches (up to ", most_launches, ")");
  }
  absl::StrAppendFormat(&svg,
                        "<text class=\"subtitle\" x=\"%.1f\" y=\"34\" font-size=\"11\" "
                        "text-anchor=\"middle\" fill=\"#444\">%s</text>\n",
                        kLeft + plot_w / 2, XmlEscape(subtitle));
  // Axes, grid and tick labels.
  for (double y = 0; y <= y_top + step / 2; y += step) {
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
        kLeft, py(y), kLeft + plot_w, py(y), kLeft - 6, py(y) + 4, y);
  }
  // Every value gets a tick; a label that would touch the previous one is
  // left out (values are taken in x order, the first and last kept).
  std::vector<size_t> by_x(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) by_x[i] = i;
  std::stable_sort(by_x.begin(), by_x.end(),
                   [&](size_t a, size_t b) { return x_value[a] < x_value[b]; });
  std::vector<bool> labelled(xs.size(), false);
  double last_right = -1e9;
  for (size_t k = 0; k < by_x.size(); ++k) {
    const size_t i = by_x[k];
    const double half = kCharWidth * static_cast<double>(xs[i].size()) / 2;
    if (px(x_value[i]) - half >= last_right + kLabelGap) {
      labelled[i] = true;
      last_right = px(x_value[i]) + half;
    }
  }
  if (!by_x.empty() && !labelled[by_x.back()]) {
    // The last value matters most on a scaling axis: it replaces the label before it.
    for (size_t k = by_x.size() - 1; k-- > 0;) {
      if (labelled[by_x[k]]) {
        const size_t i = by_x[k], last = by_x.back();
        const double right = px(x_value[i]) + kCharWidth * xs[i].size() / 2;
        if (right + kLabelGap > px(x_value[last]) - kCharWidth * xs[last].size() / 2) {
          labelled[i] = false;
        }
        break;
      }
    }
    labelled[by_x.back()] = true;
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#999\"/>\n",
                          px(x_value[i]), kTop + plot_h, px(x_value[i]), kTop + plot_h + 5);
    if (!labelled[i]) continue;
    absl::StrAppendFormat(&svg,
                          "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">%s</text>\n",
                          px(x_value[i]), kTop + plot_h + 20, XmlEscape(xs[i]));
  }
  // Failed points: a red cross on the axis and their exit codes.
  for (const auto& [x, codes] : failed) {
    std::vector<std::string> texts;
    for (int code : codes) texts.push_back(absl::StrCat(code));
    const double cx = px(x), cy = kTop + plot_h;
    absl::StrAppendFormat(&svg,
                          "<g class=\"failed\"><title>failed point(s): exit %s</title>"
                          "<path d=\"M%.1f,%.1f l8,8 m0,-8 l-8,8\" stroke=\"#d62728\" "
                          "stroke-width=\"2\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#d62728\" "
                          "text-anchor=\"middle\">exit %s</text></g>\n",
                          absl::StrJoin(texts, ", "), cx - 4, cy - 14, cx, cy - 18,
                          absl::StrJoin(texts, ","));
  }
  absl::StrAppendFormat(&svg,
                        "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
                        "stroke=\"black\"/>\n",
                        kLeft, kTop, kLeft, kTop + plot_h, kLeft + plot_w, kTop + plot_h);
  absl::StrAppendFormat(&svg, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                        kLeft + plot_w / 2, kHeight - 18, XmlEscape(key));
  absl::StrAppendFormat(&svg,
                        "<text transform=\"translate(18,%.1f) rotate(-90)\" "
                        "text-anchor=\"middle\">%s</text>\n",
                        kTop + plot_h / 2, XmlEscape(metric));
  // One line and legend entry per series.
  for (size_t s = 0; s < series_names.size(); ++s) {
    const char* color = kColors[s % (sizeof(kColors) / sizeof(kColors[0]))];
    std::vector<std::pair<double, double>> points = series[series_names[s]];
    std::sort(points.begin(), points.end());
    // One polyline per run of successful points: a failed point is a gap.
    const std::set<double>& holes = gaps[series_names[s]];
    std::vector<std::vector<std::string>> runs(1);
    for (size_t p = 0; p < points.size(); ++p) {
      if (p > 0 && holes.lower_bound(points[p - 1].first) != holes.upper_bound(points[p].first)) {
        runs.emplace_back();
      }
      runs.back().push_back(
          absl::StrFormat("%.1f,%.1f", px(points[p].first), py(points[p].second)));
    }
    for (const std::vector<std::string>& run : runs) {
      if (run.size() < 2) continue;
      absl::StrAppendFormat(&svg,
                            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                            "stroke-width=\"2\"/>\n",
                            absl::StrJoin(run, " "), color);
    }
    for (const auto& [x, y] : points) {
      absl::StrAppendFormat(&svg, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(x),
                            py(y), color);
    }
    const double ly = kTop + 10 + 18 * s;
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                          "stroke-width=\"2\"/>\n<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                          kLeft + plot_w + 15, ly, kLeft + plot_w + 35, ly, color,
                          kLeft + plot_w + 40, ly + 4, XmlEscape(series_names[s]));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace pto
