// pto_sim: replays a task stream on a SystemC model of an Ascend-class NPU.

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "common/version.h"
#include "sim/batch_commands.h"
#include "sim/cli_checks.h"
#include "sim/compare_command.h"
#include "sim/config_loader.h"
#include "sim/deps_command.h"
#include "sim/deps_reduction.h"
#include "sim/run_driver.h"
#include "systemc"

namespace pto {
namespace {

int Main(int argc, char** argv) {
  RunOptions options;
  bool print_config = false;
  CLI::App app{
      "pto_sim: simulate an Ascend-class NPU's task runtime on a task stream.\n"
      "Exit codes: 0 ok, 1 a check failed, 2 bad input or config, 3 simulated deadlock, "
      "runtime fatal or a time limit, 130/143 stopped by SIGINT/SIGTERM."};
  app.set_version_flag("--version", VersionLine("pto_sim"));
  app.require_subcommand(0, 1);
  app.add_option("--config", options.config_path,
                 "chip configuration (YAML), e.g. configs/ascend.yaml");
  app.add_option("--trace", options.trace_path, "task stream (.pb, or .pbtxt text format)");
  app.add_option("--out", options.out_dir,
                 "directory for stats.json, chip_swimlane_records.json, deps.json, perfetto.json, "
                 "swimlane.svg");
  app.add_option("--write-tensors", options.tensors_dir,
                 "after the run, write every tensor's final contents to this directory "
                 "(tensors.json and <id>.bin, little-endian row-major)");
  app.add_option("--serve", options.serve_dir,
                 "read the trace from --trace as it is written (default: stdin), and after each "
                 "launch write its argument tensors to DIR/launch_<n> and print \"served launch "
                 "<n> DIR/launch_<n>\" (pypto's persistent chip)");
  app.add_option("--set", options.overrides, "override a config key: --set key=value (repeatable)");
  app.add_option("--swimlane-level", options.swimlane_level,
                 "chip_swimlane_records.json detail: 1 cores, 2 + dispatch/finish, 3 + scheduler "
                 "phases, 4 + orchestrator")
      ->check(CLI::Range(1, 4));
  app.add_option("--swimlane-detail", options.swimlane_detail,
                 "swimlane.svg detail: tasks (a bar per block on each core's lane), pipes (also a "
                 "strip per pipe under each lane: when each core's pipes were busy)")
      ->check(CLI::IsMember({"tasks", "pipes"}));
  bool no_hazards = false;
  app.add_flag("--no-hazards", no_hazards,
               "skip the hazard detector (unordered overlapping GM accesses between tasks)");
  app.add_flag("--fail-on-hazard", options.fail_on_hazard, "exit 1 when a hazard is reported");
  app.add_flag("--print-config", print_config,
               "print the effective config, one 'key: value' line per key, and exit");
  app.add_flag("--summary-only", options.summary_only,
               "write only the summary keys of stats.json (no per-task records, no other files)");
  app.add_flag("--timing-only", options.timing_only,
               "ignore tensor contents and checks: timing paths only");
  app.add_flag("--engine-stats", options.engine_stats,
               "after the run, print the simulation kernel's work: process activations and "
               "delta cycles, in all and per task");
  bool profiled = false;
  app.add_flag("--profiled", profiled,
               "emulate a profiled run (swimlane on): each task pays the device-side self-cost "
               "of its timestamp read and record write-back (same as --set profiling.enabled=1)");
  app.add_option("--max-wall-seconds", options.max_wall_seconds,
                 "stop with exit 3 after this much wall-clock time (default 600)")
      ->check(FinitePositive());
  app.add_option("--max-sim-seconds", options.max_sim_seconds,
                 "stop with exit 3 once simulated time passes this (default 10)")
      ->check(FinitePositive());

  std::string deps_trace, edge_mode = "full";
  CLI::App* deps = app.add_subcommand(
      "deps", "print the dependency graph of a trace and its transitively redundant edges");
  deps->add_option("trace", deps_trace, "task stream")->required();
  deps->add_option("--edge-mode", edge_mode, "full, reduced or reduced_dataflow");

  std::string stats_a, stats_b;
  CLI::App* compare = app.add_subcommand(
      "compare", "compare two stats.json files: makespan, dispatches, overhead, critical path");
  compare->add_option("a", stats_a, "baseline stats.json")->required();
  compare->add_option("b", stats_b, "candidate stats.json")->required();
  CompareOptions compare_options;
  compare->add_flag("--all", compare_options.all, "every metric, not only those that changed");

  BatchCommands batch(&app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (deps->parsed()) {
    absl::StatusOr<EdgeMode> mode = ParseEdgeMode(edge_mode);
    if (!mode.ok()) {
      std::cerr << "pto_sim deps: error: " << mode.status().message() << "\n";
      return kExitBadInput;
    }
    return RunDepsCommand(deps_trace, *mode, std::cout, std::cerr);
  }
  if (compare->parsed())
    return RunCompareCommand(stats_a, stats_b, compare_options, std::cout, std::cerr);
  if (std::optional<int> code = batch.RunParsed(std::cout, std::cerr)) return *code;
  if (no_hazards && options.fail_on_hazard) {
    std::cerr << "pto_sim: error: --fail-on-hazard needs the hazard detector, which --no-hazards "
                 "turns off; drop one of the two\n";
    return kExitBadInput;
  }
  options.hazards = !no_hazards;
  // Before the user's --set, so an explicit profiling.enabled=0 still wins.
  if (profiled) options.overrides.insert(options.overrides.begin(), "profiling.enabled=1");
  if (options.config_path.empty()) {
    std::cerr << "pto_sim: error: --config is required (e.g. --config configs/ascend.yaml)\n";
    return kExitBadInput;
  }
  if (print_config) {
    absl::StatusOr<ChipConfig> config = LoadChipConfig(options.config_path, options.overrides);
    if (!config.ok()) {
      std::cerr << "pto_sim: error: " << config.status().message() << "\n";
      return kExitBadInput;
    }
    std::cout << PrintConfig(*config);
    return kExitOk;
  }
  if (options.trace_path.empty() && !options.serve_dir.empty()) options.trace_path = "/dev/stdin";
  if (options.trace_path.empty()) {
    std::cerr << "pto_sim: error: --trace is required (or use --print-config)\n";
    return kExitBadInput;
  }
  return RunSimulation(options, std::cout, std::cerr);
}

}  // namespace
}  // namespace pto

int sc_main(int argc, char** argv) {
  try {
    return pto::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "pto_sim: error: out of memory; run with --timing-only or a smaller trace\n";
  } catch (const std::exception& e) {
    std::cerr << "pto_sim: internal error: " << e.what()
              << "\nThis is a bug in pto_sim; please report it with the trace and config.\n";
  }
  return pto::kExitRuntime;
}

int main(int argc, char** argv) {
  // The SystemC banner is noise on stderr for a command-line tool.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  return sc_core::sc_elab_and_sim(argc, argv);
}
