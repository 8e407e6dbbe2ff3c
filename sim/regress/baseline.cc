#include "sim/regress/baseline.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/input_file.h"
#include "nlohmann/json.hpp"

namespace pto {
namespace {

using Json = nlohmann::json;

bool IsBaselined(const std::string& metric) {
  const std::string leaf = metric.substr(metric.rfind('.') + 1);
  return leaf != "checks_passed" && leaf != "checks_failed" && leaf != "hazards";
}

std::string Allowed(MetricKind kind, const Tolerance& t) {
  switch (kind) {
    case MetricKind::kTime:
      return absl::StrFormat("±%g%%", t.time_relative * 100);
    case MetricKind::kShare:
      return absl::StrFormat("±%g", t.share_absolute);
    case MetricKind::kCount:
      break;
  }
  return "exact";
}

bool Within(MetricKind kind, double baseline, double measured, const Tolerance& t) {
  switch (kind) {
    case MetricKind::kTime:
      if (baseline == 0) return std::fabs(measured) <= 1e-9;
      return std::fabs(measured / baseline - 1.0) <= t.time_relative + 1e-12;
    case MetricKind::kShare:
      return std::fabs(measured - baseline) <= t.share_absolute + 1e-12;
    case MetricKind::kCount:
      break;
  }
  return measured == baseline;
}

std::string Number(double v) { return std::isnan(v) ? "-" : absl::StrFormat("%.9g", v); }

}  // namespace

MetricMap BaselineMetrics(const RunMetrics& run) {
  MetricMap out;
  for (const auto& [metric, value] : run.Flatten()) {
    if (IsBaselined(metric)) out[metric] = value;
  }
  return out;
}

absl::StatusOr<Baselines> LoadBaselines(const std::string& path) {
  if (!std::filesystem::exists(path)) return Baselines{};
  absl::StatusOr<std::string> text = ReadInputFile(
      path, uint64_t{64} << 20, "a baseline file (JSON, as --update-baselines writes)");
  if (!text.ok()) return text.status();
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cases") || !j["cases"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a baseline file (expected JSON {\"suite\": ..., \"cases\": {CASE: {METRIC: "
        "number}}})"));
  }
  Baselines baselines;
  for (const auto& [name, metrics] : j["cases"].items()) {
    if (!metrics.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": case '", name, "' must map metric names to numbers"));
    }
    for (const auto& [metric, value] : metrics.items()) {
      if (!value.is_number()) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": case '", name, "', metric '", metric, "' is not a number"));
      }
      baselines[name][metric] = value.get<double>();
    }
  }
  return baselines;
}

absl::Status SaveBaselines(const std::string& path, const std::string& suite_name,
                           const Baselines& baselines) {
  Json cases = Json::object();
  for (const auto& [name, metrics] : baselines) {
    Json m = Json::object();
    for (const auto& [metric, value] : metrics) {
      // Counts as integers, so the file reads as the run printed them.
      if (KindOf(metric) == MetricKind::kCount && value == std::floor(value)) {
        m[metric] = static_cast<int64_t>(value);
      } else {
        m[metric] = value;
      }
    }
    cases[name] = std::move(m);
  }
  const Json j = {{"suite", suite_name}, {"cases", std::move(cases)}};
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  // Written beside the target and renamed, so an interrupted update never
  // leaves half a baseline file.
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) return absl::InternalError(absl::StrCat(temp, ": cannot write"));
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat(path, ": cannot replace: ", ec.message()));
  return absl::OkStatus();
}

std::vector<MetricDrift> CompareToBaseline(const MetricMap& baseline, const MetricMap& measured,
                                           const Tolerance& tolerance) {
  std::vector<MetricDrift> drifts;
  MetricMap all = baseline;
  all.insert(measured.begin(), measured.end());
  for (const auto& [metric, unused] : all) {
    const MetricKind kind = KindOf(metric);
    auto b = baseline.find(metric);
    auto m = measured.find(metric);
    const double bv = b == baseline.end() ? NAN : b->second;
    const double mv = m == measured.end() ? NAN : m->second;
    if (!std::isnan(bv) && !std::isnan(mv) && Within(kind, bv, mv, tolerance)) continue;
    drifts.push_back({metric, bv, mv, Allowed(kind, tolerance)});
  }
  return drifts;
}

std::string FormatDrifts(const std::vector<MetricDrift>& drifts) {
  size_t width = 6;
  for (const MetricDrift& d : drifts) width = std::max(width, d.metric.size());
  std::string out = absl::StrFormat("    %-*s %14s %14s %10s  %s\n", width, "metric", "baseline",
                                    "measured", "change", "allowed");
  for (const MetricDrift& d : drifts) {
    std::string change = "-";
    if (!std::isnan(d.baseline) && !std::isnan(d.measured)) {
      change = d.baseline != 0 ? absl::StrFormat("%+.2f%%", (d.measured / d.baseline - 1) * 100)
                               : absl::StrFormat("%+.6g", d.measured - d.baseline);
    }
    absl::StrAppendFormat(&out, "    %-*s %14s %14s %10s  %s\n", width, d.metric,
                          Number(d.baseline), Number(d.measured), change, d.allowed);
  }
  return out;
}

}  // namespace pto
