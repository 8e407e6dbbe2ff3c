#ifndef PTO_SIM_TESTING_CLI_RUNNER_H_
#define PTO_SIM_TESTING_CLI_RUNNER_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace pto::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `binary` with `args` in a fresh process (SystemC elaborates once per
// process) and captures its exit code, stdout and stderr.
CliResult RunCli(const std::string& binary, const std::vector<std::string>& args);

// A fresh, empty directory under the test's temporary directory.
std::string FreshDir(const std::string& name);

// A pto_sim run with --out DIR: its output, the run file DIR/stats.json
// (totals, per_launch, provenance) and the first launch's
// DIR/launch_0/stats.json (records and all); each null when not written.
struct SimRun {
  CliResult cli;
  nlohmann::json run;
  nlohmann::json stats;
  std::string out_dir;
  // DIR/launch_<k>: launch k's files.
  std::string launch_dir(int k = 0) const;
};
SimRun Simulate(const std::string& pto_sim, const std::string& config, const std::string& trace,
                const std::vector<std::string>& extra = {});

std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& text);
nlohmann::json ReadJson(const std::string& path);

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_CLI_RUNNER_H_
