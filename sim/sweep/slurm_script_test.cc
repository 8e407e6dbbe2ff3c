#include "sim/sweep/slurm_script.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(SlurmScriptTest, ArrayOfShardsThenAMergeAfterThemAll) {
  const std::string dir = (std::filesystem::temp_directory_path() / "slurm_script_test").string();
  std::filesystem::remove_all(dir);
  SlurmPlan plan{"/opt/pto sim/pto_sim",
                 "/work dir",
                 {"--config", "c.yaml", "--vary", "k=1,2"},
                 3,
                 2,
                 "results",
                 dir};
  ASSERT_TRUE(WriteSlurmScripts(plan).ok());
  const std::string array = testing::ReadFile(dir + "/array.sbatch");
  EXPECT_THAT(array, HasSubstr("#SBATCH --array=0-2\n"));
  EXPECT_THAT(array, HasSubstr("#SBATCH --cpus-per-task=2\n"));
  EXPECT_THAT(array, HasSubstr("cd '/work dir'\n"));
  EXPECT_THAT(array, HasSubstr("exec '/opt/pto sim/pto_sim' sweep '--config' 'c.yaml' '--vary' "
                               "'k=1,2' --jobs 2 --shard \"${SLURM_ARRAY_TASK_ID}/3\""));
  const std::string merge = testing::ReadFile(dir + "/merge.sbatch");
  EXPECT_THAT(merge, HasSubstr("sweep-merge --out 'results' '" + dir + "/shards/shard_0' '" + dir +
                               "/shards/shard_1' '" + dir + "/shards/shard_2'"));
  const std::string submit = testing::ReadFile(dir + "/submit.sh");
  EXPECT_THAT(submit, HasSubstr("sbatch --parsable --dependency=afterok:${array}"));
  EXPECT_TRUE((std::filesystem::status(dir + "/submit.sh").permissions() &
               std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
}

}  // namespace
}  // namespace pto
