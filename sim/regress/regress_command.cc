#include "sim/regress/regress_command.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/plural.h"
#include "common/shell_quote.h"
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
  std::string detail;  // what the run said about its failure, indented
};

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  return all;
}

// A failed run's own words: the stdout lines of its failed checks, hazards
// and errors (where pto_sim reports them), then the end of its stderr.
std::string FailureDetail(const std::string& stdout_path, const std::string& stderr_path) {
  constexpr size_t kMaxLines = 12;
  std::vector<std::string> reported;
  size_t more = 0;
  for (const std::string& line : Lines(stdout_path)) {
    const bool telling = absl::StrContains(line, "FAIL") || absl::StrContains(line, "hazard") ||
                         absl::StrContains(line, "error") || absl::StrContains(line, "deadlock");
    if (!telling) continue;
    if (reported.size() < kMaxLines) {
      reported.push_back(line);
    } else {
      ++more;
    }
  }
  const std::vector<std::string> err = Lines(stderr_path);
  const size_t from = err.size() > 6 ? err.size() - 6 : 0;
  std::string out;
  if (!reported.empty()) {
    absl::StrAppend(&out, "    its stdout says:\n");
    for (const std::string& line : reported) absl::StrAppend(&out, "      ", line, "\n");
    if (more > 0) absl::StrAppend(&out, "      (", more, " more such lines)\n");
  }
  if (from < err.size()) {
    absl::StrAppend(&out, "    its stderr", from > 0 ? " ends" : "", ":\n");
    for (size_t i = from; i < err.size(); ++i) absl::StrAppend(&out, "      ", err[i], "\n");
  }
  if (out.empty()) out = "    it printed nothing about the failure\n";
  return out;
}

// The trace file of a case: a compiled trace in the build, else a
// hand-written one in the source tree.
std::string ResolveTrace(const RegressOptions& options, const std::string& trace,
                         std::vector<std::string>* tried) {
  std::vector<fs::path> candidates;
  const bool named = fs::path(trace).has_extension();
  std::vector<std::string> dirs = options.traces_dirs;
  if (dirs.empty()) {  // the default: ROOT's build
    dirs = {(fs::path(options.root) / "build" / "traces").string(),
            (fs::path(options.root) / "build" / "regress" / "traces").string()};
  }
  for (const std::string& dir : dirs) {
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
  std::string s = absl::StrFormat(
      "makespan %.3f us, %s", get("makespan_us"),
      CountOf(static_cast<int64_t>(get("task_dispatches")), "task dispatch", "task dispatches"));
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
      if (c.timing_only) job.argv.push_back("--timing-only");
      job.stdout_path = dir + "/stdout";
      job.stderr_path = dir + "/stderr";
      jobs.push_back(std::move(job));
    }
    const std::vector<ChildResult> results = RunChildren(jobs, options_.jobs);
    for (size_t i = 0; i < suite_.cases.size(); ++i) {
      const RegressCase& c = suite_.cases[i];
      CaseOutcome& o = outcomes_[c.name];
      o.exit_code = results[i].exit_code;
      o.detail = FailureDetail(CaseDir(c) + "/stdout", CaseDir(c) + "/stderr");
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
    if (options_.keep_work) {
      out_ << "the cases' pto_sim outputs are kept in " << work_ << "\n";
    } else {
      fs::remove_all(work_);
    }
    return failures;
  }

  // The command that reruns this suite as it ran, plus `extra`.
  std::string Command(const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {"pto_sim", "regress", suite_.path};
    if (options_.root != ".") argv.insert(argv.end(), {"--root", options_.root});
    for (const std::string& d : options_.traces_dirs) {
      argv.insert(argv.end(), {"--traces", d});
    }
    if (!options_.baselines_dir.empty()) {
      argv.insert(argv.end(), {"--baselines", options_.baselines_dir});
    }
    for (const std::string& s : options_.sets) argv.insert(argv.end(), {"--set", s});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return ShellCommandLine(argv);
  }

  // The hint of a failed baseline: the exact command that records it.
  std::string UpdateHint() const {
    std::vector<std::string> extra = {"--update-baselines"};
    if (!options_.sets.empty()) extra.push_back("--accept-overrides");
    std::string hint =
        absl::StrCat("    if the change is intended: ", Command(extra),
                     "\n    then review and commit the diff of ", BaselinePath(), "\n");
    if (!options_.sets.empty()) {
      absl::StrAppend(&hint,
                      "    (the baselines would then hold the --set overrides, which the "
                      "suite does not name)\n");
    }
    if (options_.baselines_dir.empty() && !SuiteIsTheRepositorys()) {
      absl::StrAppend(&hint, "    (this suite is not one of ", options_.root,
                      "/regress/suites/ but reads the repository's baselines; give it its own "
                      "with --baselines DIR)\n");
    }
    return hint;
  }

  bool SuiteIsTheRepositorys() const {
    std::error_code ec;
    const fs::path suites =
        fs::weakly_canonical(fs::path(options_.root) / "regress" / "suites", ec);
    return fs::weakly_canonical(fs::path(suite_.path), ec).parent_path() == suites;
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
      out_ << "\n" << o.detail;
      if (options_.keep_work) out_ << "    its files: " << CaseDir(c) << "\n";
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
           << ", there is none; record it with --update-baselines:\n"
           << UpdateHint();
      return 1;
    }
    const std::vector<MetricDrift> drifts = CompareToBaseline(it->second, measured, c.tolerance);
    if (drifts.empty()) {
      out_ << "ok   " << Label(c) << ": " << Describe(o.metrics->total) << "\n";
      return 0;
    }
    out_ << "FAIL " << Label(c) << ": expected the timing baseline (" << BaselinePath()
         << "), measured " << drifts.size() << " metric(s) outside tolerance:\n"
         << FormatDrifts(drifts) << UpdateHint();
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
  if (options.suites.empty()) {
    err << "pto_sim regress: error: name at least one suite file (e.g. "
           "regress/suites/techniques.yaml)\n";
    return kExitBadInput;
  }
  if (options.update_baselines && !options.sets.empty() && !options.accept_overrides) {
    err << "pto_sim regress: error: --update-baselines with --set "
        << absl::StrJoin(options.sets, " --set ")
        << " would record baselines for a config the suites do not name; drop the --set, or "
           "add --accept-overrides if that is what you mean\n";
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
