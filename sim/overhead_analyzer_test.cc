#include "sim/overhead_analyzer.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "models/aicpu/dep_inference.h"
#include "sim/overhead_analysis.h"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::MakeTask;

// A long launch as the chip reports it: task i depends on task i - 1 and,
// every third, on i - 5; AIC and AIV in turn on 4 cores each, at most 8
// tasks in flight, each retired 16 tasks after it completes (the in-flight
// window). Streams it into an analyzer and a LaunchLog.
struct Streamed {
  nlohmann::json online;
  nlohmann::json batch;
  size_t max_held_tasks = 0;
  size_t max_held_events = 0;
};

Streamed StreamLongLaunch(int tasks) {
  OutputChip chip;
  chip.clusters = 4;
  OverheadAnalyzer analyzer(chip);
  LaunchLog log;
  Streamed out;
  std::vector<TimePs> end(tasks);
  std::vector<TaskSeq> producers;
  constexpr TimePs kUs = 1'000'000;
  for (int i = 0; i < tasks; ++i) {
    const bool aic = i % 2 == 0;
    Task task = MakeTask(i, i, aic ? "mm" : "add", aic ? TaskShape::kAic : TaskShape::kAiv);
    std::vector<DepEdge> edges;
    if (i >= 1) edges.push_back(Edge(i - 1, EdgeSource::kTensorMap));
    if (i >= 5 && i % 3 == 0) edges.push_back(Edge(i - 5, EdgeSource::kExplicit));
    const TimePs submit = static_cast<TimePs>(i) * kUs / 2;
    log.AddTask(task, edges, submit, submit + kUs / 4);
    UniqueProducers(task.seq, edges, &producers);
    analyzer.AddTask(task.seq, i, task.runtime_id, task.name, task.shape, producers, submit);
    // It runs once its producer ended (and a little scheduler time).
    TimePs ready = submit + kUs / 4;
    for (TaskSeq p : producers) ready = std::max(ready, end[p]);
    CoreInterval c;
    c.core = aic ? (i / 2) % 4 : 4 + (i / 2) % 8;
    c.task = task.seq;
    c.dispatch = ready + kUs / 10;
    c.receive = c.dispatch + kUs / 20;
    c.start = c.receive + kUs / 20;
    c.end = c.start + (1 + i % 7) * kUs;
    c.finish = c.end + kUs / 10;
    end[i] = c.end;
    log.AddInterval(c);
    analyzer.AddInterval(c);
    analyzer.CompleteTask(task.seq);
    if (i >= 16) analyzer.RetireTask(i - 16);
    out.max_held_tasks = std::max(out.max_held_tasks, analyzer.held_tasks());
    out.max_held_events = std::max(out.max_held_events, analyzer.held_events());
  }
  out.online = analyzer.Finish();
  out.batch = AnalyzeOverhead(log, chip);
  return out;
}

TEST(OverheadAnalyzerTest, StreamingGivesTheWholeLaunchAnalysis) {
  const Streamed s = StreamLongLaunch(3000);
  EXPECT_EQ(s.online, s.batch);
  EXPECT_GT(s.online["critical_path"]["hops"].get<int64_t>(), 1000);
}

TEST(OverheadAnalyzerTest, HeldStateIsBoundedByTheTasksInFlightNotTheLaunch) {
  const Streamed short_launch = StreamLongLaunch(2000);
  const Streamed long_launch = StreamLongLaunch(20000);
  // The same bound whatever the length: the retirement lag and a batch.
  EXPECT_LE(long_launch.max_held_tasks, 100u);
  EXPECT_EQ(long_launch.max_held_tasks, short_launch.max_held_tasks);
  EXPECT_LE(long_launch.max_held_events, 2000u);
  EXPECT_LE(long_launch.max_held_events, short_launch.max_held_events + 64);
}

TEST(OverheadAnalyzerTest, ALongPathListsItsLastThousandHopsAndSumsThemAll) {
  const Streamed s = StreamLongLaunch(3000);
  const nlohmann::json& path = s.online["critical_path"];
  const int64_t hops = path["hops"];
  EXPECT_EQ(path["path"].size(), 1000u);
  EXPECT_EQ(path["hops_not_listed"].get<int64_t>(), hops + 1 - 1000);
  EXPECT_EQ(path["path"].back()["index"], 2999);  // the sink is listed
  double compute = 0;
  for (const nlohmann::json& hop : path["path"]) compute += hop["compute_us"].get<double>();
  EXPECT_GT(path["compute_us"].get<double>(), compute);  // the sums cover the rest too
}

}  // namespace
}  // namespace pto
