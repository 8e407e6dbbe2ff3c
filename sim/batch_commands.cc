#include "sim/batch_commands.h"

namespace pto {

BatchCommands::BatchCommands(CLI::App* app) {
  regress_ = app->add_subcommand(
      "regress",
      "run regression suites (regress/suites/*.yaml): every check passes, timing properties "
      "hold, timing stays within the baselines (exit 1 when an expectation fails)");
  RegressOptions& r = regress_options_;
  regress_->add_option("suites", r.suites, "suite files (YAML)")->required();
  regress_->add_option("--root", r.root,
                       "the repository: configs/, traces/*.pbtxt, regress/baselines/ (default .)");
  regress_->add_option("--traces", r.traces_dir,
                       "directory of compiled traces (default ROOT/build/traces)");
  regress_->add_option("--baselines", r.baselines_dir,
                       "directory of baseline files (default ROOT/regress/baselines)");
  regress_->add_option("--set", r.sets, "override a config key in every case: --set key=value");
  regress_->add_flag("--update-baselines", r.update_baselines,
                     "rewrite the baselines from this run instead of comparing");
  regress_->add_option("--jobs", r.jobs, "cases run in parallel")->check(CLI::PositiveNumber);
}

std::optional<int> BatchCommands::RunParsed(std::ostream& out, std::ostream& err) {
  if (regress_->parsed()) return RunRegressCommand(regress_options_, out, err);
  return std::nullopt;
}

}  // namespace pto
