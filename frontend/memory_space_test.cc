// Memory spaces in the pl API: pl.MemorySpace / pl.Mem, target_memory= and
// pl.Tile annotations, pl.move between spaces, pl.matmul_acc and its
// init_cond, and the errors for each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "frontend/interpreter.h"
#include "frontend/testing/compile.h"
#include "frontend/testing/snippets.h"

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n";

trace::TraceText Compile(const std::string& body, std::vector<std::string>* warnings = nullptr) {
  return CompileSnippet(kPrelude, body, warnings);
}

std::string CompileError(const std::string& body) { return CompileSnippetError(kPrelude, body); }

// The ops of the first kernel's program, pre-order (loop bodies inline).
std::vector<trace::Op> FlatOps(const trace::TraceText& t, int kernel = 0) {
  std::vector<trace::Op> out;
  std::function<void(const google::protobuf::RepeatedPtrField<trace::Op>&)> walk =
      [&](const auto& ops) {
        for (const trace::Op& op : ops) {
          out.push_back(op);
          if (op.kind() == trace::Op::LOOP) walk(op.loop().body());
        }
      };
  walk(t.header().kernels(kernel).program().ops());
  return out;
}

const trace::TileDecl& TileOf(const trace::TraceText& t, uint32_t index, int kernel = 0) {
  return t.header().kernels(kernel).program().tiles(static_cast<int>(index));
}

// a [M, K] @ b [K, N] in the explicit form: Mat loads moved into Left/Right.
constexpr char kExplicitMatmul[] =
    "M, K, N = 32, 64, 16\n"
    "@pl.jit\n"
    "def mm(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        a_l1 = pl.load(a, [0, 0], [M, K], target_memory=pl.MemorySpace.Mat)\n"
    "        b_l1 = pl.load(b, [0, 0], [K, N], target_memory=pl.MemorySpace.Mat)\n"
    "        a_l0 = pl.move(a_l1, target_memory=pl.MemorySpace.Left)\n"
    "        b_l0 = pl.move(b_l1, target_memory=pl.MemorySpace.Right)\n"
    "        pl.store(pl.matmul(a_l0, b_l0), [0, 0], c)\n"
    "    return c\n"
    "a = torch.randn(M, K)\n"
    "b = torch.randn(K, N)\n"
    "c = torch.zeros(M, N)\n"
    "mm(a, b, c)\n"
    "torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)\n";

TEST(MemorySpaceTest, BothSpellingsCompileToTheSameStream) {
  const std::string long_form = kExplicitMatmul;
  const std::string short_form = absl::StrReplaceAll(long_form, {{"pl.MemorySpace.", "pl.Mem."}});
  ASSERT_NE(long_form, short_form);
  // The kernels (the script's torch.randn inputs differ from run to run).
  auto kernels = [](const trace::TraceText& t) {
    std::string bytes;
    for (const trace::Kernel& k : t.header().kernels()) bytes += k.SerializeAsString();
    return bytes;
  };
  const std::string a = kernels(Compile(long_form));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, kernels(Compile(short_form)));
}

TEST(MemorySpaceTest, MatLoadsMoveIntoLeftAndRightOnTheCube) {
  std::vector<std::string> warnings;
  const trace::TraceText t = Compile(kExplicitMatmul, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  const trace::Kernel& k = t.header().kernels(0);
  EXPECT_EQ(k.core_type(), trace::AIC);
  const std::vector<trace::Op> ops = FlatOps(t);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[0].kind(), trace::Op::LOAD);
  EXPECT_EQ(TileOf(t, ops[0].dst()).space(), trace::MAT);
  for (int i : {2, 3}) {
    EXPECT_EQ(ops[i].kind(), trace::Op::MOVE);
    ASSERT_EQ(ops[i].srcs_size(), 1);
    EXPECT_EQ(TileOf(t, ops[i].srcs(0)).space(), trace::MAT);
    EXPECT_EQ(TileOf(t, ops[i].dst()).shape(0), i == 2 ? 32 : 64);
  }
  EXPECT_EQ(TileOf(t, ops[2].dst()).space(), trace::LEFT);
  EXPECT_EQ(TileOf(t, ops[3].dst()).space(), trace::RIGHT);
  EXPECT_EQ(ops[4].kind(), trace::Op::MATMUL);
  EXPECT_FALSE(ops[4].accumulate());
  EXPECT_EQ(TileOf(t, ops[4].dst()).space(), trace::ACC);
  // Each space's tiles are alive together (or alone in it): a buffer each.
  std::set<uint32_t> buffers;
  for (const trace::TileDecl& tile : k.program().tiles()) buffers.insert(tile.buffer());
  EXPECT_EQ(buffers.size(), static_cast<size_t>(k.program().tiles_size()));
}

constexpr char kOneLoad[] =
    "@pl.jit\n"
    "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        LOAD\n"
    "        pl.store(t, [0, 0], c)\n"
    "    return c\n"
    "k(torch.ones(16, 16), torch.zeros(16, 16))\n";

trace::MemSpace LoadedSpace(const std::string& load) {
  const trace::TraceText t = Compile(absl::StrReplaceAll(kOneLoad, {{"LOAD", load}}));
  const std::vector<trace::Op> ops = FlatOps(t);
  return ops.empty() ? trace::MEM_SPACE_UNSPECIFIED : TileOf(t, ops[0].dst()).space();
}

TEST(MemorySpaceTest, TargetMemoryAndAnnotationsPlaceALoad) {
  EXPECT_EQ(LoadedSpace("t = pl.load(a, [0, 0], [16, 16])"), trace::VEC);  // by affinity
  EXPECT_EQ(LoadedSpace("t = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)"), trace::MAT);
  EXPECT_EQ(LoadedSpace("t = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)"), trace::VEC);
  EXPECT_EQ(LoadedSpace("t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16])"),
            trace::MAT);
  EXPECT_EQ(LoadedSpace("t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Mat] = "
                        "pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)"),
            trace::MAT);
  // A Mat load stored as it is runs on the cube alone.
  const trace::TraceText t = Compile(absl::StrReplaceAll(
      kOneLoad, {{"LOAD", "t = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)"}}));
  EXPECT_EQ(t.header().kernels(0).core_type(), trace::AIC);
}

// c = a @ b through a K loop of KT-wide steps into one accumulator that
// starts at the first step's product; INIT is matmul_acc's init_cond
// argument (or nothing), EXPECTED the harness's expectation.
constexpr char kSplitK[] =
    "M, K, N, KT = 16, 64, 32, 16\n"
    "@pl.jit\n"
    "def split_k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        a0 = pl.load(a, [0, 0], [M, KT], target_memory=pl.Mem.Mat)\n"
    "        b0 = pl.load(b, [0, 0], [KT, N], target_memory=pl.Mem.Mat)\n"
    "        acc = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left),\n"
    "                        pl.move(b0, target_memory=pl.Mem.Right))\n"
    "        for k in pl.range(0, K, KT):\n"
    "            a_l1 = pl.load(a, [0, k], [M, KT], target_memory=pl.Mem.Mat)\n"
    "            b_l1 = pl.load(b, [k, 0], [KT, N], target_memory=pl.Mem.Mat)\n"
    "            acc = pl.matmul_acc(acc, pl.move(a_l1, target_memory=pl.Mem.Left),\n"
    "                                pl.move(b_l1, target_memory=pl.Mem.Right)INIT)\n"
    "        pl.store(acc, [0, 0], c)\n"
    "    return c\n"
    "a = torch.randn(M, K)\n"
    "b = torch.randn(K, N)\n"
    "c = torch.zeros(M, N)\n"
    "split_k(a, b, c)\n"
    "torch.testing.assert_close(c, EXPECTED, rtol=1e-4, atol=1e-4)\n";

std::string SplitK(const std::string& init, const std::string& expected) {
  return absl::StrReplaceAll(kSplitK, {{"INIT", init}, {"EXPECTED", expected}});
}

TEST(MemorySpaceTest, MatmulAccWithInitCondOverAKLoopIsTheFullMatmul) {
  std::vector<std::string> warnings;
  const trace::TraceText t = Compile(SplitK(", init_cond=(k == 0)", "a @ b"), &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  const std::vector<trace::Op> ops = FlatOps(t);
  const trace::Op* acc = nullptr;
  for (const trace::Op& op : ops) {
    if (op.kind() == trace::Op::MATMUL && op.accumulate()) acc = &op;
  }
  ASSERT_NE(acc, nullptr);
  ASSERT_EQ(acc->srcs_size(), 3);
  EXPECT_EQ(TileOf(t, acc->srcs(0)).space(), trace::LEFT);
  EXPECT_EQ(TileOf(t, acc->srcs(1)).space(), trace::RIGHT);
  EXPECT_EQ(TileOf(t, acc->srcs(2)).space(), trace::ACC);  // the loop's carried accumulator
  ASSERT_TRUE(acc->has_init_cond());
  EXPECT_EQ(acc->init_cond().binary().op(), trace::IntExpr::EQ);
  EXPECT_EQ(acc->init_cond().binary().lhs().loop_var(), 0u);
  EXPECT_EQ(acc->init_cond().binary().rhs().constant(), 0);
  // The same with the first product left out of the expectation disagrees.
  warnings.clear();
  Compile(SplitK(", init_cond=(k == 0)", "a @ b + a[:, :16] @ b[:16, :]"), &warnings);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(MemorySpaceTest, MatmulAccWithoutInitCondAccumulatesOntoTheIncomingAccumulator) {
  std::vector<std::string> warnings;
  const trace::TraceText t = Compile(SplitK("", "a @ b + a[:, :16] @ b[:16, :]"), &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  bool found = false;
  for (const trace::Op& op : FlatOps(t)) {
    if (op.kind() != trace::Op::MATMUL || !op.accumulate()) continue;
    found = true;
    EXPECT_FALSE(op.has_init_cond());
  }
  EXPECT_TRUE(found);
  // A literal init_cond picks the form at compile time: True overwrites.
  warnings.clear();
  const trace::TraceText always =
      Compile(SplitK(", init_cond=True", "a[:, 48:] @ b[48:, :]"), &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  for (const trace::Op& op : FlatOps(always)) EXPECT_FALSE(op.accumulate());
  warnings.clear();
  Compile(SplitK(", init_cond=False", "a @ b + a[:, :16] @ b[:16, :]"), &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

TEST(MemorySpaceTest, AccToVecCrossesToTheVectorCoreOfAMixKernel) {
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        acc = pl.matmul(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat),\n"
      "                        pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat))\n"
      "        v = pl.move(acc, target_memory=pl.Mem.Vec)\n"
      "        pl.store(pl.exp(v), [0, 0], c)\n"
      "    return c\n"
      "a = torch.randn(16, 16)\n"
      "b = torch.randn(16, 16)\n"
      "c = torch.zeros(16, 16)\n"
      "k(a, b, c)\n"
      "torch.testing.assert_close(c, torch.exp(a @ b), rtol=1e-4, atol=1e-4)\n");
  EXPECT_EQ(t.header().kernels(0).core_type(), trace::MIX);
  const std::vector<trace::Op> ops = FlatOps(t);
  ASSERT_EQ(ops[3].kind(), trace::Op::MOVE);
  EXPECT_EQ(ops[3].engine(), trace::ENGINE_VECTOR);  // where the value lands
  EXPECT_EQ(ops[2].engine(), trace::ENGINE_CUBE);
}

TEST(MemorySpaceTest, DeviceComparisonsAreBranchConditions) {
  // A comparison of a device integer decides a device-side IF (each block
  // evaluates it when it gets there), not a compile-time branch.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        for i in pl.range(4):\n"
      "            if i == 0:\n"
      "                pl.store(pl.load(a, [0, 0], [4, 4]), [0, 0], c)\n"
      "    return c\n"
      "k(torch.ones(4, 4), torch.zeros(4, 4))\n");
  const trace::Op& loop = t.header().kernels(0).program().ops(0);
  ASSERT_EQ(loop.kind(), trace::Op::LOOP);
  const trace::Op& branch = loop.loop().body(0);
  ASSERT_EQ(branch.kind(), trace::Op::IF);
  EXPECT_EQ(branch.branch().cond().binary().op(), trace::IntExpr::EQ);
  EXPECT_EQ(branch.branch().then_body_size(), 2);  // LOAD, STORE
  EXPECT_EQ(branch.branch().else_body_size(), 0);
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        for i in pl.range(4):\n"
                           "            x = 0 <= i < 4\n"
                           "    return c\n"
                           "k(torch.ones(4, 4), torch.zeros(4, 4))\n"),
              HasSubstr("chained comparisons are not supported"));
}

// One task body around STMT, with a Mat tile `m`, a Vec tile `v`, an Acc tile
// `acc` and Left / Right tiles `l` / `r`.
std::string Body(const std::string& stmt) {
  return absl::StrCat(
      "@pl.jit\n"
      "def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        v = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)\n"
      "        l = pl.move(m, target_memory=pl.Mem.Left)\n"
      "        r = pl.move(m, target_memory=pl.Mem.Right)\n"
      "        acc = pl.matmul(l, r)\n"
      "        ",
      stmt,
      "\n"
      "    return c\n"
      "k(torch.ones(16, 16), torch.zeros(16, 16))\n");
}

TEST(MemorySpaceTest, ExplicitSpacesAreCheckedWhereTheyAreUsed) {
  EXPECT_THAT(CompileError(Body("x = pl.add(m, 1.0)")),
              HasSubstr("bad.py:11:16: error: a vector op reads a [16, 16] FP32 tile in Mat (L1), "
                        "a cube buffer; vector ops read Vec (UB) tiles"));
  EXPECT_THAT(CompileError(Body("x = pl.exp(l)")), HasSubstr("tile in Left (L0A), a cube buffer"));
  EXPECT_THAT(CompileError(Body("x = pl.cast(r, pl.FP16)")),
              HasSubstr("tile in Right (L0B), a cube buffer"));
  EXPECT_THAT(CompileError(Body("x = v + m")), HasSubstr("tile in Mat (L1)"));
  EXPECT_THAT(CompileError(Body("x = pl.matmul(r, l)")),
              HasSubstr("pl.matmul reads its lhs from Right (L0B) and its rhs from Left (L0A); "
                        "the lhs lives in Left (L0A) and the rhs in Right (L0B)"));
  EXPECT_THAT(CompileError(Body("pl.store(l, [0, 0], c)")),
              HasSubstr("pl.store writes GM from Vec, Mat or Acc, but the tile is in Left (L0A)"));
  EXPECT_THAT(CompileError(Body("x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = acc")),
              HasSubstr("bad.py:11:15: error: the annotation says Vec (UB) but the value is in "
                        "Acc (L0C); pl.move the tile"));
  EXPECT_THAT(CompileError(Body("x = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Left)")),
              HasSubstr("bad.py:11:42: error: pl.load fills Vec (UB) or Mat (L1), not Left (L0A)"));
  EXPECT_THAT(CompileError(Body("x = pl.load(a, [0, 0], [16, 16], target_memory=pl.Level.AIV)")),
              HasSubstr("pl.load target_memory must be a pl.MemorySpace (or pl.Mem) member"));
  // The legal neighbours compile.
  Compile(Body("pl.store(pl.add(v, pl.move(acc, target_memory=pl.Mem.Vec)), [0, 0], c)"));
  Compile(Body("pl.store(pl.move(acc, target_memory=pl.Mem.Mat), [0, 0], c)"));
}

TEST(MemorySpaceTest, MovesBetweenIncompatibleSpacesAreLocatedErrors) {
  EXPECT_THAT(CompileError(Body("x = pl.move(l, target_memory=pl.Mem.Vec)")),
              HasSubstr("bad.py:11:24: error: pl.move from Left (L0A) to Vec (UB) is not a move; "
                        "a tile moves Mat -> Left, Right or Bias, Acc -> Mat, and between the "
                        "cores Acc or Mat -> Vec, Vec -> Mat, Left or Right"));
  EXPECT_THAT(CompileError(Body("x = pl.move(v, target_memory=pl.Mem.Acc)")),
              HasSubstr("pl.move from Vec (UB) to Acc (L0C) is not a move"));
  EXPECT_THAT(CompileError(Body("x = pl.move(m, target_memory=pl.Mem.Mat)")),
              HasSubstr("pl.move from Mat (L1) to Mat (L1): the tile is already there"));
  EXPECT_THAT(CompileError(Body("x = pl.move(m, target_memory=pl.Mem.L1)")),
              HasSubstr("bad.py:11:45: error: pl.Mem.L1 is not supported by ptoc; the memory "
                        "spaces are Vec (UB), Mat (L1), Left (L0A), Right (L0B), Acc (L0C) and "
                        "Bias (BT)"));
  EXPECT_THAT(CompileError(Body("x = pl.move(m)")), HasSubstr("requires argument 'target_memory'"));
  Compile(Body("b = pl.move(m, target_memory=pl.Mem.Bias)"));
}

TEST(MemorySpaceTest, MatmulAccChecksItsAccumulator) {
  EXPECT_THAT(CompileError(Body("x = pl.matmul_acc(v, l, r)")),
              HasSubstr("bad.py:11:16: error: pl.matmul_acc accumulates into Acc (L0C), a "
                        "pl.matmul or pl.matmul_acc result or a pl.tile.create(..., "
                        "target_memory=pl.Mem.Acc), but the accumulator is in Vec (UB)"));
  EXPECT_THAT(
      CompileError(Body("x = pl.matmul_acc(pl.matmul(l, pl.move(pl.load(a, [0, 0], [16, 8], "
                        "target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)), l, r)")),
      HasSubstr("pl.matmul_acc: the accumulator is [16, 8] but lhs @ rhs ([16, 16] @ [16, 16]) "
                "is [16, 16]"));
  EXPECT_THAT(CompileError(Body("x = pl.matmul_acc(acc, l, r, init_cond=1.5)")),
              HasSubstr("init_cond must be a bool or a device comparison such as (k == 0), got "
                        "float"));
}

// c = a @ b in upstream's K-loop form without a peeled first step: an
// accumulator with no contents (pl.tile.create in Acc) that init_cond
// overwrites at the first step; LOOP is the K loop's header.
constexpr char kCreatedAccumulator[] =
    "M, K, N, KT = 16, 64, 32, 16\n"
    "@pl.jit\n"
    "def split_k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        acc = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
    "        for k in LOOP:\n"
    "            x = pl.load(a, [0, k * KT], [M, KT])\n"
    "            y = pl.load(b, [k * KT, 0], [KT, N])\n"
    "            acc = pl.matmul_acc(acc, x, y, init_cond=(k == 0))\n"
    "        pl.store(acc, [0, 0], c)\n"
    "    return c\n"
    "a = torch.randn(M, K)\n"
    "b = torch.randn(K, N)\n"
    "c = torch.zeros(M, N)\n"
    "split_k(a, b, c)\n"
    "torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)\n";

TEST(MemorySpaceTest, CreatedAccumulatorIsOverwrittenByInitCond) {
  for (const char* loop : {"pl.range(K // KT)", "pl.pipeline(K // KT, stage=2)"}) {
    SCOPED_TRACE(loop);
    std::vector<std::string> warnings;
    const trace::TraceText t =
        Compile(absl::StrReplaceAll(kCreatedAccumulator, {{"LOOP", loop}}), &warnings);
    // ptoc's reference agrees with a @ b: the NaN the tile was created with
    // never reaches the result.
    EXPECT_TRUE(warnings.empty()) << warnings[0];
    const std::vector<trace::Op> ops = FlatOps(t);
    ASSERT_EQ(ops[0].kind(), trace::Op::CREATE);
    EXPECT_EQ(ops[0].srcs_size(), 0);
    const trace::TileDecl& acc = TileOf(t, ops[0].dst());
    EXPECT_EQ(acc.space(), trace::ACC);
    EXPECT_EQ(acc.dtype(), trace::FP32);
    EXPECT_THAT(acc.shape(), testing::ElementsAre(16, 32));
    EXPECT_EQ(t.header().kernels(0).core_type(), trace::AIC);
    // The loop carries the created tile in, and every step is the
    // accumulating matmul under its init_cond: no peeled first step.
    int plain = 0, accumulating = 0;
    for (const trace::Op& op : ops) {
      if (op.kind() == trace::Op::LOOP) {
        ASSERT_EQ(op.loop().carries_size(), 1);
        EXPECT_EQ(op.loop().carries(0).init(), ops[0].dst());
      }
      if (op.kind() != trace::Op::MATMUL) continue;
      (op.accumulate() ? accumulating : plain) += 1;
      EXPECT_TRUE(op.has_init_cond());
    }
    EXPECT_EQ(plain, 0);
    EXPECT_GE(accumulating, 1);
  }
  // Without init_cond the first step adds onto the created tile's NaN, and
  // ptoc's reference disagrees with the harness.
  std::vector<std::string> warnings;
  Compile(absl::StrReplaceAll(kCreatedAccumulator,
                              {{"LOOP", "pl.range(K // KT)"}, {", init_cond=(k == 0)", ""}}),
          &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("assert_close"));
}

// pypto-lib's LM head form: the weight stored [N, K], each K chunk loaded as
// [N, KT] and accumulated through a transposed view (upstream's tile level
// has no b_trans flag: pl.tile.transpose_view) in a pipelined loop. The
// harness checks it against one transposed pl.matmul over the whole K.
constexpr char kTransposedAccumulation[] =
    "M, K, N, KT = 16, 64, 32, 16\n"
    "@pl.jit\n"
    "def split_k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        acc = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
    "        for k in pl.pipeline(K // KT, stage=2):\n"
    "            x = pl.load(a, [0, k * KT], [M, KT])\n"
    "            y = pl.load(b, [0, k * KT], [N, KT])\n"
    "            acc = pl.matmul_acc(acc, x, pl.tile.transpose_view(y), init_cond=(k == 0))\n"
    "        pl.store(acc, [0, 0], c)\n"
    "    return c\n"
    "@pl.jit\n"
    "def whole_k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        x = pl.load(a, [0, 0], [M, K])\n"
    "        y = pl.load(b, [0, 0], [N, K])\n"
    "        pl.store(pl.matmul(x, pl.tile.transpose_view(y)), [0, 0], c)\n"
    "    return c\n"
    "a = torch.randn(M, K)\n"
    "b = torch.randn(N, K)\n"
    "c = torch.zeros(M, N)\n"
    "expected = torch.zeros(M, N)\n"
    "split_k(a, b, c)\n"
    "whole_k(a, b, expected)\n"
    "torch.testing.assert_close(c, expected, rtol=1e-4, atol=1e-4)\n";

TEST(MemorySpaceTest, MatmulAccAccumulatesATransposedView) {
  std::vector<std::string> warnings;
  const trace::TraceText t = Compile(kTransposedAccumulation, &warnings);
  // ptoc's reference gives both kernels the same product.
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  int views = 0, matmuls = 0;
  for (const trace::Op& op : FlatOps(t)) {
    views += op.kind() == trace::Op::TRANSPOSE_VIEW;
    if (op.kind() != trace::Op::MATMUL) continue;
    ++matmuls;
    EXPECT_FALSE(op.a_trans());
    EXPECT_FALSE(op.b_trans());  // the view carries the transpose
  }
  EXPECT_GE(matmuls, 2);
  EXPECT_EQ(views, matmuls);
  // The view of a weight chunk is where the chunk is: both in Mat (L1).
  for (const trace::Kernel& k : t.header().kernels()) {
    for (const trace::TileDecl& tile : k.program().tiles()) {
      if (tile.shape_size() == 2 && tile.shape(0) == 16 && tile.shape(1) == 32 &&
          tile.space() != trace::ACC) {
        EXPECT_EQ(tile.space(), trace::MAT) << k.name() << " " << tile.name();
      }
    }
  }
  // Without the view the shapes do not chain: [16, 16] @ [32, 16].
  EXPECT_THAT(CompileError(absl::StrReplaceAll(kTransposedAccumulation,
                                               {{"pl.tile.transpose_view(y)", "y"}})),
              HasSubstr("pl.matmul_acc"));
  // Upstream's tile level has no transpose flags.
  EXPECT_THAT(
      CompileError(absl::StrReplaceAll(
          kTransposedAccumulation, {{"pl.tile.transpose_view(y), init", "y, b_trans=True, init"}})),
      HasSubstr("pl.matmul_acc: 'b_trans' is not supported for Tile operands. At tile level a "
                "transposed operand is an explicit zero-copy view, not an op flag: wrap the "
                "operand with pl.tile.transpose_view(...) and pass it directly."));
  EXPECT_THAT(CompileError(absl::StrReplaceAll(
                  kTransposedAccumulation,
                  {{"pl.matmul(x, pl.tile.transpose_view(y))", "pl.matmul(x, y, a_trans=True)"}})),
              HasSubstr("pl.matmul: 'a_trans' is not supported for Tile operands."));
}

TEST(MemorySpaceTest, CreateTileSpellingsAndSpaces) {
  // pl.create_tile and pl.tile.create_tile are upstream's other names; Vec is
  // the default space, and an annotation may name the created tile's space.
  for (const char* stmt :
       {"x = pl.create_tile([16, 16], dtype=pl.FP32)",
        "x = pl.tile.create_tile([16, 16], pl.FP32, target_memory=pl.MemorySpace.Vec)",
        "x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([1, 16, 16], pl.FP32)"}) {
    SCOPED_TRACE(stmt);
    const std::vector<trace::Op> ops = FlatOps(Compile(Body(stmt)));
    int creates = 0;
    for (const trace::Op& op : ops) creates += op.kind() == trace::Op::CREATE;
    EXPECT_EQ(creates, 1);
  }
  const trace::TraceText t = Compile(Body("x = pl.tile.create([16, 64], pl.BF16, pl.Mem.Mat)"));
  const std::vector<trace::Op> ops = FlatOps(t);
  const trace::Op& create = ops.back();
  ASSERT_EQ(create.kind(), trace::Op::CREATE);
  EXPECT_EQ(TileOf(t, create.dst()).space(), trace::MAT);
  EXPECT_EQ(TileOf(t, create.dst()).dtype(), trace::BF16);
}

TEST(MemorySpaceTest, CreateTileErrors) {
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([16, 0], pl.FP32)")),
              HasSubstr("bad.py:11:28: error: pl.tile.create shape must be 1 or 2 positive "
                        "integers (leading 1s may precede them), got [16, 0]"));
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([2, 16, 16], pl.FP32)")),
              HasSubstr("got [2, 16, 16]"));
  // Its bytes against its space, before a product can overflow.
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([256, 256], pl.FP32, pl.Mem.Acc)")),
              HasSubstr("bad.py:11:28: error: pl.tile.create: a [256, 256] FP32 tile does not fit "
                        "the 131072 bytes of Acc (L0C); use a smaller tile"));
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([3037000500, 3037000500], pl.FP32)")),
              HasSubstr("a [3037000500, 3037000500] FP32 tile does not fit the 188416 bytes of "
                        "Vec (UB)"));
  Compile(Body("x = pl.tile.create([128, 256], pl.FP32, pl.Mem.Acc)"));  // exactly L0C
  EXPECT_THAT(
      CompileError(Body("x = pl.tile.create([16, 16], pl.FP32, pl.Level.AIV)")),
      HasSubstr("pl.tile.create target_memory must be a pl.MemorySpace (or pl.Mem) member"));
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([16, 16])")),
              HasSubstr("pl.tile.create() requires argument 'dtype'"));
  EXPECT_THAT(CompileError(Body("x = pl.tile.create([16, 16], pl.FP32, transpose=True)")),
              HasSubstr("Unknown keyword argument 'transpose' in pl.tile.create(); valid: shape, "
                        "dtype, target_memory"));
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(c: pl.Out[pl.Tensor]):\n"
                           "    x = pl.tile.create([16, 16], pl.FP32)\n"
                           "    return c\n"
                           "k(torch.zeros(4, 4))\n"),
              HasSubstr("bad.py:5:17: error: pl.tile.create is a tile op; it must be inside a "
                        "task body"));
}

}  // namespace
}  // namespace pto::ptoc
