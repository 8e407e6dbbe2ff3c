// Function forms in ptoc (hw-native-sys/pypto@e2d0f78a
// docs/en/user/language/01-functions.md): Opaque functions, which take their
// plane from where they are used; tensor-level ops inside pl.at; dict
// arguments of decorators; pl.function(external_source=) as an extern.
#include <string>

#include "frontend/testing/snippets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n";

trace::TraceText Compile(const std::string& body) { return CompileCleanSnippet(kPrelude, body); }
std::string CompileError(const std::string& body) { return CompileSnippetError(kPrelude, body); }

std::vector<const trace::Submit*> Submits(const trace::TraceText& t) {
  std::vector<const trace::Submit*> out;
  for (const trace::StreamRecord& r : t.records()) {
    if (r.has_submit()) out.push_back(&r.submit());
  }
  return out;
}

TEST(FunctionFormsTest, AnOpaqueProgramEntryIsTheOrchestrationAndItsScopesAreTasks) {
  // The upstream tests/st form: an Opaque `main` with two pl.at scopes of
  // tensor-level ops, each assembled into the output.
  const trace::TraceText t = Compile(
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.Opaque)\n"
      "    def main(self, x: pl.Tensor[[16, 16], pl.FP32],\n"
      "             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            y = pl.mul(x, 2.0)\n"
      "            out = pl.assemble(out, y, [0, 0])\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            z = pl.adds(pl.slice(out, [8, 16], [0, 0]), 1.0)\n"
      "            out = pl.assemble(out, z, [0, 0])\n"
      "        return out\n"
      "x = torch.randn(16, 16)\n"
      "out = torch.zeros(16, 16)\n"
      "P.main(x, out)\n"
      "e = x * 2\n"
      "e[:8] += 1\n"
      "torch.testing.assert_close(out, e)\n");
  ASSERT_EQ(Submits(t).size(), 2u);
}

TEST(FunctionFormsTest, AnOpaqueCalleeRunsInTheOrchestrationNotInlinedIntoATask) {
  // `stage` holds two scopes: called from the orchestration they are two
  // tasks; called inside a pl.at body it is part of that one task.
  const std::string program =
      "@pl.program\n"
      "class P:\n"
      "    @pl.function\n"
      "    def stage(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            out = pl.assemble(out, pl.add(x, 1.0), [0, 0])\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            out = pl.assemble(out, pl.mul(out, 3.0), [0, 0])\n"
      "        return out\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        out = self.stage(x, out)\n"
      "        return out\n"
      "x = torch.randn(16, 16)\n"
      "out = torch.zeros(16, 16)\n"
      "P.main(x, out)\n"
      "torch.testing.assert_close(out, (x + 1) * 3)\n";
  EXPECT_EQ(Submits(Compile(program)).size(), 2u);

  const trace::TraceText helper = Compile(
      "@pl.jit.opaque\n"
      "def scale(t, s):\n"
      "    return pl.mul(t, s)\n"
      "@pl.jit\n"
      "def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        t = pl.load(x, [0, 0], [16, 16])\n"
      "        pl.store(scale(t, 0.5), [0, 0], out)\n"
      "    return out\n"
      "x = torch.randn(16, 16)\n"
      "out = torch.zeros(16, 16)\n"
      "k(x, out)\n"
      "torch.testing.assert_close(out, x * 0.5)\n");
  EXPECT_EQ(Submits(helper).size(), 1u);
}

TEST(FunctionFormsTest, AnOpaqueFunctionCalledWhereNoPlaneCanBeTakenIsAnError) {
  // From CPython: the host gives an Opaque function no plane.
  EXPECT_THAT(CompileError("@pl.jit.opaque\n"
                           "def f(x: pl.Tensor):\n"
                           "    return x\n"
                           "f(torch.zeros(4, 4))\n"),
              HasSubstr("Opaque function 'f' takes its plane from its caller, and the host "
                        "gives it none"));
  // ptoc's own evaluator says the same, at the call.
  EXPECT_THAT(EvaluateSnippetError(kPrelude,
                                   "@pl.function\n"
                                   "def f(x: pl.Tensor):\n"
                                   "    return x\n"
                                   "f(1)\n"),
              HasSubstr("bad.py:6:1: error: Opaque function 'f' takes its plane from its caller"));
}

TEST(FunctionFormsTest, TensorLevelOpsInsideAScopeBecomeTheTasksTiles) {
  // advanced/01_split_k's form: a zero-filled output (pl.full), tensor
  // slices at compile-time offsets, atomic-add assembles; the atomic add
  // reads the output, so every slice task depends on the zero fill.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        c = pl.assemble(c, pl.full([16, 16], dtype=pl.FP32, value=0.0), [0, 0])\n"
      "    for ks in pl.parallel(0, 4):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            k0 = ks * 32\n"
      "            part = pl.matmul(a[:, k0:k0 + 32], b[k0:k0 + 32, :], out_dtype=pl.FP32)\n"
      "            c = pl.assemble(c, part, [0, 0], atomic=pl.AtomicType.Add)\n"
      "    return c\n"
      "a = torch.randn(16, 128)\n"
      "b = torch.randn(128, 16)\n"
      "c = torch.full((16, 16), 7.0)\n"
      "k(a, b, c)\n"
      "torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)\n");
  const auto submits = Submits(t);
  ASSERT_EQ(submits.size(), 5u);
  // Slice ks reads a at column 32 * ks and b at row 32 * ks; c is INOUT.
  EXPECT_EQ(submits[3]->args(0).tensor().offsets(1), 64);
  EXPECT_EQ(submits[3]->args(1).tensor().offsets(0), 64);
  EXPECT_EQ(submits[3]->args(2).tensor().direction(), trace::INOUT);
  // pl.create_tensor in a task body is the task's own Vec tile.
  const trace::TraceText local = Compile(
      "@pl.jit\n"
      "def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        acc = pl.create_tensor([8, 8], dtype=pl.FP32, init_value=2.0)\n"
      "        out = pl.assemble(out, pl.mul(acc, x), [0, 0])\n"
      "    return out\n"
      "x = torch.randn(8, 8)\n"
      "out = torch.zeros(8, 8)\n"
      "k(x, out)\n"
      "torch.testing.assert_close(out, x * 2)\n");
  EXPECT_EQ(local.header().tensors_size(), 2);  // x and out: nothing in GM
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        out = pl.assemble(out, pl.mul(x[0:8:2, :], 1.0), [0, 0])\n"
                           "    return out\n"
                           "k(torch.zeros(8, 8), torch.zeros(4, 8))\n"),
              HasSubstr("a tensor slice takes step 1"));
}

TEST(FunctionFormsTest, Qwen3sProjectionFormAccumulatesThroughADeviceIf) {
  // examples/models/qwen3_jit/kernels/projection.py's form: a pl.create_tensor
  // accumulator rebound in a pipelined K loop by a device `if k0 == 0:
  // matmul else: matmul_acc` (a loop carry and a phi of one create_tensor,
  // all placed in Acc by the matmul_acc), windows whose extent is
  // (j + 1) * n - j * n, and a residual add after the loop: a MIX kernel
  // whose vector side reads the phi's value across the ring.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(x: pl.Tensor, w: pl.Tensor, r: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for j in pl.parallel(0, 2):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            acc = pl.create_tensor([16, 32], dtype=pl.FP32)\n"
      "            for kb in pl.pipeline(0, 4, stage=2):\n"
      "                k0 = kb * 16\n"
      "                a = x[:, k0:k0 + 16]\n"
      "                b = w[k0:k0 + 16, j * 32:(j + 1) * 32]\n"
      "                if k0 == 0:\n"
      "                    acc = pl.matmul(a, b, out_dtype=pl.FP32)\n"
      "                else:\n"
      "                    acc = pl.matmul_acc(acc, a, b)\n"
      "            out = pl.assemble(out, pl.add(acc, r[:, j * 32:(j + 1) * 32]), [0, j * 32])\n"
      "    return out\n"
      "x = torch.randn(16, 64)\n"
      "w = torch.randn(64, 64)\n"
      "r = torch.randn(16, 64)\n"
      "out = torch.zeros(16, 64)\n"
      "k(x, w, r, out)\n"
      "torch.testing.assert_close(out, x @ w + r, rtol=1e-4, atol=1e-4)\n");
  ASSERT_EQ(t.header().kernels_size(), 1);
  const trace::Kernel& kernel = t.header().kernels(0);
  EXPECT_EQ(kernel.core_type(), trace::MIX);
  int accs = 0;
  for (const trace::TileDecl& tile : kernel.program().tiles()) accs += tile.space() == trace::ACC;
  EXPECT_GE(accs, 4);  // the created tile, its carry, the phi and the arms' results
}

TEST(FunctionFormsTest, DecoratorDictsSetTheSplitAndDictsWorkInKernels) {
  const trace::TraceText t = Compile(
      "TILE = {'rows': 32, 'cols': 64}\n"
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.InCore, attrs={'split': pl.SplitMode.UP_DOWN})\n"
      "    def mm(self, a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        shape = [TILE['rows'], TILE.get('cols', 0)]\n"
      "        ta = pl.load(a, [0, 0], shape)\n"
      "        tb = pl.load(b, [0, 0], [64, 64])\n"
      "        acc = pl.matmul(ta, tb, out_dtype=pl.FP32)\n"
      "        pl.store(pl.muls(acc, float(len(TILE))), [0, 0], out)\n"
      "        return out\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        out = self.mm(a, b, out)\n"
      "        return out\n"
      "a = torch.randn(32, 64)\n"
      "b = torch.randn(64, 64)\n"
      "out = torch.zeros(32, 64)\n"
      "P.main(a, b, out)\n"
      "torch.testing.assert_close(out, (a @ b) * 2, rtol=1e-4, atol=1e-4)\n");
  ASSERT_EQ(t.header().kernels_size(), 1);
  EXPECT_EQ(t.header().kernels(0).core_type(), trace::MIX);
  EXPECT_EQ(t.header().kernels(0).program().split(), trace::SPLIT_UP_DOWN);
  EXPECT_THAT(EvaluateSnippetError(kPrelude,
                                   "@pl.program\n"
                                   "class P:\n"
                                   "    @pl.function(type=pl.FunctionType.InCore, "
                                   "attrs={'tiles': 4})\n"
                                   "    def k(self, x: pl.Tensor):\n"
                                   "        return x\n"),
              HasSubstr("pl.function attrs key 'tiles' is not supported by ptoc; supported: "
                        "split"));
}

TEST(FunctionFormsTest, AnExternalSourceIsAnExternKnownByItsCost) {
  const trace::TraceText t = Compile(
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.AIV, external_source='k.cpp',\n"
      "                 vector_elements=4096, bytes_in=16384, bytes_out=16384)\n"
      "    def vendor(self, x: pl.Tensor, out: pl.Out[pl.Tensor]): ...\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "        self.vendor(x, out)\n"
      "        return out\n"
      "P.main(torch.zeros(64, 64), torch.zeros(64, 64))\n");
  ASSERT_EQ(t.header().kernels_size(), 1);
  EXPECT_EQ(t.header().kernels(0).core_type(), trace::AIV);
  EXPECT_EQ(t.header().kernels(0).cost().vector_elements(), 4096);
  EXPECT_EQ(t.header().kernels(0).cost().bytes_in(), 16384u);
  EXPECT_THAT(CompileError("@pl.program\n"
                           "class P:\n"
                           "    @pl.function(type=pl.FunctionType.AIV, external_source='k.cpp')\n"
                           "    def vendor(self, x: pl.Tensor, out: pl.Out[pl.Tensor]): ...\n"
                           "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                           "    def main(self, x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "        self.vendor(x, out)\n"
                           "        return out\n"
                           "P.main(torch.zeros(4, 4), torch.zeros(4, 4))\n"),
              HasSubstr("pl.function(external_source=...) needs a cost summary"));
}

TEST(FunctionFormsTest, AClampedLoadCutsItsValidRegionAtTheSourceEdge) {
  // Rows 24..31 of the 32-row tile lie past the 24-row source: they are not
  // read, and the store of the partly valid tile writes only the valid rows.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        t = pl.load(x, [8, 0], [32, 16], clamp=True)\n"
      "        pl.store(pl.muls(t, 2.0), [0, 0], out)\n"
      "    return out\n"
      "x = torch.randn(32, 16)\n"
      "out = torch.full((32, 16), 9.0)\n"
      "k(x, out)\n"
      "e = torch.full((32, 16), 9.0)\n"
      "e[:24] = x[8:] * 2\n"
      "torch.testing.assert_close(out, e)\n");
  const trace::Op& load = t.header().kernels(0).program().ops(0);
  ASSERT_EQ(load.valid_shape_size(), 2);
  EXPECT_EQ(load.valid_shape(0).constant(), 24);
  EXPECT_EQ(load.valid_shape(1).constant(), 16);
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        pl.store(pl.load(x, [8, 0], [32, 16]), [0, 0], out)\n"
                           "    return out\n"
                           "k(torch.zeros(32, 16), torch.zeros(32, 16))\n"),
              HasSubstr("pl.load(..., clamp=True) cuts the read at the edge"));
}

TEST(FunctionFormsTest, ArgumentsDisagreeingOnADynamicDimRunWithAWarning) {
  // Upstream binds each argument's own shape (its test_dyn_orch_shape.py
  // passes a flat [M] and an [M, N] under one M): a warning, not an error.
  std::vector<std::string> warnings;
  CompileSnippet(
      kPrelude,
      "M = pl.dynamic('M')\n"
      "@pl.jit\n"
      "def main(a: pl.Tensor[[M, 8], pl.FP32], out: pl.Out[pl.Tensor[[M, 8], pl.FP32]]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.load(a, [0, 0], [16, 8]), [0, 0], out)\n"
      "    return out\n"
      "a = torch.randn(16, 8)\n"
      "out = torch.zeros(32, 8)\n"
      "main(a, out)\n"
      "torch.testing.assert_close(out[:16], a)\n",
      &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("pl.dynamic dimension 'M' is 32 here (argument 'out', dim 0) "
                                     "but 16 in argument 'a' (dim 0); each argument keeps its own "
                                     "shape"));
}

}  // namespace
}  // namespace pto::ptoc
