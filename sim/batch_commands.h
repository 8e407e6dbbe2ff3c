#ifndef PTO_SIM_BATCH_COMMANDS_H_
#define PTO_SIM_BATCH_COMMANDS_H_

#include <optional>
#include <ostream>

#include "CLI/CLI.hpp"
#include "sim/regress/regress_command.h"
#include "sim/sweep/sweep_command.h"

namespace pto {

// The commands that run many simulations, each in a pto_sim child process:
// `regress` (suites with expectations and timing baselines), `sweep` (a grid
// over config keys, locally or as Slurm shards) and `sweep-merge`. Registered on
// pto_sim's command line by main.cc with two calls.
class BatchCommands {
 public:
  explicit BatchCommands(CLI::App* app);

  // The exit code of the batch command that was parsed, or nullopt when the
  // command line named none of them.
  std::optional<int> RunParsed(std::ostream& out, std::ostream& err);

 private:
  CLI::App* regress_ = nullptr;
  RegressOptions regress_options_;
  CLI::App* sweep_ = nullptr;
  SweepOptions sweep_options_;
  CLI::App* merge_ = nullptr;
  std::string merge_out_;
  std::vector<std::string> merge_dirs_;
};

}  // namespace pto

#endif  // PTO_SIM_BATCH_COMMANDS_H_
