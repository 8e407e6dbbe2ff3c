#include "sim/swimlane_writer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::FreshOutputDir;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::MakeTask;
using ::pto::testing::ReadWholeFile;
using ::testing::ElementsAre;

OutputChip TwoClusters() {
  OutputChip chip;
  chip.clusters = 2;  // AIC 0,1; AIV 2..5
  chip.scheduler_threads = 2;
  chip.counter_hz = 50e6;  // 20 ns per cycle
  return chip;
}

// Feeds one AIC task (ring 1) and one predicated-skip task to a writer.
nlohmann::json WriteRun(int level, const std::string& dir) {
  const OutputChip chip = TwoClusters();
  LaunchLog log;
  SwimlaneWriter writer(dir, level, chip, &log);
  EXPECT_TRUE(writer.Open().ok());
  Task qk = MakeTask(/*seq=*/7, /*index=*/0, "qk", TaskShape::kAic, /*ring=*/1, /*local=*/5);
  log.AddTask(qk, {}, 1 * kUs, 2 * kUs);
  writer.OnTaskSubmitted(qk, {}, 1 * kUs, 2 * kUs);
  // 2.01 us = 100.5 cycles -> 100 (rounded down).
  CoreInterval c = IntervalUs(/*core=*/1, /*task=*/7, /*reg=*/3, 2.01, 2.5, 3.0, 5.0, 6.0);
  log.AddInterval(c);
  writer.OnCoreInterval(c);
  SchedulerPhase dispatch;
  dispatch.thread = 1;
  dispatch.kind = SchedulerPhaseKind::kDispatch;
  dispatch.start = 2 * kUs;
  dispatch.end = 2 * kUs + 40000;
  dispatch.loop_iter = 4;
  dispatch.tasks_processed = 1;
  dispatch.pop_hit = 1;
  dispatch.pop_miss = 2;
  dispatch.shared_at_start = {1, 0, 0};
  writer.OnSchedulerPhase(dispatch);
  SchedulerPhase complete = dispatch;
  complete.kind = SchedulerPhaseKind::kComplete;
  writer.OnSchedulerPhase(complete);
  Task skip = MakeTask(8, 1, "gated", TaskShape::kAiv);
  skip.predicated_skip = true;
  writer.OnInlineRetire(0, skip, 7 * kUs);
  EXPECT_TRUE(writer.Finalize().ok());
  return nlohmann::json::parse(ReadWholeFile(dir + "/chip_swimlane_records.json"));
}

TEST(SwimlaneWriterTest, LevelOneHasMetadataAndAicoreRowsOnly) {
  const std::string dir = FreshOutputDir("swimlane_l1");
  const nlohmann::json j = WriteRun(1, dir);
  EXPECT_EQ(j["chip_swimlane_level"], 1);
  EXPECT_EQ(j["metadata"]["clock_freq_hz"], 50000000);
  EXPECT_EQ(j["metadata"]["num_cores"], 6);
  EXPECT_EQ(j["metadata"]["core_types"],
            nlohmann::json({"aic", "aic", "aiv", "aiv", "aiv", "aiv"}));
  EXPECT_FALSE(j["metadata"].contains("core_to_thread"));
  // [core, task token = runtime id (ring 1 in the high word), reg id, start, end, setup]
  const uint64_t token = (uint64_t{1} << 32) | 5;
  EXPECT_EQ(j["aicore_tasks"], nlohmann::json::array({{1, token, 3, 150, 250, 25}}));
  EXPECT_FALSE(j.contains("aicpu_tasks"));
  EXPECT_FALSE(j.contains("aicpu_scheduler_phases"));
  EXPECT_FALSE(j.contains("aicpu_orchestrator_phases"));
}

TEST(SwimlaneWriterTest, LevelTwoAddsDispatchAndFinishCycles) {
  const nlohmann::json j = WriteRun(2, FreshOutputDir("swimlane_l2"));
  // 2.01 us * 50 MHz = 100.5 -> 100; 6 us -> 300.
  EXPECT_EQ(j["aicpu_tasks"], nlohmann::json::array({{1, 3, 100, 300}}));
  EXPECT_FALSE(j.contains("aicpu_scheduler_phases"));
}

TEST(SwimlaneWriterTest, LevelThreeAddsPhasesPerThreadWithMarkers) {
  const nlohmann::json j = WriteRun(3, FreshOutputDir("swimlane_l3"));
  // Cluster ci -> thread ci % 2: AIC0, AIV2, AIV3 on 0; AIC1, AIV4, AIV5 on 1.
  EXPECT_EQ(j["metadata"]["core_to_thread"], nlohmann::json({0, 1, 0, 0, 1, 1}));
  const nlohmann::json& phases = j["aicpu_scheduler_phases"];
  ASSERT_EQ(phases.size(), 2u);
  ASSERT_EQ(phases[0].size(), 1u);
  EXPECT_EQ(phases[0][0]["kind"], "predicated_skip");
  EXPECT_EQ(phases[0][0]["task_id"], 1);
  EXPECT_EQ(phases[0][0]["start_cycles"], 350);
  ASSERT_EQ(phases[1].size(), 2u);
  const nlohmann::json& d = phases[1][0];
  EXPECT_EQ(d["kind"], "dispatch");
  EXPECT_EQ(d["start_cycles"], 100);
  EXPECT_EQ(d["end_cycles"], 102);
  EXPECT_EQ(d["loop_iter"], 4);
  EXPECT_EQ(d["pop_hit"], 1);
  EXPECT_EQ(d["pop_miss"], 2);
  EXPECT_EQ(d["shared_at_start"], nlohmann::json({1, 0, 0}));
  EXPECT_EQ(phases[1][1]["kind"], "complete");
  EXPECT_FALSE(phases[1][1].contains("pop_hit"));  // dispatch only
  EXPECT_FALSE(phases[1][1].contains("task_id"));
  EXPECT_FALSE(j.contains("aicpu_orchestrator_phases"));
}

TEST(SwimlaneWriterTest, LevelFourAddsOrchestratorSubmits) {
  const nlohmann::json j = WriteRun(4, FreshOutputDir("swimlane_l4"));
  const uint64_t token = (uint64_t{1} << 32) | 5;
  EXPECT_EQ(j["aicpu_orchestrator_phases"],
            nlohmann::json::parse(R"([[{"submit_idx":0,"task_id":)" + std::to_string(token) +
                                  R"(,"start_cycles":50,"end_cycles":100}]])"));
}

TEST(SwimlaneWriterTest, OutputIsByteIdenticalAndLeavesNoTemporaries) {
  const std::string a = FreshOutputDir("swimlane_det_a");
  const std::string b = FreshOutputDir("swimlane_det_b");
  WriteRun(4, a);
  WriteRun(4, b);
  EXPECT_EQ(ReadWholeFile(a + "/chip_swimlane_records.json"),
            ReadWholeFile(b + "/chip_swimlane_records.json"));
  EXPECT_THAT(::pto::testing::ListDir(a), ElementsAre("chip_swimlane_records.json"));
}

TEST(SwimlaneWriterTest, IntervalOfAnUnreportedTaskFails) {
  const std::string dir = FreshOutputDir("swimlane_unknown");
  {
    LaunchLog log;
    SwimlaneWriter writer(dir, 2, TwoClusters(), &log);
    ASSERT_TRUE(writer.Open().ok());
    writer.OnCoreInterval(IntervalUs(0, /*task=*/9, 1, 1, 1, 2, 3, 4));
    EXPECT_EQ(writer.Finalize().code(), absl::StatusCode::kInternal);
  }
  EXPECT_TRUE(::pto::testing::ListDir(dir).empty());  // temporaries gone too
}

TEST(PsToCyclesTest, RoundsDownAtTheCounterClock) {
  EXPECT_EQ(PsToCycles(19999, 50e6), 0u);
  EXPECT_EQ(PsToCycles(20000, 50e6), 1u);
  EXPECT_EQ(PsToCycles(1000, 1e9), 1u);
  EXPECT_EQ(PsToCycles(999, 1e9), 0u);
  // 10^6 s of simulated time does not overflow.
  EXPECT_EQ(PsToCycles(TimePs{1000000} * 1000000000000LL, 1e9), 1000000000000000ull);
}

}  // namespace
}  // namespace pto
