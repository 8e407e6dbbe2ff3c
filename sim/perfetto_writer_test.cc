#include "sim/perfetto_writer.h"

#include <map>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::FreshOutputDir;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::MakeTask;
using ::pto::testing::ReadWholeFile;

// Producer p (AIC, ring 1) on core 0, SPMD consumer c (2 blocks on AIVs 1
// and 2), a predicated skip on thread 0 and one dispatch phase on thread 0.
nlohmann::json WriteTrace(const std::string& dir) {
  OutputChip chip;
  chip.clusters = 1;
  chip.scheduler_threads = 1;
  LaunchLog log;
  PerfettoWriter writer(dir, chip, &log);
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
  OutputChip chip;
  chip.clusters = 1;
  chip.scheduler_threads = 1;
  LaunchLog log;
  PerfettoWriter writer(dir, chip, &log);
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
