// The task API of issue #4 beyond the verifiers: pl.no_dep(t), RunConfig
// ring sizes, pl.scope() with auto_scope=False, --timing-only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/interpreter.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n"
    "from pypto.runtime import RunConfig\n";

absl::StatusOr<trace::TraceText> Build(const std::string& body, CompileOptions options = {}) {
  SourceFile source("t.py", std::string(kPrelude) + body);
  return CompileSource(source, nullptr, options);
}

std::vector<const trace::Submit*> Submits(const trace::TraceText& t) {
  std::vector<const trace::Submit*> out;
  for (const auto& r : t.records()) {
    if (r.has_submit()) out.push_back(&r.submit());
  }
  return out;
}

constexpr char kCopy[] =
    "@pl.jit.incore\n"
    "def copy(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
    "    pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], y)\n";

TEST(TaskApiTest, NoDepMarksOnlyThatArgumentNoDep) {
  auto t = Build(std::string(kCopy) +
                 "@pl.jit\n"
                 "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                 "    copy(a, pl.no_dep(out))\n"
                 "    copy(a, out)\n"
                 "    return out\n"
                 "out = torch.zeros(8, 8)\n"
                 "f(torch.ones(8, 8), out)\n"
                 "torch.testing.assert_close(out, torch.ones(8, 8))\n");
  ASSERT_TRUE(t.ok()) << t.status();
  auto s = Submits(*t);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0]->args(0).tensor().direction(), trace::INPUT);
  EXPECT_EQ(s[0]->args(1).tensor().direction(), trace::NO_DEP);
  EXPECT_NE(s[1]->args(1).tensor().direction(), trace::NO_DEP);
}

TEST(TaskApiTest, RunConfigRingSizesGoToTheHeader) {
  auto t = Build(
      "CFG = RunConfig(platform='a2a3', ring_task_window=64, ring_heap=[1024, 2048, 4096, "
      "8192], ring_dep_pool=[16, 16, 32, 32])\n");
  ASSERT_TRUE(t.ok()) << t.status();
  const auto& rings = t->header().ring_sizes();
  EXPECT_THAT(rings.task_window(), ElementsAre(64u));
  EXPECT_THAT(rings.heap_bytes(), ElementsAre(1024u, 2048u, 4096u, 8192u));
  EXPECT_THAT(rings.dep_pool(), ElementsAre(16u, 16u, 32u, 32u));
  EXPECT_FALSE(Build("CFG = RunConfig()\n")->header().has_ring_sizes());
}

TEST(TaskApiTest, RunConfigRingSizesMustBeOneOrFourPositiveIntegers) {
  for (const char* bad : {"ring_heap=[1, 2]", "ring_task_window=0", "ring_dep_pool=2.5"}) {
    auto t = Build(std::string("CFG = RunConfig(") + bad + ")\n");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr("must be a positive integer (all four rings) or a list of 4"));
  }
}

TEST(TaskApiTest, HandPlacedScopeOpensOneAutoScopeUnderAutoScopeFalse) {
  auto t = Build(std::string(kCopy) +
                 "@pl.jit(auto_scope=False)\n"
                 "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                 "    with pl.scope():\n"
                 "        copy(a, out)\n"
                 "    return out\n"
                 "f(torch.ones(8, 8), torch.zeros(8, 8))\n");
  ASSERT_TRUE(t.ok()) << t.status();
  int begins = 0;
  for (const auto& r : t->records()) {
    if (r.has_scope_begin()) {
      ++begins;
      EXPECT_EQ(r.scope_begin().mode(), trace::ScopeBegin::AUTO);
      EXPECT_EQ(r.scope_begin().depth(), 1u);
    }
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(Submits(*t)[0]->scope_depth(), 1u);
}

TEST(TaskApiTest, TimingOnlyDropsContentsAndChecks) {
  const std::string program = std::string(kCopy) +
                              "@pl.jit\n"
                              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    copy(a, out)\n"
                              "    return out\n"
                              "torch.manual_seed(0)\n"
                              "A = torch.randn(8, 8)\n"
                              "out = torch.zeros(8, 8)\n"
                              "f(A, out)\n"
                              "torch.testing.assert_close(out, A)\n";
  auto full = Build(program);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_FALSE(full->header().timing_only());
  EXPECT_TRUE(full->header().tensors(0).has_init());
  CompileOptions timing;
  timing.timing_only = true;
  auto t = Build(program, timing);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->header().timing_only());
  for (const auto& tensor : t->header().tensors()) EXPECT_FALSE(tensor.has_init());
  for (const auto& r : t->records()) EXPECT_FALSE(r.has_check());
  EXPECT_EQ(Submits(*t).size(), 1u);
}

TEST(TaskApiTest, TimingOnlyCannotReadDeviceValuesInTheOrchestration) {
  CompileOptions timing;
  timing.timing_only = true;
  auto t = Build(std::string(kCopy) +
                     "@pl.jit\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    copy(a, out)\n"
                     "    if out[0, 0] > 0:\n"
                     "        copy(a, out)\n"
                     "    return out\n"
                     "f(torch.ones(8, 8), torch.zeros(8, 8))\n",
                 timing);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("--timing-only"));
}

}  // namespace
}  // namespace pto::ptoc
