#include "sim/regress/suite.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/input_file.h"
#include "yaml-cpp/yaml.h"

namespace pto {
namespace {

absl::Status Bad(const std::string& path, const YAML::Node& node, const std::string& what) {
  const YAML::Mark mark = node.Mark();
  const std::string where =
      mark.is_null() ? path : absl::StrCat(path, ":", mark.line + 1, ":", mark.column + 1);
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

absl::Status CheckKeys(const std::string& path, const YAML::Node& map,
                       const std::set<std::string>& allowed, const std::string& entry) {
  for (const auto& item : map) {
    const std::string key = item.first.as<std::string>();
    if (allowed.count(key) == 0) {
      return Bad(path, item.first,
                 absl::StrCat("unknown key '", key, "' in ", entry,
                              "; expected one of: ", absl::StrJoin(allowed, ", ")));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadTolerance(const std::string& path, const YAML::Node& node, Tolerance* out) {
  if (!node) return absl::OkStatus();
  if (!node.IsMap()) return Bad(path, node, "'tolerance' must be a map {time: F, share: F}");
  if (absl::Status s = CheckKeys(path, node, {"time", "share"}, "tolerance"); !s.ok()) return s;
  if (node["time"]) out->time_relative = node["time"].as<double>();
  if (node["share"]) out->share_absolute = node["share"].as<double>();
  if (out->time_relative < 0 || out->share_absolute < 0) {
    return Bad(path, node, "tolerances must be >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<RegressCase> ReadCase(const std::string& path, const YAML::Node& node,
                                     const Tolerance& suite_tolerance) {
  if (!node.IsMap()) return Bad(path, node, "a case must be a map with 'name' and 'trace'");
  if (absl::Status s = CheckKeys(path, node,
                                 {"name", "trace", "set", "expect_exit", "summary_only",
                                  "timing_only", "baseline", "tolerance"},
                                 "a case");
      !s.ok()) {
    return s;
  }
  RegressCase c;
  if (!node["name"] || !node["trace"]) return Bad(path, node, "a case needs 'name' and 'trace'");
  c.name = node["name"].as<std::string>();
  c.trace = node["trace"].as<std::string>();
  if (c.name.empty() || c.name.find('/') != std::string::npos) {
    return Bad(path, node["name"], "a case name must be non-empty and contain no '/'");
  }
  if (const YAML::Node sets = node["set"]) {
    if (!sets.IsSequence()) return Bad(path, sets, "'set' must be a list of key=value strings");
    for (const YAML::Node& s : sets) {
      const std::string kv = s.as<std::string>();
      if (kv.find('=') == std::string::npos) {
        return Bad(path, s, absl::StrCat("'", kv, "' is not key=value"));
      }
      c.sets.push_back(kv);
    }
  }
  if (node["expect_exit"]) c.expect_exit = node["expect_exit"].as<int>();
  for (const auto& [key, flag] : {std::pair<const char*, bool*>{"summary_only", &c.summary_only},
                                  {"timing_only", &c.timing_only},
                                  {"baseline", &c.baseline}}) {
    const YAML::Node value = node[key];
    if (!value) continue;
    bool parsed = false;
    if (!value.IsScalar() || !YAML::convert<bool>::decode(value, parsed)) {
      return Bad(path, value, absl::StrCat("'", key, "' must be true or false"));
    }
    *flag = parsed;
  }
  c.tolerance = suite_tolerance;
  if (absl::Status s = ReadTolerance(path, node["tolerance"], &c.tolerance); !s.ok()) return s;
  return c;
}

absl::StatusOr<RegressProperty> ReadProperty(const std::string& path, const YAML::Node& node) {
  if (!node.IsMap()) return Bad(path, node, "a property must be a map");
  if (absl::Status s = CheckKeys(
          path, node, {"name", "left", "op", "right", "value", "factor", "pending"}, "a property");
      !s.ok()) {
    return s;
  }
  RegressProperty p;
  if (!node["name"] || !node["left"] || !node["op"]) {
    return Bad(path, node, "a property needs 'name', 'left', 'op' and 'right' or 'value'");
  }
  p.name = node["name"].as<std::string>();
  p.left = node["left"].as<std::string>();
  p.op = node["op"].as<std::string>();
  static const std::set<std::string> kOps = {"<", "<=", ">", ">=", "=="};
  if (kOps.count(p.op) == 0) {
    return Bad(path, node["op"], absl::StrCat("op '", p.op, "'; expected <, <=, >, >= or =="));
  }
  if (node["right"]) p.right = node["right"].as<std::string>();
  if (node["value"]) p.value = node["value"].as<double>();
  if (p.right.empty() == !p.value.has_value()) {
    return Bad(path, node,
               absl::StrCat("property '", p.name,
                            "' needs exactly one of 'right' (CASE/METRIC) and 'value'"));
  }
  if (node["factor"]) p.factor = node["factor"].as<double>();
  if (node["pending"]) {
    p.pending = node["pending"].as<std::string>();
    if (p.pending.empty()) {
      return Bad(path, node["pending"],
                 absl::StrCat("property '", p.name,
                              "': 'pending' needs the reason the property waits for a re-fit"));
    }
  }
  return p;
}

}  // namespace

absl::StatusOr<std::pair<std::string, std::string>> SplitMetricRef(const std::string& ref) {
  const size_t slash = ref.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ref.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", ref, "' is not CASE/METRIC (e.g. spmd_blocks/makespan_us)"));
  }
  return std::make_pair(ref.substr(0, slash), ref.substr(slash + 1));
}

// A suite is a page of YAML; a bigger file is the wrong file.
constexpr uint64_t kMaxSuiteBytes = uint64_t{16} << 20;

absl::StatusOr<RegressSuite> LoadRegressSuite(const std::string& path) {
  absl::StatusOr<std::string> text = ReadInputFile(path, kMaxSuiteBytes, "a regress suite (YAML)");
  if (!text.ok()) return text.status();
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", e.mark.line + 1, ": ", e.msg));
  }
  try {
    if (!root.IsMap()) return Bad(path, root, "a suite must be a map with 'suite' and 'cases'");
    if (absl::Status s = CheckKeys(
            path, root, {"suite", "config", "tolerance", "cases", "properties"}, "the suite");
        !s.ok()) {
      return s;
    }
    RegressSuite suite;
    suite.path = path;
    if (!root["suite"] || !root["cases"] || !root["cases"].IsSequence()) {
      return Bad(path, root, "a suite needs 'suite' (its name) and a list of 'cases'");
    }
    suite.name = root["suite"].as<std::string>();
    suite.config = root["config"] ? root["config"].as<std::string>() : "configs/ascend.yaml";
    Tolerance tolerance;
    if (absl::Status s = ReadTolerance(path, root["tolerance"], &tolerance); !s.ok()) return s;
    std::set<std::string> names;
    for (const YAML::Node& node : root["cases"]) {
      absl::StatusOr<RegressCase> c = ReadCase(path, node, tolerance);
      if (!c.ok()) return c.status();
      if (!names.insert(c->name).second) {
        return Bad(path, node, absl::StrCat("case name '", c->name, "' is used twice"));
      }
      suite.cases.push_back(*std::move(c));
    }
    if (const YAML::Node properties = root["properties"]) {
      if (!properties.IsSequence()) return Bad(path, properties, "'properties' must be a list");
      for (const YAML::Node& node : properties) {
        absl::StatusOr<RegressProperty> p = ReadProperty(path, node);
        if (!p.ok()) return p.status();
        for (const std::string& ref : {p->left, p->right}) {
          if (ref.empty()) continue;
          absl::StatusOr<std::pair<std::string, std::string>> split = SplitMetricRef(ref);
          if (!split.ok()) return Bad(path, node, std::string(split.status().message()));
          if (names.count(split->first) == 0) {
            return Bad(path, node,
                       absl::StrCat("property '", p->name, "' names case '", split->first,
                                    "', which the suite does not have"));
          }
        }
        suite.properties.push_back(*std::move(p));
      }
    }
    return suite;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", e.mark.line + 1, ":", e.mark.column + 1, ": ", e.msg));
  }
}

}  // namespace pto
