// End-to-end tests of the pto_sim command line: each runs the real binary in
// its own process on the bundled traces and configs.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/trace_writer.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
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

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;

std::string Config() { return kSource + "/configs/ascend.yaml"; }
std::string BundledTrace(const std::string& name) { return kSource + "/traces/" + name + ".pbtxt"; }

trace::TraceText LoadTrace(const std::string& name) {
  trace::TraceText text;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadFile(BundledTrace(name)), &text));
  return text;
}

std::string SaveTrace(const trace::TraceText& text, const std::string& name) {
  const std::string path = FreshDir("traces_" + name) + "/" + name + ".pbtxt";
  EXPECT_TRUE(WriteTraceText(path, text).ok());
  return path;
}

using ::pto::testing::SimRun;

SimRun Simulate(const std::string& trace_path, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, Config(), trace_path, extra);
}

// The core intervals of the task with launch index `index`.
std::vector<nlohmann::json> IntervalsOf(const nlohmann::json& stats, int index) {
  uint64_t seq = 0;
  for (const auto& task : stats["task_records"]) {
    if (task["index"] == index) seq = task["seq"];
  }
  std::vector<nlohmann::json> intervals;
  for (const auto& interval : stats["core_intervals"]) {
    if (interval[1] == seq) intervals.push_back(interval);
  }
  return intervals;
}

TEST(PtoSimCliTest, SpmdAddIsOneTaskOneDispatchFourBlocks) {
  const SimRun run = Simulate(BundledTrace("spmd_add"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  EXPECT_EQ(run.stats["tasks"], 1);
  EXPECT_EQ(run.stats["task_dispatches"], 1);
  EXPECT_EQ(run.stats["block_dispatches"], 4);
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
  EXPECT_EQ(run.stats["core_intervals"].size(), 4u);
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 0 failed"));
}

TEST(PtoSimCliTest, PerBlockTasksChainThroughTheTensorMapAndTakeLonger) {
  const SimRun spmd = Simulate(BundledTrace("spmd_add"));
  const SimRun per_block = Simulate(BundledTrace("per_block_add"));
  ASSERT_EQ(per_block.cli.exit_code, 0) << per_block.cli.err;
  EXPECT_EQ(per_block.stats["tasks"], 4);
  EXPECT_EQ(per_block.stats["task_dispatches"], 4);
  int tensormap_edges = 0;
  for (const auto& edge : per_block.stats["edge_records"]) {
    if (edge["source"] == "tensormap") {
      ++tensormap_edges;
      EXPECT_EQ(edge["succ"].get<int>(), edge["pred"].get<int>() + 1) << edge;
    }
  }
  EXPECT_EQ(tensormap_edges, 3);
  // The WAW chain serialises the four blocks; SPMD runs them side by side.
  EXPECT_GT(per_block.stats["makespan_us"].get<double>(),
            2 * spmd.stats["makespan_us"].get<double>());
}

TEST(PtoSimCliTest, RawChainOrdersTheConsumerAfterTheProducer) {
  const SimRun run = Simulate(BundledTrace("raw_chain"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const auto producer = IntervalsOf(run.stats, 0);
  const auto consumer = IntervalsOf(run.stats, 1);
  ASSERT_EQ(producer.size(), 1u);
  ASSERT_EQ(consumer.size(), 1u);
  EXPECT_GE(consumer[0][5].get<double>(), producer[0][6].get<double>());  // start >= end
}

TEST(PtoSimCliTest, CubeSpacesMoveIntoL0AndAccumulateWithInitCond) {
  // out = a @ b = 64 only if the first K step's init_cond overwrote the
  // accumulator (80 otherwise) and every MOVE copied its tile.
  const SimRun run = Simulate(kSource + "/sim/testdata/cube_spaces.pbtxt");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
  EXPECT_EQ(run.stats["checks"]["failed"], 0);
}

TEST(PtoSimCliTest, MemRefSlotsRunAndCheck) {
  // A runtime slot (i % 2) over a two-slot allocation: out = 2 x.
  const SimRun run = Simulate(kSource + "/sim/testdata/memref_slots.pbtxt");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
  EXPECT_EQ(run.stats["checks"]["failed"], 0);
}

TEST(PtoSimCliTest, DeclaredTensorsAndKernelsJoinTheRunningChip) {
  // Three launches on one chip; tensors and kernels declared in between,
  // `a` uploaded again twice (sim/testdata/declare_launches.pbtxt).
  const SimRun run = Simulate(kSource + "/sim/testdata/declare_launches.pbtxt");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.run["checks"]["passed"], 3);
  const nlohmann::json& launches = run.run["per_launch"];
  ASSERT_EQ(launches.size(), 3u);
  // The last launch reads `a` and writes `out` where the first did: the L2
  // kept their lines (an upload leaves the tags), so nothing comes from HBM.
  EXPECT_GT(launches[0]["gm"]["hbm_read_bytes"], 0);
  EXPECT_EQ(launches[2]["gm"]["hbm_read_bytes"], 0);
  EXPECT_EQ(launches[2]["gm"]["l2_read_hit_bytes"], 16 * 64 * 4);
  EXPECT_LT(launches[2]["makespan_us"].get<double>(), launches[0]["makespan_us"].get<double>());
  // Only the last launch sizes its rings; the others keep the config's.
  EXPECT_EQ(launches[0]["rings"][0]["task_window"], 16384);
  EXPECT_EQ(launches[2]["rings"][0]["task_window"], 8);
}

TEST(PtoSimCliTest, ServeReportsEachLaunchAndWritesItsArgumentsAsItEnds) {
  // The declare trace as a binary stream, as a script's calls write it.
  trace::TraceText text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      ReadFile(kSource + "/sim/testdata/declare_launches.pbtxt"), &text));
  const std::string dir = FreshDir("serve");
  const std::string stream = dir + "/stream.pb";
  auto writer = TraceWriter::Create(stream, text.header());
  ASSERT_TRUE(writer.ok());
  for (const auto& record : text.records()) ASSERT_TRUE((*writer)->Write(record).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  const CliResult cli =
      RunCli(kPtoSim, {"--config", Config(), "--trace", stream, "--serve", dir + "/served"});
  ASSERT_EQ(cli.exit_code, 0) << cli.out << cli.err;
  // Each launch's report ends with its served line, before the next begins.
  const size_t served0 = cli.out.find("served launch 0 " + dir + "/served/launch_0\n");
  const size_t launch1 = cli.out.find("launch 1 'add'");
  const size_t served1 = cli.out.find("served launch 1 " + dir + "/served/launch_1\n");
  ASSERT_NE(served0, std::string::npos) << cli.out;
  ASSERT_NE(served1, std::string::npos) << cli.out;
  EXPECT_LT(cli.out.find("launch 0 'scale'"), served0);
  EXPECT_LT(served0, launch1);
  EXPECT_LT(launch1, served1);
  // A check after a launch is reported after its served line.
  EXPECT_LT(served0, cli.out.find("check 'out == 2 a': PASS"));
  // Only the launch's arguments, with their contents after it: out = 2 a + 0.5.
  const nlohmann::json index = ReadJson(dir + "/served/launch_1/tensors.json");
  ASSERT_EQ(index["tensors"].size(), 2u);
  EXPECT_EQ(index["tensors"][0]["name"], "out");
  EXPECT_EQ(index["tensors"][1]["name"], "bias");
  const std::string out = ReadFile(dir + "/served/launch_1/1.bin");
  ASSERT_EQ(out.size(), 16u * 64 * 4);
  float last = 0;
  std::memcpy(&last, out.data() + out.size() - 4, 4);
  EXPECT_FLOAT_EQ(last, 2 * 1023 + 0.5f);
}

TEST(PtoSimCliTest, ReductionsBroadcastsViewsAndCastModesRunAsWritten) {
  // softmax of a constant tile is 1/16; rint(2.5) is 2 after a concat, an
  // assemble, an expand and two views (sim/testdata/shape_ops.pbtxt).
  const std::string path = kSource + "/sim/testdata/shape_ops.pbtxt";
  const SimRun run = Simulate(path);
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 2);
  // The mode is read: the default (ROUND, ties away) gives 3.
  trace::TraceText text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadFile(path), &text));
  trace::Op* cast = text.mutable_header()->mutable_kernels(1)->mutable_program()->mutable_ops(10);
  ASSERT_EQ(cast->kind(), trace::Op::CAST);
  cast->clear_cast_mode();
  const SimRun rounded = Simulate(SaveTrace(text, "shape_ops_round"));
  EXPECT_EQ(rounded.cli.exit_code, 1) << rounded.cli.out << rounded.cli.err;
  EXPECT_EQ(rounded.stats["checks"]["failed"], 1);
}

TEST(PtoSimCliTest, CompareMasksSelectsAndLeakyReluRunAsWritten) {
  // sim/testdata/vector_math.pbtxt: x = -2 is never > 0, so the select takes
  // its scalar 9; lrelu(-2, 0.25) = -0.5.
  const std::string path = kSource + "/sim/testdata/vector_math.pbtxt";
  const SimRun run = Simulate(path);
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 2);
  // The comparison is read: LT is true everywhere, selecting |x| = 2.
  trace::TraceText text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadFile(path), &text));
  trace::Op* cmp = text.mutable_header()->mutable_kernels(0)->mutable_program()->mutable_ops(1);
  ASSERT_EQ(cmp->kind(), trace::Op::CMP);
  cmp->set_compare(trace::Op::CMP_LT);
  const SimRun flipped = Simulate(SaveTrace(text, "vector_math_lt"));
  EXPECT_EQ(flipped.cli.exit_code, 1) << flipped.cli.out << flipped.cli.err;
  EXPECT_EQ(flipped.stats["checks"]["failed"], 1);
}

TEST(PtoSimCliTest, ACreatedAccumulatorIsOverwrittenByItsInitCond) {
  // out = a @ b = 64 only if the first K step overwrote the created tile.
  const std::string path = kSource + "/sim/testdata/tile_create.pbtxt";
  const SimRun run = Simulate(path);
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
  // Without init_cond the first step adds onto the created tile's NaN: the
  // run completes and the check fails (exit 1), as on a device reading an
  // uninitialised L0C.
  trace::TraceText text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadFile(path), &text));
  trace::Op* matmul = text.mutable_header()
                          ->mutable_kernels(0)
                          ->mutable_program()
                          ->mutable_ops(1)
                          ->mutable_loop()
                          ->mutable_body(2);
  ASSERT_EQ(matmul->kind(), trace::Op::MATMUL);
  matmul->clear_init_cond();
  const SimRun poisoned = Simulate(SaveTrace(text, "tile_create_no_init_cond"));
  EXPECT_EQ(poisoned.cli.exit_code, 1) << poisoned.cli.out << poisoned.cli.err;
  EXPECT_EQ(poisoned.stats["checks"]["failed"], 1);
  EXPECT_THAT(poisoned.cli.out, HasSubstr("FAIL"));
}

TEST(PtoSimCliTest, MixTaskTakesOneWholeClusterAndDummiesTakeNoCore) {
  const SimRun run = Simulate(kSource + "/sim/testdata/mix_dummy_alloc.pbtxt");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 2);
  EXPECT_EQ(run.stats["tasks"], 3);
  EXPECT_EQ(run.stats["dummy_tasks"], 1);
  EXPECT_EQ(run.stats["alloc_tasks"], 1);
  // Matmul + bias as one MIX task: one pop, one block, three cores of one
  // cluster (AIC id c, AIVs 24 + 2c and 24 + 2c + 1).
  const auto mix = IntervalsOf(run.stats, 1);
  ASSERT_EQ(mix.size(), 3u);
  const int aic = mix[0][0];
  EXPECT_LT(aic, 24);
  EXPECT_EQ(mix[1][0], 24 + 2 * aic);
  EXPECT_EQ(mix[2][0], 24 + 2 * aic + 1);
  EXPECT_TRUE(IntervalsOf(run.stats, 0).empty());  // the alloc
  EXPECT_TRUE(IntervalsOf(run.stats, 3).empty());  // the dummy
  // The alloc is everyone's creator; the dummy joins records 1 and 2.
  int creator_edges = 0, explicit_into_dummy = 0;
  for (const auto& edge : run.stats["edge_records"]) {
    if (edge["source"] == "creator") {
      EXPECT_EQ(edge["pred"], 0);
      ++creator_edges;
    }
    if (edge["source"] == "explicit" && edge["succ"] == 3) ++explicit_into_dummy;
  }
  EXPECT_EQ(creator_edges, 3);
  EXPECT_EQ(explicit_into_dummy, 2);
  // copy_again waits for the dummy, which waits for copy_out.
  const auto copy_out = IntervalsOf(run.stats, 2);
  const auto copy_again = IntervalsOf(run.stats, 4);
  ASSERT_EQ(copy_again.size(), 1u);
  EXPECT_GT(copy_again[0][5].get<double>(), copy_out[0][6].get<double>());
}

class PredicateGateTest : public ::testing::TestWithParam<int> {};

TEST_P(PredicateGateTest, FalseGateRetiresTheWriterWithoutACore) {
  const int gate = GetParam();
  trace::TraceText text = LoadTrace("predicate_chain");
  for (auto& tensor : *text.mutable_header()->mutable_tensors()) {
    if (tensor.name() == "gate") tensor.mutable_init()->mutable_fill()->set_value(gate);
  }
  const bool runs = gate > 0;
  for (auto& record : *text.mutable_records()) {
    if (record.has_check() && !runs) {
      // out == 2a == 2i without the increment.
      auto* expected = record.mutable_check()->mutable_expected()->mutable_generator();
      expected->set_start(0);
      expected->set_step(2);
    }
  }
  const SimRun run = Simulate(SaveTrace(text, "gate_" + std::to_string(gate + 10)));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
  EXPECT_EQ(run.stats["predicated_skips"], runs ? 0 : 1);
  EXPECT_EQ(IntervalsOf(run.stats, 1).size(), runs ? 1u : 0u);  // the writer
  EXPECT_EQ(IntervalsOf(run.stats, 2).size(), 1u);              // the consumer always runs
  // The graph is the same whatever the gate says.
  EXPECT_EQ(run.stats["tasks"], 3);
  EXPECT_EQ(run.stats["edges"], 2);
}

INSTANTIATE_TEST_SUITE_P(Gates, PredicateGateTest, ::testing::Values(1, 0, -3));

TEST(PtoSimCliTest, FailedCheckExitsOneAndNamesTheElement) {
  trace::TraceText text = LoadTrace("spmd_add");
  for (auto& record : *text.mutable_records()) {
    if (record.has_check()) {
      record.mutable_check()->mutable_expected()->mutable_generator()->set_start(1);
    }
  }
  const SimRun run = Simulate(SaveTrace(text, "wrong_expectation"));
  EXPECT_EQ(run.cli.exit_code, 1);
  EXPECT_THAT(run.cli.out, HasSubstr("FAIL"));
  EXPECT_THAT(run.cli.out, HasSubstr("first at [0, 0]"));
  EXPECT_EQ(run.stats["checks"]["failed"], 1);
}

TEST(PtoSimCliTest, SummaryOnlyWritesNoRecords) {
  const SimRun run = Simulate(BundledTrace("spmd_add"), {"--summary-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  EXPECT_EQ(run.stats["block_dispatches"], 4);
  EXPECT_FALSE(run.stats.contains("task_records"));
  EXPECT_FALSE(run.stats.contains("core_intervals"));
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(run.out_dir)) {
    files.insert(std::filesystem::relative(entry.path(), run.out_dir).string());
  }
  EXPECT_EQ(files, (std::set<std::string>{".pto_sim_out", "stats.json", "launch_0",
                                          "launch_0/stats.json"}));
}

TEST(PtoSimCliTest, EngineStatsCountTheKernelsWorkPerTask) {
  const SimRun plain = Simulate(BundledTrace("spmd_add"));
  EXPECT_THAT(plain.cli.out, ::testing::Not(HasSubstr("engine:")));
  const SimRun run = Simulate(BundledTrace("spmd_add"), {"--engine-stats"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      run.cli.out, m,
      std::regex(R"(engine: (\d+) process activations \(([\d.]+) per task\), (\d+) calendar )"
                 R"(events \(([\d.]+) per task\), (\d+) delta cycles)")))
      << run.cli.out;
  const double activations = std::stod(m[1]);
  const double events = std::stod(m[3]);
  const double tasks = run.stats["tasks"].get<double>();
  // Each of the four blocks wakes its core at least to arrive, start and
  // end; the one SystemC process runs many of those wakes per activation.
  EXPECT_GE(events, 3 * run.stats["block_dispatches"].get<double>());
  EXPECT_NEAR(std::stod(m[4]), events / tasks, 0.01);
  EXPECT_GE(activations, 1);
  EXPECT_LT(activations, events);
  EXPECT_NEAR(std::stod(m[2]), activations / tasks, 0.01);
  EXPECT_GT(std::stod(m[5]), 0);
  // The breakdown by component sums to the total.
  std::smatch line;
  const std::string out = run.cli.out;
  ASSERT_TRUE(std::regex_search(
      out, line, std::regex(R"(engine: calendar events per task by component:(( \w+ [\d.]+)+))")))
      << out;
  double sum = 0;
  const std::string parts = line[1];
  const std::regex part(R"( (\w+) ([\d.]+))");
  for (auto it = std::sregex_iterator(parts.begin(), parts.end(), part);
       it != std::sregex_iterator(); ++it) {
    sum += std::stod((*it)[2]);
  }
  EXPECT_NEAR(sum, events / tasks, 0.05);
}

TEST(PtoSimCliTest, TimingOnlySkipsChecksButKeepsTheTiming) {
  const SimRun full = Simulate(BundledTrace("spmd_add"));
  const SimRun timing = Simulate(BundledTrace("spmd_add"), {"--timing-only"});
  ASSERT_EQ(timing.cli.exit_code, 0) << timing.cli.err;
  EXPECT_EQ(timing.stats["checks"]["passed"], 0);
  EXPECT_DOUBLE_EQ(timing.stats["makespan_us"].get<double>(),
                   full.stats["makespan_us"].get<double>());
}

TEST(PtoSimCliTest, SeveralLaunchesWriteOneDirectoryEachAndASum) {
  trace::TraceText text = LoadTrace("spmd_add");
  const int records = text.records_size();
  for (int i = 0; i < records; ++i) *text.add_records() = text.records(i);
  const SimRun run = Simulate(SaveTrace(text, "two_launches"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  EXPECT_EQ(run.run["launches"], 2);
  EXPECT_EQ(run.run["tasks"], 2);
  EXPECT_EQ(run.run["checks"]["passed"], 2);
  const nlohmann::json first = ReadJson(run.out_dir + "/launch_0/stats.json");
  const nlohmann::json second = ReadJson(run.out_dir + "/launch_1/stats.json");
  EXPECT_EQ(second["block_dispatches"], 4);
  EXPECT_NEAR(run.run["makespan_us"].get<double>(),
              first["makespan_us"].get<double>() + second["makespan_us"].get<double>(), 1e-9);
}

TEST(PtoSimCliTest, SameInputsGiveByteIdenticalStats) {
  // Both runs must succeed: two failed runs write no stats.json, and ""
  // equals "".
  const SimRun a = Simulate(BundledTrace("predicate_chain"));
  ASSERT_EQ(a.cli.exit_code, 0) << a.cli.err;
  const std::string first = ReadFile(a.launch_dir() + "/stats.json");
  ASSERT_THAT(first, HasSubstr("\"task_records\""));
  const SimRun b = Simulate(BundledTrace("predicate_chain"));
  ASSERT_EQ(b.cli.exit_code, 0) << b.cli.err;
  EXPECT_EQ(first, ReadFile(b.launch_dir() + "/stats.json"));
  EXPECT_EQ(ReadFile(a.out_dir + "/stats.json"), ReadFile(b.out_dir + "/stats.json"));
}

TEST(PtoSimCliTest, ARerunIntoItsOutputDirectoryReplacesTheEarlierRun) {
  const SimRun first = Simulate(BundledTrace("predicate_chain"));
  ASSERT_EQ(first.cli.exit_code, 0) << first.cli.err;
  const std::string stats = ReadFile(first.out_dir + "/stats.json");
  // A file the earlier run might have left (a launch the new run lacks).
  std::filesystem::create_directories(first.out_dir + "/launch_2");
  WriteFile(first.out_dir + "/launch_2/stats.json", "{}");
  const CliResult again = RunCli(
      kPtoSim,
      {"--config", Config(), "--trace", BundledTrace("predicate_chain"), "--out", first.out_dir});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(std::filesystem::exists(first.out_dir + "/launch_2"));
  EXPECT_TRUE(std::filesystem::exists(first.out_dir + "/.pto_sim_out"));
  EXPECT_EQ(ReadFile(first.out_dir + "/stats.json"), stats);
}

TEST(PtoSimCliTest, AForeignDirectoryIsNeverEmptied) {
  const std::string dir = FreshDir("foreign_out");
  WriteFile(dir + "/notes.txt", "mine");
  const CliResult run = RunCli(
      kPtoSim, {"--config", Config(), "--trace", BundledTrace("predicate_chain"), "--out", dir});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--out " + dir +
                                 ": the directory is not empty and has no "
                                 ".pto_sim_out marker"));
  EXPECT_EQ(ReadFile(dir + "/notes.txt"), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir + "/stats.json"));
}

TEST(PtoSimCliTest, PrintConfigLinesRoundTripThroughSet) {
  const CliResult printed = RunCli(kPtoSim, {"--config", Config(), "--print-config"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_THAT(printed.out, HasSubstr("chip.clusters: 24\n"));
  EXPECT_THAT(printed.out, HasSubstr("aicpu.scheduler_threads: 3\n"));
  EXPECT_THAT(printed.out, HasSubstr("core.dispatch_slots: 2\n"));
  std::vector<std::string> args = {"--config", Config(), "--print-config"};
  std::istringstream lines(printed.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    ASSERT_NE(colon, std::string::npos) << line;
    args.push_back("--set");
    args.push_back(line.substr(0, colon) + "=" + line.substr(colon + 2));
  }
  const CliResult again = RunCli(kPtoSim, args);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, printed.out);
  const CliResult changed =
      RunCli(kPtoSim, {"--config", Config(), "--set", "chip.clusters=8", "--print-config"});
  EXPECT_THAT(changed.out, HasSubstr("chip.clusters: 8\n"));
}

TEST(PtoSimCliTest, FewerClustersStillRunAndWaveTheBlocks) {
  const SimRun run = Simulate(BundledTrace("spmd_add"), {"--set", "chip.clusters=1"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  // 4 blocks on 2 AIVs: two waves.
  EXPECT_EQ(run.stats["block_dispatches"], 4);
  EXPECT_GT(run.stats["task_dispatches"].get<int>(), 1);
  EXPECT_EQ(run.stats["checks"]["passed"], 1);
}

TEST(PtoSimCliTest, OutDirHoldsTheRuntimeToolsFilesInTheirSchemas) {
  const SimRun run = Simulate(BundledTrace("spmd_add"), {"--swimlane-level", "3"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json swimlane = ReadJson(run.launch_dir() + "/chip_swimlane_records.json");
  EXPECT_EQ(swimlane["chip_swimlane_level"], 3);
  EXPECT_EQ(swimlane["metadata"]["clock_freq_hz"], 50000000);
  EXPECT_EQ(swimlane["metadata"]["num_cores"], 72);
  // One SPMD task on four core lanes: four AICore rows with the same task id.
  ASSERT_EQ(swimlane["aicore_tasks"].size(), 4u);
  std::set<int> lanes;
  for (const auto& row : swimlane["aicore_tasks"]) {
    EXPECT_EQ(row[1], swimlane["aicore_tasks"][0][1]);
    lanes.insert(row[0].get<int>());
  }
  EXPECT_EQ(lanes.size(), 4u);
  EXPECT_EQ(swimlane["aicpu_tasks"].size(), 4u);
  const nlohmann::json deps = ReadJson(run.launch_dir() + "/deps.json");
  ASSERT_EQ(deps["tasks"].size(), 1u);
  EXPECT_EQ(deps["tasks"][0]["block_num"], 4);
  EXPECT_TRUE(deps["tasks"][0]["task_id"].is_string());
  EXPECT_TRUE(std::filesystem::exists(run.launch_dir() + "/perfetto.json"));
  EXPECT_TRUE(std::filesystem::exists(run.launch_dir() + "/swimlane.svg"));
  EXPECT_TRUE(std::filesystem::exists(run.launch_dir() + "/name_map_spmd_add.json"));
  EXPECT_TRUE(run.stats.contains("scheduler_overhead"));
}

TEST(PtoSimCliTest, DepsAndCompareSubcommands) {
  const CliResult deps = RunCli(kPtoSim, {"deps", BundledTrace("per_block_add")});
  ASSERT_EQ(deps.exit_code, 0) << deps.err;
  EXPECT_THAT(deps.out, HasSubstr("t0 -> t1  tensormap"));
  const SimRun spmd = Simulate(BundledTrace("spmd_add"));
  const SimRun per_block = Simulate(BundledTrace("per_block_add"));
  const CliResult compare =
      RunCli(kPtoSim, {"compare", per_block.out_dir + "/stats.json", spmd.out_dir + "/stats.json"});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("makespan"));
  const CliResult missing = RunCli(kPtoSim, {"compare", "/nonexistent.json", "/x.json"});
  EXPECT_EQ(missing.exit_code, 2);
}

// ---------------------------------------------------------------------------
// Bad input: exit 2 with a message that says where and what.

struct BadInput {
  std::string name;
  std::vector<std::string> args;  // after --config
  std::string message;
};

std::string BadTrace(const std::string& name) { return kSource + "/sim/testdata/bad/" + name; }

std::string MutatedSpmdAdd(const std::string& name, void (*mutate)(trace::TraceText*)) {
  trace::TraceText text = LoadTrace("spmd_add");
  mutate(&text);
  return SaveTrace(text, name);
}

std::string CorruptTrace() {
  const std::string path = FreshDir("corrupt") + "/corrupt.pb";
  ::pto::testing::WriteFile(path, std::string("\x0a\xff\xff\xff\x0f not a task stream", 24));
  return path;
}

std::vector<BadInput> BadInputs() {
  return {
      {"missing_trace", {"--trace", "/nonexistent/x.pb"}, "/nonexistent/x.pb"},
      {"truncated_pb", {"--trace", BadTrace("truncated.pb")}, "truncated"},
      {"wrong_version", {"--trace", BadTrace("wrong_version.pb")}, "version"},
      {"unknown_kernel", {"--trace", BadTrace("unknown_kernel.pbtxt")}, "kernel"},
      {"dep_on_later_task", {"--trace", BadTrace("dep_on_later_task.pbtxt")}, "deps"},
      {"view_out_of_bounds", {"--trace", BadTrace("view_out_of_bounds.pbtxt")}, "dim"},
      {"unknown_tensor",
       {"--trace",
        MutatedSpmdAdd("unknown_tensor",
                       [](trace::TraceText* t) {
                         for (auto& r : *t->mutable_records()) {
                           if (r.has_submit()) {
                             r.mutable_submit()->mutable_args(0)->mutable_tensor()->set_tensor_id(
                                 42);
                           }
                         }
                       })},
       "tensor"},
      {"dtype_mismatch_in_op",
       {"--trace", MutatedSpmdAdd("dtype_mismatch",
                                  [](trace::TraceText* t) {
                                    auto* program =
                                        t->mutable_header()->mutable_kernels(0)->mutable_program();
                                    program->mutable_tiles(1)->set_dtype(trace::FP16);
                                  })},
       "FP16"},
      {"corrupt_pb", {"--trace", CorruptTrace()}, "corrupt.pb"},
      {"unknown_config_key",
       {"--trace", BadTrace("truncated.pb"), "--set", "chip.cluster=4"},
       "did you mean 'chip.clusters'"},
      {"negative_core_count",
       {"--trace", BadTrace("truncated.pb"), "--set", "chip.clusters=-1"},
       "chip.clusters"},
      {"zero_dispatch_slots",
       {"--set", "core.dispatch_slots=0", "--print-config"},
       "core.dispatch_slots"},
      {"unknown_option", {"--trace", BadTrace("truncated.pb"), "--frobnicate"}, "frobnicate"},
  };
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsTwoWithAClearMessage) {
  std::vector<std::string> args = {"--config", Config()};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const CliResult result = RunCli(kPtoSim, args);
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_THAT(result.err, HasSubstr(GetParam().message));
  EXPECT_TRUE(result.out.find("checks:") == std::string::npos) << result.out;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputTest, ::testing::ValuesIn(BadInputs()),
                         [](const auto& info) { return info.param.name; });

TEST(PtoSimCliTest, MissingConfigIsBadInput) {
  const CliResult result = RunCli(kPtoSim, {"--trace", BundledTrace("spmd_add")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--config"));
}

TEST(PtoSimCliTest, HelpAndVersionExitZero) {
  const CliResult help = RunCli(kPtoSim, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--print-config"));
  const CliResult version = RunCli(kPtoSim, {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out,
              ::testing::ContainsRegex(
                  "^pto_sim [0-9.]+ \\(git ([0-9a-f]+(-dirty)?|unknown)\\), task stream version "
                  "[0-9]+\n$"));
}

}  // namespace
}  // namespace pto
