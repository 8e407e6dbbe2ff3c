// Loop-carried values, values that cross tasks and Out parameters: the
// rebinding rules of PyPTO (docs/ptoc.md, "Loop carries"). Values are checked
// through the harness, which after a launch reads the device results that
// ptoc's reference computed with pto_sim's own tile executor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/interpreter.h"
#include "frontend/stream_summary.h"
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

// The loop ops of kernel `k`, outermost first in pre-order.
std::vector<const trace::Op*> Loops(const trace::TraceText& t, int k) {
  std::vector<const trace::Op*> loops;
  if (k >= t.header().kernels_size()) return loops;
  std::function<void(const google::protobuf::RepeatedPtrField<trace::Op>&)> walk =
      [&](const auto& ops) {
        for (const trace::Op& op : ops) {
          if (op.kind() != trace::Op::LOOP) continue;
          loops.push_back(&op);
          walk(op.loop().body());
        }
      };
  walk(t.header().kernels(k).program().ops());
  return loops;
}

// One [8, 16] FP32 input `a` (row r holds r) and one output, a jit function
// with the given task body.
std::string Kernel(const std::string& task_body, const std::string& harness) {
  return "@pl.jit\n"
         "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
         "    with pl.at(level=pl.Level.CORE_GROUP):\n" +
         task_body +
         "    return out\n"
         "a = torch.zeros(8, 16)\n"
         "for r in range(8):\n"
         "    for c in range(16):\n"
         "        a[r, c] = r\n"
         "out = torch.zeros(8, 16)\n" +
         harness;
}

TEST(LoopCarryTest, ARebindingCarriesTheValueAcrossAThousandIterations) {
  const auto t = Compile(
      "@pl.jit\n"
      "def count(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for b in pl.spmd(4):\n"
      "        acc = pl.load(a, [b * 8, 0], [8, 16])\n"
      "        for k in pl.range(1000):\n"
      "            acc = pl.add(acc, 1.0)\n"
      "        pl.store(acc, [b * 8, 0], out)\n"
      "    return out\n"
      "a = torch.zeros(32, 16)\n"
      "out = torch.zeros(32, 16)\n"
      "count(a, out)\n"
      "assert float(out[0, 0]) == 1000.0 and float(out[31, 15]) == 1000.0\n"
      "torch.testing.assert_close(out, torch.full((32, 16), 1000.0))\n");
  const auto loops = Loops(t, 0);
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_EQ(loops[0]->loop().carries_size(), 1);
  const trace::Op::Loop::Carry& c = loops[0]->loop().carries(0);
  EXPECT_EQ(c.name(), "acc");
  EXPECT_TRUE(c.has_init());
  // The carried tile is its own register; the body reads it and the add
  // produces the next value.
  EXPECT_NE(c.tile(), c.init());
  EXPECT_NE(c.tile(), c.next());
  const trace::Op& add = loops[0]->loop().body(0);
  EXPECT_EQ(add.kind(), trace::Op::ADD);
  EXPECT_EQ(add.srcs(0), c.tile());
  EXPECT_EQ(add.dst(), c.next());
}

TEST(LoopCarryTest, InitValuesAndYieldCarryAndTheInitNameKeepsItsValue) {
  // out = a + 4 * a; `t` (the init_values name) still holds a after the loop.
  Compile(
      Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
             "        for i, (acc,) in pl.range(4, init_values=(t,)):\n"
             "            total = pl.yield_(pl.add(acc, t))\n"
             "        pl.store(pl.sub(total, t), [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[3, 0]) == 12.0 and float(out[7, 15]) == 28.0\n"));
}

TEST(LoopCarryTest, AllCarriesOfALoopTakeTheirNextValuesAtOnce) {
  // Fibonacci by tuple rebinding: (f, g) <- (g, f + g) ten times from (0, 1).
  Compile(
      Kernel("        z = pl.mul(pl.load(a, [0, 0], [8, 16]), 0.0)\n"
             "        f = z\n"
             "        g = pl.add(z, 1.0)\n"
             "        for i in pl.range(10):\n"
             "            f, g = g, pl.add(f, g)\n"
             "        pl.store(pl.add(pl.mul(f, 1000.0), g), [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[5, 5]) == 55089.0\n"));  // f = 55, g = 89
}

TEST(LoopCarryTest, AZeroTripLoopLeavesTheInitialValue) {
  Compile(
      Kernel("        acc = pl.load(a, [0, 0], [8, 16])\n"
             "        for i in pl.range(3, 3):\n"
             "            acc = pl.add(acc, 100.0)\n"
             "        pl.store(acc, [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[2, 0]) == 2.0\n"));
}

TEST(LoopCarryTest, AValueFirstDefinedInTheLoopHoldsTheLastIterationAfterIt) {
  const auto t = Compile(
      Kernel("        for i in pl.range(3):\n"
             "            last = pl.load(a, [i, 0], [1, 16])\n"
             "            last = pl.mul(last, 2.0)\n"
             "        pl.store(last, [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[0, 0]) == 4.0 and float(out[0, 15]) == 4.0\n"));  // row 2, doubled
  const auto loops = Loops(t, 0);
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_EQ(loops[0]->loop().carries_size(), 1);
  EXPECT_FALSE(loops[0]->loop().carries(0).has_init());  // promoted: no initial value
}

TEST(LoopCarryTest, NestedLoopsCarryThroughEachOther) {
  // 3 outer x 4 inner additions of 1 on top of a.
  const auto t =
      Compile(Kernel("        acc = pl.load(a, [0, 0], [8, 16])\n"
                     "        for i in pl.range(3):\n"
                     "            for j in pl.parallel(4):\n"
                     "                acc = pl.add(acc, 1.0)\n"
                     "        pl.store(acc, [0, 0], out)\n",
                     "k(a, out)\n"
                     "assert float(out[6, 2]) == 18.0\n"));
  const auto loops = Loops(t, 0);
  ASSERT_EQ(loops.size(), 2u);
  ASSERT_EQ(loops[0]->loop().carries_size(), 1);
  ASSERT_EQ(loops[1]->loop().carries_size(), 1);
  // The outer carry's next value is what the inner loop leaves: its carry.
  EXPECT_EQ(loops[0]->loop().carries(0).next(), loops[1]->loop().carries(0).tile());
}

TEST(LoopCarryTest, WithoutYieldTheIterArgIsRebornAsNameOut) {
  Compile(
      Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
             "        for i, (acc,) in pl.range(2, init_values=(t,)):\n"
             "            acc = pl.add(acc, acc)\n"
             "        pl.store(acc_out, [0, 0], out)\n",
             "k(a, out)\n"
             "assert float(out[3, 0]) == 12.0\n"));
}

TEST(LoopCarryTest, ATensorThreadedThroughStoresIsCarriedAsItself) {
  // upstream tests/st/codegen/dsl/test_flatten_dynamic_tile_3d.py's form:
  // each chunk's store returns the tensor, which the loop yields on.
  const auto t =
      Compile(Kernel("        for c, (o,) in pl.range(0, 2, init_values=(out,)):\n"
                     "            r = pl.add(pl.load(a, [c * 4, 0], [4, 16]), 1.0)\n"
                     "            o_next = pl.yield_(pl.store(r, [c * 4, 0], o))\n",
                     "k(a, out)\n"
                     "assert float(out[5, 3]) == 6.0\n"));
  const auto loops = Loops(t, 0);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->loop().carries_size(), 0);  // no register: stores are the effect
  EXPECT_THAT(CompileError(Kernel("        for c, (o,) in pl.range(0, 2, init_values=(out,)):\n"
                                  "            o_next = pl.yield_(a)\n",
                                  "k(a, out)\n")),
              HasSubstr("the value carried as 'o' changes type: it enters the loop as tensor "
                        "'out' but the loop body makes it tensor 'a'"));
}

TEST(LoopCarryTest, OrchestrationLoopsCarryHostValuesTheSameWay) {
  Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for i, (s,) in pl.range(4, init_values=(0,)):\n"
      "        s_next = pl.yield_(s + i)\n"
      "    assert s_next == 6\n"
      "    for i, (z,) in pl.range(0, init_values=(7,)):\n"
      "        z_next = pl.yield_(z + 1)\n"
      "    assert z_next == 7\n"
      "    total = 0\n"
      "    for i in pl.range(5):\n"
      "        total = total + i\n"
      "    assert total == 10\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n"
      "    return out\n"
      "a = torch.ones(8, 16)\n"
      "out = torch.zeros(8, 16)\n"
      "k(a, out)\n");
}

TEST(LoopCarryTest, AValueAssignedInOnePlAtAndReadInTheNextCrossesThroughGm) {
  // examples/advanced/03_mixed_kernel.py's staged_matmul_bias, small.
  const auto t = Compile(
      "@pl.jit\n"
      "def staged(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"cube_only\"):\n"
      "        acc = pl.matmul(a, b, out_dtype=pl.FP32)\n"
      "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"vector_only\"):\n"
      "        out[:] = pl.add(acc, bias)\n"
      "    return out\n"
      "torch.manual_seed(0)\n"
      "a = torch.randn(32, 64, dtype=torch.float16)\n"
      "b = torch.randn(64, 32, dtype=torch.float16)\n"
      "bias = torch.randn(32, 32)\n"
      "out = torch.zeros(32, 32)\n"
      "staged(a, b, bias, out)\n"
      "torch.testing.assert_close(out, a.float() @ b.float() + bias, rtol=1e-2, atol=1e-2)\n");
  const auto launches = Summarize(t);
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(launches[0].tasks.size(), 2u);
  const TaskSummary& cube = launches[0].tasks[0];
  const TaskSummary& vector = launches[0].tasks[1];
  EXPECT_EQ(cube.core_type, trace::AIC);
  EXPECT_EQ(vector.core_type, trace::AIV);
  // The producer's last argument is the runtime-allocated intermediate; the
  // consumer reads it (creator retention orders them).
  ASSERT_EQ(cube.directions.size(), 3u);
  EXPECT_EQ(cube.directions[2], trace::OUTPUT);
  const uint32_t intermediate = cube.tensor_ids[2];
  EXPECT_EQ(t.header().tensors(intermediate).name(), "acc");
  EXPECT_THAT(vector.tensor_ids, testing::Contains(intermediate));
}

TEST(LoopCarryTest, ANameReboundBeforeItIsReadAgainIsNotAValueThatCrossesTasks) {
  const auto t =
      Compile(Kernel("        s = pl.load(a, [0, 0], [8, 16])\n"
                     "        pl.store(s, [0, 0], out)\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        s = pl.load(out, [0, 0], [8, 16])\n"
                     "        pl.store(pl.add(s, 1.0), [0, 0], out)\n",
                     "k(a, out)\n"
                     "assert float(out[4, 0]) == 5.0\n"));
  // Keep the summary alive: the loop would otherwise walk a destroyed temporary.
  const auto launches = Summarize(t);
  for (const TaskSummary& task : launches[0].tasks) {
    EXPECT_THAT(task.directions, testing::Not(testing::Contains(trace::OUTPUT)));
  }
}

// ---- errors, each at the line that causes it

TEST(LoopCarryTest, InitValuesMustMatchTheIterArgs) {
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i, (x,) in pl.range(4, init_values=(t, t)):\n"
                                  "            y = pl.yield_(x)\n"
                                  "        pl.store(t, [0, 0], out)\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:7:16: error: mismatch: 1 iter_args but 2 init_values"));
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i in pl.range(4, init_values=(t,)):\n"
                                  "            pass\n",
                                  "k(a, out)\n")),
              HasSubstr("for loop target must be a tuple when init_values is provided"));
  EXPECT_THAT(CompileError(Kernel("        for i, (x,) in pl.range(4, init_values=(0,)):\n"
                                  "            y = pl.yield_(x)\n",
                                  "k(a, out)\n")),
              HasSubstr("init_values[0] of a device loop is the int 0"));
  EXPECT_THAT(CompileError(Kernel("        for i, (x,) in pl.range(4, init_values=t):\n"
                                  "            pass\n",
                                  "t = 1\nk(a, out)\n")),
              HasSubstr("init_values must be a list or tuple"));
}

TEST(LoopCarryTest, YieldMustBeInsideALoopThatCarries) {
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        u = pl.yield_(t)\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:7:16: error: pl.yield_ outside a loop"));
  EXPECT_THAT(EvaluateSnippetError(kPrelude, "x = pl.yield_(1)\n"),
              HasSubstr("pl.yield_ outside a loop"));
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i in pl.range(4):\n"
                                  "            u = pl.yield_(t)\n",
                                  "k(a, out)\n")),
              HasSubstr("pl.yield_ in a loop without init_values="));
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i, (x,) in pl.range(4, init_values=(t,)):\n"
                                  "            pl.yield_(x)\n",
                                  "k(a, out)\n")),
              HasSubstr("requires an assignment-form pl.yield_"));
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i, (x,) in pl.range(4, init_values=(t,)):\n"
                                  "            y = pl.yield_(x, x)\n",
                                  "k(a, out)\n")),
              HasSubstr("pl.yield_ gives 2 value(s) but the loop carries 1"));
  // A yield in a task body cannot reach the orchestration loop around it.
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for i, (s,) in pl.range(2, init_values=(0,)):\n"
                           "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "            y = pl.yield_(s)\n"
                           "    return out\n"
                           "a = torch.ones(8, 16)\n"
                           "out = torch.zeros(8, 16)\n"
                           "k(a, out)\n"),
              HasSubstr("pl.yield_ outside a loop"));
}

TEST(LoopCarryTest, UnrollCarriesNothing) {
  EXPECT_THAT(CompileError(Kernel("        t = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i, (x,) in pl.unroll(4, init_values=(t,)):\n"
                                  "            y = pl.yield_(x)\n",
                                  "k(a, out)\n")),
              HasSubstr("pl.unroll() cannot be combined with init_values"));
}

TEST(LoopCarryTest, ACarryKeepsItsTypeAcrossIterations) {
  EXPECT_THAT(
      CompileError(
          Kernel("        acc = pl.load(a, [0, 0], [8, 16])\n"
                 "        for i in pl.range(4):\n"
                 "            acc = pl.row_sum(acc, pl.create_tile([8, 16], dtype=pl.FP32))\n"
                 "        pl.store(acc, [0, 0], out)\n",
                 "k(a, out)\n")),
      HasSubstr("bad.py:8:13: error: the value carried as 'acc' changes type: it enters the loop "
                "as a [8, 16] FP32 tile but the loop body makes it a [8, 1] FP32 tile"));
  EXPECT_THAT(CompileError(Kernel("        acc = pl.load(a, [0, 0], [8, 16])\n"
                                  "        for i in pl.range(4):\n"
                                  "            acc = pl.cast(acc, pl.FP16)\n",
                                  "k(a, out)\n")),
              HasSubstr("a [8, 16] FP16 tile"));
  EXPECT_THAT(CompileError(Kernel("        for i in pl.range(4):\n"
                                  "            a = pl.load(a, [0, 0], [8, 16])\n",
                                  "k(a, out)\n")),
              HasSubstr("enters the loop as tensor 'a' but the loop body makes it a [8, 16] FP32"));
  EXPECT_THAT(CompileError(Kernel("        n = 0\n"
                                  "        for i in pl.range(4):\n"
                                  "            n = n + i\n"
                                  "        pl.store(pl.load(a, [n, 0], [1, 16]), [0, 0], out)\n",
                                  "k(a, out)\n")),
              HasSubstr("bad.py:8:13: error: 'n' is read in this device loop before the body "
                        "rebinds it"));
}

TEST(LoopCarryTest, AnOutParameterReboundAndNeverStoredIsAnError) {
  // examples/utils/error_handling.py.
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def test_ssa_violation(x: pl.Tensor, result: pl.Out[pl.Tensor]):\n"
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        result = pl.mul(x, 2.0)\n"
                           "        result = pl.add(x, 1.0)\n"
                           "    return result\n"
                           "x = torch.randn(64)\n"
                           "result = torch.zeros(64)\n"
                           "test_ssa_violation(x, result)\n"),
              HasSubstr("bad.py:7:9: error: 'result' is a pl.Out parameter of "
                        "'test_ssa_violation', but this task rebinds the name to a tile and never "
                        "stores into the tensor"));
}

TEST(LoopCarryTest, ASpmdTileReadAfterTheTaskIsAnError) {
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for b in pl.spmd(2):\n"
                           "        t = pl.load(a, [b * 8, 0], [8, 16])\n"
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        pl.store(t, [0, 0], out)\n"
                           "    return out\n"
                           "a = torch.ones(16, 16)\n"
                           "out = torch.zeros(8, 16)\n"
                           "k(a, out)\n"),
              HasSubstr("bad.py:6:9: error: 't' is a tile of a pl.spmd body"));
}

TEST(LoopCarryTest, StrictSsaRejectsRebinding) {
  EXPECT_THAT(
      EvaluateSnippetError(kPrelude,
                           "@pl.program\n"
                           "class P:\n"
                           "    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)\n"
                           "    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "        t = pl.load(a, [0, 0], [8, 16])\n"
                           "        for i in pl.range(4):\n"
                           "            t = pl.add(t, 1.0)\n"
                           "        pl.store(t, [0, 0], out)\n"),
      HasSubstr("bad.py:9:13: error: variable 't' is already defined (line 7); "
                "strict_ssa=True binds every name once"));
}

}  // namespace
}  // namespace pto::ptoc
