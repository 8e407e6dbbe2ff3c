#include "sim/output_set.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/spooled_json.h"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::FreshOutputDir;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::ListDir;
using ::pto::testing::MakeTask;
using ::pto::testing::ReadWholeFile;
using ::pto::testing::TensorArgOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

trace::StreamHeader Header() {
  trace::StreamHeader h;
  trace::Tensor* t = h.add_tensors();
  t->set_id(0);
  t->set_dtype(trace::FP32);
  t->set_size_bytes(256);
  t->set_gm_addr(0x1000);
  trace::Kernel* k = h.add_kernels();
  k->set_id(0);
  k->set_name("scale");
  return h;
}

// Two chained AIC tasks and a predicated skip, through the observer API.
void FeedRun(RunObserver& o) {
  Task a = MakeTask(10, 0, "scale", TaskShape::kAic);
  a.args = {TensorArgOf(0, 0x1000, trace::OUTPUT_EXISTING, 64)};
  o.OnTaskSubmitted(a, {}, 0, kUs / 10);
  Task b = MakeTask(11, 1, "scale", TaskShape::kAic);
  b.args = {TensorArgOf(0, 0x1000, trace::INOUT, 64)};
  DepEdge tm = Edge(10, EdgeSource::kTensorMap, 0);
  tm.overlap = Overlap::kCovered;
  tm.producer_view = a.args[0].view;
  const std::vector<DepEdge> edges = {tm};
  o.OnTaskSubmitted(b, edges, kUs / 10, kUs / 5);
  Task c = MakeTask(12, 2, "gated", TaskShape::kAic);
  o.OnTaskSubmitted(c, {}, kUs / 5, kUs / 4);
  o.OnCoreInterval(IntervalUs(0, 10, 1, 1, 1.1, 1.2, 3, 3.5));
  o.OnCoreInterval(IntervalUs(0, 11, 2, 3.5, 3.6, 3.7, 6, 6.5));
  SchedulerPhase p;
  p.kind = SchedulerPhaseKind::kDispatch;
  p.start = kUs;
  p.end = kUs + kUs / 20;
  p.pop_hit = 1;
  o.OnSchedulerPhase(p);
  c.predicated_skip = true;
  o.OnInlineRetire(0, c, 7 * kUs);
}

OutputOptions Options(const std::string& dir, int level = 2) {
  OutputOptions options;
  options.dir = dir;
  options.case_name = "scale_case";
  options.swimlane_level = level;
  return options;
}

OutputChip Chip() {
  OutputChip chip;
  chip.clusters = 1;
  chip.scheduler_threads = 1;
  return chip;
}

TEST(OutputSetTest, WritesEveryFileAndReturnsTheAnalysis) {
  const std::string dir = FreshOutputDir("set_all");
  const trace::StreamHeader header = Header();
  OutputSet set(Options(dir, /*level=*/4), Chip(), header);
  ASSERT_TRUE(set.Open().ok());
  FeedRun(set);
  nlohmann::json overhead;
  std::string text;
  ASSERT_TRUE(set.Finalize(&overhead, &text).ok());
  EXPECT_THAT(ListDir(dir),
              ElementsAre("chip_swimlane_records.json", "deps.json", "name_map_scale_case.json",
                          "perfetto.json", "swimlane.svg"));
  const nlohmann::json swimlane =
      nlohmann::json::parse(ReadWholeFile(dir + "/chip_swimlane_records.json"));
  EXPECT_EQ(swimlane["aicore_tasks"].size(), 2u);
  EXPECT_EQ(swimlane["aicpu_orchestrator_phases"][0].size(), 3u);
  const nlohmann::json deps = nlohmann::json::parse(ReadWholeFile(dir + "/deps.json"));
  EXPECT_EQ(deps["tasks"].size(), 3u);
  ASSERT_EQ(deps["edges"].size(), 1u);
  EXPECT_EQ(deps["edges"][0]["overlap"], "covered");
  EXPECT_EQ(deps["tensors"].size(), 1u);
  // Critical path: a -> b; b waited 3.7 - 3 = 0.7 us after a ended.
  ASSERT_EQ(overhead["critical_path"]["path"].size(), 2u);
  EXPECT_DOUBLE_EQ(overhead["critical_path"]["path"][1]["injected_us"].get<double>(), 0.7);
  EXPECT_THAT(text, HasSubstr("critical path: 1 hop,"));
}

TEST(OutputSetTest, SameRunSameBytes) {
  const trace::StreamHeader header = Header();
  std::vector<std::string> dirs = {FreshOutputDir("set_det_a"), FreshOutputDir("set_det_b")};
  for (const std::string& dir : dirs) {
    OutputSet set(Options(dir, 4), Chip(), header);
    ASSERT_TRUE(set.Open().ok());
    FeedRun(set);
    nlohmann::json overhead;
    ASSERT_TRUE(set.Finalize(&overhead).ok());
  }
  for (const std::string& name : ListDir(dirs[0])) {
    EXPECT_EQ(ReadWholeFile(dirs[0] + "/" + name), ReadWholeFile(dirs[1] + "/" + name)) << name;
  }
}

TEST(OutputSetTest, SummaryOnlyWritesAndKeepsNothing) {
  const std::string dir = FreshOutputDir("set_summary_only");
  const trace::StreamHeader header = Header();
  OutputOptions options = Options(dir);
  options.summary_only = true;
  OutputSet set(options, Chip(), header);
  ASSERT_TRUE(set.Open().ok());
  FeedRun(set);
  nlohmann::json overhead = "unset";
  ASSERT_TRUE(set.Finalize(&overhead).ok());
  EXPECT_TRUE(overhead.is_null());
  EXPECT_TRUE(ListDir(dir).empty());
  EXPECT_EQ(set.log().task_count(), 0u);
}

TEST(OutputSetTest, UnwritableDirectoryFailsAtOpen) {
  const trace::StreamHeader header = Header();
  OutputSet set(Options("/nonexistent/dir"), Chip(), header);
  const absl::Status s = set.Open();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("/nonexistent/dir/"));
}

TEST(SpooledArrayTest, SplicesElementsInOrderAndRemovesItsFile) {
  const std::string dir = FreshOutputDir("spool");
  std::ostringstream out;
  {
    SpooledArray spool(dir + "/.s.tmp");
    ASSERT_TRUE(spool.Open().ok());
    spool.Append("1");
    spool.Append("{\"a\":2}");
    EXPECT_EQ(spool.size(), 2);
    ASSERT_TRUE(spool.SpliceInto(out, "  ").ok());
  }
  EXPECT_EQ(out.str(), "[\n  1,\n  {\"a\":2}\n]");
  EXPECT_TRUE(ListDir(dir).empty());
  std::ostringstream compact;
  SpooledArray empty(dir + "/.e.tmp");
  ASSERT_TRUE(empty.Open().ok());
  ASSERT_TRUE(empty.SpliceInto(compact).ok());
  EXPECT_EQ(compact.str(), "[]");
}

TEST(AtomicFileTest, NothingAppearsWithoutCommit) {
  const std::string dir = FreshOutputDir("atomic");
  {
    AtomicFile file(dir + "/f.json");
    ASSERT_TRUE(file.Open().ok());
    file.out() << "partial";
  }
  EXPECT_TRUE(ListDir(dir).empty());
  ASSERT_TRUE(WriteFileAtomically(dir + "/f.json", "whole").ok());
  EXPECT_EQ(ReadWholeFile(dir + "/f.json"), "whole");
  EXPECT_THAT(ListDir(dir), ElementsAre("f.json"));
}

}  // namespace
}  // namespace pto
