#include "sim/sweep/slurm_script.h"

#include <cstdlib>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The NUL-separated words a fake command wrote.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t nul; (nul = text.find('\0', start)) != std::string::npos; start = nul + 1) {
    words.push_back(text.substr(start, nul - start));
  }
  return words;
}

// An executable script at `path`.
void WriteTool(const std::string& path, const std::string& text) {
  testing::WriteFile(path, text);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

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
  EXPECT_THAT(array, HasSubstr("cd -- '/work dir'\n"));
  EXPECT_THAT(array, HasSubstr("exec '/opt/pto sim/pto_sim' sweep '--config' 'c.yaml' '--vary' "
                               "'k=1,2' --jobs 2 --shard \"${SLURM_ARRAY_TASK_ID}/3\""));
  const std::string merge = testing::ReadFile(dir + "/merge.sbatch");
  EXPECT_THAT(merge, HasSubstr("sweep-merge --out 'results' '" + dir + "/shards/shard_0' '" + dir +
                               "/shards/shard_1' '" + dir + "/shards/shard_2'"));
  const std::string submit = testing::ReadFile(dir + "/submit.sh");
  EXPECT_THAT(submit, HasSubstr("--dependency=afterok:\"${array}\" merge.sbatch"));
  EXPECT_TRUE((std::filesystem::status(dir + "/submit.sh").permissions() &
               std::filesystem::perms::owner_exec) != std::filesystem::perms::none);
}

// Paths holding what a shell would run or split -- $(...), backticks, both
// quotes, spaces, a newline -- run nothing when the scripts run, and reach
// sbatch and pto_sim as they were given. sbatch and pto_sim are fakes that
// record their words and working directory.
TEST(SlurmScriptTest, PathsAreNeverShellCode) {
  namespace fs = std::filesystem;
  const std::string hostile = "x$(touch pwned_a)`touch pwned_b`'\"; touch pwned_c; \"\nrun me";
  const std::string base = testing::FreshDir("slurm_hostile");
  const std::string root = base + "/" + hostile;
  fs::create_directories(root + "/bin");
  const std::string record = base + "/record";
  WriteTool(
      root + "/bin/sbatch",
      "#!/bin/sh\n{ pwd; for w in \"$@\"; do printf '%s\\0' \"$w\"; done; } >>\"$FAKE_RECORD\"\n"
      "echo '17;cluster'\n");
  WriteTool(
      root + "/bin/pto_sim",
      "#!/bin/sh\n{ pwd; for w in \"$@\"; do printf '%s\\0' \"$w\"; done; } >\"$FAKE_RECORD\"\n");
  fs::create_directories(root + "/work");
  const SlurmPlan plan{root + "/bin/pto_sim", root + "/work",   {"--trace", hostile + ".pb"}, 2, 1,
                       root + "/out",         root + "/scripts"};
  ASSERT_TRUE(WriteSlurmScripts(plan).ok());

  setenv("FAKE_RECORD", record.c_str(), 1);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (root + "/bin:" + path).c_str(), 1);
  const testing::CliResult submitted = testing::RunCli(root + "/scripts/submit.sh", {});
  setenv("PATH", path.c_str(), 1);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_EQ(submitted.out, "shards: job 17 (2 tasks); merge: job 17 -> " + plan.out_dir + "\n");
  // Both submissions, each from the script directory (the logs' relative paths).
  std::string sbatch_record = testing::ReadFile(record);
  const std::string scripts_line = root + "/scripts\n";
  ASSERT_EQ(sbatch_record.rfind(scripts_line, 0), 0u) << sbatch_record;
  sbatch_record.erase(0, scripts_line.size());
  const size_t second = sbatch_record.find(scripts_line);
  ASSERT_NE(second, std::string::npos) << sbatch_record;
  EXPECT_THAT(Words(sbatch_record.substr(0, second)),
              ElementsAre("--parsable", "--output=logs/shard_%a.log", "array.sbatch"));
  EXPECT_THAT(Words(sbatch_record.substr(second + scripts_line.size())),
              ElementsAre("--parsable", "--output=logs/merge.log", "--dependency=afterok:17",
                          "merge.sbatch"));

  // The array task and the merge run pto_sim with the plan's words.
  setenv("SLURM_ARRAY_TASK_ID", "1", 1);
  ASSERT_EQ(testing::RunCli("/bin/bash", {root + "/scripts/array.sbatch"}).exit_code, 0);
  unsetenv("SLURM_ARRAY_TASK_ID");
  const std::string work_line = root + "/work\n";
  std::string run = testing::ReadFile(record);
  ASSERT_EQ(run.rfind(work_line, 0), 0u) << run;
  EXPECT_THAT(
      Words(run.substr(work_line.size())),
      ElementsAreArray({"sweep", "--trace", (hostile + ".pb").c_str(), "--jobs", "1", "--shard",
                        "1/2", "--out", (root + "/scripts/shards/shard_1").c_str()}));
  ASSERT_EQ(testing::RunCli("/bin/bash", {root + "/scripts/merge.sbatch"}).exit_code, 0);
  run = testing::ReadFile(record);
  ASSERT_EQ(run.rfind(work_line, 0), 0u) << run;
  EXPECT_THAT(Words(run.substr(work_line.size())),
              ElementsAreArray({"sweep-merge", "--out", plan.out_dir.c_str(),
                                (root + "/scripts/shards/shard_0").c_str(),
                                (root + "/scripts/shards/shard_1").c_str()}));
  // No command in the paths ran, wherever it would have run.
  for (const std::string& dir :
       {fs::current_path().string(), root + "/scripts", root + "/work", base}) {
    for (const char* file : {"pwned_a", "pwned_b", "pwned_c"}) {
      EXPECT_FALSE(fs::exists(dir + "/" + file)) << dir << "/" << file;
    }
  }
  unsetenv("FAKE_RECORD");
}

}  // namespace
}  // namespace pto
