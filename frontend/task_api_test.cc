// The task API of issue #4 beyond the verifiers: pl.no_dep(t), RunConfig
// ring sizes, pl.scope() with auto_scope=False, --timing-only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "frontend/interpreter.h"
#include "frontend/testing/compile.h"
#include "frontend/testing/snippets.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n"
    "from pypto.runtime import RunConfig\n";

// The script `body` run through ptoc (CPython, pto_sim): its stream, or its
// messages as the error.
absl::StatusOr<trace::TraceText> Build(const std::string& body, CompileOptions options = {}) {
  std::vector<std::string> flags;
  if (options.timing_only) flags.push_back("--timing-only");
  ScriptRun run = RunScript("t.py", std::string(kPrelude) + body, flags);
  if (run.exit_code != 0) return absl::InvalidArgumentError(run.err);
  return std::move(run.trace);
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

TEST(TaskApiTest, RunConfigRingSizesGoToTheLaunch) {
  const std::string launch = std::string(kCopy) +
                             "@pl.jit\n"
                             "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                             "    copy(a, out)\n"
                             "    return out\n";
  auto t = Build(launch +
                 "CFG = RunConfig(platform='a2a3', ring_task_window=64, ring_heap=[1024, 2048, "
                 "4096, 8192], ring_dep_pool=[16, 16, 32, 32])\n"
                 "f(torch.ones(8, 8), torch.zeros(8, 8), config=CFG)\n");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_TRUE(t->records(0).has_launch_begin());
  const auto& rings = t->records(0).launch_begin().ring_sizes();
  EXPECT_THAT(rings.task_window(), ElementsAre(64u));
  EXPECT_THAT(rings.heap_bytes(), ElementsAre(1024u, 2048u, 4096u, 8192u));
  EXPECT_THAT(rings.dep_pool(), ElementsAre(16u, 16u, 32u, 32u));
  auto plain = Build(launch + "f(torch.ones(8, 8), torch.zeros(8, 8), config=RunConfig())\n");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->records(0).launch_begin().has_ring_sizes());
}

TEST(TaskApiTest, RunConfigRingSizesMustBeOneOrFourPositiveIntegers) {
  for (const char* bad : {"ring_heap=[1, 2]", "ring_task_window=0", "ring_dep_pool=2.5"}) {
    auto t = Build(std::string("CFG = RunConfig(") + bad + ")\n");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr("expected a positive integer (all four rings) or a list of 4"));
  }
}

// pto_sim refuses ring sizes the runtime would (RuntimeEnv::validate); ptoc
// says so at the RunConfig instead of writing such a stream.
TEST(TaskApiTest, RunConfigRingSizesMustBeInTheRuntimesRange) {
  const std::pair<const char*, const char*> cases[] = {
      {"ring_task_window=48",
       "value 48 is outside the runtime's range: each entry must be a "
       "power of two in [4, 16777216]"},
      {"ring_task_window=2", "value 2 is outside"},
      {"ring_heap=[1024, 512, 1024, 1024]",
       "value 512 is outside the runtime's range: each entry "
       "must be in [1024, 1099511627776] bytes"},
      {"ring_dep_pool=3",
       "value 3 is outside the runtime's range: each entry must be in [4, "
       "2147483647] entries"},
  };
  for (const auto& [bad, message] : cases) {
    auto t = Build(std::string("CFG = RunConfig(") + bad + ")\n");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(message)) << bad;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr("t.py:4: error: RunConfig(")) << bad;
  }
  // The minima themselves are fine.
  EXPECT_TRUE(Build("CFG = RunConfig(ring_task_window=4, ring_heap=1024, ring_dep_pool=4)\n").ok());
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

TEST(TaskApiTest, MetaTensorsAreShapesUnderTimingOnly) {
  // torch.device("meta") as CPython's torch has it: a shape without contents.
  const std::string program =
      std::string(kCopy) +
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    copy(a, out)\n"
      "    return out\n"
      "DEV = torch.device('meta')\n"
      "W = torch.randn(1 << 20, 1 << 16, dtype=torch.bfloat16, device=DEV)\n"
      "f(W[:8, :8].float(), torch.zeros(8, 8, device='meta'))\n";
  CompileOptions timing;
  timing.timing_only = true;
  auto t = Build(program, timing);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Submits(*t).size(), 1u);
  // Without --timing-only a meta tensor still launches, as shapes only: it
  // has no contents to upload.
  auto full = Build(program);
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_FALSE(full->header().tensors(0).has_init());
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

namespace pto::ptoc {
namespace {

constexpr char kExtern[] =
    "@pl.jit.extern(core_type=pl.KernelType.AIC, block_num=pl.system.available_cluster_count(),\n"
    "               cube_flops=2 * 64 * 64 * 64, bytes_in=16384, bytes_out=16384)\n"
    "def gemm(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    ...\n"
    "@pl.jit.extern(core_type=pl.KernelType.MIX, fixed_cycles=1650)\n"
    "def calib(c: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INT32]):\n"
    "    pass\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    gemm(a, c)\n"
    "    calib(c, 3)\n"
    "    return c\n";

TEST(ExternKernelTest, EachCallIsOneSubmitOfACostSummaryKernel) {
  auto t = Build(std::string(kExtern) + "f(torch.ones(64, 64), torch.zeros(64, 64))\n");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->header().kernels_size(), 2);
  const auto& gemm = t->header().kernels(0);
  EXPECT_EQ(gemm.core_type(), trace::AIC);
  ASSERT_TRUE(gemm.has_cost());
  EXPECT_EQ(gemm.cost().cube_flops(), 2.0 * 64 * 64 * 64);
  EXPECT_EQ(gemm.cost().bytes_in(), 16384u);
  EXPECT_EQ(t->header().kernels(1).cost().fixed_cycles(), 1650u);
  auto s = Submits(*t);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_THAT(s[0]->kernel_ids(), ElementsAre(0, -1, -1));
  EXPECT_EQ(s[0]->block_symbol(), trace::AVAILABLE_CLUSTER);
  EXPECT_EQ(s[0]->args(0).tensor().direction(), trace::INPUT);
  EXPECT_EQ(s[0]->args(1).tensor().direction(), trace::OUTPUT_EXISTING);
  EXPECT_THAT(s[1]->kernel_ids(), ElementsAre(1, 1, 1));
  EXPECT_EQ(s[1]->block_num(), 1u);
  EXPECT_EQ(s[1]->args(0).tensor().direction(), trace::INOUT);
  EXPECT_EQ(s[1]->args(1).scalar().i(), 3);
}

TEST(ExternKernelTest, CallTakesTaskOptionsAndReturnsItsTaskId) {
  auto t = Build(
      "@pl.jit.extern(core_type=pl.KernelType.MIX, block_num=24, cube_flops=1e9,\n"
      "               bytes_in=4096)\n"
      "def fused(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    ...\n"
      "@pl.jit.extern(core_type=pl.KernelType.AIV, fixed_cycles=100)\n"
      "def seed(c: pl.Out[pl.Tensor]):\n"
      "    ...\n"
      "@pl.jit\n"
      "def f(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.manual_scope():\n"
      "        s = seed(c, allow_early_resolve=True)\n"
      "        t = fused(a, c, deps=[s], sync_start=True, name_hint='fa_fused')\n"
      "        seed(c, deps=[t, None])\n"
      "    return c\n"
      "f(torch.ones(64, 64), torch.zeros(64, 64))\n");
  ASSERT_TRUE(t.ok()) << t.status();
  auto s = Submits(*t);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(s[0]->allow_early_resolve());
  EXPECT_FALSE(s[0]->sync_start());
  EXPECT_EQ(s[1]->name(), "fa_fused");
  EXPECT_TRUE(s[1]->sync_start());
  EXPECT_FALSE(s[1]->allow_early_resolve());
  EXPECT_EQ(s[1]->block_num(), 24u);
  EXPECT_THAT(s[1]->deps(), ElementsAre(0u));
  EXPECT_THAT(s[2]->deps(), ElementsAre(1u));
  EXPECT_EQ(s[2]->name(), "seed");
}

TEST(ExternKernelTest, CallTaskOptionsMustBeWellFormed) {
  const std::string decl =
      "@pl.jit.extern(core_type=pl.KernelType.AIV, fixed_cycles=100)\n"
      "def k(c: pl.Out[pl.Tensor]):\n"
      "    ...\n"
      "@pl.jit\n"
      "def f(c: pl.Out[pl.Tensor]):\n";
  const std::pair<const char*, const char*> cases[] = {
      {"    k(c, deps=3)\n", "deps= must be a list"},
      {"    k(c, sync_start=1)\n", "sync_start must be True or False"},
      {"    k(c, deps=[c])\n", "deps= entries must be a TaskId"},
  };
  for (const auto& [call, message] : cases) {
    auto t = Build(decl + call + "    return c\nf(torch.zeros(4, 4))\n");
    ASSERT_FALSE(t.ok()) << call;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(message)) << call;
  }
}

TEST(ExternKernelTest, DeclarationErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"@pl.jit.extern\ndef k(a: pl.Tensor):\n    ...\n", "@pl.jit.extern needs its cost summary"},
      {"@pl.jit.extern(cube_flops=1.0)\ndef k(a: pl.Tensor):\n    ...\n", "requires core_type="},
      {"@pl.jit.extern(core_type=pl.KernelType.AIV)\ndef k(a: pl.Tensor):\n    ...\n",
       "needs a cost: cube_flops, vector_elements, bytes_in/bytes_out or fixed_cycles"},
      {"@pl.jit.extern(core_type=pl.KernelType.AIV, flops=3)\ndef k(a: pl.Tensor):\n    ...\n",
       "@pl.jit.extern does not accept 'flops'"},
      {"@pl.jit.extern(core_type=pl.KernelType.AIV, fixed_cycles=9, block_num=0)\n"
       "def k(a: pl.Tensor):\n    ...\n"
       "@pl.jit\ndef f(a: pl.Tensor):\n    k(a)\n    return a\nf(torch.ones(2))\n",
       "block_num must be a positive integer"},
      {"@pl.jit.extern(core_type=pl.KernelType.AIV, fixed_cycles=9)\n"
       "def k(a: pl.Tensor):\n    ...\nk(torch.ones(2))\n",
       "@pl.jit.extern function 'k' runs inside a launch: call it from the body of a @pl.jit "
       "function"},
  };
  for (const auto& [program, message] : cases) {
    // A declaration no call reaches is checked by ptoc's evaluator alone.
    const std::string error = absl::StrContains(program, "(torch.ones")
                                  ? std::string(Build(program).status().message())
                                  : EvaluateSnippetError(kPrelude, program);
    EXPECT_THAT(error, HasSubstr(message)) << program;
  }
}

}  // namespace
}  // namespace pto::ptoc

namespace pto::ptoc {
namespace {

constexpr char kProgram[] =
    "@pl.program\n"
    "class P:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def copy(self, x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
    "        pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], y)\n"
    "        return y\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n";

std::string Program(const std::string& body) {
  return std::string(kProgram) + body +
         "        return out\n"
         "P.main(torch.ones(8, 8), torch.zeros(8, 8))\n";
}

TEST(ProgramFormTest, SubmitReturnsOutputsAndATaskIdAndSpmdSubmitSetsBlocks) {
  auto t = Build(
      Program("        o, tid = pl.submit(self.copy, a, out, allow_early_resolve=True)\n"
              "        o2, tid2 = pl.spmd_submit(self.copy, a, o, core_num=4, sync_start=True, "
              "deps=[tid])\n"
              "        self.copy(a, o2)\n"));
  ASSERT_TRUE(t.ok()) << t.status();
  auto s = Submits(*t);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0]->name(), "copy");
  EXPECT_TRUE(s[0]->allow_early_resolve());
  EXPECT_EQ(s[0]->block_num(), 1u);
  EXPECT_EQ(s[1]->block_num(), 4u);
  EXPECT_TRUE(s[1]->sync_start());
  EXPECT_THAT(s[1]->deps(), ElementsAre(0u));
  EXPECT_EQ(s[1]->args(1).tensor().tensor_id(), s[0]->args(1).tensor().tensor_id());
  EXPECT_THAT(s[2]->deps(), ::testing::IsEmpty());  // plain self.k(...) is fire-and-forget
}

TEST(ProgramFormTest, Errors) {
  const std::pair<std::string, const char*> cases[] = {
      {Program("        o, t = pl.submit(a, out)\n"),
       "pl.submit(...) first argument must be a `self.<kernel>` method reference"},
      {Program("        o, t = pl.spmd_submit(self.copy, a, out)\n"),
       "pl.spmd_submit(self.copy, ...) requires the core_num keyword argument"},
      {Program("        o, t = pl.submit(self.copy, a, out, predicate=None)\n"),
       "'copy' predicate must be a single comparison"},
  };
  for (const auto& [program, message] : cases) {
    auto t = Build(program);
    ASSERT_FALSE(t.ok()) << program;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(message)) << program;
  }
  // Definitions no call reaches, checked by ptoc's evaluator alone.
  EXPECT_THAT(EvaluateSnippetError(kPrelude, "class Q:\n    pass\n"),
              HasSubstr("a 'class' must be a @pl.program class"));
  EXPECT_THAT(EvaluateSnippetError(kPrelude,
                                   "@pl.program\nclass Q:\n    "
                                   "@pl.function(type=pl.FunctionType.InCore)\n"
                                   "    def k(x: pl.Tensor):\n        pass\n"),
              HasSubstr("method 'k' of a @pl.program class must take 'self' first"));
}

}  // namespace
}  // namespace pto::ptoc

namespace pto::ptoc {
namespace {

TEST(ProgramFormTest, PredicateProducerBoundByPlSubmitMustBeInDeps) {
  const std::string program =
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def flag(self, g: pl.InOut[pl.Tensor]):\n"
      "        pl.store(pl.load(g, [0, 0], [1, 1]), [0, 0], g)\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def copy(self, x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
      "        pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], y)\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, g: pl.InOut[pl.Tensor], a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        _, flag_tid = pl.submit(self.flag, g)\n"
      "        _, t = pl.submit(self.copy, a, out, DEPS predicate=(g[0, 0] > 0))\n"
      "        return out\n"
      "P.main(torch.ones(1, 1, dtype=torch.int32), torch.ones(8, 8), torch.zeros(8, 8))\n";
  auto bad = Build(absl::StrReplaceAll(program, {{"DEPS ", ""}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("t.py:15:45: error: 'copy' predicate reads 'g', which is produced by the "
                        "task bound to 'flag_tid', but 'flag_tid' is not in deps=. Add the "
                        "producer to the dependency list: deps=[flag_tid]"));
  EXPECT_TRUE(Build(absl::StrReplaceAll(program, {{"DEPS ", "deps=[flag_tid], "}})).ok());
}

}  // namespace
}  // namespace pto::ptoc
