#include "sim/sweep/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/xml_escape.h"

namespace pto {
namespace {

constexpr double kWidth = 820, kHeight = 440;
constexpr double kLeft = 80, kRight = 300, kTop = 40, kBottom = 60;
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
    auto value = row.metrics.find(metric);
    if (row.exit_code != 0 || value == row.metrics.end()) continue;
    const size_t xi = std::find(xs.begin(), xs.end(), row.values[key_axis]) - xs.begin();
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
                        "<text x=\"%.1f\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">%s "
                        "against %s</text>\n",
                        kLeft + plot_w / 2, XmlEscape(metric), XmlEscape(key));
  // Axes, grid and tick labels.
  for (double y = 0; y <= y_top + step / 2; y += step) {
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
        kLeft, py(y), kLeft + plot_w, py(y), kLeft - 6, py(y) + 4, y);
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
        px(x_value[i]), kTop + plot_h, px(x_value[i]), kTop + plot_h + 5, px(x_value[i]),
        kTop + plot_h + 20, XmlEscape(xs[i]));
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
    std::vector<std::string> coords;
    for (const auto& [x, y] : points) coords.push_back(absl::StrFormat("%.1f,%.1f", px(x), py(y)));
    if (!coords.empty()) {
      absl::StrAppendFormat(&svg,
                            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                            "stroke-width=\"2\"/>\n",
                            absl::StrJoin(coords, " "), color);
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
