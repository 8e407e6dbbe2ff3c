#include "sim/sweep/sweep_table.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/stats_schema.h"

namespace pto {
namespace {

using Json = nlohmann::json;

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Shortest text that reads back as the same double, as in sweep.json.
std::string CsvNumber(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::abs(v) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return Json(v).dump();
}

absl::Status Bad(const std::string& source, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", what));
}

}  // namespace

int SweepSpec::PointCount() const {
  int per_trace = 1;
  for (const SweepAxis& axis : axes) per_trace *= static_cast<int>(axis.values.size());
  return per_trace * static_cast<int>(traces.size());
}

std::string SweepSpec::ChartKey() const {
  if (!chart_key.empty()) return chart_key;
  return axes.empty() ? "" : axes.front().key;
}

const std::vector<std::string>& SweepMetricColumns() { return StatMetricNames(); }

std::string SweepCsv(const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  std::vector<std::string> header = {"point", "trace"};
  for (const SweepAxis& axis : spec.axes) header.push_back(CsvField(axis.key));
  header.push_back("exit_code");
  for (const std::string& column : SweepMetricColumns()) header.push_back(column);
  header.push_back("error");
  std::string csv = absl::StrJoin(header, ",") + "\n";
  for (const SweepRow& row : rows) {
    std::vector<std::string> fields = {absl::StrCat(row.point), CsvField(row.trace)};
    for (const std::string& value : row.values) fields.push_back(CsvField(value));
    fields.push_back(absl::StrCat(row.exit_code));
    for (const std::string& column : SweepMetricColumns()) {
      auto it = row.metrics.find(column);
      fields.push_back(it == row.metrics.end() ? "" : CsvNumber(it->second));
    }
    fields.push_back(CsvField(row.error));
    absl::StrAppend(&csv, absl::StrJoin(fields, ","), "\n");
  }
  return csv;
}

Json SweepJson(const SweepSpec& spec, const std::vector<SweepRow>& rows) {
  Json axes = Json::array();
  for (const SweepAxis& axis : spec.axes)
    axes.push_back({{"key", axis.key}, {"values", axis.values}});
  Json sweep = {{"config", spec.config},
                {"traces", spec.traces},
                {"vary", std::move(axes)},
                {"set", spec.sets},
                {"summary_only", spec.summary_only},
                {"chart_metric", spec.chart_metric},
                {"chart_key", spec.ChartKey()},
                {"points", spec.PointCount()}};
  Json out_rows = Json::array();
  for (const SweepRow& row : rows) {
    Json config = Json::object();
    for (size_t a = 0; a < spec.axes.size(); ++a) config[spec.axes[a].key] = row.values[a];
    Json metrics = Json::object();
    for (const std::string& column : SweepMetricColumns()) {
      auto it = row.metrics.find(column);
      if (it == row.metrics.end()) continue;
      if (KindOf(column) == MetricKind::kCount) {
        metrics[column] = static_cast<int64_t>(it->second);
      } else {
        metrics[column] = it->second;
      }
    }
    out_rows.push_back({{"point", row.point},
                        {"trace", row.trace},
                        {"config", std::move(config)},
                        {"exit_code", row.exit_code},
                        {"error", row.error},
                        {"launches", row.launches},
                        {"metrics", std::move(metrics)}});
  }
  return {{"sweep", std::move(sweep)}, {"rows", std::move(out_rows)}};
}

absl::StatusOr<SweepTable> ParseSweepJson(const Json& j, const std::string& source) {
  try {
    if (!j.is_object() || !j.contains("sweep") || !j.contains("rows")) {
      return Bad(source, "not a sweep.json (expected {\"sweep\": ..., \"rows\": [...]})");
    }
    SweepTable table;
    const Json& s = j.at("sweep");
    SweepSpec& spec = table.spec;
    spec.config = s.at("config").get<std::string>();
    spec.traces = s.at("traces").get<std::vector<std::string>>();
    for (const Json& axis : s.at("vary")) {
      spec.axes.push_back(
          {axis.at("key").get<std::string>(), axis.at("values").get<std::vector<std::string>>()});
    }
    spec.sets = s.at("set").get<std::vector<std::string>>();
    spec.summary_only = s.at("summary_only").get<bool>();
    spec.chart_metric = s.at("chart_metric").get<std::string>();
    spec.chart_key = s.at("chart_key").get<std::string>();
    for (const Json& r : j.at("rows")) {
      SweepRow row;
      row.point = r.at("point").get<int>();
      row.trace = r.at("trace").get<std::string>();
      for (const SweepAxis& axis : spec.axes) {
        row.values.push_back(r.at("config").at(axis.key).get<std::string>());
      }
      row.exit_code = r.at("exit_code").get<int>();
      row.error = r.at("error").get<std::string>();
      row.launches = r.value("launches", 0);
      for (const auto& [name, value] : r.at("metrics").items()) {
        row.metrics[name] = value.get<double>();
      }
      table.rows.push_back(std::move(row));
    }
    return table;
  } catch (const Json::exception& e) {
    return Bad(source, absl::StrCat("malformed sweep.json: ", e.what()));
  }
}

}  // namespace pto
