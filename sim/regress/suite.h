#ifndef PTO_SIM_REGRESS_SUITE_H_
#define PTO_SIM_REGRESS_SUITE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pto {

// How far a measured number may drift from its baseline before the case fails.
struct Tolerance {
  double time_relative = 0.01;   // *_us metrics: |measured/baseline - 1|
  double share_absolute = 0.01;  // *_share metrics: |measured - baseline|
  // Counts (dispatches, tasks, skips) are compared exactly.
};

// One simulated run: a trace on a config with overrides.
struct RegressCase {
  std::string name;
  std::string trace;              // as written in the suite (a name or a file name)
  std::vector<std::string> sets;  // --set key=value overrides
  int expect_exit = 0;            // 0: the run succeeds and every check passes
  bool summary_only = false;      // for huge traces: no overhead shares
  bool timing_only = false;       // --timing-only: no tensor data, no checks
  bool baseline = true;           // compare against (and record) a timing baseline
  Tolerance tolerance;
};

// A timing property across cases: left OP factor * right.
struct RegressProperty {
  std::string name;
  std::string left;             // "CASE/METRIC", METRIC as in RunMetrics::Flatten
  std::string op;               // <, <=, >, >=, ==
  std::string right;            // "CASE/METRIC" or empty when `value` is used
  std::optional<double> value;  // a constant right-hand side
  double factor = 1.0;
  // Non-empty: the property is known not to hold until a re-fit (the
  // reason); a failure is reported with its measured value and passes, a
  // pass fails (remove the mark).
  std::string pending;
};

struct RegressSuite {
  std::string name;
  std::string path;    // the suite file
  std::string config;  // chip config, relative to the repo root
  std::vector<RegressCase> cases;
  std::vector<RegressProperty> properties;
};

// Parses a suite file. Errors name the file, the entry and what was expected.
absl::StatusOr<RegressSuite> LoadRegressSuite(const std::string& path);

// The metric reference "CASE/METRIC" split in two; error when malformed.
absl::StatusOr<std::pair<std::string, std::string>> SplitMetricRef(const std::string& ref);

}  // namespace pto

#endif  // PTO_SIM_REGRESS_SUITE_H_
