#include "sim/compare_command.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "sim/provenance.h"
#include "sim/stats_file.h"
#include "sim/stats_schema.h"

namespace pto {
namespace {

using Json = nlohmann::json;

// One metric's A, B, delta and delta %; false (and nothing printed) when
// absent on both sides.
struct MetricRow {
  std::string label;
  double a;
  double b;
  bool changed() const { return std::isnan(a) != std::isnan(b) || (!std::isnan(a) && a != b); }
};

void PrintRow(std::ostream& out, const MetricRow& row) {
  auto num = [](double v) { return std::isnan(v) ? std::string("-") : absl::StrFormat("%.6g", v); };
  std::string delta = "-", percent = "-";
  if (!std::isnan(row.a) && !std::isnan(row.b)) {
    delta = absl::StrFormat("%+.6g", row.b - row.a);
    percent = row.a != 0 ? absl::StrFormat("%+.1f%%", 100.0 * (row.b - row.a) / std::fabs(row.a))
                         : (row.b == row.a ? "+0.0%" : "n/a");
  }
  out << absl::StrFormat("  %-34s %14s %14s %14s %9s\n", row.label, num(row.a), num(row.b), delta,
                         percent);
}

const Json* Hops(const Json& summary) {
  if (!summary.contains("scheduler_overhead")) return nullptr;
  const Json& oh = summary["scheduler_overhead"];
  if (!oh.is_object() || !oh.contains("critical_path")) return nullptr;
  const Json& hops = oh["critical_path"]["path"];
  return hops.is_array() ? &hops : nullptr;
}

// Prints the rows that changed (every row with `all`), then how many did not.
void PrintRows(const std::vector<MetricRow>& rows, const CompareOptions& options, const char* what,
               std::ostream& out) {
  size_t same = 0;
  for (const MetricRow& row : rows) {
    if (options.all || row.changed()) {
      PrintRow(out, row);
    } else {
      ++same;
    }
  }
  if (same == rows.size() && !rows.empty()) {
    out << absl::StrFormat("  no %s changed (%d compared; --all shows them)\n", what, same);
  } else if (same > 0) {
    out << absl::StrFormat("  %d more unchanged (--all shows them)\n", same);
  }
}

void CompareSummaries(const Json& a, const Json& b, const CompareOptions& options,
                      std::ostream& out) {
  out << absl::StrFormat("  %-34s %14s %14s %14s %9s\n", "metric", "A", "B", "delta", "delta%");
  // The schema's compare rows, in its order.
  std::vector<MetricRow> rows;
  for (const StatSpec& spec : StatsSchema()) {
    if (spec.compare.empty()) continue;
    MetricRow row{std::string(spec.compare), StatNumber(a, spec.path), StatNumber(b, spec.path)};
    if (!std::isnan(row.a) || !std::isnan(row.b)) rows.push_back(std::move(row));
  }
  PrintRows(rows, options, "metric", out);
  const Json* ha = Hops(a);
  const Json* hb = Hops(b);
  if (ha == nullptr && hb == nullptr) return;
  const size_t na = ha ? ha->size() : 0, nb = hb ? hb->size() : 0;
  std::vector<MetricRow> hops;
  for (size_t k = 0; k < std::max(na, nb); ++k) {
    const Json* x = k < na ? &(*ha)[k] : nullptr;
    const Json* y = k < nb ? &(*hb)[k] : nullptr;
    const std::string name_a = x ? (*x)["name"].get<std::string>() : "-";
    const std::string name_b = y ? (*y)["name"].get<std::string>() : "-";
    const std::string label = name_a == name_b
                                  ? absl::StrFormat("hop %d %s", k, name_a)
                                  : absl::StrFormat("hop %d %s / %s", k, name_a, name_b);
    MetricRow row{label, x ? (*x)["injected_us"].get<double>() : NAN,
                  y ? (*y)["injected_us"].get<double>() : NAN};
    // A hop that is another task is a change, whatever its time.
    if (name_a != name_b && !row.changed()) row.b = std::nextafter(row.b, INFINITY);
    hops.push_back(row);
  }
  out << "  critical path, hop by hop (scheduler-injected us before each hop; root first):\n";
  PrintRows(hops, options, "hop", out);
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "path (hash)" of a provenance file entry.
std::string FileText(const Json& file) {
  if (!file.is_object()) return "-";
  return absl::StrCat(Text(file.value("path", Json())), " (", Text(file.value("fnv1a64", Json())),
                      ")");
}

// Leads the comparison: what differed in how the two results were made.
void CompareProvenance(const Json& a, const Json& b, std::ostream& out) {
  const bool has_a = a.contains(kProvenanceKey), has_b = b.contains(kProvenanceKey);
  if (!has_a || !has_b) {
    const char* who = has_a   ? "B does not record"
                      : has_b ? "A does not record"
                              : "neither file records";
    out << "provenance: " << who << " its inputs (written before pto_sim recorded them)\n";
    return;
  }
  const Json& pa = a[kProvenanceKey];
  const Json& pb = b[kProvenanceKey];
  std::vector<std::string> differences;
  const auto build = [](const Json& p) {
    return absl::StrCat(Text(p.value("version", Json())), " @ ",
                        Text(p.value("git_revision", Json())));
  };
  if (build(pa) != build(pb)) {
    differences.push_back(absl::StrCat("pto_sim: A ", build(pa), ", B ", build(pb)));
  }
  if (pa.value("config", Json()) != pb.value("config", Json())) {
    differences.push_back(absl::StrCat("config: A ", FileText(pa.value("config", Json())), ", B ",
                                       FileText(pb.value("config", Json()))));
  }
  if (pa.value("overrides", Json()) != pb.value("overrides", Json())) {
    differences.push_back(absl::StrCat("--set: A ", Text(pa.value("overrides", Json())), ", B ",
                                       Text(pb.value("overrides", Json()))));
  }
  const Json ta = pa.value("traces", Json::array()), tb = pb.value("traces", Json::array());
  if (ta != tb) {
    std::vector<std::string> sa, sb;
    for (const Json& t : ta) sa.push_back(FileText(t));
    for (const Json& t : tb) sb.push_back(FileText(t));
    differences.push_back(
        absl::StrCat("trace: A ", absl::StrJoin(sa, ", "), ", B ", absl::StrJoin(sb, ", ")));
  }
  if (differences.empty()) {
    out << "provenance: the same pto_sim build, config, --set overrides and trace\n";
    return;
  }
  out << "provenance differs:\n";
  for (const std::string& line : differences) out << "  " << line << "\n";
}

}  // namespace

int RunCompareCommand(const std::string& a_path, const std::string& b_path,
                      const CompareOptions& options, std::ostream& out, std::ostream& err) {
  absl::StatusOr<Json> a = LoadStatsSummary(a_path);
  absl::StatusOr<Json> b = a.ok() ? LoadStatsSummary(b_path) : a;
  for (const absl::StatusOr<Json>* s : {&a, &b}) {
    if (!s->ok()) {
      err << "pto_sim compare: error: " << s->status().message() << "\n";
      return 2;
    }
  }
  out << "A: " << a_path << "\nB: " << b_path << "\n";
  CompareProvenance(*a, *b, out);
  const bool multi_a = a->contains("per_launch"), multi_b = b->contains("per_launch");
  if (!multi_a && !multi_b) {  // two launches' own files
    CompareSummaries(*a, *b, options, out);
    return 0;
  }
  if (multi_a && multi_b && (*a)["per_launch"].size() == 1 && (*b)["per_launch"].size() == 1) {
    // Two one-launch runs: the totals are the launch's figures.
    CompareSummaries((*a)["per_launch"][0], (*b)["per_launch"][0], options, out);
    return 0;
  }
  out << "totals:\n";
  CompareSummaries(*a, *b, options, out);
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
    CompareSummaries(la[i], lb[i], options, out);
  }
  return 0;
}

}  // namespace pto
