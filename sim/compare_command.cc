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
#include "sim/stats_schema.h"

namespace pto {
namespace {

using Json = nlohmann::json;

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

const Json* Hops(const Json& summary) {
  if (!summary.contains("scheduler_overhead")) return nullptr;
  const Json& oh = summary["scheduler_overhead"];
  if (!oh.is_object() || !oh.contains("critical_path")) return nullptr;
  const Json& hops = oh["critical_path"]["path"];
  return hops.is_array() ? &hops : nullptr;
}

void CompareSummaries(const Json& a, const Json& b, std::ostream& out) {
  out << absl::StrFormat("  %-34s %14s %14s %14s %9s\n", "metric", "A", "B", "delta", "delta%");
  // The schema's compare rows, in its order.
  for (const StatSpec& spec : StatsSchema()) {
    if (spec.compare.empty()) continue;
    Row(out, std::string(spec.compare), StatNumber(a, spec.path), StatNumber(b, spec.path));
  }
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
