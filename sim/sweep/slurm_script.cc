#include "sim/sweep/slurm_script.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/shell_quote.h"

namespace pto {
namespace {

absl::Status WriteScript(const std::string& path, const std::string& text) {
  {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write"));
  }
  chmod(path.c_str(), 0755);
  return absl::OkStatus();
}

std::string QuoteAll(const std::vector<std::string>& args) {
  std::vector<std::string> quoted;
  for (const std::string& a : args) quoted.push_back(ShellQuote(a));
  return absl::StrJoin(quoted, " ");
}

}  // namespace

absl::Status WriteSlurmScripts(const SlurmPlan& plan) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(plan.script_dir);
  std::error_code ec;
  fs::create_directories(dir / "logs", ec);
  if (ec) return absl::InternalError(absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
  const std::string shards = (dir / "shards").string();

  // Every path and value is single-quoted for the shell, and none is in an
  // #SBATCH line (sbatch reads those itself, up to a newline the path may
  // hold): submit.sh enters the script directory, so the jobs' log paths
  // (relative to the directory sbatch runs in) name no path at all.
  const std::string array = absl::StrCat(
      "#!/bin/bash\n"
      "# pto_sim sweep, one shard per array task (written by pto_sim sweep --emit-slurm).\n"
      "#SBATCH --job-name=pto_sweep\n"
      "#SBATCH --array=0-",
      plan.shards - 1, "\n",
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=",
      plan.cpus_per_task, "\n", "set -euo pipefail\n", "cd -- ", ShellQuote(plan.workdir), "\n",
      "exec ", ShellQuote(plan.pto_sim), " sweep ", QuoteAll(plan.sweep_args), " --jobs ",
      plan.cpus_per_task, " --shard \"${SLURM_ARRAY_TASK_ID}/", plan.shards, "\"", " --out ",
      ShellQuote(shards), "/\"shard_${SLURM_ARRAY_TASK_ID}\"\n");
  std::vector<std::string> shard_dirs;
  for (int i = 0; i < plan.shards; ++i) shard_dirs.push_back(absl::StrCat(shards, "/shard_", i));
  const std::string merge = absl::StrCat(
      "#!/bin/bash\n"
      "# Combines the shards into one sweep (submitted after the array succeeds).\n"
      "#SBATCH --job-name=pto_sweep_merge\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "set -euo pipefail\n",
      "cd -- ", ShellQuote(plan.workdir), "\n", "exec ", ShellQuote(plan.pto_sim),
      " sweep-merge --out ", ShellQuote(plan.out_dir), " ", QuoteAll(shard_dirs), "\n");
  const std::string submit = absl::StrCat(
      "#!/bin/bash\n"
      "# Submits the shard array, then the merge that waits for all of it to succeed.\n"
      "set -euo pipefail\n"
      "cd -- ",
      ShellQuote(dir.string()), "\n",
      "array=$(sbatch --parsable --output=logs/shard_%a.log array.sbatch)\n"
      "array=${array%%;*}\n"
      "merge=$(sbatch --parsable --output=logs/merge.log --dependency=afterok:\"${array}\" "
      "merge.sbatch)\n"
      "merge=${merge%%;*}\n"
      "printf 'shards: job %s (",
      plan.shards, " tasks); merge: job %s -> %s\\n' \"${array}\" \"${merge}\" ",
      ShellQuote(plan.out_dir), "\n");
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"array.sbatch", array},
                                   {"merge.sbatch", merge},
                                   {"submit.sh", submit}}) {
    if (absl::Status s = WriteScript((dir / name).string(), text); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace pto
