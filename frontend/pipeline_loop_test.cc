// pl.pipeline(N, stage=F) in kernel bodies (docs/ptoc.md, "pl.pipeline"):
// the shape of the lowered loops in the kernel program, and their values
// through the harness, which reads the results ptoc's reference computed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"
#include "frontend/testing/compile.h"
#include "frontend/testing/snippets.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n";

trace::TraceText Compile(const std::string& body) { return CompileCleanSnippet(kPrelude, body); }

std::string CompileError(const std::string& body) { return CompileSnippetError(kPrelude, body); }

// A jit function over a [16, 16] FP32 input `a` (row r holds r) and an
// output, with the given task body (indented 8), then `harness`.
std::string Kernel(const std::string& task_body, const std::string& harness) {
  return "@pl.jit\n"
         "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
         "    with pl.at(level=pl.Level.CORE_GROUP):\n" +
         task_body +
         "    return out\n"
         "a = torch.zeros(16, 16)\n"
         "for r in range(16):\n"
         "    for c in range(16):\n"
         "        a[r, c] = r\n"
         "out = torch.zeros(16, 16)\n" +
         harness;
}

// Harness lines: `out` must hold row r of `a` plus one for the rows listed
// by the Python iterable `rows`, and zeros elsewhere.
std::string ExpectRows(const std::string& out, const std::string& rows) {
  return "want = torch.zeros(16, 16)\n"
         "for r in " +
         rows +
         ":\n"
         "    for c in range(16):\n"
         "        want[r, c] = r + 1.0\n"
         "torch.testing.assert_close(" +
         out + ", want)\n";
}

// Copies row i of `a` plus one into row i of `out`, over `loop`.
std::string RowCopy(const std::string& loop) {
  return "        for i in " + loop +
         ":\n"
         "            t = pl.load(a, [i, 0], [1, 16])\n"
         "            pl.store(pl.add(t, 1.0), [i, 0], out)\n";
}

const google::protobuf::RepeatedPtrField<trace::Op>& Ops(const trace::TraceText& t) {
  return t.header().kernels(0).program().ops();
}

std::vector<trace::Op::Kind> Kinds(const google::protobuf::RepeatedPtrField<trace::Op>& ops) {
  std::vector<trace::Op::Kind> kinds;
  for (const trace::Op& op : ops) kinds.push_back(op.kind());
  return kinds;
}

// The row offset (dim 0) of a LOAD or STORE.
const trace::IntExpr& Row(const trace::Op& op) { return op.offsets(0); }

// Whether `e` is `loop_var + delta`.
bool IsLoopVarPlus(const trace::IntExpr& e, uint32_t loop_var, int64_t delta) {
  if (delta == 0) return e.has_loop_var() && e.loop_var() == loop_var;
  return e.has_binary() && e.binary().op() == trace::IntExpr::ADD &&
         e.binary().lhs().has_loop_var() && e.binary().lhs().loop_var() == loop_var &&
         e.binary().rhs().has_constant() && e.binary().rhs().constant() == delta;
}

constexpr auto kLoad = trace::Op::LOAD;
constexpr auto kAdd = trace::Op::ADD;
constexpr auto kStore = trace::Op::STORE;

TEST(PipelineLoopTest, StageTwoOfEightIsOneLoopOfStrideTwoWithTwoBodyCopies) {
  const auto t = Compile(
      Kernel(RowCopy("pl.pipeline(8, stage=2)"), "k(a, out)\n" + ExpectRows("out", "range(8)")));
  ASSERT_EQ(Ops(t).size(), 1);
  const trace::Op::Loop& loop = Ops(t)[0].loop();
  EXPECT_EQ(loop.start().constant(), 0);
  EXPECT_EQ(loop.stop().constant(), 8);
  EXPECT_EQ(loop.step().constant(), 2);
  ASSERT_THAT(Kinds(loop.body()), ElementsAre(kLoad, kAdd, kStore, kLoad, kAdd, kStore));
  // Each copy has registers of its own (what double-buffering needs).
  EXPECT_NE(loop.body(0).dst(), loop.body(3).dst());
  EXPECT_NE(loop.body(1).dst(), loop.body(4).dst());
  EXPECT_EQ(loop.body(4).srcs(0), loop.body(3).dst());
  // The second copy runs iteration i + 1.
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(0)), loop.var(), 0));
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(2)), loop.var(), 0));
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(3)), loop.var(), 1));
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(5)), loop.var(), 1));
}

TEST(PipelineLoopTest, AStaticRemainderIsFlattenedAfterTheMainLoop) {
  const auto t = Compile(
      Kernel(RowCopy("pl.pipeline(10, stage=4)"), "k(a, out)\n" + ExpectRows("out", "range(10)")));
  ASSERT_THAT(Kinds(Ops(t)),
              ElementsAre(trace::Op::LOOP, kLoad, kAdd, kStore, kLoad, kAdd, kStore));
  const trace::Op::Loop& loop = Ops(t)[0].loop();
  EXPECT_EQ(loop.start().constant(), 0);
  EXPECT_EQ(loop.stop().constant(), 8);
  EXPECT_EQ(loop.step().constant(), 4);
  ASSERT_EQ(loop.body_size(), 12);
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(9)), loop.var(), 3));
  // The tail copies run iterations 8 and 9, at constant offsets.
  EXPECT_EQ(Row(Ops(t)[1]).constant(), 8);
  EXPECT_EQ(Row(Ops(t)[3]).constant(), 8);
  EXPECT_EQ(Row(Ops(t)[4]).constant(), 9);
  EXPECT_EQ(Row(Ops(t)[6]).constant(), 9);
  EXPECT_NE(Ops(t)[1].dst(), Ops(t)[4].dst());
}

TEST(PipelineLoopTest, FewerIterationsThanStagesAreOnlyTailCopies) {
  const auto t = Compile(
      Kernel(RowCopy("pl.pipeline(3, stage=4)"), "k(a, out)\n" + ExpectRows("out", "range(3)")));
  ASSERT_THAT(Kinds(Ops(t)),
              ElementsAre(kLoad, kAdd, kStore, kLoad, kAdd, kStore, kLoad, kAdd, kStore));
  for (int c = 0; c < 3; ++c) EXPECT_EQ(Row(Ops(t)[3 * c]).constant(), c);
}

TEST(PipelineLoopTest, StartStepAndAnUnevenRangeKeepPythonsIterations) {
  // range(1, 12, 3) = 1, 4, 7, 10: two groups of 2 at stride 6, no tail.
  const auto t = Compile(Kernel(RowCopy("pl.pipeline(1, 12, 3, stage=2)"),
                                "k(a, out)\n" + ExpectRows("out", "(1, 4, 7, 10)")));
  ASSERT_EQ(Ops(t).size(), 1);
  const trace::Op::Loop& loop = Ops(t)[0].loop();
  EXPECT_EQ(loop.start().constant(), 1);
  EXPECT_EQ(loop.stop().constant(), 13);
  EXPECT_EQ(loop.step().constant(), 6);
  EXPECT_TRUE(IsLoopVarPlus(Row(loop.body(3)), loop.var(), 3));
  // A negative step with compile-time bounds works too: 9, 7, 5 (tail 3, 1).
  Compile(Kernel(RowCopy("pl.pipeline(9, 0, -2, stage=3)"),
                 "k(a, out)\n" + ExpectRows("out", "(1, 3, 5, 7, 9)")));
}

// An incore kernel whose trip count is a scalar parameter, called for
// several counts.
std::string DynamicKernel(const std::string& body) {
  return "@pl.jit.incore\n"
         "def rows(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT32]):\n" +
         body +
         "@pl.jit\n"
         "def f(a: pl.Tensor, o7: pl.Out[pl.Tensor], o8: pl.Out[pl.Tensor], "
         "o2: pl.Out[pl.Tensor]):\n"
         "    rows(a, o7, 7)\n"
         "    rows(a, o8, 8)\n"
         "    rows(a, o2, 2)\n"
         "    return o7\n"
         "a = torch.zeros(16, 16)\n"
         "for r in range(16):\n"
         "    for c in range(16):\n"
         "        a[r, c] = r\n"
         "o7 = torch.zeros(16, 16)\n"
         "o8 = torch.zeros(16, 16)\n"
         "o2 = torch.zeros(16, 16)\n"
         "f(a, o7, o8, o2)\n";
}

TEST(PipelineLoopTest, DeviceBoundsGiveAMainLoopAndARemainderLoop) {
  const auto t = Compile(
      DynamicKernel("    for i in pl.pipeline(n, stage=4):\n"
                    "        pl.store(pl.add(pl.load(a, [i, 0], [1, 16]), 1.0), [i, 0], out)\n") +
      ExpectRows("o7", "range(7)") + ExpectRows("o8", "range(8)") + ExpectRows("o2", "range(2)"));
  ASSERT_THAT(Kinds(Ops(t)), ElementsAre(trace::Op::LOOP, trace::Op::LOOP));
  const trace::Op::Loop& main_loop = Ops(t)[0].loop();
  const trace::Op::Loop& rest = Ops(t)[1].loop();
  EXPECT_EQ(main_loop.start().constant(), 0);
  EXPECT_EQ(main_loop.step().constant(), 4);
  EXPECT_EQ(main_loop.body_size(), 12);
  EXPECT_TRUE(main_loop.stop().has_binary());  // (max(n, 0) // 4) * 4
  // The remainder runs one copy per iteration from where the main loop ends.
  EXPECT_EQ(rest.start().SerializeAsString(), main_loop.stop().SerializeAsString());
  EXPECT_TRUE(rest.stop().has_scalar_param());
  EXPECT_EQ(rest.step().constant(), 1);
  EXPECT_THAT(Kinds(rest.body()), ElementsAre(kLoad, kAdd, kStore));
}

TEST(PipelineLoopTest, StageOneIsAnOrdinaryLoop) {
  const auto piped = Compile(Kernel(RowCopy("pl.pipeline(8, stage=1)"), "k(a, out)\n"));
  const auto ranged = Compile(Kernel(RowCopy("pl.range(8)"), "k(a, out)\n"));
  ASSERT_EQ(piped.header().kernels_size(), 1);
  EXPECT_EQ(piped.header().kernels(0).program().SerializeAsString(),
            ranged.header().kernels(0).program().SerializeAsString());
  // No step check either: stage=1 replicates nothing.
  Compile(
      DynamicKernel("    for i in pl.pipeline(n - 1, -1, -1, stage=1):\n"
                    "        pl.store(pl.add(pl.load(a, [i, 0], [1, 16]), 1.0), [i, 0], out)\n") +
      ExpectRows("o7", "range(7)") + ExpectRows("o2", "range(2)"));
}

// Sums rows 0..9 of `a` (45 in every column) over `loop`, by rebinding.
std::string Accumulate(const std::string& loop) {
  return Kernel(
      "        acc = pl.mul(pl.load(a, [0, 0], [1, 16]), 0.0)\n"
      "        for i in " +
          loop +
          ":\n"
          "            acc = pl.add(acc, pl.load(a, [i, 0], [1, 16]))\n"
          "        pl.store(acc, [0, 0], out)\n",
      "k(a, out)\n"
      "assert float(out[0, 0]) == 45.0 and float(out[0, 15]) == 45.0\n");
}

TEST(PipelineLoopTest, ARebindingChainsThroughTheCopiesAndTheTail) {
  Compile(Accumulate("pl.range(10)"));
  const auto t = Compile(Accumulate("pl.pipeline(10, stage=4)"));
  // load, mul (the zeroed start), the loop, the tail's 2 x (load, add), the store.
  ASSERT_EQ(Ops(t).size(), 8);
  const trace::Op::Loop& loop = Ops(t)[2].loop();
  ASSERT_EQ(loop.carries_size(), 1);
  const trace::Op::Loop::Carry& c = loop.carries(0);
  ASSERT_THAT(Kinds(loop.body()), ElementsAre(kLoad, kAdd, kLoad, kAdd, kLoad, kAdd, kLoad, kAdd));
  // Copy 0 adds to the carried tile, copy k + 1 to copy k's sum; the last
  // copy's sum is the carry's next value.
  EXPECT_EQ(loop.body(1).srcs(0), c.tile());
  EXPECT_EQ(loop.body(3).srcs(0), loop.body(1).dst());
  EXPECT_EQ(loop.body(7).srcs(0), loop.body(5).dst());
  EXPECT_EQ(c.next(), loop.body(7).dst());
  // The tail continues from the loop's result.
  EXPECT_EQ(Ops(t)[4].srcs(0), c.tile());
  Compile(Accumulate("pl.pipeline(10, stage=3)"));
  Compile(Accumulate("pl.pipeline(10, stage=16)"));
}

TEST(PipelineLoopTest, InitValuesAndYieldChainThroughTheCopies) {
  const std::string harness =
      "k(a, out)\n"
      "assert float(out[0, 0]) == 46.0 and float(out[0, 15]) == 46.0\n";
  // 1 + rows 0..9.
  for (const char* loop :
       {"pl.range(10, init_values=(one,))", "pl.pipeline(10, stage=4, init_values=(one,))",
        "pl.pipeline(10, stage=2, init_values=(one,))",
        "pl.pipeline(10, stage=12, init_values=(one,))"}) {
    SCOPED_TRACE(loop);
    const auto t =
        Compile(Kernel(std::string("        one = pl.add(pl.mul(pl.load(a, [0, 0], [1, 16]), "
                                   "0.0), 1.0)\n"
                                   "        for i, (acc,) in ") +
                           loop +
                           ":\n"
                           "            total = pl.yield_(pl.add(acc, pl.load(a, [i, 0], [1, "
                           "16])))\n"
                           "        pl.store(total, [0, 0], out)\n",
                       harness));
    for (const trace::Op& op : Ops(t)) {
      if (op.kind() != trace::Op::LOOP) continue;
      ASSERT_EQ(op.loop().carries_size(), 1);
      EXPECT_EQ(op.loop().carries(0).next(),
                op.loop().body(op.loop().body_size() - 1).dst());  // the last copy's sum
    }
  }
  // Without a yield the rebound iter_arg is the result, as <iter_arg>_out.
  Compile(
      Kernel("        one = pl.add(pl.mul(pl.load(a, [0, 0], [1, 16]), 0.0), 1.0)\n"
             "        for i, (acc,) in pl.pipeline(10, stage=4, init_values=(one,)):\n"
             "            acc = pl.add(acc, pl.load(a, [i, 0], [1, 16]))\n"
             "        pl.store(acc_out, [0, 0], out)\n",
             harness));
}

TEST(PipelineLoopTest, CarriesCrossFromTheMainLoopIntoTheRemainderLoop) {
  // 1 + rows 0..n-1 into row 0: 22 for n = 7, 29 for n = 8, 2 for n = 2.
  const std::string sums =
      "assert float(o7[0, 3]) == 22.0 and float(o8[0, 3]) == 29.0 and float(o2[0, 3]) == 2.0\n";
  const auto t =
      Compile(DynamicKernel("    one = pl.add(pl.mul(pl.load(a, [0, 0], [1, 16]), 0.0), 1.0)\n"
                            "    for i, (acc,) in pl.pipeline(n, stage=4, init_values=(one,)):\n"
                            "        total = pl.yield_(pl.add(acc, pl.load(a, [i, 0], [1, 16])))\n"
                            "    pl.store(total, [0, 0], out)\n") +
              sums);
  std::vector<const trace::Op*> loops;
  for (const trace::Op& op : Ops(t)) {
    if (op.kind() == trace::Op::LOOP) loops.push_back(&op);
  }
  ASSERT_EQ(loops.size(), 2u);
  ASSERT_EQ(loops[1]->loop().carries_size(), 1);
  EXPECT_EQ(loops[1]->loop().carries(0).init(), loops[0]->loop().carries(0).tile());
  Compile(DynamicKernel("    acc = pl.add(pl.mul(pl.load(a, [0, 0], [1, 16]), 0.0), 1.0)\n"
                        "    for i in pl.pipeline(n, stage=3):\n"
                        "        acc = pl.add(acc, pl.load(a, [i, 0], [1, 16]))\n"
                        "    pl.store(acc, [0, 0], out)\n") +
          sums);
}

TEST(PipelineLoopTest, ATileFirstDefinedInThePipelineHoldsTheLastIterationAfterIt) {
  Compile(
      Kernel("        for i in pl.pipeline(7, stage=2):\n"
             "            last = pl.load(a, [i, 0], [1, 16])\n"
             "        pl.store(last, [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[0, 0]) == 6.0\n"));
  Compile(DynamicKernel("    for i in pl.pipeline(n, stage=4):\n"
                        "        last = pl.load(a, [i, 0], [1, 16])\n"
                        "    pl.store(last, [0, 0], out)\n") +
          "assert float(o7[0, 0]) == 6.0 and float(o8[0, 0]) == 7.0 and "
          "float(o2[0, 0]) == 1.0\n");
}

TEST(PipelineLoopTest, NestedPipelinesReplicateAtEachLevel) {
  const auto t =
      Compile(Kernel("        for i in pl.pipeline(4, stage=2):\n"
                     "            for j in pl.pipeline(2, stage=2):\n"
                     "                r = i * 2 + j\n"
                     "                t = pl.load(a, [r, 0], [1, 16])\n"
                     "                pl.store(pl.add(t, 1.0), [r, 0], out)\n",
                     "k(a, out)\n" + ExpectRows("out", "range(8)")));
  ASSERT_EQ(Ops(t).size(), 1);
  // Each of the outer loop's two copies holds the inner loop, itself two copies.
  const trace::Op::Loop& outer = Ops(t)[0].loop();
  ASSERT_THAT(Kinds(outer.body()), ElementsAre(trace::Op::LOOP, trace::Op::LOOP));
  EXPECT_EQ(outer.body(0).loop().body_size(), 6);
  EXPECT_NE(outer.body(0).loop().body(0).dst(), outer.body(1).loop().body(0).dst());
}

// ---- errors, each at the call or argument that causes it

TEST(PipelineLoopTest, StageIsRequiredPositiveAndALiteral) {
  EXPECT_THAT(CompileError(Kernel("        for i in pl.pipeline(8):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:6:21: error: pl.pipeline() requires stage=F"));
  EXPECT_THAT(CompileError(Kernel("        for i in pl.pipeline(8, stage=0):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:6:33: error: pl.pipeline() stage must be >= 1, got 0"));
  EXPECT_THAT(CompileError(Kernel("        for i in pl.pipeline(8, stage=-2):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("stage must be >= 1, got -2"));
  EXPECT_THAT(CompileError(Kernel("        s = 2\n"
                                  "        for i in pl.pipeline(8, stage=s):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:7:33: error: pl.pipeline() stage must be a compile-time integer "
                        "literal, got an expression (worth 2)"));
  EXPECT_THAT(CompileError(Kernel("        for j in pl.range(2, 4):\n"
                                  "            for i in pl.pipeline(8, stage=j):\n"
                                  "                pass\n",
                                  "k(a, out)\n")),
              HasSubstr("stage must be a compile-time integer literal, got device int"));
  EXPECT_THAT(CompileError(Kernel("        for i in pl.pipeline(8, stage=2.0):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("stage must be a compile-time integer literal, got float"));
}

TEST(PipelineLoopTest, StageBelongsToPipelineOnly) {
  for (const char* loop : {"range", "parallel", "unroll"}) {
    EXPECT_THAT(CompileError(Kernel(std::string("        for i in pl.") + loop +
                                        "(8, stage=2):\n"
                                        "            pass\n",
                                    "k(a, out)\n")),
                HasSubstr(absl::StrCat("error: stage= is only accepted on pl.pipeline(), not pl.",
                                       loop, "()")));
  }
}

TEST(PipelineLoopTest, PipelineIsForKernelBodies) {
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for i in pl.pipeline(4, stage=2):\n"
                           "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "            pl.store(pl.load(a, [i, 0], [1, 16]), [i, 0], out)\n"
                           "    return out\n"
                           "k(torch.zeros(4, 16), torch.zeros(4, 16))\n"),
              HasSubstr("bad.py:5:17: error: pl.pipeline is only valid in a kernel body"));
  EXPECT_THAT(EvaluateSnippetError(kPrelude, "for i in pl.pipeline(4, stage=2):\n    pass\n"),
              HasSubstr("bad.py:3:13: error: pl.pipeline is only valid in a kernel body"));
  // In a script CPython runs that loop: pypto stops it at once.
  EXPECT_THAT(CompileError("for i in pl.pipeline(4, stage=2):\n    pass\n"),
              HasSubstr("bad.py:3: error: pl.pipeline(4, stage=2) is a PyPTO DSL construct: it "
                        "runs inside a @pl.jit function"));
}

TEST(PipelineLoopTest, TheStepMustBeACompileTimeIntegerAndPositiveForDeviceBounds) {
  EXPECT_THAT(
      CompileError(DynamicKernel("    for i in pl.pipeline(0, 8, n, stage=2):\n"
                                 "        pl.store(pl.load(a, [i, 0], [1, 16]), [i, 0], out)\n")),
      HasSubstr("bad.py:5:32: error: pl.pipeline() step must be a compile-time integer, got "
                "device int"));
  EXPECT_THAT(
      CompileError(DynamicKernel("    for i in pl.pipeline(n, 0, -1, stage=2):\n"
                                 "        pl.store(pl.load(a, [i, 0], [1, 16]), [i, 0], out)\n")),
      HasSubstr("bad.py:5:32: error: pl.pipeline() with bounds known only on the device needs a "
                "step > 0, got -1"));
  EXPECT_THAT(CompileError(Kernel("        for i in pl.pipeline(0, 8, 0, stage=2):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:6:36: error: pl.pipeline() step must not be zero"));
}

}  // namespace
}  // namespace pto::ptoc
