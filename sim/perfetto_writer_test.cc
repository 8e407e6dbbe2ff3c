#include "sim/perfetto_writer.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/testing/output_fixtures.h"
#include "sim/testing/perfetto_tracks.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::FreshOutputDir;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::MakeTask;
using ::pto::testing::ReadWholeFile;
using ::pto::testing::TrackNestingProblems;
using ::testing::IsEmpty;

// AIC 0, AIVs 1 and 2; one scheduler thread.
OutputChip OneCluster() {
  OutputChip chip;
  chip.clusters = 1;
  chip.scheduler_threads = 1;
  return chip;
}

// Producer p (AIC, ring 1) on core 0, SPMD consumer c (2 blocks on AIVs 1
// and 2), a predicated skip on thread 0 and one dispatch phase on thread 0.
nlohmann::json WriteTrace(const std::string& dir) {
  LaunchLog log;
  PerfettoWriter writer(dir, OneCluster(), &log);
  EXPECT_TRUE(writer.Open().ok());
  auto submit = [&](const Task& t, std::vector<DepEdge> edges, TimePs at) {
    log.AddTask(t, edges, at, at + kUs / 10);
    writer.OnTaskSubmitted(t, edges, at, at + kUs / 10);
  };
  auto interval = [&](const CoreInterval& c) {
    log.AddInterval(c);
    writer.OnCoreInterval(c);
  };
  submit(MakeTask(0, 0, "qk", TaskShape::kAic, /*ring=*/1, /*local=*/3), {}, 0);
  Task c = MakeTask(1, 1, "sf", TaskShape::kAiv);
  c.block_num = 2;
  submit(c, {Edge(0, EdgeSource::kCreator, 0)}, kUs);
  interval(IntervalUs(0, 0, 1, 1, 1.25, 1.5, 4, 4.5));
  interval(IntervalUs(1, 1, 1, 5, 5.5, 6, 8, 9, /*block=*/0));
  interval(IntervalUs(2, 1, 1, 5, 5.25, 6, 7, 9, /*block=*/1));
  SchedulerPhase p;
  p.kind = SchedulerPhaseKind::kDispatch;
  p.start = 5 * kUs;
  p.end = 5 * kUs + kUs / 10;
  p.pop_hit = 1;
  p.shared_at_start = {0, 1, 0};
  writer.OnSchedulerPhase(p);
  Task skip = MakeTask(2, 2, "gated", TaskShape::kAiv);
  skip.predicated_skip = true;
  writer.OnInlineRetire(0, skip, 9 * kUs);
  EXPECT_TRUE(writer.Finalize().ok());
  return nlohmann::json::parse(ReadWholeFile(dir + "/perfetto.json"));
}

std::vector<nlohmann::json> Events(const nlohmann::json& trace, const std::string& ph, int pid) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == ph && e["pid"] == pid) out.push_back(e);
  }
  return out;
}

TEST(PerfettoWriterTest, ProcessesAndThreadsAreNamedLikeTheConverter) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_names"));
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "AICPU Orchestrator"},
                                                   {2, "AICPU Scheduler"},
                                                   {3, "Scheduler View"},
                                                   {4, "Worker View"}}));
  EXPECT_EQ(threads[std::make_pair(1, 4000)], "Orch_0");
  EXPECT_EQ(threads[std::make_pair(2, 30000)], "Sched_0");
  EXPECT_EQ(threads[std::make_pair(2, 3999)], "shared_ready_queue (global)");
  EXPECT_EQ(threads[std::make_pair(3, 10000)], "AIC_0");
  EXPECT_EQ(threads[std::make_pair(4, 10010)], "AIV_1");
  EXPECT_EQ(threads[std::make_pair(4, 10020)], "AIV_2");
  EXPECT_EQ(threads[std::make_pair(4, 19000)], "AICPU_0");
}

TEST(PerfettoWriterTest, WorkerBarsSpanReceiveToEndInMicroseconds) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_worker"));
  std::vector<nlohmann::json> bars;
  for (const nlohmann::json& e : Events(t, "X", 4)) {
    if (e["tid"] != 19000) bars.push_back(e);
  }
  ASSERT_EQ(bars.size(), 3u);  // one per core record
  EXPECT_EQ(bars[0]["name"], "qk(r1t3)");
  EXPECT_EQ(bars[0]["tid"], 10000);
  EXPECT_DOUBLE_EQ(bars[0]["ts"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(bars[0]["dur"].get<double>(), 2.75);
  EXPECT_EQ(bars[0]["args"]["taskId"], std::to_string((uint64_t{1} << 32) | 3));
  EXPECT_DOUBLE_EQ(bars[0]["args"]["local_setup_us"].get<double>(), 0.25);
  EXPECT_EQ(bars[1]["name"], "sf_spmd(t1)");  // SPMD
  EXPECT_EQ(bars[2]["args"]["block"], 1);
}

TEST(PerfettoWriterTest, SchedulerViewSpansDispatchToFinish) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_sched_view"));
  const std::vector<nlohmann::json> bars = Events(t, "X", 3);
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_DOUBLE_EQ(bars[0]["ts"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(bars[0]["dur"].get<double>(), 3.5);
}

TEST(PerfettoWriterTest, PhasesSubmitsMarkersAndQueueCounter) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_phases"));
  const std::vector<nlohmann::json> phases = Events(t, "X", 2);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0]["name"], "dispatch");
  EXPECT_EQ(phases[0]["tid"], 30000);
  EXPECT_EQ(phases[0]["args"]["pop_hit"], 1);
  std::vector<nlohmann::json> counters;
  for (const nlohmann::json& e : Events(t, "C", 2)) {
    if (e["name"] == "shared_ready_queue") counters.push_back(e);
  }
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0]["args"], nlohmann::json::parse(R"({"AIC":0,"AIV":1,"MIX":0})"));
  EXPECT_EQ(Events(t, "X", 1).size(), 2u);  // one orch_submit bar per submit
  std::vector<nlohmann::json> markers;
  for (const nlohmann::json& e : Events(t, "X", 4)) {
    if (e["tid"] == 19000) markers.push_back(e);
  }
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0]["name"], "predicated_skip: gated(t2)");
  EXPECT_DOUBLE_EQ(markers[0]["dur"].get<double>(), 0.02);
}

TEST(PerfettoWriterTest, OneFlowPerDependencyBetweenEarliestBars) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_flows"));
  const std::vector<nlohmann::json> starts = Events(t, "s", 4);
  const std::vector<nlohmann::json> finishes = Events(t, "f", 4);
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]["name"], "dependency");
  EXPECT_EQ(starts[0]["cat"], "flow");
  EXPECT_EQ(starts[0]["tid"], 10000);
  EXPECT_EQ(finishes[0]["id"], starts[0]["id"]);
  EXPECT_EQ(finishes[0]["bp"], "e");
  EXPECT_EQ(finishes[0]["tid"], 10020);  // block 1 was received first (5.25)
  EXPECT_DOUBLE_EQ(finishes[0]["ts"].get<double>(), 5.25);
}

TEST(PerfettoWriterTest, OverheadCountersSampleEachChange) {
  const nlohmann::json t = WriteTrace(FreshOutputDir("perfetto_counters"));
  std::map<std::string, std::vector<std::pair<double, int>>> series;
  for (const nlohmann::json& e : Events(t, "C", 2)) {
    const std::string name = e["name"];
    if (name.rfind("oh_", 0) == 0) series[name].push_back({e["ts"], e["args"]["value"]});
  }
  // Window [1.5, 8]. sf (2 blocks) is ready at qk's end (4) and dispatched
  // at 5, while both used AIVs idle: 1 us of AIV overhead; the AIC has no
  // ready work, so "has" follows the AIV and "all" never fires.
  using Samples = std::vector<std::pair<double, int>>;
  EXPECT_EQ(series["oh_aiv_ready"], (Samples{{1.5, 0}, {4, 1}, {5, 0}}));
  EXPECT_EQ(series["oh_aiv_overhead"], (Samples{{1.5, 0}, {4, 1}, {5, 0}}));
  EXPECT_EQ(series["oh_aiv_idle"], (Samples{{1.5, 2}, {6, 0}, {7, 1}}));
  EXPECT_EQ(series["oh_aic_idle"], (Samples{{1.5, 0}, {4, 1}}));
  EXPECT_EQ(series["oh_has_overhead"], (Samples{{1.5, 0}, {4, 1}, {5, 0}}));
  EXPECT_EQ(series["oh_all_overhead"], (Samples{{1.5, 0}}));
}

TEST(PerfettoWriterTest, TheHbmTrackIsItsMeanPerMicrosecond) {
  // 200 GB/s over [1, 1.5) us and 400 over [1.5, 3) us: the windows at 1
  // and 2 us hold 300 and 400, then the track falls to 0 at 3 us.
  const std::string dir = FreshOutputDir("perfetto_hbm");
  LaunchLog log;
  PerfettoWriter writer(dir, OneCluster(), &log);
  ASSERT_TRUE(writer.Open().ok());
  writer.OnHbmRate(kUs, 200);
  writer.OnHbmRate(kUs + kUs / 2, 400);
  writer.OnHbmRate(3 * kUs, 0);
  ASSERT_TRUE(writer.Finalize().ok());
  const nlohmann::json t = nlohmann::json::parse(ReadWholeFile(dir + "/perfetto.json"));
  std::vector<std::pair<double, double>> samples;
  for (const nlohmann::json& e : Events(t, "C", 5)) {
    EXPECT_EQ(e["name"], "HBM bandwidth");
    EXPECT_EQ(e["tid"], 5000);
    samples.emplace_back(e["ts"].get<double>(), e["args"]["GB/s"].get<double>());
  }
  EXPECT_EQ(samples, (std::vector<std::pair<double, double>>{{1, 300}, {2, 400}, {3, 0}}));
  bool named = false;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 5) {
      named = e["args"]["name"] == "GM";
    }
  }
  EXPECT_TRUE(named);
}

// One AIV block on core 1 (1-9 us) whose mte2 holds two loads in flight
// twice, with two EXPs on vector, a store on mte3 and a zero-time LOOP
// marker; one AIC block on core 0 with a MATMUL.
nlohmann::json WritePipeTrace(const std::string& dir) {
  LaunchLog log;
  PerfettoWriter writer(dir, OneCluster(), &log);
  EXPECT_TRUE(writer.Open().ok());
  const Task a = MakeTask(0, 0, "ld", TaskShape::kAiv);
  const Task b = MakeTask(1, 1, "mm", TaskShape::kAic);
  for (const Task& t : {a, b}) {
    log.AddTask(t, {}, 0, kUs / 10);
    writer.OnTaskSubmitted(t, {}, 0, kUs / 10);
  }
  for (const CoreInterval& c :
       {IntervalUs(1, 0, 1, 0.5, 0.75, 1, 9, 9.5), IntervalUs(0, 1, 1, 0.5, 0.75, 1, 4, 4.5)}) {
    log.AddInterval(c);
    writer.OnCoreInterval(c);
  }
  auto op = [](Pipe pipe, trace::Op::Kind kind, uint32_t index, double start, double end) {
    return PipeOpInterval{pipe, kind, index, static_cast<TimePs>(start * kUs),
                          static_cast<TimePs>(end * kUs)};
  };
  const PipeOpInterval aiv_ops[] = {
      op(Pipe::kScalar, trace::Op::LOOP, 0, 2, 2),  op(Pipe::kMte2, trace::Op::LOAD, 1, 2, 4),
      op(Pipe::kMte2, trace::Op::LOAD, 2, 2, 3.5),  op(Pipe::kVector, trace::Op::EXP, 3, 4, 4.5),
      op(Pipe::kMte2, trace::Op::LOAD, 1, 3.5, 5),  op(Pipe::kMte2, trace::Op::LOAD, 2, 4, 6),
      op(Pipe::kVector, trace::Op::EXP, 3, 5, 5.5), op(Pipe::kMte3, trace::Op::STORE, 4, 6, 7)};
  PipeSegment aiv;
  aiv.core = 1;
  aiv.task = 0;
  aiv.ops = aiv_ops;
  writer.OnPipeOps(aiv);
  const PipeOpInterval aic_ops[] = {op(Pipe::kCube, trace::Op::MATMUL, 2, 1.5, 3.5)};
  PipeSegment aic;
  aic.core = 0;
  aic.aic = true;
  aic.task = 1;
  aic.block = 0;
  aic.ops = aic_ops;
  writer.OnPipeOps(aic);
  EXPECT_TRUE(writer.Finalize().ok());
  return nlohmann::json::parse(ReadWholeFile(dir + "/perfetto.json"));
}

TEST(PerfettoWriterTest, EachPipeGetsASubTrackUnderItsCoreAndDmaTransfersInFlightTheirOwn) {
  const nlohmann::json t = WritePipeTrace(FreshOutputDir("perfetto_pipes"));
  std::map<int64_t, std::string> names;  // Worker View tid -> name
  std::map<int64_t, int64_t> sort;
  for (const nlohmann::json& e : Events(t, "M", 4)) {
    if (e["name"] == "thread_name") names[e["tid"]] = e["args"]["name"];
    if (e["name"] == "thread_sort_index") sort[e["tid"]] = e["args"]["sort_index"];
  }
  // Bars by track name: (name, start, end) in µs.
  std::map<std::string, std::vector<std::tuple<std::string, double, double>>> bars;
  for (const nlohmann::json& e : Events(t, "X", 4)) {
    if (e["cat"] != "pipe") continue;
    const double ts = e["ts"];
    const std::string track = names[e["tid"]];
    bars[track].emplace_back(e["name"], ts, ts + e["dur"].get<double>());
    const std::string pipe = e["args"]["pipe"];
    EXPECT_EQ(track.substr(track.find(' ') + 1, pipe.size()), pipe) << track;
  }
  using Bars = std::vector<std::tuple<std::string, double, double>>;
  // Greedy by start: the loads at 2 take #0 and #1; the one at 3.5 the
  // sub-track free then (#1, free at 3.5), the one at 4 #0 (free at 4).
  EXPECT_EQ(bars["AIV_1 mte2 #0"], (Bars{{"LOAD", 2, 4}, {"LOAD", 4, 6}}));
  EXPECT_EQ(bars["AIV_1 mte2 #1"], (Bars{{"LOAD", 2, 3.5}, {"LOAD", 3.5, 5}}));
  EXPECT_EQ(bars["AIV_1 vector"], (Bars{{"EXP", 4, 4.5}, {"EXP", 5, 5.5}}));
  EXPECT_EQ(bars["AIV_1 mte3"], (Bars{{"STORE", 6, 7}}));
  EXPECT_EQ(bars["AIC_0 cube"], (Bars{{"MATMUL", 1.5, 3.5}}));
  EXPECT_EQ(bars.size(), 5u);  // the zero-time LOOP has no bar and no scalar track
  // Each pipe's sub-tracks sort under their core's lanes, before the next
  // core's, in pipe order.
  int64_t aiv1 = -1, aiv1_mte2 = -1, aiv1_mte3 = -1, aic0_cube = -1;
  for (const auto& [tid, name] : names) {
    if (name == "AIV_1") aiv1 = sort[tid];
    if (name == "AIV_1 mte2 #1") aiv1_mte2 = sort[tid];
    if (name == "AIV_1 mte3") aiv1_mte3 = sort[tid];
    if (name == "AIC_0 cube") aic0_cube = sort[tid];
  }
  EXPECT_GT(aiv1_mte2, aiv1);
  EXPECT_GT(aiv1_mte3, aiv1_mte2);
  EXPECT_LT(aiv1_mte3, aiv1 + 10 * 1000);  // AIV_2 sorts 10 tids on, at 1000 per tid
  EXPECT_LT(aic0_cube, aiv1);
  EXPECT_THAT(TrackNestingProblems(t), IsEmpty());
}

TEST(PerfettoWriterTest, EveryTrackNests) {
  EXPECT_THAT(TrackNestingProblems(WriteTrace(FreshOutputDir("perfetto_nest"))), IsEmpty());
}

TEST(PerfettoWriterTest, TheNestingCheckFindsOverlaps) {
  // The check itself: overlap on a pipe track, a straddle on any track.
  const nlohmann::json t = nlohmann::json::parse(R"({"traceEvents": [
    {"ph": "X", "pid": 4, "tid": 1001100, "name": "LOAD", "ts": 1.0, "dur": 2.0},
    {"ph": "X", "pid": 4, "tid": 1001100, "name": "LOAD", "ts": 2.0, "dur": 0.5},
    {"ph": "X", "pid": 4, "tid": 10010, "name": "a", "ts": 1.0, "dur": 2.0},
    {"ph": "X", "pid": 4, "tid": 10010, "name": "b", "ts": 1.5, "dur": 0.5},
    {"ph": "X", "pid": 4, "tid": 10010, "name": "c", "ts": 2.5, "dur": 1.0}]})");
  const std::vector<std::string> problems = TrackNestingProblems(t);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_THAT(problems[0], ::testing::HasSubstr("'c'"));  // tracks in (pid, tid) order
  EXPECT_THAT(problems[1], ::testing::HasSubstr("on a pipe track"));
}

TEST(PerfettoWriterTest, ByteIdenticalForTheSameRun) {
  const std::string a = FreshOutputDir("perfetto_det_a");
  const std::string b = FreshOutputDir("perfetto_det_b");
  WriteTrace(a);
  WriteTrace(b);
  EXPECT_EQ(ReadWholeFile(a + "/perfetto.json"), ReadWholeFile(b + "/perfetto.json"));
  EXPECT_THAT(::pto::testing::ListDir(a), ::testing::ElementsAre("perfetto.json"));
}

}  // namespace
}  // namespace pto
