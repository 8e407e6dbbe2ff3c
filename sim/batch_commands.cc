#include "sim/batch_commands.h"

#include "sim/cli_checks.h"

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
  regress_->add_option("--traces", r.traces_dirs,
                       "directory of compiled traces, repeatable (default ROOT/build/traces and "
                       "ROOT/build/regress/traces)");
  regress_->add_option("--baselines", r.baselines_dir,
                       "directory of baseline files (default ROOT/regress/baselines)");
  regress_->add_option("--set", r.sets, "override a config key in every case: --set key=value");
  regress_->add_flag("--update-baselines", r.update_baselines,
                     "rewrite the baselines from this run instead of comparing");
  regress_->add_flag("--accept-overrides", r.accept_overrides,
                     "with --update-baselines and --set: record the baselines under the "
                     "overrides (refused without it)");
  regress_->add_flag("--keep-work", r.keep_work,
                     "keep each case's pto_sim output directory and print where (removed by "
                     "default)");
  regress_->add_option("--jobs", r.jobs, "cases run in parallel")->check(CLI::PositiveNumber);

  sweep_ = app->add_subcommand(
      "sweep",
      "simulate a grid over config keys and traces, one pto_sim process per point, in parallel; "
      "writes OUT/sweep.csv, sweep.json, sweep.svg, timing.json");
  SweepOptions& s = sweep_options_;
  sweep_->add_option("--config", s.config, "chip configuration (YAML)")->required();
  sweep_->add_option("--trace", s.traces, "task stream (repeatable: each trace is a grid axis)")
      ->required();
  sweep_->add_option("--vary", s.vary,
                     "a config key and its values: --vary chip.clusters=8,16,24 (repeatable)");
  sweep_->add_option("--set", s.sets, "a fixed override on every point: --set key=value");
  sweep_->add_option("--out", s.out_dir, "result directory")->required();
  sweep_->add_option("--jobs", s.jobs, "points run at once (default: the available cores)")
      ->check(CLI::NonNegativeNumber);
  sweep_
      ->add_option("--max-wall-seconds", s.max_wall_seconds,
                   "each point's wall-clock limit, passed to its pto_sim (default 600); the "
                   "sweep ends a point 30 s past it")
      ->check(FinitePositive());
  sweep_->add_option("--shard", s.shard, "run only slice I of N: --shard I/N (point p % N == I)");
  sweep_->add_flag("--summary-only", s.summary_only,
                   "points write summary stats only (faster; no overhead_share column)");
  sweep_->add_option("--chart-metric", s.chart_metric,
                     "sweep.svg's y axis: a metric column (default makespan_us)");
  sweep_->add_option("--chart-key", s.chart_key, "sweep.svg's x axis (default: the first --vary)");
  sweep_->add_option("--emit-slurm", s.emit_slurm,
                     "write a Slurm job array (one task per shard) and a dependent merge job to "
                     "this directory instead of running; OUT receives the merged sweep");
  sweep_->add_option("--shards", s.slurm_shards, "array tasks for --emit-slurm (default 4)")
      ->check(CLI::PositiveNumber);

  merge_ = app->add_subcommand("sweep-merge",
                               "combine shard result directories into one sweep.csv/json/svg");
  merge_->add_option("--out", merge_out_, "merged result directory")->required();
  merge_->add_option("shards", merge_dirs_, "shard result directories")->required();
}

std::optional<int> BatchCommands::RunParsed(std::ostream& out, std::ostream& err) {
  if (regress_->parsed()) return RunRegressCommand(regress_options_, out, err);
  if (sweep_->parsed()) return RunSweepCommand(sweep_options_, out, err);
  if (merge_->parsed()) return RunSweepMergeCommand(merge_out_, merge_dirs_, out, err);
  return std::nullopt;
}

}  // namespace pto
