#ifndef PTO_SIM_SWEEP_SWEEP_COMMAND_H_
#define PTO_SIM_SWEEP_SWEEP_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace pto {

struct SweepOptions {
  std::string config;
  std::vector<std::string> traces;
  std::vector<std::string> vary;  // key=v1,v2,...
  std::vector<std::string> sets;  // fixed overrides on every point
  std::string out_dir;
  int jobs = 0;               // parallel points; 0: the available cores
  std::string shard;          // "I/N": run only that slice
  bool summary_only = false;  // pass --summary-only to every point
  std::string chart_metric = "makespan_us";
  std::string chart_key;   // default: the first --vary key
  std::string emit_slurm;  // write Slurm scripts to this dir instead of running
  int slurm_shards = 4;    // array tasks for --emit-slurm
  std::string pto_sim;     // the simulator; default: this executable
  // Each point's --max-wall-seconds; the sweep ends a point that outlives
  // it by more than kPointGraceSeconds.
  double max_wall_seconds = 600;
};
inline constexpr double kPointGraceSeconds = 30;

// `pto_sim sweep`: every point of the grid (traces x varied keys) in its own
// pto_sim process, `jobs` at a time; writes OUT/sweep.csv, OUT/sweep.json
// (byte-identical for the same sweep), OUT/sweep.svg, OUT/timing.json
// (wall-clock per point) and each point's outputs in OUT/points/<point>/.
// A failing point is a row with its exit code and error; the sweep still
// exits 0. Exit 2 for a bad option, config or trace. SIGINT or SIGTERM stops
// every running point and exits 130 / 143 without writing sweep.csv.
int RunSweepCommand(const SweepOptions& options, std::ostream& out, std::ostream& err);

// `pto_sim sweep-merge --out DIR SHARD_DIR...`: combines shard results into
// the files an unsharded run writes. Exit 2 when the shards belong to
// different sweeps, overlap, or leave points out.
int RunSweepMergeCommand(const std::string& out_dir, const std::vector<std::string>& shard_dirs,
                         std::ostream& out, std::ostream& err);

}  // namespace pto

#endif  // PTO_SIM_SWEEP_SWEEP_COMMAND_H_
