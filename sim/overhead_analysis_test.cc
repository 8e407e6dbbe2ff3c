#include "sim/overhead_analysis.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::MakeTask;
using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kEps = 1e-9;

// A hand-built run on one cluster (AIC 0, AIV 1 and 2), one scheduler thread;
// all times in µs:
//   T0 qk  AIC core 0  dispatch 1, start 2,    end 10, finish 11
//   T1 sf  AIV core 1  dispatch 11, start 12,  end 20, finish 21   <- T0
//   T2 join (dummy, never on a core)                               <- T1
//   T3 pv  AIC core 0  dispatch 22, start 23.5, end 30, finish 32  <- T1, T2
//   T4 x   AIV core 2  dispatch 3, start 4.5,  end 6,  finish 7
//   T5 y   AIV core 2  dispatch 5 (before T4 ends), start 6.5, end 8, finish 9
LaunchLog HandBuiltRun() {
  LaunchLog log;
  const TaskSeq b = 100;  // launch base sequence number
  log.AddTask(MakeTask(b + 0, 0, "qk", TaskShape::kAic), {}, 0, 0);
  log.AddTask(MakeTask(b + 1, 1, "sf", TaskShape::kAiv), {Edge(b + 0, EdgeSource::kCreator, 0)}, 0,
              0);
  log.AddTask(MakeTask(b + 2, 2, "join", TaskShape::kDummy), {Edge(b + 1, EdgeSource::kExplicit)},
              0, 0);
  log.AddTask(MakeTask(b + 3, 3, "pv", TaskShape::kAic),
              {Edge(b + 1, EdgeSource::kCreator, 0), Edge(b + 2, EdgeSource::kExplicit)}, 0, 0);
  log.AddTask(MakeTask(b + 4, 4, "x", TaskShape::kAiv), {}, 0, 0);
  log.AddTask(MakeTask(b + 5, 5, "y", TaskShape::kAiv), {}, 0, 0);
  log.AddInterval(IntervalUs(0, b + 0, 1, 1, 1.5, 2, 10, 11));
  log.AddInterval(IntervalUs(2, b + 4, 1, 3, 3.5, 4.5, 6, 7));
  log.AddInterval(IntervalUs(2, b + 5, 2, 5, 5.2, 6.5, 8, 9));
  log.AddInterval(IntervalUs(1, b + 1, 1, 11, 11.5, 12, 20, 21));
  log.AddInterval(IntervalUs(0, b + 3, 2, 22, 22.5, 23.5, 30, 32));
  // Scheduler thread 0: 10 loop iterations by the last phase; work records
  // [1, 1.2], [1.2, 1.5] and [21, 21.5].
  SchedulerPhase p;
  p.thread = 0;
  p.kind = SchedulerPhaseKind::kComplete;
  p.start = 1 * kUs;
  p.end = 1 * kUs + kUs / 5;
  p.loop_iter = 0;
  log.AddPhase(p);
  p.kind = SchedulerPhaseKind::kDispatch;
  p.start = p.end;
  p.end = 1 * kUs + kUs / 2;
  p.pop_hit = 1;
  log.AddPhase(p);
  p.start = 21 * kUs;
  p.end = 21 * kUs + kUs / 2;
  p.loop_iter = 10;
  p.pop_hit = 1;
  p.pop_miss = 2;
  log.AddPhase(p);
  return log;
}

OutputChip OneCluster() {
  OutputChip chip;
  chip.clusters = 1;
  chip.scheduler_threads = 1;
  return chip;
}

TEST(OverheadAnalysisTest, WindowIsFirstStartToLastEnd) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  EXPECT_THAT(a["makespan_us"].get<double>(), DoubleNear(28.0, kEps));  // 30 - 2
  EXPECT_THAT(a["window_us"]["start"].get<double>(), DoubleNear(2.0, kEps));
}

TEST(OverheadAnalysisTest, OverheadIsIdleCoreWhileReadyWorkWaits) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  // T1 is ready at T0's end (10) and dispatched at 11 while both used AIVs
  // idle: 1 us. T3 is ready at T1's end (20; the dummy has no record, so it
  // does not count) and dispatched at 22 while the AIC idles: 2 us. They
  // never coincide, so "all" is 0, and "has" (every engine with ready work
  // idles) is 1 + 2.
  EXPECT_THAT(a["overhead_us"]["aic"].get<double>(), DoubleNear(2.0, kEps));
  EXPECT_THAT(a["overhead_us"]["aiv"].get<double>(), DoubleNear(1.0, kEps));
  EXPECT_THAT(a["overhead_us"]["all"].get<double>(), DoubleNear(0.0, kEps));
  EXPECT_THAT(a["overhead_us"]["has"].get<double>(), DoubleNear(3.0, kEps));
  EXPECT_THAT(a["overhead_share"]["aic"].get<double>(), DoubleNear(2.0 / 28, kEps));
  EXPECT_THAT(a["overhead_share"]["aiv"].get<double>(), DoubleNear(1.0 / 28, kEps));
  EXPECT_THAT(a["overhead_share"]["has"].get<double>(), DoubleNear(3.0 / 28, kEps));
}

TEST(OverheadAnalysisTest, HeadAndTailPerRecord) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  // Head: T0 2-1 = 1; T3 min(23.5-22, 23.5-10) = 1.5; T1 12-11 = 1;
  // T4 4.5-3 = 1.5; T5 min(6.5-5, 6.5-6) = 0.5.
  const nlohmann::json& head = a["head_overhead_us"];
  EXPECT_EQ(head["aic"]["records"], 2);
  EXPECT_THAT(head["aic"]["total"].get<double>(), DoubleNear(2.5, kEps));
  EXPECT_THAT(head["aic"]["max"].get<double>(), DoubleNear(1.5, kEps));
  EXPECT_THAT(head["aiv"]["total"].get<double>(), DoubleNear(3.0, kEps));
  EXPECT_THAT(head["aiv"]["avg"].get<double>(), DoubleNear(1.0, kEps));
  EXPECT_THAT(head["all"]["avg"].get<double>(), DoubleNear(5.5 / 5, kEps));
  // Tail = finish - end: 1, 2 on the AIC; 1, 1, 1 on the AIVs.
  const nlohmann::json& tail = a["tail_overhead_us"];
  EXPECT_THAT(tail["aic"]["avg"].get<double>(), DoubleNear(1.5, kEps));
  EXPECT_THAT(tail["aic"]["max"].get<double>(), DoubleNear(2.0, kEps));
  EXPECT_THAT(tail["all"]["total"].get<double>(), DoubleNear(6.0, kEps));
}

TEST(OverheadAnalysisTest, AicoreSwitchOnlyForPreStagedRecords) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  // Only T5 was dispatched (5) before its core's previous task ended (6):
  // switch = 6.5 - 6. T3 was dispatched after T0 ended: no switch.
  const nlohmann::json& cores = a["aicore_switch"]["per_core"];
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[0]["name"], "AIC_0");
  EXPECT_EQ(cores[0]["switches"], 0);
  EXPECT_EQ(cores[2]["name"], "AIV_2");
  EXPECT_EQ(cores[2]["switches"], 1);
  EXPECT_THAT(cores[2]["total_us"].get<double>(), DoubleNear(0.5, kEps));
  EXPECT_THAT(a["aicore_switch"]["makespan_bound_us"][0].get<double>(), DoubleNear(0, kEps));
}

TEST(OverheadAnalysisTest, SchedulerLoopCostAndPops) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  // Busy 0.2 + 0.3 + 0.5 = 1 us, idle gap 21 - 1.5 = 19.5 us: 20.5 us over
  // 10 loops = 2050 ns per loop.
  const nlohmann::json& loop = a["scheduler_loop"];
  EXPECT_EQ(loop["per_thread"][0]["loops"], 10);
  EXPECT_THAT(loop["per_thread"][0]["busy_us"].get<double>(), DoubleNear(1.0, kEps));
  EXPECT_THAT(loop["per_thread"][0]["idle_us"].get<double>(), DoubleNear(19.5, kEps));
  EXPECT_THAT(loop["per_thread"][0]["ns_per_loop"].get<double>(), DoubleNear(2050, 1e-6));
  EXPECT_THAT(loop["avg_ns_per_loop"].get<double>(), DoubleNear(2050, 1e-6));
  EXPECT_EQ(loop["pop_hit"], 2);
  EXPECT_EQ(loop["pop_miss"], 2);
}

TEST(OverheadAnalysisTest, CriticalPathFollowsTheLatestProducer) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  // Latest finish: T3 (32). Its producers with records: T1 (the dummy has
  // none). T1's producer: T0. Root first: T0, T1, T3; 2 hops.
  const nlohmann::json& cp = a["critical_path"];
  EXPECT_EQ(cp["hops"], 2);
  const nlohmann::json& path = cp["path"];
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0]["name"], "qk");
  EXPECT_EQ(path[1]["name"], "sf");
  EXPECT_EQ(path[2]["name"], "pv");
  EXPECT_EQ(path[2]["task_id"], "3");
  // Compute 8 + 8 + 6.5; injected: root 2 - 1, then 12 - 10, then 23.5 - 20.
  EXPECT_THAT(path[0]["injected_us"].get<double>(), DoubleNear(1.0, kEps));
  EXPECT_THAT(path[1]["injected_us"].get<double>(), DoubleNear(2.0, kEps));
  EXPECT_THAT(path[2]["injected_us"].get<double>(), DoubleNear(3.5, kEps));
  EXPECT_THAT(path[2]["compute_us"].get<double>(), DoubleNear(6.5, kEps));
  EXPECT_THAT(cp["compute_us"].get<double>(), DoubleNear(22.5, kEps));
  EXPECT_THAT(cp["injected_us"].get<double>(), DoubleNear(6.5, kEps));
  // Span = last finish 32 - earliest start on the path 2; the rest (T3's
  // finish after its end) is "other".
  EXPECT_THAT(cp["span_us"].get<double>(), DoubleNear(30.0, kEps));
  EXPECT_THAT(cp["other_us"].get<double>(), DoubleNear(1.0, kEps));
}

// A segment of task `seq` on `core` whose ops ran [start_us, end_us], with
// `busy` µs per pipe.
PipeSegment SegmentUs(int core, TaskSeq seq, double start_us, double end_us,
                      std::vector<std::pair<Pipe, double>> busy) {
  PipeSegment s;
  s.core = core;
  s.task = seq;
  s.start = static_cast<TimePs>(start_us * kUs);
  s.end = static_cast<TimePs>(end_us * kUs);
  for (const auto& [pipe, us] : busy)
    s.busy[static_cast<int>(pipe)] = static_cast<TimePs>(us * kUs);
  return s;
}

TEST(OverheadAnalysisTest, TheCriticalPathIsBoundByThePipeBusiestOverItsTasks) {
  // The path qk -> sf -> pv: qk's ops over 8 us (cube 5, mte2 3), sf's over
  // 8 (mte2 6, vector 2), pv's over 4 (mte2 3, cube 2). MTE2 12 of 20 us:
  // 60 %. x, off the path, runs vector work only.
  LaunchLog log = HandBuiltRun();
  log.AddPipeOps(SegmentUs(0, 100, 2, 10, {{Pipe::kCube, 5}, {Pipe::kMte2, 3}}));
  log.AddPipeOps(SegmentUs(1, 101, 12, 20, {{Pipe::kMte2, 6}, {Pipe::kVector, 2}}));
  log.AddPipeOps(SegmentUs(0, 103, 24, 26, {{Pipe::kMte2, 2}, {Pipe::kCube, 1}}));
  log.AddPipeOps(SegmentUs(0, 103, 26, 28, {{Pipe::kMte2, 1}, {Pipe::kCube, 1}}));
  log.AddPipeOps(SegmentUs(2, 104, 4.5, 6, {{Pipe::kVector, 1.5}}));
  const nlohmann::json a = AnalyzeOverhead(log, OneCluster());
  const nlohmann::json& cp = a["critical_path"];
  EXPECT_EQ(cp["bound_pipe"], "mte2");
  EXPECT_THAT(cp["bound_pipe_share"].get<double>(), DoubleNear(0.6, kEps));
  ASSERT_EQ(cp["path"].size(), 3u);
  EXPECT_EQ(cp["path"][0]["bound_pipe"], "cube");
  EXPECT_EQ(cp["path"][1]["bound_pipe"], "mte2");
  EXPECT_EQ(cp["path"][2]["bound_pipe"], "mte2");  // 3 against cube's 2, over two segments
  EXPECT_THAT(DescribeOverhead(a), HasSubstr("critical path bound by mte2 (60 %)\n"));
}

TEST(OverheadAnalysisTest, APathOffThePipesNamesNoBoundPipe) {
  const nlohmann::json a = AnalyzeOverhead(HandBuiltRun(), OneCluster());
  EXPECT_TRUE(a["critical_path"]["bound_pipe"].is_null());
  EXPECT_EQ(a["critical_path"]["bound_pipe_share"], 0.0);
  EXPECT_TRUE(a["critical_path"]["path"][0]["bound_pipe"].is_null());
  EXPECT_THAT(DescribeOverhead(a), Not(HasSubstr("bound by")));
}

TEST(OverheadAnalysisTest, ProducersWithoutRecordsAreAbsentLikeInTheTool) {
  // C waits for A directly and for B only through a dummy: C is ready at A's
  // end, and the path stops at A.
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "a", TaskShape::kAic), {}, 0, 0);
  log.AddTask(MakeTask(1, 1, "b", TaskShape::kAic), {}, 0, 0);
  log.AddTask(MakeTask(2, 2, "join", TaskShape::kDummy), {Edge(1, EdgeSource::kExplicit)}, 0, 0);
  log.AddTask(MakeTask(3, 3, "c", TaskShape::kAic),
              {Edge(0, EdgeSource::kCreator, 0), Edge(2, EdgeSource::kExplicit)}, 0, 0);
  OutputChip chip;
  chip.clusters = 2;
  log.AddInterval(IntervalUs(0, 0, 1, 0, 0, 1, 2, 3));
  log.AddInterval(IntervalUs(1, 1, 1, 0, 0, 1, 5, 6));
  log.AddInterval(IntervalUs(0, 3, 2, 7, 7, 8, 9, 10));
  const nlohmann::json a = AnalyzeOverhead(log, chip);
  // Window [1, 9]. C ready at 2, dispatched at 7; AIC 0 idles from 2:
  // overhead [2, 7) = 5 us of 8.
  EXPECT_THAT(a["overhead_us"]["aic"].get<double>(), DoubleNear(5.0, kEps));
  EXPECT_THAT(a["overhead_share"]["aic"].get<double>(), DoubleNear(5.0 / 8, kEps));
  EXPECT_EQ(a["critical_path"]["hops"], 1);
  EXPECT_EQ(a["critical_path"]["path"][0]["name"], "a");
}

TEST(OverheadAnalysisTest, APathThatStopsAtADummySaysWhereAndWhy) {
  // B waits for A only through a dummy: the walk over core records ends at
  // B, and the analysis names the dummy it stopped at.
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "a", TaskShape::kAic), {}, 0, 0);
  log.AddTask(MakeTask(1, 1, "join", TaskShape::kDummy), {Edge(0, EdgeSource::kExplicit)}, 0, 0);
  log.AddTask(MakeTask(2, 2, "b", TaskShape::kAic), {Edge(1, EdgeSource::kExplicit)}, 0, 0);
  OutputChip chip;
  chip.clusters = 1;
  log.AddInterval(IntervalUs(0, 0, 1, 0, 0, 1, 2, 3));
  log.AddInterval(IntervalUs(0, 2, 2, 4, 4, 5, 9, 10));
  const nlohmann::json a = AnalyzeOverhead(log, chip);
  const nlohmann::json& stop = a["critical_path"]["stopped_at"];
  EXPECT_EQ(a["critical_path"]["hops"], 0);
  EXPECT_EQ(stop["name"], "b");
  EXPECT_EQ(stop["waits_on_name"], "join");
  EXPECT_EQ(stop["waits_on_shape"], "DUMMY");
  EXPECT_THAT(DescribeOverhead(a), HasSubstr("critical path starts at 'b' (task 2): it waited for "
                                             "dummy task 'join' (task 1), which ran on no core"));
  // A path that reaches a task without producers did not stop early.
  EXPECT_TRUE(AnalyzeOverhead(HandBuiltRun(), chip)["critical_path"]["stopped_at"].is_null());
}

TEST(OverheadAnalysisTest, FoldsSpmdBlocksIntoOneTask) {
  LaunchLog log;
  Task t = MakeTask(0, 0, "spmd", TaskShape::kAiv);
  t.block_num = 2;
  log.AddTask(t, {}, 0, 0);
  log.AddInterval(IntervalUs(1, 0, 1, 1, 1, 2, 5, 6, /*block=*/0));
  log.AddInterval(IntervalUs(2, 0, 1, 1.5, 1.5, 3, 7, 8, /*block=*/1));
  const nlohmann::json a = AnalyzeOverhead(log, OneCluster());
  const nlohmann::json& hops = a["critical_path"]["path"];
  ASSERT_EQ(hops.size(), 1u);
  EXPECT_THAT(hops[0]["compute_us"].get<double>(), DoubleNear(5.0, kEps));   // 7 - 2
  EXPECT_THAT(hops[0]["injected_us"].get<double>(), DoubleNear(1.0, kEps));  // 2 - 1
}

TEST(OverheadAnalysisTest, EmptyRunIsAllZeros) {
  const nlohmann::json a = AnalyzeOverhead(LaunchLog(), OneCluster());
  EXPECT_EQ(a["makespan_us"], 0.0);
  EXPECT_EQ(a["overhead_share"]["aic"], 0.0);
  EXPECT_TRUE(a["critical_path"]["path"].empty());
  EXPECT_EQ(a["critical_path"]["hops"], 0);
}

TEST(OverheadAnalysisTest, DescriptionHasTheLinesCiLooksFor) {
  const std::string text = DescribeOverhead(AnalyzeOverhead(HandBuiltRun(), OneCluster()));
  EXPECT_THAT(text, HasSubstr("Avg scheduler loop iteration: 2050 ns"));
  EXPECT_THAT(text, HasSubstr("Pop: hit=2, miss=2"));
  EXPECT_THAT(text, HasSubstr("critical path: 2 hops, span 30.000 us, compute 22.500 us, "
                              "scheduler-injected 6.500 us"));
  EXPECT_THAT(text, HasSubstr("AIC 7.1%"));
}

}  // namespace
}  // namespace pto
