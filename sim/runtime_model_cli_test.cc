// The AICPU runtime model's behaviours (issue #5), asserted as properties of
// whole runs: each test runs pto_sim in its own process.

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::testing::LoadTraceFile;
using ::pto::testing::SaveTraceFile;
using ::pto::testing::SimRun;
using ::pto::testing::TraceBuilder;
using ::testing::HasSubstr;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

std::string Config() { return kSource + "/configs/ascend.yaml"; }

SimRun Simulate(const std::string& trace, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, Config(), trace, extra);
}

SimRun Simulate(const trace::TraceText& text, const std::string& name,
                std::vector<std::string> extra = {}) {
  return Simulate(SaveTraceFile(text, name), extra);
}

std::string Compiled(const std::string& name) { return kBuild + "/traces/" + name + ".pb"; }

// Task records of one launch, by launch index.
std::vector<nlohmann::json> Tasks(const nlohmann::json& stats) {
  std::vector<nlohmann::json> tasks(stats["task_records"].size());
  for (const auto& t : stats["task_records"]) tasks[t["index"].get<int>()] = t;
  return tasks;
}

// Core intervals of one task (by sequence number).
std::vector<nlohmann::json> IntervalsOf(const nlohmann::json& stats, const nlohmann::json& task) {
  std::vector<nlohmann::json> out;
  for (const auto& interval : stats["core_intervals"]) {
    if (interval[1] == task["seq"]) out.push_back(interval);
  }
  return out;
}

constexpr uint64_t kMicrosecond = 1850;  // AICore cycles at the default 1.85 GHz

// ---------------------------------------------------------------------------
// allow_early_resolve

TEST(EarlyResolveTest, FlaggedProducerLetsTheConsumerPreStageAndShrinksTheGap) {
  trace::TraceText flagged = LoadTraceFile(Compiled("early_resolve"));
  trace::TraceText plain = flagged;
  for (auto& r : *plain.mutable_records()) {
    if (r.has_submit()) r.mutable_submit()->set_allow_early_resolve(false);
  }
  const SimRun with = Simulate(flagged, "er_with");
  const SimRun without = Simulate(plain, "er_without");
  ASSERT_EQ(with.cli.exit_code, 0) << with.cli.out << with.cli.err;
  ASSERT_EQ(without.cli.exit_code, 0) << without.cli.err;
  // Same graph.
  EXPECT_EQ(with.stats["tasks"], without.stats["tasks"]);
  EXPECT_EQ(with.stats["edge_records"], without.stats["edge_records"]);
  const auto w = Tasks(with.stats);
  const auto wo = Tasks(without.stats);
  // Staged: dispatched before its producer finished.
  EXPECT_GT(with.stats["early_dispatched_blocks"].get<int>(), 0);
  EXPECT_EQ(without.stats["early_dispatched_blocks"], 0);
  EXPECT_LT(w[1]["dispatch_us"].get<double>(), w[0]["end_us"].get<double>());
  EXPECT_GE(wo[1]["dispatch_us"].get<double>(), wo[0]["end_us"].get<double>());
  const double gap_with = w[1]["start_us"].get<double>() - w[0]["end_us"].get<double>();
  const double gap_without = wo[1]["start_us"].get<double>() - wo[0]["end_us"].get<double>();
  EXPECT_LT(gap_with, gap_without);
  EXPECT_LT(with.stats["makespan_us"].get<double>(), without.stats["makespan_us"].get<double>());
  EXPECT_EQ(with.stats["checks"]["passed"], 1);
}

trace::TraceText ThreeProducers(int flagged) {
  TraceBuilder b("three_producers");
  const uint32_t k = b.CostKernel("work", trace::AIV, 5 * kMicrosecond);
  const uint32_t x0 = b.Tensor("x0", 16, 16), x1 = b.Tensor("x1", 16, 16),
                 x2 = b.Tensor("x2", 16, 16), y = b.Tensor("y", 16, 16);
  using U = TraceBuilder::TensorUse;
  const uint32_t xs[3] = {x0, x1, x2};
  for (int p = 0; p < 3; ++p) {
    b.Submit("producer" + std::to_string(p), k, {U{xs[p], trace::OUTPUT_EXISTING}}, {}, 1,
             /*early=*/p < flagged);
  }
  b.Submit("consumer", k,
           {U{x0, trace::INPUT}, U{x1, trace::INPUT}, U{x2, trace::INPUT},
            U{y, trace::OUTPUT_EXISTING}});
  return b.Finish();
}

TEST(EarlyResolveTest, OneUnflaggedProducerOfThreeRulesOutStaging) {
  const SimRun one = Simulate(ThreeProducers(1), "one_flagged");
  const SimRun all = Simulate(ThreeProducers(3), "all_flagged");
  ASSERT_EQ(one.cli.exit_code, 0) << one.cli.err;
  ASSERT_EQ(all.cli.exit_code, 0) << all.cli.err;
  EXPECT_EQ(one.stats["early_dispatched_blocks"], 0);
  EXPECT_EQ(all.stats["early_dispatched_blocks"], 1);
  const auto t = Tasks(one.stats);
  double last_end = 0;
  for (int p = 0; p < 3; ++p) last_end = std::max(last_end, t[p]["end_us"].get<double>());
  EXPECT_GE(t[3]["dispatch_us"].get<double>(), last_end);
  const auto a = Tasks(all.stats);
  EXPECT_LT(a[3]["dispatch_us"].get<double>(), a[0]["end_us"].get<double>());
}

// The consumer is staged into the pending slot of the only AIC core, behind
// a long task; its producer finishes (the doorbell rings) while that task
// still runs. The doorbell belongs to the staged block, so the block starts
// as soon as it is taken up, instead of waiting for a doorbell that already
// rang (a simulated deadlock before).
TEST(EarlyResolveTest, DoorbellForAPendingSlotIsKeptUntilTheBlockIsTakenUp) {
  TraceBuilder b("pending_doorbell");
  const uint32_t long_aic = b.CostKernel("long", trace::AIC, 20 * kMicrosecond);
  const uint32_t short_aiv = b.CostKernel("short", trace::AIV, 2 * kMicrosecond);
  const uint32_t aic = b.CostKernel("consume", trace::AIC, 2 * kMicrosecond);
  b.Submit("long", long_aic);
  const uint32_t producer = b.Submit("producer", short_aiv, {}, {}, 1, /*early=*/true);
  b.Submit("consumer", aic, {}, {producer});
  const SimRun run = Simulate(b.Finish(), "pending_doorbell", {"--set", "chip.clusters=1"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["early_dispatched_blocks"], 1);
  const auto t = Tasks(run.stats);
  // Staged before the producer ended; ran right after the long task.
  EXPECT_LT(t[2]["dispatch_us"].get<double>(), t[1]["end_us"].get<double>());
  EXPECT_GE(t[2]["start_us"].get<double>(), t[0]["end_us"].get<double>());
  EXPECT_LT(t[2]["start_us"].get<double>() - t[0]["end_us"].get<double>(), 2.0);
}

// ---------------------------------------------------------------------------
// Rings

trace::TraceText HundredTasks(bool scope_per_task) {
  TraceBuilder b("hundred");
  const uint32_t k = b.CostKernel("tick", trace::AIV, kMicrosecond);
  for (int i = 0; i < 100; ++i) {
    if (scope_per_task) b.BeginScope();
    b.Submit("tick", k);
    if (scope_per_task) b.EndScope();
  }
  return b.Finish();
}

TEST(RingTest, ScopePerIterationFitsASmallWindow) {
  const SimRun run = Simulate(HundredTasks(true), "scoped", {"--set", "ring.task_window=4"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["tasks"], 100);
  EXPECT_LE(run.stats["rings"][2]["peak_task_window"].get<int>(), 3);
  EXPECT_GT(run.stats["rings"][2]["orchestrator_blocked_us"].get<double>(), 0);
}

TEST(RingTest, OneScopeOfAHundredTasksIsAScopeDeadlock) {
  const SimRun run = Simulate(HundredTasks(false), "one_scope", {"--set", "ring.task_window=4"});
  EXPECT_EQ(run.cli.exit_code, 3) << run.cli.out;
  EXPECT_THAT(run.cli.err, HasSubstr("ring 1 full (SCOPE_DEADLOCK)"));
  EXPECT_THAT(run.cli.err, HasSubstr("ring.task_window"));
}

TEST(RingTest, RunConfigRingSizesInTheTraceApplyUnlessSetOverrides) {
  trace::TraceText text = HundredTasks(false);
  text.mutable_header()->mutable_ring_sizes()->add_task_window(4);
  const SimRun from_trace = Simulate(text, "trace_rings");
  EXPECT_EQ(from_trace.cli.exit_code, 3);
  EXPECT_THAT(from_trace.cli.err, HasSubstr("SCOPE_DEADLOCK"));
  const SimRun overridden = Simulate(text, "set_rings", {"--set", "ring.task_window=1024"});
  ASSERT_EQ(overridden.cli.exit_code, 0) << overridden.cli.err;
  EXPECT_EQ(overridden.stats["rings"][1]["task_window"], 1024);
}

// ---------------------------------------------------------------------------
// Scheduler threads

trace::TraceText GateAndNinetySix() {
  TraceBuilder b("fan_out");
  const uint32_t gate = b.CostKernel("gate", trace::AIV, kMicrosecond);
  const uint32_t work = b.CostKernel("work", trace::AIV, 20 * kMicrosecond);
  const uint32_t g = b.Tensor("g", 16, 16);
  using U = TraceBuilder::TensorUse;
  b.Submit("gate", gate, {U{g, trace::OUTPUT_EXISTING}});
  for (int i = 0; i < 96; ++i) b.Submit("work", work, {U{g, trace::INPUT}});
  return b.Finish();
}

TEST(SchedulerThreadsTest, MoreThreadsPollFewerCoresEachAndFinishSooner) {
  const trace::TraceText text = GateAndNinetySix();
  const SimRun three = Simulate(text, "three", {"--set", "aicpu.scheduler_threads=3"});
  const SimRun one = Simulate(text, "one", {"--set", "aicpu.scheduler_threads=1"});
  ASSERT_EQ(three.cli.exit_code, 0) << three.cli.err;
  ASSERT_EQ(one.cli.exit_code, 0) << one.cli.err;
  EXPECT_LT(three.stats["makespan_us"].get<double>(), one.stats["makespan_us"].get<double>());
  EXPECT_LT(three.stats["schedulers"]["ns_per_loop"].get<double>(),
            one.stats["schedulers"]["ns_per_loop"].get<double>());
  EXPECT_EQ(three.stats["schedulers"]["per_thread"].size(), 3u);
}

// ---------------------------------------------------------------------------
// Dual dispatch slots

trace::TraceText FourOnOneCluster() {
  TraceBuilder b("pending");
  const uint32_t k = b.CostKernel("work", trace::AIV, 10 * kMicrosecond);
  for (int i = 0; i < 4; ++i) b.Submit("work", k);
  return b.Finish();
}

bool AnyPendingDispatch(const nlohmann::json& stats) {
  // A dispatch to a core before that core's previous kernel ended.
  for (const auto& a : stats["core_intervals"]) {
    for (const auto& b : stats["core_intervals"]) {
      if (a[0] == b[0] && a[5].get<double>() < b[5].get<double>() &&
          b[3].get<double>() < a[6].get<double>()) {
        return true;
      }
    }
  }
  return false;
}

TEST(DispatchSlotsTest, PendingSlotLatchesTheNextTaskAndPicksItUpAtFin) {
  const trace::TraceText text = FourOnOneCluster();
  const SimRun two = Simulate(text, "two_slots", {"--set", "chip.clusters=1"});
  const SimRun one =
      Simulate(text, "one_slot", {"--set", "chip.clusters=1", "--set", "core.dispatch_slots=1"});
  ASSERT_EQ(two.cli.exit_code, 0) << two.cli.err;
  ASSERT_EQ(one.cli.exit_code, 0) << one.cli.err;
  EXPECT_TRUE(AnyPendingDispatch(two.stats));
  EXPECT_FALSE(AnyPendingDispatch(one.stats));
  // The latched task starts right after FIN, without the AICPU round trip.
  EXPECT_LT(two.stats["makespan_us"].get<double>(), one.stats["makespan_us"].get<double>());
}

// ---------------------------------------------------------------------------
// sync_start cohorts

trace::TraceText CohortWhileBusy(int64_t blocks) {
  TraceBuilder b("cohort");
  const uint32_t busy = b.CostKernel("busy", trace::AIV, 10 * kMicrosecond);
  const uint32_t gate = b.CostKernel("gate", trace::AIC, kMicrosecond);
  const uint32_t cohort = b.CostKernel("cohort", trace::AIV, 5 * kMicrosecond);
  const uint32_t g = b.Tensor("g", 16, 16);
  using U = TraceBuilder::TensorUse;
  for (int i = 0; i < 40; ++i) b.Submit("busy", busy);
  b.Submit("gate", gate, {U{g, trace::OUTPUT_EXISTING}});
  b.Submit("cohort", cohort, {U{g, trace::INPUT}}, {}, blocks, false, /*sync_start=*/true);
  return b.Finish();
}

TEST(SyncStartTest, FullWidthCohortTakesTheDrainAndStartsTogether) {
  const SimRun run = Simulate(CohortWhileBusy(48), "cohort48");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(run.stats["sync_drains"], 1);
  const auto tasks = Tasks(run.stats);
  const auto blocks = IntervalsOf(run.stats, tasks.back());
  ASSERT_EQ(blocks.size(), 48u);
  double first = 1e300, last = 0;
  for (const auto& b : blocks) {
    first = std::min(first, b[5].get<double>());
    last = std::max(last, b[5].get<double>());
  }
  EXPECT_LE(last - first, 0.1);
  // Nothing of the cohort started before the busy work it waited for drained.
  EXPECT_GE(first, tasks[40]["end_us"].get<double>());
}

TEST(SyncStartTest, CohortWiderThanTheChipIsFatalAtSubmit) {
  const SimRun run = Simulate(CohortWhileBusy(48), "too_wide", {"--set", "chip.clusters=12"});
  EXPECT_EQ(run.cli.exit_code, 3);
  EXPECT_THAT(run.cli.err, HasSubstr("REQUIRE_SYNC_START_INVALID"));
}

// ---------------------------------------------------------------------------
// The techniques on the compiled seed kernels

TEST(TechniquesTest, MixedKernelIsOneDispatchInsteadOfTwoAndFaster) {
  const SimRun run = Simulate(Compiled("mixed_kernel"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json two_tasks =
      nlohmann::json::parse(::pto::testing::ReadFile(run.out_dir + "/launch_0/stats.json"));
  const nlohmann::json mixed =
      nlohmann::json::parse(::pto::testing::ReadFile(run.out_dir + "/launch_1/stats.json"));
  EXPECT_EQ(two_tasks["task_dispatches"], 2);
  EXPECT_EQ(mixed["task_dispatches"], 1);
  EXPECT_LT(mixed["makespan_us"].get<double>(), two_tasks["makespan_us"].get<double>());
}

TEST(TechniquesTest, SlicingCostsMoreOrchestratorTimeThanANarrowClaim) {
  const SimRun sliced = Simulate(Compiled("sliced"));
  const SimRun narrow = Simulate(Compiled("narrow_claim"));
  ASSERT_EQ(sliced.cli.exit_code, 0) << sliced.cli.err;
  ASSERT_EQ(narrow.cli.exit_code, 0) << narrow.cli.err;
  for (const SimRun* run : {&sliced, &narrow}) {
    for (const auto& edge : run->stats["edge_records"]) EXPECT_NE(edge["source"], "tensormap");
  }
  EXPECT_GT(sliced.stats["orchestrator"]["submit_us_per_task"].get<double>(),
            narrow.stats["orchestrator"]["submit_us_per_task"].get<double>());
}

TEST(TechniquesTest, FalseGateGoesThroughTheDummyPath) {
  const SimRun run = Simulate(Compiled("gated"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json skipped =
      nlohmann::json::parse(::pto::testing::ReadFile(run.out_dir + "/launch_0/stats.json"));
  const nlohmann::json ran =
      nlohmann::json::parse(::pto::testing::ReadFile(run.out_dir + "/launch_1/stats.json"));
  EXPECT_EQ(skipped["predicated_skips"], 1);
  EXPECT_EQ(skipped["schedulers"]["inline_retires"], 1);
  EXPECT_EQ(ran["schedulers"]["inline_retires"], 0);
  EXPECT_EQ(skipped["tasks"], ran["tasks"]);
  EXPECT_EQ(skipped["edges"], ran["edges"]);
  EXPECT_EQ(IntervalsOf(skipped, Tasks(skipped)[1]).size(), 0u);
}

TEST(PlatformTest, A5RunsWithItsOwnGeometry) {
  const SimRun run =
      ::pto::testing::Simulate(kPtoSim, kSource + "/configs/a5.yaml", Compiled("spmd_blocks"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("36 clusters, 4 scheduler threads"));
  const nlohmann::json swimlane = nlohmann::json::parse(
      ::pto::testing::ReadFile(run.out_dir + "/launch_1/chip_swimlane_records.json"));
  EXPECT_EQ(swimlane["metadata"]["clock_freq_hz"], 1000000000);
  EXPECT_EQ(swimlane["metadata"]["num_cores"], 108);
  EXPECT_EQ(run.run["per_launch"][1]["schedulers"]["per_thread"].size(), 4u);
}

}  // namespace
}  // namespace pto
