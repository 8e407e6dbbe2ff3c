// Interpreter unit tests: every construct of the subset, the pl lowering
// rules, and the errors for what is outside the subset.
#include "frontend/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "frontend/parser.h"
#include "frontend/stream_summary.h"
#include "frontend/testing/compile.h"
#include "frontend/testing/snippets.h"
#include "proto/stream_version.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n"
    "from pypto.runtime import RunConfig\n";

// A script: its kernels compiled by ptoc, its harness run by CPython.
trace::TraceText Compile(const std::string& body, std::vector<std::string>* warnings = nullptr) {
  return CompileSnippet(kPrelude, body, warnings);
}

std::string CompileError(const std::string& body) { return CompileSnippetError(kPrelude, body); }

// The Python subset @pl.jit bodies are written in, run by ptoc's evaluator
// alone (module-level statements, in process).
void Evaluate(const std::string& body) {
  const absl::Status s = RunDslModule("t.py", kPrelude + body);
  EXPECT_TRUE(s.ok()) << s;
}

std::string EvaluateError(const std::string& body) { return EvaluateSnippetError(kPrelude, body); }

// ---- the Python subset, checked with asserts the evaluator runs

TEST(InterpreterTest, ConstantsTupleAssignmentAndArithmetic) {
  Evaluate(
      "A, B, C = 4, 64, 128\n"
      "ROWS = A * B\n"
      "assert ROWS == 256\n"
      "assert 7 // 2 == 3 and -7 // 2 == -4 and -7 % 3 == 2 and 7 % -3 == -2\n"
      "assert 2 ** 10 == 1024 and 1e-4 < 0.001 and 0x10 == 16 and 1_000 == 1000\n"
      "assert 7 / 2 == 3.5\n"
      "x = y = 3\n"
      "x += 2\n"
      "assert x == 5 and y == 3\n");
}

TEST(InterpreterTest, ComparisonsBooleansAndConditionalExpressions) {
  Evaluate(
      "assert 1 < 2 <= 2 < 3\n"
      "assert not (1 > 2)\n"
      "assert (0 or 5) == 5 and (3 and 0) == 0\n"
      "assert (1 if True else 2) == 1\n"
      "assert None is None and 3 is not None\n"
      "assert 2 in (1, 2, 3) and 4 not in [1, 2]\n");
}

TEST(InterpreterTest, TuplesListsComprehensionsSubscriptsSlices) {
  Evaluate(
      "t = (1, 2, 3)\n"
      "l = [x * x for x in range(5) if x % 2 == 0]\n"
      "assert l == [0, 4, 16]\n"
      "assert t[-1] == 3 and t[1:] == (2, 3) and l[::2] == [0, 16]\n"
      "assert [(i, j) for i in range(2) for j in range(2)] == [(0, 0), (0, 1), (1, 0), (1, 1)]\n"
      "l[0] = 9\n"
      "assert l[0] == 9 and len(l) == 3 and sum(l) == 29 and max(l) == 16 and min(3, 1) == 1\n"
      "a, (b, c) = 1, (2, 3)\n"
      "assert c == 3\n");
}

TEST(InterpreterTest, ForLoopsIfElifElseBreakContinue) {
  Evaluate(
      "total = 0\n"
      "for i in range(10):\n"
      "    if i == 7:\n"
      "        break\n"
      "    elif i % 2:\n"
      "        continue\n"
      "    else:\n"
      "        total += i\n"
      "assert total == 0 + 2 + 4 + 6\n"
      "names = []\n"
      "for k, v in enumerate(('a', 'b')):\n"
      "    names = names + [v]\n"
      "assert names == ['a', 'b']\n");
}

TEST(InterpreterTest, FunctionsKeywordsDefaultsClosuresAndReturns) {
  Evaluate(
      "def scale(x, factor=2):\n"
      "    \"\"\"Docstring.\"\"\"\n"
      "    return x * factor\n"
      "def outer(n):\n"
      "    def inner(k):\n"
      "        return n + k\n"
      "    return inner(1)\n"
      "assert scale(3) == 6 and scale(3, factor=10) == 30 and outer(4) == 5\n"
      "def pair():\n"
      "    return 1, 2\n"
      "p, q = pair()\n"
      "assert q == 2\n");
}

TEST(InterpreterTest, FailingAssertIsAnErrorWithLocation) {
  EXPECT_THAT(EvaluateError("x = 1\nassert x == 2, 'x must be 2'\n"),
              HasSubstr("bad.py:5:1: error: assertion failed: x must be 2"));
}

// ---- pl lowering

constexpr char kAddKernel[] =
    "@pl.jit\n"
    "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), 1.0), [0, 0], out)\n"
    "    return out\n";

TEST(InterpreterTest, AnnotatedAssignmentsAndShapedTensorAnnotations) {
  trace::TraceText t = Compile(
      "R, C = 16, 16\n"
      "@pl.jit\n"
      "def k(a: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        t: pl.Tile[[R, C], pl.FP32] = pl.load(a, [0, 0], [R, C])\n"
      "        u: pl.Tile[[R, C], pl.FP32] = t * 3.0\n"
      "        pl.store(u, [0, 0], out)\n"
      "    n: int = 2\n"
      "    return out\n"
      "out = torch.zeros(R, C)\n"
      "k(torch.ones(R, C), out)\n"
      "assert float(out[0, 0]) == 3.0\n");
  auto l = Summarize(t)[0];
  ASSERT_EQ(l.tasks.size(), 1u);
  EXPECT_THAT(l.tasks[0].directions, ElementsAre(trace::INPUT, trace::OUTPUT_EXISTING));
}

TEST(InterpreterTest, ReferenceResultsFeedLaterHarnessLines) {
  std::vector<std::string> warnings;
  trace::TraceText t = Compile(std::string(kAddKernel) +
                                   "a = torch.ones(16, 16)\n"
                                   "out = torch.zeros(16, 16)\n"
                                   "k(a, out)\n"
                                   "assert float(out[3, 4]) == 2.0\n"
                                   "torch.testing.assert_close(out, a + 1.0)\n"
                                   "out2 = torch.zeros(16, 16)\n"
                                   "k(out + 1.0, out2)\n"
                                   "assert float(out2[0, 0]) == 4.0\n",
                               &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  int checks = 0;
  for (const auto& r : t.records()) checks += r.has_check();
  EXPECT_EQ(checks, 1);
}

// A check that fails on the simulated result is recorded all the same (its
// replay exits 1) and the run says where.
TEST(InterpreterTest, AFailingCheckIsAWarningAndIsStillRecorded) {
  std::vector<std::string> warnings;
  trace::TraceText t = Compile(std::string(kAddKernel) +
                                   "a = torch.ones(16, 16)\n"
                                   "out = torch.zeros(16, 16)\n"
                                   "k(a, out)\n"
                                   "torch.testing.assert_close(out, a * 5.0)\n",
                               &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("t.py:12: check 'torch.testing.assert_close(out, a * 5.0)' "
                                     "fails on the simulated result (recorded; the replay "
                                     "exits 1)"));
  int checks = 0;
  for (const auto& r : t.records()) checks += r.has_check();
  EXPECT_EQ(checks, 1);
}

// The test helper itself: what Compile() returns has passed pto_sim's reader,
// and a stream the reader refuses is caught.
TEST(InterpreterTest, CompiledStreamsAreValidatedByPtoSimsReader) {
  trace::TraceText t = Compile(std::string(kAddKernel) +
                               "out = torch.zeros(16, 16)\n"
                               "k(torch.ones(16, 16), out)\n");
  EXPECT_TRUE(ValidateForPtoSim(t, "t.py").ok());
  trace::TraceText old = t;
  old.mutable_header()->set_version(kTaskStreamVersion - 1);
  EXPECT_THAT(std::string(ValidateForPtoSim(old, "t.py").message()),
              HasSubstr(absl::StrCat("t.py: header: version: is ", kTaskStreamVersion - 1,
                                     "; expected ", kTaskStreamVersion)));
  trace::TraceText bad_kernel = t;
  ASSERT_GT(bad_kernel.header().kernels_size(), 0);
  bad_kernel.mutable_header()->mutable_kernels(0)->mutable_program()->add_ops()->set_dst(99);
  EXPECT_FALSE(ValidateForPtoSim(bad_kernel, "t.py").ok());
}

// pto_sim reads tensors of rank 1..5 with no empty dim; ptoc says so where the
// tensor enters the launch, instead of writing a stream pto_sim refuses.
TEST(InterpreterTest, GmTensorsHaveTheRuntimesRankAndNoEmptyDim) {
  EXPECT_THAT(CompileError(std::string(kAddKernel) + "h = torch.zeros(1, 1, 1, 1, 1, 1)\n"
                                                     "k(h, torch.zeros(16, 16))\n"),
              HasSubstr("error: tensor 'h' has rank 6; a GM tensor of the runtime has 1 to 5 "
                        "dims (MAX_TENSOR_DIMS)"));
  EXPECT_THAT(CompileError(std::string(kAddKernel) + "z = torch.zeros(0, 16)\n"
                                                     "k(z, torch.zeros(16, 16))\n"),
              HasSubstr("error: tensor 'z' has size 0 in dim 0; the runtime allocates no empty "
                        "tensors"));
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(out: pl.Out[pl.Tensor]):\n"
                           "    s = pl.create_tensor([4, 0], pl.FP32)\n"
                           "    return out\n"
                           "k(torch.zeros(4, 4))\n"),
              HasSubstr("the tensor of pl.create_tensor has size 0 in dim 1"));
}

// out = sqrt(a) with a[0, 1] < 0: the reference makes a NaN there.
constexpr char kSqrtKernel[] =
    "@pl.jit\n"
    "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        pl.store(pl.sqrt(pl.load(a, [0, 0], [16, 16])), [0, 0], out)\n"
    "    return out\n"
    "a = torch.ones(16, 16)\n"
    "a[0, 1] = -1.0\n"
    "out = torch.zeros(16, 16)\n"
    "k(a, out)\n"
    "expected = out.clone()\n";

const trace::Check* OnlyCheck(const trace::TraceText& t) {
  const trace::Check* found = nullptr;
  for (const auto& r : t.records()) {
    if (!r.has_check()) continue;
    EXPECT_EQ(found, nullptr) << "more than one check";
    found = &r.check();
  }
  EXPECT_NE(found, nullptr) << "no check";
  return found;
}

TEST(InterpreterTest, AssertCloseRecordsEqualNan) {
  std::vector<std::string> warnings;
  trace::TraceText t = Compile(
      std::string(kSqrtKernel) + "torch.testing.assert_close(out, expected, equal_nan=True)\n",
      &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];  // NaN == NaN by the same rule
  const trace::Check* check = OnlyCheck(t);
  ASSERT_NE(check, nullptr);
  EXPECT_TRUE(check->equal_nan());

  t = Compile(std::string(kSqrtKernel) + "torch.testing.assert_close(out, expected)\n");
  check = OnlyCheck(t);
  ASSERT_NE(check, nullptr);
  EXPECT_FALSE(check->equal_nan());  // torch's default
}

TEST(InterpreterTest, IncoreKernelScalarParamsAndDeclaredDirections) {
  trace::TraceText t = Compile(
      "@pl.jit.incore\n"
      "def scale(x: pl.Tensor, y: pl.InOut[pl.Tensor], s: pl.Scalar[pl.FP32]):\n"
      "    pl.store(pl.mul(pl.load(x, [0, 0], [16, 16]), s), [0, 0], y)\n"
      "@pl.jit\n"
      "def f(a: pl.Tensor, b: pl.Out[pl.Tensor]):\n"
      "    scale(a, b, 3.0)\n"
      "    return b\n"
      "f(torch.ones(16, 16), torch.zeros(16, 16))\n");
  auto launches = Summarize(t);
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(launches[0].tasks.size(), 1u);
  EXPECT_EQ(launches[0].tasks[0].name, "scale");
  EXPECT_THAT(launches[0].tasks[0].directions, ElementsAre(trace::INPUT, trace::INOUT));
  const auto& submit = t.records(2).submit();
  ASSERT_EQ(submit.args_size(), 3);
  EXPECT_DOUBLE_EQ(submit.args(2).scalar().f(), 3.0);
  const auto& program = t.header().kernels(0).program();
  EXPECT_EQ(program.params(2).kind(), trace::KernelParam::SCALAR);
  EXPECT_EQ(program.ops(1).scalar().scalar_param(), 2u);
}

TEST(InterpreterTest, ParallelBodiesAreScopesWithoutRSeqAndIfBranchesAreScopes) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for i in pl.parallel(2):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            pl.store(pl.load(a, [i * 16, 0], [16, 16]), [i * 16, 0], out)\n"
      "    if True:\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)\n"
      "    return out\n"
      "f(torch.ones(32, 16), torch.zeros(32, 16))\n");
  auto l = Summarize(t)[0];
  EXPECT_EQ(l.scope_shape, "A1 A2 T E2 A2 T E2 A2 T E2 E1 ");
  ASSERT_EQ(l.tasks.size(), 3u);
  // Each parallel iteration is its own scope and not sequential: no R-seq,
  // no R-prior.
  EXPECT_EQ(l.tasks[0].directions[1], trace::OUTPUT_EXISTING);
  EXPECT_EQ(l.tasks[1].directions[1], trace::OUTPUT_EXISTING);
  EXPECT_EQ(l.tasks[2].scope_depth, 2u);
}

TEST(InterpreterTest, InOutJitParamMakesOutArgsInoutByREnclosing) {
  auto l =
      Summarize(Compile("@pl.jit\n"
                        "def f(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n"
                        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)\n"
                        "    return out\n"
                        "f(torch.ones(16, 16), torch.zeros(16, 16))\n"))[0];
  EXPECT_THAT(l.tasks[0].directions, ElementsAre(trace::INPUT, trace::INOUT));
}

TEST(InterpreterTest, SymbolicBlockCountSyncStartDummiesAndPerIndexDeps) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    tids = pl.array.create(2, pl.TASK_ID)\n"
      "    for i in pl.unroll(2):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP, name_hint='w') as tid:\n"
      "            pl.store(pl.load(a, [i * 16, 0], [16, 16]), [i * 16, 0], out)\n"
      "        tids[i] = tid\n"
      "    d = pl.system.task_dummy(deps=[tids[k] for k in range(2)])\n"
      "    skipped = pl.system.task_dummy(deps=[None])\n"
      "    with pl.spmd(pl.system.available_aiv_count(), sync_start=True, deps=[d, skipped]) as "
      "s:\n"
      "        i = pl.tile.get_block_idx()\n"
      "        pl.system.syncall(core_type=pl.KernelType.AIV)\n"
      "    return out\n"
      "f(torch.ones(32, 16), torch.zeros(32, 16))\n");
  auto l = Summarize(t)[0];
  ASSERT_EQ(l.tasks.size(), 4u);  // two writers, one dummy (the all-invalid one is skipped), spmd
  EXPECT_EQ(l.tasks[0].name, "w");
  EXPECT_EQ(l.tasks[2].kind, "dummy");
  EXPECT_THAT(l.tasks[2].deps, ElementsAre(0u, 1u));
  const TaskSummary& spmd = l.tasks[3];
  EXPECT_EQ(spmd.block_num, 0);
  EXPECT_EQ(spmd.block_symbol, trace::AVAILABLE_AIV);
  EXPECT_TRUE(spmd.sync_start);
  EXPECT_THAT(spmd.deps, ElementsAre(2u));
}

TEST(InterpreterTest, MixedKernelIsOneMixTaskWithEnginesAndSplit) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP,\n"
      "               optimizations=[pl.split(pl.SplitMode.UP_DOWN), "
      "pl.cross_core_slot(slot_num=2)]):\n"
      "        acc = pl.matmul(a, b, out_dtype=pl.FP32)\n"
      "        out[:] = pl.add(acc, bias)\n"
      "    return out\n"
      "a = torch.ones(32, 16, dtype=torch.float16)\n"
      "b = torch.ones(16, 32, dtype=torch.float16)\n"
      "bias = torch.ones(32, 32)\n"
      "out = torch.zeros(32, 32)\n"
      "f(a, b, bias, out)\n"
      "torch.testing.assert_close(out, a.float() @ b.float() + bias, rtol=1e-2, atol=1e-2)\n");
  ASSERT_EQ(t.header().kernels_size(), 1);
  const trace::Kernel& k = t.header().kernels(0);
  EXPECT_EQ(k.core_type(), trace::MIX);
  EXPECT_EQ(k.program().split(), trace::SPLIT_UP_DOWN);
  EXPECT_EQ(k.program().slot_num(), 2u);
  std::vector<std::pair<trace::Op::Kind, trace::Engine>> ops;
  for (const auto& op : k.program().ops()) ops.emplace_back(op.kind(), op.engine());
  EXPECT_THAT(ops, ElementsAre(std::pair{trace::Op::LOAD, trace::ENGINE_CUBE},
                               std::pair{trace::Op::LOAD, trace::ENGINE_CUBE},
                               std::pair{trace::Op::MATMUL, trace::ENGINE_CUBE},
                               std::pair{trace::Op::LOAD, trace::ENGINE_VECTOR},
                               std::pair{trace::Op::ADD, trace::ENGINE_VECTOR},
                               std::pair{trace::Op::STORE, trace::ENGINE_VECTOR}));
  EXPECT_EQ(k.program().tiles(0).space(), trace::MAT);
  EXPECT_EQ(k.program().tiles(2).space(), trace::ACC);
  const auto& submit = t.records(2).submit();
  EXPECT_THAT(submit.kernel_ids(), ElementsAre(0, 0, 0));
}

// pl.relu is max(x, 0) and pl.maximums / pl.minimums take a tile and a
// scalar: one vector MAX / MIN each, checked against torch in the script.
TEST(InterpreterTest, ReluMaximumsAndMinimumsAreVectorMaxAndMinWithAScalar) {
  trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      "@pl.jit\n"
      "def f(a: pl.Tensor, r: pl.Out[pl.Tensor], hi: pl.Out[pl.Tensor], lo: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        x = pl.load(a, [0, 0], [16, 16])\n"
      "        pl.store(pl.relu(x), [0, 0], r)\n"
      "        pl.store(pl.maximums(x, 0.5), [0, 0], hi)\n"
      "        pl.store(pl.minimums(lhs=x, rhs=-0.5), [0, 0], lo)\n"
      "    return r\n"
      "a = torch.randn(16, 16)\n"
      "r, hi, lo = torch.zeros(16, 16), torch.zeros(16, 16), torch.zeros(16, 16)\n"
      "f(a, r, hi, lo)\n"
      "torch.testing.assert_close(r, torch.relu(a))\n"
      "torch.testing.assert_close(hi, torch.clamp(a, min=0.5))\n"
      "torch.testing.assert_close(lo, torch.clamp(a, max=-0.5))\n");
  ASSERT_EQ(t.header().kernels_size(), 1);
  std::vector<std::pair<trace::Op::Kind, double>> ops;
  for (const auto& op : t.header().kernels(0).program().ops()) {
    if (op.kind() == trace::Op::MAX || op.kind() == trace::Op::MIN) {
      EXPECT_EQ(op.srcs_size(), 1);
      ops.emplace_back(op.kind(), op.scalar().literal());
    }
  }
  EXPECT_THAT(ops, ElementsAre(std::pair{trace::Op::MAX, 0.0}, std::pair{trace::Op::MAX, 0.5},
                               std::pair{trace::Op::MIN, -0.5}));
  int checks = 0;
  for (const auto& r : t.records()) checks += r.has_check();
  EXPECT_EQ(checks, 3);
  // Two tiles are pl.maximum's; a number is not a tile.
  const std::string kernel =
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        x = pl.load(a, [0, 0], [16, 16])\n"
      "        pl.store(OP, [0, 0], out)\n"
      "    return out\n"
      "f(torch.ones(16, 16), torch.zeros(16, 16))\n";
  auto with = [&kernel](const std::string& op) {
    std::string text = kernel;
    text.replace(text.find("OP"), 2, op);
    return text;
  };
  EXPECT_THAT(CompileError(with("pl.maximums(x, x)")),
              HasSubstr("bad.py:8:33: error: pl.maximums() argument 'rhs' must be a scalar (int, "
                        "float or pl.Scalar); for two tiles use pl.maximum, got pl.Tile"));
  EXPECT_THAT(CompileError(with("pl.relu(2.0)")),
              HasSubstr("pl.relu() argument 'tile' must be a tile, got float"));
}

TEST(InterpreterTest, DeviceLoopsBecomeLoopOpsOverIntExprs) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for b in pl.spmd(2):\n"
      "        for j in pl.range(3):\n"
      "            r = (b * 3 + j) * 8\n"
      "            pl.store(pl.exp(pl.load(a, [r, 0], [8, 16])), [r, 0], out)\n"
      "    return out\n"
      "a = torch.zeros(48, 16)\n"
      "out = torch.zeros(48, 16)\n"
      "f(a, out)\n"
      "assert float(out[47, 15]) == 1.0\n");
  const auto& program = t.header().kernels(0).program();
  ASSERT_EQ(program.ops_size(), 1);
  const auto& loop = program.ops(0);
  EXPECT_EQ(loop.kind(), trace::Op::LOOP);
  EXPECT_EQ(loop.loop().start().constant(), 0);
  EXPECT_EQ(loop.loop().stop().constant(), 3);
  ASSERT_EQ(loop.loop().body_size(), 3);
  const auto& offset = loop.loop().body(0).offsets(0);
  EXPECT_EQ(offset.binary().op(), trace::IntExpr::MUL);
  EXPECT_EQ(offset.binary().lhs().binary().op(), trace::IntExpr::ADD);
  EXPECT_EQ(offset.binary().lhs().binary().rhs().loop_var(), loop.loop().var());
}

TEST(InterpreterTest, SlicesBecomeViewArgumentsAndCreateTensorAllocs) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    tmp = pl.create_tensor([16, 16], pl.FP32, init_value=1.5)\n"
      "    for i in pl.range(2):\n"
      "        part = pl.slice(out, [16, 16], [i * 16, 0])\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            pl.store(pl.add(pl.load(a, [i * 16, 0], [16, 16]), tmp), [0, 0], part)\n"
      "    return out\n"
      "out = torch.zeros(32, 16)\n"
      "f(torch.ones(32, 16), out)\n"
      "assert float(out[31, 0]) == 2.5\n");
  const auto& alloc_tensor = t.header().tensors(2);
  EXPECT_DOUBLE_EQ(alloc_tensor.init().fill().value(), 1.5);
  // Both iterations run one kernel: the load's row offset is its scalar
  // parameter (ShareKernelsAcrossOffsets), after the tensor parameters.
  ASSERT_EQ(t.header().kernels_size(), 1);
  int views = 0;
  for (const auto& r : t.records()) {
    if (!r.has_submit()) continue;
    const auto& args = r.submit().args();
    ASSERT_EQ(args.size(), 4);
    const auto& arg = args[2].tensor();
    EXPECT_EQ(arg.tensor_id(), 1u);
    EXPECT_THAT(arg.shape(), ElementsAre(16, 16));
    EXPECT_EQ(arg.offsets(0), 16 * views);
    EXPECT_EQ(args[3].scalar().i(), 16 * views);
    ++views;
  }
  EXPECT_EQ(views, 2);
}

TEST(InterpreterTest, AutoScopeFalseInlineHelpersAtomicStoresAndEmptyDummies) {
  trace::TraceText t = Compile(
      "@pl.jit.inline\n"
      "def band(a, out, i):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.load(a, [i * 8, 0], [8, 8]), [0, 0], out, atomic=pl.AtomicType.Add)\n"
      "@pl.jit(auto_scope=False)\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for i in pl.unroll(2):\n"
      "        band(a, out, i)\n"
      "    ready = pl.system.task_dummy(deps=[])\n"
      "    return out\n"
      "out = torch.zeros(8, 8)\n"
      "f(torch.ones(16, 8), out)\n"
      "assert float(out[7, 7]) == 2.0\n");
  auto l = Summarize(t)[0];
  EXPECT_EQ(l.scope_shape, "T T D ");
  ASSERT_EQ(l.tasks.size(), 3u);
  EXPECT_EQ(l.tasks[0].scope_depth, 0u);
  EXPECT_EQ(l.tasks[2].kind, "dummy");
  EXPECT_TRUE(l.tasks[2].deps.empty());
  EXPECT_TRUE(t.header().kernels(0).program().ops(1).atomic_add());
}

TEST(InterpreterTest, OrchestrationReadsOfDeviceValuesResolveThroughTheReference) {
  trace::TraceText t = Compile(
      "@pl.jit\n"
      "def f(a: pl.Tensor, cnt: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.load(a, [0, 0], [1, 8]), [0, 0], cnt)\n"
      "    n = int(cnt[0, 1])\n"
      "    for i in pl.range(n):\n"
      "        with pl.at(level=pl.Level.CORE_GROUP):\n"
      "            pl.store(pl.load(a, [0, 0], [1, 8]), [i, 0], out)\n"
      "    if cnt[0, 0] > 5:\n"
      "        with pl.at(level=pl.Level.CORE_GROUP, name_hint='never'):\n"
      "            pl.store(pl.load(a, [0, 0], [1, 8]), [0, 0], out)\n"
      "    return out\n"
      "a = torch.full((1, 8), 3.0)\n"
      "out = torch.zeros(4, 8)\n"
      "f(a, torch.zeros(1, 8), out)\n"
      "assert float(out[2, 0]) == 3.0 and float(out[3, 0]) == 0.0\n");
  auto l = Summarize(t)[0];
  // One writer, n = 3 loop tasks, and the `if` (3 > 5) not taken.
  ASSERT_EQ(l.tasks.size(), 4u);
  for (const auto& task : l.tasks) EXPECT_NE(task.name, "never");
  int reads = 0;
  for (const auto& r : t.records()) {
    if (!r.has_host_read()) continue;
    EXPECT_EQ(r.host_read().tensor_id(), 1u);
    EXPECT_EQ(r.host_read().indices(0), 0);
    ++reads;
  }
  EXPECT_EQ(reads, 2);
}

// A pl.parallel body carries the array (pypto@e2d0f78a docs/en/user/tasks/02-submit.md):
// every iteration reads it as it was at loop entry, so the iterations of one
// phase do not chain (tests/st/runtime/scheduling/test_manual_scope_pipeline.py's phase
// fence); the writes land when the loop ends.
TEST(InterpreterTest, ParallelIterationsReadTheTaskIdArrayAsAtLoopEntry) {
  auto l = Summarize(
      Compile("@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    tids = pl.array.create(3, pl.TASK_ID)\n"
              "    with pl.manual_scope():\n"
              "        for i in pl.parallel(3):\n"
              "            with pl.at(level=pl.Level.CORE_GROUP, deps=[tids]) as t:\n"
              "                pl.store(pl.load(a, [i * 8, 0], [8, 8]), [i * 8, 0], out)\n"
              "            tids[i] = t\n"
              "        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids]):\n"
              "            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"
              "    return out\n"
              "f(torch.ones(24, 8), torch.zeros(24, 8))\n"))[0];
  ASSERT_EQ(l.tasks.size(), 4u);
  EXPECT_TRUE(l.tasks[0].deps.empty());
  EXPECT_TRUE(l.tasks[1].deps.empty());
  EXPECT_TRUE(l.tasks[2].deps.empty());
  EXPECT_THAT(l.tasks[3].deps, ElementsAre(0u, 1u, 2u));
  EXPECT_EQ(l.scope_shape, "A1 M2 T T T T E2 E1 ");
}

// A stand-in for the verifiers of verifiers.h: rejects SPMD launches wider than two.
class WidthVerifier : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    ++calls;
    if (site.submit.block_num() > 2) return interp.Error(site.loc, "too wide");
    return absl::OkStatus();
  }
  int calls = 0;
};

TEST(InterpreterTest, TaskVerifiersRunOnEveryTaskAndTheirErrorsStopCompilation) {
  SourceFile source("v.py", std::string(kPrelude) +
                                "@pl.jit\n"
                                "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                "    for i in pl.spmd(2):\n"
                                "        pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"
                                "    for i in pl.spmd(4):\n"
                                "        pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"
                                "    return out\n"
                                "f(a, out)\n");
  auto module = Parse(source);
  ASSERT_TRUE(module.ok());
  Interpreter interp(source, MakeTileExecutorReference());
  for (const char* name : {"a", "out"}) {
    interp.SetGlobal(
        name, Value::Obj(std::make_shared<HostTensor>(std::vector<int64_t>{8, 8}, trace::FP32)));
  }
  auto verifier = std::make_unique<WidthVerifier>();
  WidthVerifier* v = verifier.get();
  interp.AddVerifier(std::move(verifier));
  absl::Status s = interp.Run(*module);
  EXPECT_THAT(s.message(), HasSubstr("v.py:8:5: error: too wide"));
  EXPECT_EQ(v->calls, 2);
}

// ---- errors for things outside the subset or misused

TEST(InterpreterTest, UnsupportedImportsDecoratorsAndApis) {
  EXPECT_THAT(EvaluateError("import numpy as np\n"),
              HasSubstr("bad.py:4:1: error: ptoc cannot import 'numpy'"));
  EXPECT_THAT(EvaluateError("def deco(f):\n    return f\n@deco\ndef g():\n    pass\n"),
              HasSubstr("decorator of type 'function' is not supported"));
  EXPECT_THAT(EvaluateError("x = pl.frobnicate\n"),
              HasSubstr("bad.py:4:8: error: pl.frobnicate is not supported by ptoc"));
  EXPECT_THAT(EvaluateError("x = pl.jit.host\n"), HasSubstr("pl.jit.host is not supported"));
  EXPECT_THAT(EvaluateError("x = undefined_name\n"),
              HasSubstr("name 'undefined_name' is not defined"));
  EXPECT_THAT(EvaluateError("x = {[1]: 2}\n"),
              HasSubstr("a dict key must be a string, number or enum member, got list"));
  EXPECT_THAT(EvaluateError("x = {1: 2}[3]\n"), HasSubstr("KeyError: 3 is not a key of this dict"));
  EXPECT_THAT(EvaluateError("return 1\n"), HasSubstr("'return' outside a function"));
}

TEST(InterpreterTest, OversizedLoopsAreErrorsNotCrashes) {
  EXPECT_THAT(EvaluateError("for i in range(10 ** 12):\n    pass\n"),
              HasSubstr("iterations at compile time"));
  EXPECT_THAT(EvaluateError("@pl.jit\ndef f():\n    for i in pl.range(10 ** 9):\n        pass\n"
                            "f()\n"),
              HasSubstr("this orchestration loop runs 1000000000 iterations"));
}

TEST(InterpreterTest, MisplacedPlConstructs) {
  EXPECT_THAT(EvaluateError("t = pl.load(1, [0], [1])\n"), HasSubstr("must be a tensor"));
  EXPECT_THAT(CompileError("@pl.jit\ndef f(a: pl.Tensor):\n    t = pl.exp(a)\n"
                           "f(torch.ones(2, 2))\n"),
              HasSubstr("bad.py:6:12: error: this op is a tile op; it must be inside a task body"));
  EXPECT_THAT(CompileError("@pl.jit.incore\ndef k(a: pl.Tensor):\n    pass\nk(torch.ones(2))\n"),
              HasSubstr("@pl.jit.incore function 'k' runs inside a launch: call it from the body "
                        "of a @pl.jit function"));
  EXPECT_THAT(EvaluateError("with pl.manual_scope():\n    pass\n"),
              HasSubstr("pl.manual_scope() is only valid in the orchestration body"));
  EXPECT_THAT(EvaluateError("for i in pl.range(3):\n    pass\n"),
              HasSubstr("only valid inside a @pl.jit"));
}

TEST(InterpreterTest, PlArgumentErrorsFollowPyptoWording) {
  const std::string jit = "@pl.jit\ndef f(a: pl.Tensor, g: pl.Tensor, out: pl.Out[pl.Tensor]):\n";
  const std::string call =
      "f(torch.ones(16, 16), torch.zeros(1, 1, dtype=torch.uint8), "
      "torch.zeros(16, 16))\n";
  EXPECT_THAT(CompileError(jit +
                           "    with pl.at(level=pl.Level.CORE_GROUP, predicate=(g[0, 0] > "
                           "0)):\n        pass\n" +
                           call),
              HasSubstr("Unknown keyword argument 'predicate' in pl.at()"));
  EXPECT_THAT(CompileError(jit +
                           "    with pl.manual_scope():\n        with pl.manual_scope():\n"
                           "            pass\n" +
                           call),
              HasSubstr("a manual scope may not be nested inside another manual scope"));
  EXPECT_THAT(CompileError(jit + "    for i in pl.spmd(0):\n        pass\n" + call),
              HasSubstr("core_num must be a positive integer, got 0"));
  EXPECT_THAT(CompileError(jit + "    with pl.spmd(4, deps=[1]) as t:\n        pass\n" + call),
              HasSubstr("deps= entries must be a TaskId variable"));
  EXPECT_THAT(CompileError(jit +
                           "    with pl.spmd(4, predicate=(g[0, 0] > 0)) as t:\n"
                           "        pass\n" +
                           call),
              HasSubstr("predicate operand must be a signed 8/16/32/64-bit integer tensor, got "
                        "UINT8"));
  EXPECT_THAT(CompileError(jit +
                           "    with pl.spmd(4, predicate=(g[0, 0] > 0.5)) as t:\n"
                           "        pass\n" +
                           call),
              HasSubstr("against an integer literal"));
  EXPECT_THAT(CompileError(jit +
                           "    with pl.at(level=pl.Level.CORE_GROUP, "
                           "allow_early_resolve=1):\n        pass\n" +
                           call),
              HasSubstr("allow_early_resolve must be a boolean literal"));
  EXPECT_THAT(CompileError(jit + "    with pl.at(level=pl.Level.CHIP):\n        pass\n" + call),
              HasSubstr("CORE_GROUP) only"));
  EXPECT_THAT(CompileError(jit + "    d = pl.system.task_dummy()\n" + call),
              HasSubstr("task_dummy requires keyword argument 'deps'"));
  EXPECT_THAT(CompileError(jit + "    x = pl.cross_core_slot(slot_num=0)\n" + call),
              HasSubstr("slot_num must be a positive integer, got 0"));
  EXPECT_THAT(CompileError(jit +
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        t = pl.load(a, [8, 0], [16, 16])\n" +
                           call),
              HasSubstr("pl.load reads [8, 24) of dim 0 of 'a', which has 16"));
}

}  // namespace
}  // namespace pto::ptoc
