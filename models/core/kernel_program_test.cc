#include "models/core/kernel_program.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using kernel_testing::C;
using kernel_testing::KernelBuilder;
using kernel_testing::LoopVar;
using ::testing::HasSubstr;
using trace::Op;

std::string CompileError(const KernelBuilder& b) {
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  EXPECT_FALSE(k.ok());
  return std::string(k.status().message());
}

TEST(CompileKernelTest, FlattensLoopsInPreOrderWithBodyEnds) {
  KernelBuilder b("k");
  uint32_t x = b.TensorParam("x", trace::FP32);
  uint32_t t = b.Tile("t", {8, 16}, trace::FP32);
  b.Load(t, x, {C(0), C(0)});               // op 0
  b.BeginLoop(0, C(0), C(4));               // op 1
  b.BeginLoop(1, C(0), LoopVar(0));         // op 2
  b.Store(t, x, {LoopVar(0), LoopVar(1)});  // op 3
  b.EndLoop();
  b.Binary(Op::ADD, t, t, t);  // op 4
  b.EndLoop();
  b.Add(Op::FENCE);  // op 5
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->ops.size(), 6u);
  EXPECT_EQ(k->ops[1].kind, Op::LOOP);
  EXPECT_EQ(k->ops[1].body_end, 5);
  EXPECT_EQ(k->ops[2].body_end, 4);
  EXPECT_EQ(k->ops[3].body_end, 4);
  EXPECT_EQ(k->loop_var_count, 2u);
  EXPECT_EQ(k->tiles[t].rows, 8);
  EXPECT_EQ(k->tiles[t].cols, 16);
  EXPECT_EQ(k->ops[0].gm_bytes, 8 * 16 * 4);
  EXPECT_EQ(k->max_tile_bytes, 8 * 16 * 4);
  EXPECT_EQ(k->ops[4].label, "kernel 'k' op 4 (ADD, test.py:5)");
}

TEST(CompileKernelTest, AttributesEnginesByAffinity) {
  KernelBuilder b("mix", trace::MIX);
  uint32_t a = b.TensorParam("a", trace::FP16);
  uint32_t o = b.TensorParam("o", trace::FP32);
  uint32_t ta = b.Tile("ta", {16, 16}, trace::FP16, trace::MAT);
  uint32_t tc = b.Tile("tc", {16, 16}, trace::FP32, trace::ACC);
  uint32_t tv = b.Tile("tv", {16, 16}, trace::FP32, trace::VEC);
  b.Load(ta, a, {C(0), C(0)});
  b.Matmul(tc, ta, ta);
  b.Store(tc, o, {C(0), C(0)});
  b.Load(tv, o, {C(0), C(0)});
  b.Unary(Op::EXP, tv, tv);
  b.Unary(Op::NEG, tv, tv).set_engine(trace::ENGINE_CUBE);  // explicit wins
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->ops[0].engine, EngineKind::kCube);
  EXPECT_EQ(k->ops[1].engine, EngineKind::kCube);
  EXPECT_EQ(k->ops[2].engine, EngineKind::kCube);
  EXPECT_EQ(k->ops[3].engine, EngineKind::kVector);
  EXPECT_EQ(k->ops[4].engine, EngineKind::kVector);
  EXPECT_EQ(k->ops[5].engine, EngineKind::kCube);
  EXPECT_EQ(k->ops[1].m, 16);
  EXPECT_EQ(k->ops[1].elements, 256);
}

// A cube kernel in the explicit form: Mat loads moved into Left / Right.
KernelBuilder ExplicitCube(trace::CoreType core_type = trace::AIC) {
  KernelBuilder b("cube", core_type);
  uint32_t a = b.TensorParam("a", trace::FP16);
  uint32_t ta = b.Tile("ta", {16, 32}, trace::FP16, trace::MAT);  // 0
  uint32_t tl = b.Tile("tl", {16, 32}, trace::FP16, trace::LEFT);
  uint32_t tb = b.Tile("tb", {32, 16}, trace::FP16, trace::MAT);
  uint32_t tr = b.Tile("tr", {32, 16}, trace::FP16, trace::RIGHT);
  uint32_t tc = b.Tile("tc", {16, 16}, trace::FP32, trace::ACC);  // 4
  b.Load(ta, a, {C(0), C(0)});
  b.Move(tl, ta);
  b.Load(tb, a, {C(0), C(0)});
  b.Move(tr, tb);
  b.Matmul(tc, tl, tr);
  return b;
}

TEST(CompileKernelTest, MovesRunOnTheCubeAndAccumulatingMatmulsReadTheirAccumulator) {
  KernelBuilder b = ExplicitCube();
  uint32_t sum = b.Tile("sum", {16, 16}, trace::FP32, trace::ACC);
  b.BeginLoop(0, C(0), C(4));
  b.MatmulAcc(sum, 1, 3, 4);
  *b.MatmulAcc(4, 1, 3, 4).mutable_init_cond() =
      kernel_testing::Bin(trace::IntExpr::EQ, LoopVar(0), C(0));  // in place
  b.EndLoop();
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->ops[1].kind, Op::MOVE);
  EXPECT_EQ(k->ops[1].engine, EngineKind::kCube);
  EXPECT_EQ(k->ops[1].src0, 0);
  EXPECT_EQ(k->ops[1].elements, 16 * 32);
  EXPECT_FALSE(k->ops[4].accumulate);
  EXPECT_EQ(k->ops[4].src2, -1);
  EXPECT_TRUE(k->ops[6].accumulate);
  EXPECT_EQ(k->ops[6].src2, 4);
  EXPECT_FALSE(k->ops[6].has_init_cond);
  EXPECT_EQ(k->ops[6].k, 32);
  EXPECT_TRUE(k->ops[7].has_init_cond);
  EXPECT_EQ(k->ops[7].dst, 4);
}

TEST(CompileKernelTest, MoveRoutesFollowPyptosMemoryGraph) {
  using R = MoveRoute;
  EXPECT_EQ(MoveRouteOf(trace::MAT, trace::LEFT), R::kCube);
  EXPECT_EQ(MoveRouteOf(trace::MAT, trace::RIGHT), R::kCube);
  EXPECT_EQ(MoveRouteOf(trace::MAT, trace::BIAS), R::kCube);
  EXPECT_EQ(MoveRouteOf(trace::ACC, trace::MAT), R::kCube);
  EXPECT_EQ(MoveRouteOf(trace::ACC, trace::VEC), R::kToVector);
  EXPECT_EQ(MoveRouteOf(trace::MAT, trace::VEC), R::kToVector);
  EXPECT_EQ(MoveRouteOf(trace::VEC, trace::MAT), R::kToCube);
  EXPECT_EQ(MoveRouteOf(trace::VEC, trace::LEFT), R::kToCube);
  EXPECT_EQ(MoveRouteOf(trace::VEC, trace::RIGHT), R::kToCube);
  for (auto [from, to] : std::vector<std::pair<trace::MemSpace, trace::MemSpace>>{
           {trace::VEC, trace::VEC},
           {trace::VEC, trace::ACC},
           {trace::VEC, trace::BIAS},
           {trace::LEFT, trace::MAT},
           {trace::RIGHT, trace::VEC},
           {trace::BIAS, trace::MAT},
           {trace::MAT, trace::ACC},
           {trace::ACC, trace::LEFT},
           {trace::MEM_SPACE_UNSPECIFIED, trace::MAT}}) {
    EXPECT_EQ(MoveRouteOf(from, to), R::kNone) << from << " -> " << to;
  }
}

TEST(CompileKernelTest, RejectsMovesBetweenIncompatibleSpacesShapesAndCores) {
  {
    KernelBuilder b = ExplicitCube();
    uint32_t back = b.Tile("back", {16, 32}, trace::FP16, trace::MAT);
    b.Move(back, 1);  // Left -> Mat
    EXPECT_THAT(CompileError(b),
                HasSubstr("kernel 'cube' op 5 (MOVE, test.py:6): moves 'tl' from LEFT to MAT, "
                          "which is no move; a MOVE goes MAT -> LEFT, RIGHT or BIAS"));
  }
  {
    KernelBuilder b = ExplicitCube();
    uint32_t v = b.Tile("v", {16, 16}, trace::FP32, trace::VEC);
    b.Move(v, 4);  // Acc -> Vec in an AIC kernel
    EXPECT_THAT(CompileError(b),
                HasSubstr("moves 'tc' from ACC to VEC, between the cube and the vector cores, but "
                          "the kernel is AIC; only a MIX kernel has both"));
    KernelBuilder mix = ExplicitCube(trace::MIX);
    mix.Move(mix.Tile("v", {16, 16}, trace::FP32, trace::VEC), 4);
    absl::StatusOr<CompiledKernel> k = CompileKernel(mix.kernel());
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ(k->ops[5].engine, EngineKind::kVector);  // where the value lands
  }
  {
    KernelBuilder b = ExplicitCube();
    b.Move(b.Tile("short", {8, 32}, trace::FP16, trace::LEFT), 0);
    EXPECT_THAT(CompileError(b), HasSubstr("(MOVE, test.py:6): result tile 'short' is [8, 32] but "
                                           "the operand is [16, 32]; shapes must be equal"));
  }
  {
    KernelBuilder b = ExplicitCube();
    b.Move(b.Tile("wide", {16, 32}, trace::FP32, trace::LEFT), 0);
    EXPECT_THAT(CompileError(b), HasSubstr("result tile 'wide' is FP32 but the operand is FP16"));
  }
}

TEST(CompileKernelTest, RejectsAnAccumulatorUnlikeTheResultAndAStrayInitCond) {
  {
    KernelBuilder b = ExplicitCube();
    uint32_t small = b.Tile("small", {16, 8}, trace::FP32, trace::ACC);
    b.Full(small, 0);
    b.MatmulAcc(b.Tile("sum", {16, 16}, trace::FP32, trace::ACC), 1, 3, small);
    EXPECT_THAT(CompileError(b),
                HasSubstr("(MATMUL, test.py:7): the accumulator srcs[2] ('small') is FP32 "
                          "[16, 8] but the result 'sum' is FP32 [16, 16]; the result accumulates "
                          "onto it"));
  }
  {
    KernelBuilder b = ExplicitCube();
    b.MatmulAcc(b.Tile("sum", {16, 16}, trace::FP16, trace::ACC), 1, 3, 4);
    EXPECT_THAT(CompileError(b), HasSubstr("the accumulator srcs[2] ('tc') is FP32 [16, 16] but "
                                           "the result 'sum' is FP16 [16, 16]"));
  }
  {
    KernelBuilder b = ExplicitCube();
    b.MatmulAcc(b.Tile("sum", {16, 16}, trace::FP32, trace::ACC), 1, 3, 4).clear_srcs();
    EXPECT_THAT(CompileError(b), HasSubstr("expects 3 source tiles, got 0"));
  }
  {
    KernelBuilder b = ExplicitCube();
    *b.Matmul(b.Tile("c", {16, 16}, trace::FP32, trace::ACC), 1, 3).mutable_init_cond() = C(1);
    EXPECT_THAT(CompileError(b), HasSubstr("has init_cond but does not accumulate"));
  }
  {
    KernelBuilder b = ExplicitCube();
    *b.MatmulAcc(b.Tile("sum", {16, 16}, trace::FP32, trace::ACC), 1, 3, 4).mutable_init_cond() =
        LoopVar(0);
    EXPECT_THAT(CompileError(b), HasSubstr("init_cond: "));
  }
}

TEST(CompileKernelTest, DtypeMismatchNamesKernelOpOriginAndFix) {
  KernelBuilder b("k");
  uint32_t x = b.TensorParam("x", trace::FP32);
  uint32_t h = b.TensorParam("h", trace::FP16);
  uint32_t tx = b.Tile("tx", {4, 4}, trace::FP32);
  uint32_t th = b.Tile("th", {4, 4}, trace::FP16);
  b.Load(tx, x, {C(0), C(0)});
  b.Load(th, h, {C(0), C(0)});
  b.Full(tx, 1.0);
  b.Binary(Op::ADD, tx, tx, th);
  EXPECT_EQ(CompileError(b),
            "kernel 'k' op 3 (ADD, test.py:4): operand dtypes FP32 and FP16 differ; insert a CAST");
}

TEST(CompileKernelTest, RejectsBadTileIndexAndReadBeforeWrite) {
  {
    KernelBuilder b("k");
    uint32_t x = b.TensorParam("x", trace::FP32);
    b.Tile("t", {4}, trace::FP32);
    b.Load(5, x, {C(0)});
    EXPECT_THAT(CompileError(b), HasSubstr("op 0 (LOAD, test.py:1): dst is tile 5 but the kernel "
                                           "declares 1 tiles"));
  }
  {
    KernelBuilder b("k");
    uint32_t t = b.Tile("t", {4}, trace::FP32);
    uint32_t u = b.Tile("u", {4}, trace::FP32);
    b.Unary(Op::EXP, u, t);
    EXPECT_THAT(CompileError(b), HasSubstr("reads tile 0 ('t') before any op writes it"));
  }
}

TEST(CompileKernelTest, RejectsShapeAndOperandErrors) {
  KernelBuilder base("k");
  uint32_t x = base.TensorParam("x", trace::FP32);
  uint32_t i = base.TensorParam("i", trace::INT32);
  uint32_t a = base.Tile("a", {4, 8}, trace::FP32);
  uint32_t b8 = base.Tile("b", {8, 4}, trace::FP32);
  uint32_t c = base.Tile("c", {4, 4}, trace::FP32);
  uint32_t n = base.Tile("n", {4, 8}, trace::INT32);
  uint32_t r = base.Tile("r", {4, 1}, trace::FP32);
  base.Load(a, x, {C(0), C(0)});
  base.Load(b8, x, {C(0), C(0)});
  base.Load(n, i, {C(0), C(0)});

  struct Case {
    std::function<void(KernelBuilder&)> add;
    const char* message;
  };
  const Case cases[] = {
      {[&](KernelBuilder& b) { b.Binary(Op::ADD, a, a, b8); }, "operand shapes [4, 8] and [8, 4]"},
      {[&](KernelBuilder& b) { b.Binary(Op::ADD, c, a, a); }, "result tile 'c' is [4, 4]"},
      {[&](KernelBuilder& b) { b.Unary(Op::EXP, n, n); }, "INT32 is not a float type"},
      {[&](KernelBuilder& b) { b.Unary(Op::ADD, a, a); }, "expects 2 source tiles, or 1 tile and"},
      {[&](KernelBuilder& b) { b.Matmul(c, a, a); }, "inner dimensions differ: a gives k=8"},
      {[&](KernelBuilder& b) { b.Matmul(a, a, b8); }, "MATMUL writes one of its own operands"},
      {[&](KernelBuilder& b) { b.Matmul(n, a, b8); }, "result dtype INT32 does not fit FP32"},
      {[&](KernelBuilder& b) { b.Unary(Op::ROW_SUM, c, a); }, "a row reduction of [4, 8] gives"},
      {[&](KernelBuilder& b) { b.Unary(Op::CAST, c, a); }, "CAST keeps the shape"},
      {[&](KernelBuilder& b) {
         b.Load(a, i, {C(0), C(0)});
       },
       "tile 'a' is FP32 but tensor param"},
      {[&](KernelBuilder& b) {
         b.Load(a, 9, {C(0), C(0)});
       },
       "param 9 is out of range"},
      {[&](KernelBuilder& b) { b.Store(a, x, {}); }, "has 0 offsets"},
      {[&](KernelBuilder& b) {
         b.Store(a, x, {C(0), LoopVar(0)});
       },
       "offsets[1]: IntExpr reads"},
      {[&](KernelBuilder& b) { b.BeginLoop(0, C(0), C(4), C(0)); }, "loop step is 0"},
      {[&](KernelBuilder& b) { b.Add(Op::KIND_UNSPECIFIED); }, "unknown op kind"},
  };
  for (const Case& tc : cases) {
    KernelBuilder b = base;
    tc.add(b);
    EXPECT_THAT(CompileError(b), HasSubstr(tc.message)) << tc.message;
  }
  // The valid forms of the same ops compile.
  KernelBuilder ok = base;
  ok.Matmul(c, a, b8);
  ok.Matmul(c, b8, a, /*a_trans=*/true, /*b_trans=*/true);
  ok.Unary(Op::ROW_SUM, r, a);
  ok.WithScalar(Op::MUL, a, a, 2.0);
  ok.Unary(Op::CAST, a, n);
  EXPECT_TRUE(CompileKernel(ok.kernel()).ok()) << CompileKernel(ok.kernel()).status();
}

// Tiles of the carry tests; `u` is written by no op unless a case does.
constexpr uint32_t kA = 0, kAcc = 1, kN = 2, kH = 3, kR = 4, kM = 5, kU = 6;
constexpr const char* kLoop = "kernel 'k' op 1 (LOOP, test.py:2)";

// op 0: a = load x; op 1 (test.py:2): for i in range(4) with `carries`,
// body op 2: n = a + 1, then `body`; after the loop `after`, then store acc.
KernelBuilder CarryKernel(const std::function<void(trace::Op&)>& carries,
                          const std::function<void(KernelBuilder&)>& body = {},
                          const std::function<void(KernelBuilder&)>& after = {}) {
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  b.Tile("a", {4, 8}, trace::FP32);
  b.Tile("acc", {4, 8}, trace::FP32);
  b.Tile("n", {4, 8}, trace::FP32);
  b.Tile("h", {4, 8}, trace::FP16);
  b.Tile("r", {32}, trace::FP32);
  b.Tile("m", {4, 8}, trace::FP32, trace::MAT);
  b.Tile("u", {4, 8}, trace::FP32);
  b.Load(kA, x, {C(0), C(0)});
  trace::Op& loop = b.BeginLoop(0, C(0), C(4));
  b.WithScalar(Op::ADD, kN, kA, 1.0);
  if (body) body(b);
  b.EndLoop();
  if (after) after(b);
  b.Store(kAcc, x, {C(0), C(0)});
  carries(loop);
  return b;
}

TEST(CompileKernelTest, CompilesLoopCarries) {
  // A swap (a carried next), a carry without init read after the loop, and an
  // inner carry feeding an outer one.
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t a = b.Tile("a", {4}, trace::FP32);
  const uint32_t p = b.Tile("p", {4}, trace::FP32);
  const uint32_t q = b.Tile("q", {4}, trace::FP32);
  const uint32_t last = b.Tile("last", {4}, trace::FP32);
  const uint32_t inner = b.Tile("inner", {4}, trace::FP32);
  const uint32_t t = b.Tile("t", {4}, trace::FP32);
  b.Load(a, x, {C(0)});                           // op 0
  trace::Op& outer = b.BeginLoop(0, C(0), C(4));  // op 1
  trace::Op& in = b.BeginLoop(1, C(0), C(2));     // op 2
  b.Binary(Op::ADD, t, inner, p);                 // op 3: reads both carries with init
  b.EndLoop();
  b.EndLoop();
  b.Store(last, x, {C(0)});  // op 4: a carry without init, read after its loop
  KernelBuilder::Carry(outer, p, a, q, "p");
  KernelBuilder::Carry(outer, q, a, p, "q");
  KernelBuilder::Carry(outer, last, KernelBuilder::kNoInit, inner, "last");
  KernelBuilder::Carry(in, inner, p, t, "inner");
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->ops[1].carries.size(), 3u);
  const CompiledCarry& cp = k->ops[1].carries[0];
  EXPECT_EQ(cp.tile, static_cast<int32_t>(p));
  EXPECT_EQ(cp.init, static_cast<int32_t>(a));
  EXPECT_EQ(cp.next, static_cast<int32_t>(q));
  EXPECT_TRUE(cp.next_is_carried);
  EXPECT_TRUE(k->ops[1].carries[1].next_is_carried);
  EXPECT_EQ(k->ops[1].carries[2].init, -1);
  EXPECT_FALSE(k->ops[1].carries[2].next_is_carried);  // `inner` is the inner loop's
  ASSERT_EQ(k->ops[2].carries.size(), 1u);
  EXPECT_EQ(k->ops[2].carries[0].next, static_cast<int32_t>(t));
  EXPECT_TRUE(k->ops[3].carries.empty());
}

TEST(CompileKernelTest, RejectsCarryTilesOutOfRangeOrUnlikeTheCarriedTile) {
  using K = KernelBuilder;
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, 9, kA, kN); })),
            absl::StrCat(kLoop,
                         ": carries[0].tile is tile 9 but the kernel declares 7 tiles; use "
                         "an index below that"));
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, 7, kN, "acc"); })),
              HasSubstr("carries[0] ('acc').init is tile 7 but the kernel declares 7 tiles"));
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, 8); })),
              HasSubstr("carries[0].next is tile 8 but"));
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kH, kN, "acc"); })),
            absl::StrCat(kLoop,
                         ": carries[0] ('acc').init is tile 3 ('h') FP16 [4, 8] in VEC but the "
                         "carried tile 1 ('acc') is FP32 [4, 8] in VEC; a carry's tile, init and "
                         "next share shape, dtype and memory space"));
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kR); })),
              HasSubstr("carries[0].next is tile 4 ('r') FP32 [32] in VEC but the carried tile 1 "
                        "('acc') is FP32 [4, 8] in VEC"));
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kM, kN); })),
              HasSubstr("carries[0].init is tile 5 ('m') FP32 [4, 8] in MAT but"));
}

TEST(CompileKernelTest, ACarriedTileIsWrittenByItsLoopAlone) {
  using K = KernelBuilder;
  const auto carry = [](trace::Op& l) { K::Carry(l, kAcc, kA, kN, "acc"); };
  // Written by an op in the body, or after the loop: the op is refused.
  EXPECT_EQ(CompileError(CarryKernel(carry, [](K& b) { b.Full(kAcc, 0); })),
            absl::StrCat("kernel 'k' op 3 (FULL, test.py:4): dst is tile 1 ('acc'), which ", kLoop,
                         " carries; only its loop writes a carried tile: write the new value to "
                         "another tile and make that the carry's next"));
  EXPECT_THAT(CompileError(CarryKernel(carry, {}, [](K& b) { b.Full(kAcc, 0); })),
              HasSubstr("op 3 (FULL, test.py:4): dst is tile 1 ('acc'), which kernel 'k' op 1"));
  // Written before the loop: the loop is refused.
  KernelBuilder before("k");
  const uint32_t x = before.TensorParam("x", trace::FP32);
  const uint32_t a = before.Tile("a", {4}, trace::FP32);
  const uint32_t acc = before.Tile("acc", {4}, trace::FP32);
  before.Load(a, x, {C(0)});
  before.Full(acc, 0);
  K::Carry(before.BeginLoop(0, C(0), C(2)), acc, a, a);
  before.EndLoop();
  EXPECT_EQ(CompileError(before),
            "kernel 'k' op 2 (LOOP, test.py:3): carries[0].tile is tile 1 ('acc'), which kernel "
            "'k' op 1 (FULL, test.py:2) writes; only its loop writes a carried tile: give the "
            "carry a tile of its own and make that op's result its init");
  // Carried by a second loop, or twice by one.
  EXPECT_EQ(CompileError(CarryKernel(carry, {},
                                     [](K& b) {
                                       K::Carry(b.BeginLoop(1, C(0), C(2)), kAcc, kA, kA);
                                       b.EndLoop();
                                     })),
            absl::StrCat("kernel 'k' op 3 (LOOP, test.py:4): carries[0] carries tile 1 ('acc'), "
                         "which ",
                         kLoop,
                         " already carries; a tile is carried by one loop only: give this loop a "
                         "carried tile of its own (its init may be the other's)"));
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) {
              K::Carry(l, kAcc, kA, kN, "acc");
              K::Carry(l, kAcc, kA, kN, "acc2");
            })),
            absl::StrCat(kLoop,
                         ": carries[1] ('acc2') carries tile 1 ('acc') like carries[0] ('acc'); "
                         "list each carried tile once"));
}

TEST(CompileKernelTest, CarryInitAndNextNeedValuesInTime) {
  using K = KernelBuilder;
  // init must be written before the loop (not only in its body).
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kU, kN); })),
            absl::StrCat(kLoop,
                         ": carries[0].init reads tile 6 ('u') before any op writes it; compute "
                         "the initial value before the loop"));
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kU, kN); },
                                       [](K& b) { b.WithScalar(Op::ADD, kU, kA, 1.0); })),
              HasSubstr("carries[0].init reads tile 6 ('u') before any op writes it"));
  // next must be written by the end of the body (after the loop is too late).
  const std::string next_error = absl::StrCat(
      kLoop,
      ": carries[0].next is tile 6 ('u'), which nothing writes before the end of the loop body; "
      "write the next value in the body (or before the loop)");
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kU); })), next_error);
  EXPECT_EQ(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kU); }, {},
                                     [](K& b) { b.WithScalar(Op::ADD, kU, kA, 1.0); })),
            next_error);
  // A carry without init has a value only after the loop.
  EXPECT_EQ(
      CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, K::kNoInit, kN); },
                               [](K& b) { b.WithScalar(Op::ADD, kU, kAcc, 1.0); })),
      absl::StrCat("kernel 'k' op 3 (ADD, test.py:4): srcs[0] reads tile 1 ('acc') before any op "
                   "writes it (",
                   kLoop,
                   " carries it without init, so it holds a value only after that loop: give the "
                   "carry an init to read it in the body); load or compute it first"));
  // ... nor can it be its own next.
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, K::kNoInit, kAcc); })),
              HasSubstr("carries[0].next is tile 1 ('acc'), which nothing writes before the end"));
  // The valid forms: read in the body with init, or after the loop without;
  // next written before the loop.
  for (const auto& k : {CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kN); },
                                    [](K& b) { b.WithScalar(Op::ADD, kU, kAcc, 1.0); }),
                        CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, K::kNoInit, kN); }),
                        CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kA); })}) {
    EXPECT_TRUE(CompileKernel(k.kernel()).ok()) << CompileKernel(k.kernel()).status();
  }
}

TEST(CompileKernelTest, CreateWritesATileFromNothing) {
  using K = KernelBuilder;
  // A created tile has a value (an undefined one), so it can start a carry.
  KernelBuilder ok("k");
  const uint32_t x = ok.TensorParam("x", trace::FP32);
  const uint32_t acc = ok.Tile("acc", {4, 8}, trace::FP32);
  const uint32_t next = ok.Tile("next", {4, 8}, trace::FP32);
  const uint32_t u = ok.Tile("u", {4, 8}, trace::FP32);
  ok.Create(u);
  trace::Op& loop = ok.BeginLoop(0, C(0), C(4));
  ok.WithScalar(Op::ADD, next, acc, 1.0);
  ok.EndLoop();
  ok.Store(acc, x, {C(0), C(0)});
  K::Carry(loop, acc, u, next);
  absl::StatusOr<CompiledKernel> k = CompileKernel(ok.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->ops[0].kind, Op::CREATE);
  EXPECT_EQ(k->ops[0].dst, static_cast<int32_t>(u));
  EXPECT_EQ(k->ops[0].engine, EngineKind::kVector);

  KernelBuilder bad("k", trace::AIC);
  const uint32_t a = bad.Tile("a", {16, 16}, trace::FP32, trace::ACC);
  const uint32_t b = bad.Tile("b", {16, 16}, trace::FP32, trace::ACC);
  bad.Create(a);
  bad.Create(b).add_srcs(a);
  EXPECT_EQ(CompileError(bad), "kernel 'k' op 1 (CREATE, test.py:2): CREATE takes no source tiles");
  KernelBuilder scalar("k", trace::AIC);
  scalar.Tile("a", {16, 16}, trace::FP32, trace::ACC);
  scalar.Create(0).mutable_scalar()->set_literal(0);
  EXPECT_EQ(CompileError(scalar),
            "kernel 'k' op 0 (CREATE, test.py:1): CREATE takes no scalar; a tile filled with a "
            "value is FULL");
  // A carried tile is its loop's alone, created or not.
  EXPECT_THAT(CompileError(CarryKernel([](trace::Op& l) { K::Carry(l, kAcc, kA, kN); },
                                       [](K& b) { b.Create(kAcc); })),
              HasSubstr("op 3 (CREATE, test.py:4): dst is tile 1 ('acc'), which"));
}

TEST(CompileKernelTest, RejectsReusedLoopVarAndBadTileDecls) {
  {
    KernelBuilder b("k");
    b.BeginLoop(0, C(0), C(2));
    b.EndLoop();
    b.BeginLoop(0, C(0), C(2));
    b.EndLoop();
    EXPECT_THAT(CompileError(b), HasSubstr("loop var 0 is already used"));
  }
  {
    KernelBuilder b("k");
    b.Tile("cube", {2, 2, 2}, trace::FP32);
    EXPECT_THAT(CompileError(b), HasSubstr("tile 0 ('cube') has rank 3"));
  }
  {
    KernelBuilder b("k");
    b.Tile("t", {4}, trace::DTYPE_UNSPECIFIED);
    EXPECT_THAT(CompileError(b), HasSubstr("has no dtype"));
  }
}

TEST(CompileKernelTest, SyncOpsAndCostSummariesCompile) {
  KernelBuilder b("k");
  b.Add(Op::SYNCALL);
  b.Add(Op::FENCE);
  b.Add(Op::CACHE_INVALID).set_whole_cache(true);
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->ops.size(), 3u);

  trace::Kernel ext;
  ext.set_name("fa_fused");
  ext.set_core_type(trace::AIC);
  ext.mutable_cost()->set_cube_flops(1e9);
  absl::StatusOr<CompiledKernel> c = CompileKernel(ext);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->is_cost_summary);
  EXPECT_TRUE(c->ops.empty());

  ext.mutable_cost()->set_cube_flops(-1);
  EXPECT_THAT(CompileKernel(ext).status().message(), HasSubstr("cost.cube_flops is -1"));
  trace::Kernel empty;
  empty.set_name("nothing");
  EXPECT_THAT(CompileKernel(empty).status().message(), HasSubstr("has no body"));
}

TEST(CompileKernelTest, ViewsShareTheirSourcesBufferAndKeepDtypeAndSpace) {
  KernelBuilder b("views");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t t = b.Tile("t", {4, 8}, trace::FP32);
  const uint32_t r = b.Tile("r", {8, 4}, trace::FP32);
  const uint32_t v = b.Tile("v", {4, 8}, trace::FP32);
  b.Load(t, x, {C(0), C(0)});
  b.Unary(Op::RESHAPE, r, t);
  b.Unary(Op::TRANSPOSE_VIEW, v, r);
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->tile_buffers[r], k->tile_buffers[t]);
  EXPECT_EQ(k->tile_buffers[v], k->tile_buffers[t]);
}

TEST(CompileKernelTest, RejectsMisshapedReductionsBroadcastsAndShapeOps) {
  struct Case {
    std::function<void(KernelBuilder&, uint32_t)> build;  // after loading tile 0, [4, 8] FP32
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](KernelBuilder& b, uint32_t t) {
         const uint32_t tmp = b.Tile("tmp", {4, 4}, trace::FP32);
         b.Create(tmp);
         b.Unary(Op::ROW_MAX, b.Tile("m", {4, 1}, trace::FP32), t).add_srcs(tmp);
       },
       "scratch srcs[1] 'tmp' is FP32 [4, 4] for a FP32 [4, 8] input; it needs the input's dtype "
       "and rank and no smaller dimension"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Unary(Op::COL_MAX, b.Tile("c", {4, 1}, trace::FP32), t);
       },
       "result tile 'c' is [4, 1]; a column reduction of [4, 8] gives [1, 8]"},
      {[](KernelBuilder& b, uint32_t t) {
         const uint32_t v = b.Tile("v", {1, 8}, trace::FP32);
         b.Unary(Op::COL_SUM, v, t);
         b.Binary(Op::SUB, b.Tile("d", {4, 8}, trace::FP32), t, v).set_broadcast(Op::ROW);
       },
       "srcs[1] 'v' is [1, 8]; a ROW broadcast over [4, 8] takes a [4, 1] tile"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Unary(Op::EXP, b.Tile("e", {4, 8}, trace::FP32), t).set_broadcast(Op::COL);
       },
       "sets broadcast, which only ADD, SUB, MUL, DIV, MAX, MIN, EXPAND and EXPDIF read"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Binary(Op::ADD, b.Tile("a", {4, 8}, trace::FP32), t, t).set_cast_mode(Op::CAST_RINT);
       },
       "sets cast_mode, which only CAST reads"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Unary(Op::EXPAND, b.Tile("e", {4, 8}, trace::FP32), t);
       },
       "has no broadcast; EXPAND spans a row (ROW) or column (COL) vector"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Binary(Op::CONCAT, b.Tile("j", {4, 12}, trace::FP32), t, t);
       },
       "joins [4, 8] and [4, 8] into 'j' [4, 12]; CONCAT needs equal rows and gives [rows, cols0 "
       "+ cols1]"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Unary(Op::RESHAPE, b.Tile("r", {5, 8}, trace::FP32), t);
       },
       "reshapes [4, 8] (32 elements) to [5, 8] (40); a reshape keeps the element count"},
      {[](KernelBuilder& b, uint32_t t) {
         b.Unary(Op::TRANSPOSE_VIEW, b.Tile("v", {4, 8}, trace::FP32), t);
       },
       "views [4, 8] as [4, 8]; TRANSPOSE_VIEW of a 2-D [r, c] tile is [c, r]"},
      {[](KernelBuilder& b, uint32_t t) {
         trace::Op& op = b.Binary(Op::ASSEMBLE, b.Tile("a", {4, 8}, trace::FP32), t, t);
         *op.add_offsets() = C(1);
         *op.add_offsets() = C(0);
       },
       "places 't' [4, 8] at offsets[0] = 1 in [4, 8]; it must lie inside: 0 <= offset <= 0"},
      {[](KernelBuilder& b, uint32_t t) {
         trace::Op& op = b.Binary(Op::ASSEMBLE, b.Tile("a", {4, 8}, trace::FP32, trace::MAT), t, t);
         *op.add_offsets() = C(0);
         *op.add_offsets() = C(0);
       },
       "is in MAT but the target is in VEC; ASSEMBLE writes into the target's buffer"},
      {[](KernelBuilder& b, uint32_t t) {
         // An INT32 accumulator does not narrow into a float tile.
         const uint32_t acc = b.Tile("acc", {4, 8}, trace::INT32, trace::ACC);
         const uint32_t mat = b.Tile("mat", {4, 8}, trace::FP16, trace::MAT);
         b.Create(acc);
         b.Create(mat);
         trace::Op& op =
             b.Binary(Op::ASSEMBLE, b.Tile("a", {4, 8}, trace::FP16, trace::MAT), mat, acc);
         *op.add_offsets() = C(0);
         *op.add_offsets() = C(0);
         (void)t;
       },
       "assembles INT32 into FP16; insert a CAST"},
  };
  for (const Case& c : cases) {
    KernelBuilder b("k");
    const uint32_t x = b.TensorParam("x", trace::FP32);
    const uint32_t t = b.Tile("t", {4, 8}, trace::FP32);
    b.Load(t, x, {C(0), C(0)});
    c.build(b, t);
    EXPECT_THAT(CompileError(b), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace pto
