#ifndef PTO_SIM_SWEEP_SLURM_SCRIPT_H_
#define PTO_SIM_SWEEP_SLURM_SCRIPT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace pto {

// What the Slurm scripts run: `sweep_args` is the sweep's own command line
// (without --out, --shard, --emit-slurm), replayed by every array task with
// its shard; the merge job then combines the shard directories into `out_dir`.
struct SlurmPlan {
  std::string pto_sim;  // absolute path of the binary
  std::string workdir;  // absolute; relative paths in the args resolve here
  std::vector<std::string> sweep_args;
  int shards = 1;
  int cpus_per_task = 1;   // also the sweep's --jobs inside each task
  std::string out_dir;     // the merged result
  std::string script_dir;  // where the scripts, shards and logs go
};

// Writes SCRIPT_DIR/array.sbatch (a job array of `shards` tasks, each
// `pto_sim sweep ... --shard $SLURM_ARRAY_TASK_ID/N`), SCRIPT_DIR/merge.sbatch
// (`pto_sim sweep-merge`) and SCRIPT_DIR/submit.sh, which submits the array and
// the merge with --dependency=afterok:<array job id>.
absl::Status WriteSlurmScripts(const SlurmPlan& plan);

}  // namespace pto

#endif  // PTO_SIM_SWEEP_SLURM_SCRIPT_H_
