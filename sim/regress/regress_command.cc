#include "sim/regress/regress_command.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/regress/baseline.h"
#include "sim/regress/suite.h"
#include "sim/run_driver.h"
#include "sim/sweep/child_process.h"
#include "sim/sweep/run_metrics.h"

namespace pto {
namespace {

namespace fs = std::filesystem;

struct CaseOutcome {
  int exit_code = -1;
  std::optional<RunMetrics> metrics;
  std::string stderr_tail;
};

std::string Tail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  const size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
  std::string out;
  for (size_t i = from; i < all.size(); ++i) absl::StrAppend(&out, "      ", all[i], "\n");
  return out;
}

// The trace file of a case: a compiled trace in the build, else a
// hand-written one in the source tree.
std::string ResolveTrace(const RegressOptions& options, const std::string& trace,
                         std::vector<std::string>* tried) {
  std::vector<fs::path> candidates;
  const bool named = fs::path(trace).has_extension();
  for (const std::string& dir : options.traces_dirs) {
    candidates.push_back(fs::path(dir) / (named ? trace : trace + ".pb"));
  }
  candidates.push_back(fs::path(options.root) / "traces" / (named ? trace : trace + ".pbtxt"));
  if (named) candidates.push_back(fs::path(options.root) / trace);
  for (const fs::path& p : candidates) {
    tried->push_back(p.string());
    if (fs::exists(p)) return p.string();
  }
  return "";
}

bool Compare(double left, const std::string& op, double right) {
  if (op == "<") return left < right;
  if (op == "<=") return left <= right;
  if (op == ">") return left > right;
  if (op == ">=") return left >= right;
  return left == right;
}

std::optional<double> Lookup(const std::map<std::string, CaseOutcome>& outcomes,
                             const std::string& ref) {
  absl::StatusOr<std::pair<std::string, std::string>> split = SplitMetricRef(ref);
  if (!split.ok()) return std::nullopt;
  auto it = outcomes.find(split->first);
  if (it == outcomes.end() || !it->second.metrics) return std::nullopt;
  const MetricMap flat = it->second.metrics->Flatten();
  auto m = flat.find(split->second);
  if (m == flat.end()) return std::nullopt;
  return m->second;
}

std::string Describe(const MetricMap& total) {
  auto get = [&](const char* key) { return total.count(key) ? total.at(key) : 0.0; };
  std::string s = absl::StrFormat("makespan %.3f us, %d task dispatches", get("makespan_us"),
                                  static_cast<int>(get("task_dispatches")));
  if (total.count("overhead_share")) {
    absl::StrAppendFormat(&s, ", overhead share %.3f", get("overhead_share"));
  }
  return s;
}

class SuiteRun {
 public:
  SuiteRun(const RegressOptions& options, const RegressSuite& suite, std::ostream& out)
      : options_(options), suite_(suite), out_(out) {}

  // Returns the number of failed expectations, or -1 for bad input (printed).
  int Run(std::ostream& err) {
    const std::string config = (fs::path(options_.root) / suite_.config).string();
    if (!fs::exists(config)) {
      err << "pto_sim regress: error: " << suite_.path << ": config '" << suite_.config
          << "' not found under the root '" << options_.root << "' (set --root)\n";
      return -1;
    }
    work_ = (fs::temp_directory_path() / absl::StrCat("pto_regress_", getpid(), "_", suite_.name))
                .string();
    fs::remove_all(work_);
    std::vector<ChildJob> jobs;
    for (const RegressCase& c : suite_.cases) {
      std::vector<std::string> tried;
      const std::string trace = ResolveTrace(options_, c.trace, &tried);
      if (trace.empty()) {
        err << "pto_sim regress: error: " << suite_.path << ": case '" << c.name << "': trace '"
            << c.trace << "' not found (looked for " << absl::StrJoin(tried, ", ")
            << "); build it first (cmake --build build --target traces, or the target named in "
               "regress/README.md)\n";
        return -1;
      }
      const std::string dir = CaseDir(c);
      fs::create_directories(dir);
      ChildJob job;
      job.argv = {options_.pto_sim, "--config", config, "--trace", trace, "--out", dir + "/out"};
      for (const std::string& s : c.sets) job.argv.insert(job.argv.end(), {"--set", s});
      for (const std::string& s : options_.sets) job.argv.insert(job.argv.end(), {"--set", s});
      if (c.summary_only) job.argv.push_back("--summary-only");
      job.stdout_path = dir + "/stdout";
      job.stderr_path = dir + "/stderr";
      jobs.push_back(std::move(job));
    }
    const std::vector<ChildResult> results = RunChildren(jobs, options_.jobs);
    for (size_t i = 0; i < suite_.cases.size(); ++i) {
      const RegressCase& c = suite_.cases[i];
      CaseOutcome& o = outcomes_[c.name];
      o.exit_code = results[i].exit_code;
      o.stderr_tail = Tail(CaseDir(c) + "/stderr", 6);
      const std::string stats = CaseDir(c) + "/out/stats.json";
      if (fs::exists(stats)) {
        absl::StatusOr<RunMetrics> metrics = ReadRunMetrics(stats);
        if (metrics.ok()) o.metrics = *std::move(metrics);
      }
    }
    int failures = 0;
    absl::StatusOr<Baselines> baselines = LoadBaselines(BaselinePath());
    if (!baselines.ok()) {
      err << "pto_sim regress: error: " << baselines.status().message() << "\n";
      return -1;
    }
    // Cases that fail keep their old baseline; removed cases lose theirs.
    Baselines updated;
    for (const RegressCase& c : suite_.cases) {
      auto it = baselines->find(c.name);
      if (c.baseline && it != baselines->end()) updated[c.name] = it->second;
    }
    for (const RegressCase& c : suite_.cases) {
      failures += CheckCase(c, *baselines, &updated);
    }
    for (const RegressProperty& p : suite_.properties) failures += CheckProperty(p);
    if (options_.update_baselines) {
      if (absl::Status s = SaveBaselines(BaselinePath(), suite_.name, updated); !s.ok()) {
        err << "pto_sim regress: error: " << s.message() << "\n";
        return -1;
      }
      out_ << "baselines of " << updated.size() << " cases written to " << BaselinePath()
           << " (review the diff before committing)\n";
    }
    if (failures == 0) fs::remove_all(work_);
    return failures;
  }

 private:
  std::string CaseDir(const RegressCase& c) const { return work_ + "/" + c.name; }

  std::string BaselinePath() const {
    const std::string dir = options_.baselines_dir.empty()
                                ? (fs::path(options_.root) / "regress" / "baselines").string()
                                : options_.baselines_dir;
    return (fs::path(dir) / (suite_.name + ".json")).string();
  }

  std::string Label(const RegressCase& c) const { return suite_.name + "/" + c.name; }

  int CheckCase(const RegressCase& c, const Baselines& baselines, Baselines* updated) {
    const CaseOutcome& o = outcomes_.at(c.name);
    if (o.exit_code != c.expect_exit) {
      out_ << "FAIL " << Label(c) << ": expected exit " << c.expect_exit
           << (c.expect_exit == 0 ? " (the run succeeds and every check passes)" : "")
           << ", measured exit " << o.exit_code;
      if (o.metrics) {
        out_ << " (checks " << o.metrics->total.at("checks_passed") << " passed, "
             << o.metrics->total.at("checks_failed") << " failed)";
      }
      out_ << "\n    stderr of the run (" << CaseDir(c) << "/stderr):\n" << o.stderr_tail;
      return 1;
    }
    if (!c.baseline) {
      out_ << "ok   " << Label(c) << (o.metrics ? ": " + Describe(o.metrics->total) : "") << "\n";
      return 0;
    }
    if (!o.metrics) {
      out_ << "FAIL " << Label(c) << ": expected a stats.json to compare with the baseline, "
           << "the run wrote none\n";
      return 1;
    }
    const MetricMap measured = BaselineMetrics(*o.metrics);
    if (options_.update_baselines) {
      (*updated)[c.name] = measured;
      out_ << "ok   " << Label(c) << ": " << Describe(o.metrics->total) << " (baseline updated)\n";
      return 0;
    }
    auto it = baselines.find(c.name);
    if (it == baselines.end()) {
      out_ << "FAIL " << Label(c) << ": expected a timing baseline in " << BaselinePath()
           << ", there is none; record it with --update-baselines\n";
      return 1;
    }
    const std::vector<MetricDrift> drifts = CompareToBaseline(it->second, measured, c.tolerance);
    if (drifts.empty()) {
      out_ << "ok   " << Label(c) << ": " << Describe(o.metrics->total) << "\n";
      return 0;
    }
    out_ << "FAIL " << Label(c) << ": expected the timing baseline (" << BaselinePath()
         << "), measured " << drifts.size() << " metric(s) outside tolerance:\n"
         << FormatDrifts(drifts) << "    if the change is intended: pto_sim regress " << suite_.path
         << " --update-baselines, then review and commit the baseline diff\n";
    return 1;
  }

  int CheckProperty(const RegressProperty& p) {
    const std::optional<double> left = Lookup(outcomes_, p.left);
    const std::optional<double> right = p.value ? p.value : Lookup(outcomes_, p.right);
    const std::string right_text =
        p.value ? absl::StrFormat("%g", *p.value)
                : absl::StrCat(p.factor != 1.0 ? absl::StrFormat("%g * ", p.factor) : "", p.right);
    const std::string expectation = absl::StrCat(p.left, " ", p.op, " ", right_text);
    if (!left || !right) {
      out_ << "FAIL " << suite_.name << ": property '" << p.name << "': expected " << expectation
           << ", but " << (!left ? p.left : p.right)
           << " was not measured (the case failed, or no such metric)\n";
      return 1;
    }
    const double rhs = p.value ? *right : p.factor * *right;
    const bool holds = Compare(*left, p.op, rhs);
    if (!p.pending.empty()) {
      // An expected failure, recorded with what it measured; strict: once
      // it holds, the mark must go.
      if (!holds) {
        out_ << "xfail " << suite_.name << ": " << p.name << " (pending re-fit: " << p.pending
             << "; measured " << p.left << " = " << absl::StrFormat("%.9g", *left) << ", expected "
             << p.op << " " << absl::StrFormat("%.9g", rhs) << ")\n";
        return 0;
      }
      out_ << "FAIL " << suite_.name << ": property '" << p.name << "' is marked pending ("
           << p.pending << ") but holds (" << absl::StrFormat("%.6g", *left) << " " << p.op << " "
           << absl::StrFormat("%.6g", rhs) << "): remove its 'pending' mark\n";
      return 1;
    }
    if (holds) {
      out_ << "ok   " << suite_.name << ": " << p.name << " (" << absl::StrFormat("%.6g", *left)
           << " " << p.op << " " << absl::StrFormat("%.6g", rhs) << ")\n";
      return 0;
    }
    out_ << "FAIL " << suite_.name << ": property '" << p.name << "': expected " << expectation
         << ", measured " << p.left << " = " << absl::StrFormat("%.9g", *left) << " against "
         << absl::StrFormat("%.9g", rhs) << "\n";
    return 1;
  }

  const RegressOptions& options_;
  const RegressSuite& suite_;
  std::ostream& out_;
  std::string work_;
  std::map<std::string, CaseOutcome> outcomes_;
};

}  // namespace

int RunRegressCommand(const RegressOptions& given, std::ostream& out, std::ostream& err) {
  RegressOptions options = given;
  if (options.pto_sim.empty()) options.pto_sim = SelfExecutable();
  if (options.traces_dirs.empty()) {
    options.traces_dirs = {(fs::path(options.root) / "build" / "traces").string(),
                           (fs::path(options.root) / "build" / "regress" / "traces").string()};
  }
  if (options.suites.empty()) {
    err << "pto_sim regress: error: name at least one suite file (e.g. "
           "regress/suites/techniques.yaml)\n";
    return kExitBadInput;
  }
  int failures = 0;
  for (const std::string& path : options.suites) {
    absl::StatusOr<RegressSuite> suite = LoadRegressSuite(path);
    if (!suite.ok()) {
      err << "pto_sim regress: error: " << suite.status().message() << "\n";
      return kExitBadInput;
    }
    const int failed = SuiteRun(options, *suite, out).Run(err);
    if (failed < 0) return kExitBadInput;
    out << "regress " << suite->name << ": " << suite->cases.size() << " cases, "
        << suite->properties.size() << " properties: "
        << (failed == 0 ? std::string("all passed") : absl::StrCat(failed, " failed")) << "\n";
    failures += failed;
  }
  return failures == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace pto
