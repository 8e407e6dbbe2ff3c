// Golden tests on the edges of the runtime system-test programs of
// hw-native-sys/pypto@e2d0f78a tests/st/runtime/scheduling/, written in the @pl.program form in
// traces/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/stream_summary.h"
#include "frontend/testing/compile.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The build's recorded stream of traces/<name>.py (ptoc ran the script).
std::vector<LaunchSummary> CompileTrace(const std::string& name) {
  return Summarize(LoadStream(std::string(PTO_BUILD_TRACES_DIR) + "/" + name + ".pb"));
}

int Edges(const LaunchSummary& l) {
  int n = 0;
  for (const auto& t : l.tasks) n += t.deps.size();
  return n;
}

TEST(ProgramTracesTest, PredicatedDispatchInBothForms) {
  auto launches = CompileTrace("predicated_dispatch");
  ASSERT_EQ(launches.size(), 4u);  // two programs x gate 0 / 1
  for (const LaunchSummary& l : launches) {
    EXPECT_EQ(l.name, "main");
    ASSERT_EQ(l.tasks.size(), 3u);
    // x_producer -> clobber (predicated) -> consumer, all explicit in a manual scope.
    EXPECT_THAT(l.tasks[0].deps, IsEmpty());
    EXPECT_THAT(l.tasks[1].deps, ElementsAre(0u));
    EXPECT_THAT(l.tasks[2].deps, ElementsAre(1u));
    EXPECT_FALSE(l.tasks[0].has_predicate);
    EXPECT_TRUE(l.tasks[1].has_predicate);
    EXPECT_FALSE(l.tasks[2].has_predicate);
    for (const auto& t : l.tasks) EXPECT_EQ(t.block_num, 1);
    EXPECT_NE(l.scope_shape.find("M2"), std::string::npos) << l.scope_shape;
    EXPECT_EQ(l.checks_after, 1);
  }
}

void ExpectPipelineTopologies(const std::vector<LaunchSummary>& launches) {
  ASSERT_EQ(launches.size(), 3u);
  // (a) 16 tiles x 2 stages, stage2 depends on its own stage1 only.
  const LaunchSummary& pipe = launches[0];
  ASSERT_EQ(pipe.tasks.size(), 32u);
  EXPECT_EQ(Edges(pipe), 16);
  for (size_t k = 0; k < 32; k += 2) {
    EXPECT_THAT(pipe.tasks[k].deps, IsEmpty());
    EXPECT_THAT(pipe.tasks[k + 1].deps, ElementsAre(k));
  }
  // (b) phase fence: every task of phase p+1 waits for the 4 of phase p.
  const LaunchSummary& fence = launches[1];
  ASSERT_EQ(fence.tasks.size(), 16u);
  EXPECT_EQ(Edges(fence), 12 * 4);
  for (size_t k = 0; k < 16; ++k) {
    if (k < 4) {
      EXPECT_THAT(fence.tasks[k].deps, IsEmpty());
      continue;
    }
    const uint32_t first = (k / 4 - 1) * 4;
    EXPECT_THAT(fence.tasks[k].deps, ElementsAre(first, first + 1, first + 2, first + 3)) << k;
  }
  // (c) 4 independent chains of 4 steps: 12 edges, each on the previous step.
  const LaunchSummary& chains = launches[2];
  ASSERT_EQ(chains.tasks.size(), 16u);
  EXPECT_EQ(Edges(chains), 12);
  for (size_t k = 0; k < 16; ++k) {
    if (k % 4 == 0) {
      EXPECT_THAT(chains.tasks[k].deps, IsEmpty());
    } else {
      EXPECT_THAT(chains.tasks[k].deps, ElementsAre(k - 1));
    }
  }
  for (const LaunchSummary& l : launches) {
    for (const auto& t : l.tasks) EXPECT_EQ(t.scope_depth, 2u);  // all inside the manual scope
  }
}

TEST(ProgramTracesTest, ManualScopePipelineWithPlSubmit) {
  ExpectPipelineTopologies(CompileTrace("manual_scope_pipeline"));
}

TEST(ProgramTracesTest, ManualScopePipelineWithPlAtAsTid) {
  ExpectPipelineTopologies(CompileTrace("pl_at_deps_pipeline"));
}

}  // namespace
}  // namespace pto::ptoc
