#ifndef PTO_SIM_REGRESS_REGRESS_COMMAND_H_
#define PTO_SIM_REGRESS_REGRESS_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace pto {

struct RegressOptions {
  std::vector<std::string> suites;  // suite files (YAML)
  std::string root = ".";           // the repo: configs/, traces/, regress/baselines/
  // Directories of compiled traces, searched in order; default ROOT/build/traces
  // and ROOT/build/regress/traces.
  std::vector<std::string> traces_dirs;
  std::string baselines_dir;      // default ROOT/regress/baselines
  std::vector<std::string> sets;  // --set key=value applied to every case (after the case's)
  bool update_baselines = false;  // rewrite the baselines instead of comparing
  // With update_baselines and `sets`: record baselines under overrides the
  // suite does not name (refused unless asked for, as it is rarely meant).
  bool accept_overrides = false;
  bool keep_work = false;  // keep each case's output directory (printed)
  int jobs = 1;            // cases run in parallel
  std::string pto_sim;     // the simulator binary; default: this executable
};

// `pto_sim regress SUITE.yaml...`: runs every case of each suite in its own
// pto_sim process and checks its expectations: the exit code (0: all checks
// pass), the suite's timing properties, and the timing baseline within its
// tolerance. Prints one line per case and, for each failure, the case, the
// expectation and the measured value. With `update_baselines` the baselines
// are rewritten from this run instead. Returns 0 when everything passed, 1
// when an expectation failed, 2 for a bad suite, trace or option.
int RunRegressCommand(const RegressOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pto

#endif  // PTO_SIM_REGRESS_REGRESS_COMMAND_H_
