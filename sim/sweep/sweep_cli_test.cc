// `pto_sim sweep` and `sweep-merge` end to end: points in parallel child
// processes, byte-identical repeats, failed points as rows, shards that
// merge into the unsharded result.
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

using ::pto::testing::CliResult;
using ::pto::testing::FreshDir;
using ::pto::testing::ReadFile;
using ::pto::testing::ReadJson;
using ::pto::testing::RunCli;
using ::pto::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kConfig = std::string(PTO_SOURCE_DIR) + "/configs/ascend.yaml";
const std::string kPipeline = std::string(PTO_BUILD_DIR) + "/traces/manual_scope_pipeline.pb";
const std::string kRawChain = std::string(PTO_SOURCE_DIR) + "/traces/raw_chain.pbtxt";

CliResult Sweep(const std::string& out, std::vector<std::string> args) {
  args.insert(args.begin(), {"sweep", "--config", kConfig, "--out", out});
  return RunCli(PTO_SIM_BINARY, args);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(SweepCliTest, ThreeByThreeByTwoOnTwoProcessesRepeatsByteIdentically) {
  const std::vector<std::string> grid = {"--trace", kPipeline,
                                         "--vary",  "chip.clusters=8,16,24",
                                         "--vary",  "aicpu.scheduler_threads=1,2,3",
                                         "--vary",  "core.dispatch_slots=1,2",
                                         "--jobs",  "2"};
  const std::string a = FreshDir("sweep_a"), b = FreshDir("sweep_b");
  CliResult first = Sweep(a, grid);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("sweep: 18 points, 0 failed"));
  EXPECT_THAT(first.out, HasSubstr("on 2 processes"));
  EXPECT_THAT(first.err, Not(HasSubstr("points/s")));  // stderr is not a terminal here
  CliResult second = Sweep(b, grid);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(ReadFile(a + "/sweep.csv"), ReadFile(b + "/sweep.csv"));
  EXPECT_EQ(ReadFile(a + "/sweep.json"), ReadFile(b + "/sweep.json"));
  EXPECT_EQ(ReadFile(a + "/sweep.svg"), ReadFile(b + "/sweep.svg"));

  const std::vector<std::string> csv = Lines(ReadFile(a + "/sweep.csv"));
  ASSERT_EQ(csv.size(), 19u);
  EXPECT_THAT(csv[0], HasSubstr("point,trace,chip.clusters,aicpu.scheduler_threads,"
                                "core.dispatch_slots,exit_code,makespan_us,"));
  EXPECT_THAT(csv[0], Not(HasSubstr("seconds")));
  const nlohmann::json json = ReadJson(a + "/sweep.json");
  ASSERT_EQ(json["rows"].size(), 18u);
  // The varied keys reached the runs: one scheduler thread is slower than three.
  for (int clusters = 0; clusters < 3; ++clusters) {
    const nlohmann::json& one = json["rows"][clusters * 6 + 0];
    const nlohmann::json& three = json["rows"][clusters * 6 + 4];
    ASSERT_EQ(one["config"]["aicpu.scheduler_threads"], "1");
    ASSERT_EQ(three["config"]["aicpu.scheduler_threads"], "3");
    EXPECT_GT(one["metrics"]["makespan_us"].get<double>(),
              three["metrics"]["makespan_us"].get<double>());
    EXPECT_EQ(one["metrics"]["checks_failed"], 0);
  }
  const nlohmann::json timing = ReadJson(a + "/timing.json");
  EXPECT_EQ(timing["points"].size(), 18u);
  EXPECT_EQ(timing["jobs"], 2);
  const std::string svg = ReadFile(a + "/sweep.svg");
  EXPECT_THAT(svg, HasSubstr("makespan_us against chip.clusters"));
  EXPECT_THAT(svg, HasSubstr("scheduler_threads=3, dispatch_slots=2"));
  EXPECT_TRUE(std::filesystem::exists(a + "/points/17/out/stats.json"));
}

TEST(SweepCliTest, FailingPointIsARowWithItsExitCodeAndError) {
  const std::string out = FreshDir("sweep_fail");
  CliResult run = Sweep(out, {"--trace", kRawChain, "--vary", "aicpu.scheduler_threads=0,2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("2 points, 1 failed"));
  const nlohmann::json json = ReadJson(out + "/sweep.json");
  EXPECT_EQ(json["rows"][0]["exit_code"], 2);
  EXPECT_THAT(json["rows"][0]["error"].get<std::string>(), HasSubstr("aicpu.scheduler_threads"));
  EXPECT_TRUE(json["rows"][0]["metrics"].empty());
  EXPECT_EQ(json["rows"][1]["exit_code"], 0);
  EXPECT_GT(json["rows"][1]["metrics"]["makespan_us"].get<double>(), 0);
}

TEST(SweepCliTest, BadOptionsAreBadInput) {
  const std::string out = FreshDir("sweep_bad");
  CliResult key = Sweep(out, {"--trace", kRawChain, "--vary", "chip.clusterz=8,16"});
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_THAT(key.err, HasSubstr("did you mean 'chip.clusters'"));
  EXPECT_EQ(Sweep(out, {"--trace", "no_such.pb", "--vary", "chip.clusters=8"}).exit_code, 2);
  EXPECT_EQ(
      Sweep(out, {"--trace", kRawChain, "--vary", "chip.clusters=8", "--shard", "3/3"}).exit_code,
      2);
  CliResult chart =
      Sweep(out, {"--trace", kRawChain, "--vary", "chip.clusters=8", "--chart-metric", "speed"});
  EXPECT_EQ(chart.exit_code, 2);
  EXPECT_THAT(chart.err, HasSubstr("--chart-metric 'speed'"));
}

TEST(SweepCliTest, ShardsMergeIntoTheUnshardedResult) {
  const std::vector<std::string> grid = {"--trace", kRawChain,
                                         "--trace", kPipeline,
                                         "--vary",  "aicpu.scheduler_threads=1,3",
                                         "--vary",  "core.dispatch_slots=1,2",
                                         "--jobs",  "2"};
  const std::string whole = FreshDir("sweep_whole");
  ASSERT_EQ(Sweep(whole, grid).exit_code, 0);
  std::vector<std::string> shards;
  for (int i = 0; i < 3; ++i) {
    shards.push_back(FreshDir("sweep_shard_" + std::to_string(i)));
    std::vector<std::string> args = grid;
    args.insert(args.end(), {"--shard", std::to_string(i) + "/3"});
    CliResult run = Sweep(shards.back(), args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  EXPECT_EQ(ReadJson(shards[0] + "/sweep.json")["rows"].size(), 3u);  // points 0, 3, 6
  const std::string merged = FreshDir("sweep_merged");
  std::vector<std::string> merge = {"sweep-merge", "--out", merged};
  merge.insert(merge.end(), shards.rbegin(), shards.rend());  // order does not matter
  CliResult run = RunCli(PTO_SIM_BINARY, merge);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("8 points from 3 shards"));
  EXPECT_EQ(ReadFile(merged + "/sweep.csv"), ReadFile(whole + "/sweep.csv"));
  EXPECT_EQ(ReadFile(merged + "/sweep.json"), ReadFile(whole + "/sweep.json"));
  EXPECT_EQ(ReadFile(merged + "/sweep.svg"), ReadFile(whole + "/sweep.svg"));
  EXPECT_EQ(ReadJson(merged + "/timing.json")["points"].size(), 8u);
  // The provenance block is in both, so the byte-identity covers it.
  const nlohmann::json provenance = ReadJson(merged + "/sweep.json")["provenance"];
  EXPECT_EQ(provenance["traces"][0]["path"], kRawChain);  // as given
  EXPECT_EQ(provenance["traces"][0]["fnv1a64"].get<std::string>().size(), 16u);

  // A shard of another build or other inputs does not merge.
  nlohmann::json foreign = ReadJson(shards[1] + "/sweep.json");
  foreign["provenance"]["git_revision"] = "0123456789ab";
  WriteFile(shards[1] + "/sweep.json", foreign.dump(2));
  CliResult mixed =
      RunCli(PTO_SIM_BINARY, {"sweep-merge", "--out", merged, shards[0], shards[1], shards[2]});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_THAT(mixed.err, HasSubstr("ran on another pto_sim build or other input files"));

  CliResult missing =
      RunCli(PTO_SIM_BINARY, {"sweep-merge", "--out", merged, shards[0], shards[2]});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("leave out points 1, 4, 7 of 8"));
  CliResult twice = RunCli(PTO_SIM_BINARY, {"sweep-merge", "--out", merged, shards[0], shards[0]});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.err, HasSubstr("point 0 is in both"));
  CliResult other = RunCli(
      PTO_SIM_BINARY, {"sweep-merge", "--out", merged, shards[0], whole, FreshDir("not_a_shard")});
  EXPECT_EQ(other.exit_code, 2);
}

}  // namespace
}  // namespace pto
