#include "models/core/op_cost.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "models/core/block_pipes.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

// The a2a3 defaults: ChipConfig's cube section and L0 capacities.
const CubeCostModel kCube = CubeCostModelOf(ChipConfig{});

constexpr double kClockGhz = 1.85;  // ChipParams default, cycles per ns

TEST(OpCostTest, GmTransferIsLatencyPlusBytesAtItsPathsRate) {
  ChipConfig config;
  EXPECT_NEAR(GmTransferNs(4096, GmPath::kGmToL1, config), 122 + 4096.0 / 166.3 / kClockGhz, 1e-9);
  EXPECT_NEAR(GmTransferNs(4096, GmPath::kGmToUb, config), 122 + 4096.0 / 62.3 / kClockGhz, 1e-9);
  EXPECT_NEAR(GmTransferNs(4096, GmPath::kUbToGm, config), 122 + 4096.0 / 65.3 / kClockGhz, 1e-9);
  EXPECT_NEAR(GmTransferNs(4096, GmPath::kL0cToGm, config), 122 + 4096.0 / 118 / kClockGhz, 1e-9);
  config.core.gm_latency_ns = 0;
  config.core.gm_to_ub_bytes_per_cycle = 128;
  EXPECT_NEAR(GmTransferNs(4096, GmPath::kGmToUb, config), 32 / kClockGhz, 1e-9);
}

TEST(OpCostTest, EachTransferTakesItsPath) {
  CompiledKernel k;
  k.tiles.resize(2);
  k.tiles[0].space = trace::VEC;
  k.tiles[1].space = trace::ACC;
  CompiledOp load;
  load.kind = trace::Op::LOAD;
  load.engine = EngineKind::kCube;  // into L1 (kernel_program.cc)
  EXPECT_EQ(GmPathOf(load, k), GmPath::kGmToL1);
  load.engine = EngineKind::kVector;
  EXPECT_EQ(GmPathOf(load, k), GmPath::kGmToUb);
  CompiledOp store;
  store.kind = trace::Op::STORE;
  store.src0 = 0;
  EXPECT_EQ(GmPathOf(store, k), GmPath::kUbToGm);
  store.src0 = 1;
  EXPECT_EQ(GmPathOf(store, k), GmPath::kL0cToGm);
  // An AIC reads into L1 and drains L0C; an AIV reads into and writes UB.
  ChipConfig config;
  const CoreGmRates aic = CoreGmRatesOf(config, /*cube=*/true);
  const CoreGmRates aiv = CoreGmRatesOf(config, /*cube=*/false);
  EXPECT_NEAR(aic.read_bytes_per_ns, 166.3 * kClockGhz, 1e-9);
  EXPECT_NEAR(aic.write_bytes_per_ns, 118 * kClockGhz, 1e-9);
  EXPECT_NEAR(aiv.read_bytes_per_ns, 62.3 * kClockGhz, 1e-9);
  EXPECT_NEAR(aiv.write_bytes_per_ns, 65.3 * kClockGhz, 1e-9);
}

TEST(OpCostTest, VectorOpsCostTheirClassesMeasuredRates) {
  // The defaults: tile-tile 128 B/cycle, tile-scalar and one-input 256,
  // divide 64; exp and sqrt 32 elements a cycle whatever the dtype.
  ChipConfig config;
  using C = VectorClass;
  EXPECT_NEAR(VectorOpNs(C::kBinary, trace::FP32, 1024, config), 32 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kBinary, trace::FP32, 1025, config), 33 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kBinary, trace::FP16, 1024, config), 16 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kUnary, trace::FP32, 1024, config), 16 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kExp, trace::FP16, 1000, config), 32 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kExp, trace::FP32, 1000, config), 32 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kDivide, trace::FP32, 64, config), 4 / kClockGhz, 1e-9);
  EXPECT_NEAR(VectorOpNs(C::kBinary, trace::INT32, 64, config), 2 / kClockGhz, 1e-9);
}

TEST(OpCostTest, EachVectorOpHasTheClassItWasMeasuredAs) {
  using K = trace::Op;
  EXPECT_EQ(VectorClassOf(K::ADD, /*has_scalar=*/false), VectorClass::kBinary);
  EXPECT_EQ(VectorClassOf(K::ADD, /*has_scalar=*/true), VectorClass::kUnary);
  EXPECT_EQ(VectorClassOf(K::MUL, /*has_scalar=*/true), VectorClass::kUnary);
  EXPECT_EQ(VectorClassOf(K::MAX, /*has_scalar=*/false), VectorClass::kBinary);
  EXPECT_EQ(VectorClassOf(K::DIV, /*has_scalar=*/false), VectorClass::kDivide);
  EXPECT_EQ(VectorClassOf(K::DIV, /*has_scalar=*/true), VectorClass::kUnary);
  EXPECT_EQ(VectorClassOf(K::EXP, /*has_scalar=*/false), VectorClass::kExp);
  EXPECT_EQ(VectorClassOf(K::SQRT, /*has_scalar=*/false), VectorClass::kExp);
  EXPECT_EQ(VectorClassOf(K::RSQRT, /*has_scalar=*/false), VectorClass::kUnary);
  EXPECT_EQ(VectorClassOf(K::CAST, /*has_scalar=*/false), VectorClass::kUnary);
  EXPECT_EQ(VectorClassOf(K::ROW_SUM, /*has_scalar=*/false), VectorClass::kBinary);
}

TEST(OpCostTest, MatmulFp16MatchesTheL0CostModelByHand) {
  // 128x128x128 FP16: mad = 21 + 8*8*8, load = 32768/129.7 + 32768/85.4,
  // drain = 164 + 128*max(4.45, 4*128/118), odd(128/8) = 1: no penalty.
  const double load = 32768 / 129.7 + 32768 / 85.4;
  const double expected = std::max(load, 533.0) + 164 + 128 * 4.45;
  EXPECT_NEAR(MatmulCycles(128, 128, 128, trace::FP16, kCube), expected, 1e-9);
  EXPECT_NEAR(MatmulNs(128, 128, 128, trace::FP16, ChipConfig{}), expected / kClockGhz, 1e-9);
}

TEST(OpCostTest, MovesTakeTheL1ToL0RatesAndAccumulatingMatmulsAPlainOnes) {
  ChipConfig config;
  CompiledKernel kernel;
  const auto tile = [&](trace::MemSpace space, trace::DType dtype) {
    CompiledTile t;
    t.dtype = dtype;
    t.space = space;
    t.rank = 2;
    t.rows = 64;
    t.cols = 128;
    kernel.tiles.push_back(t);
    return static_cast<int32_t>(kernel.tiles.size() - 1);
  };
  const int32_t mat = tile(trace::MAT, trace::FP16);  // 16 KiB
  CompiledOp move;
  move.kind = trace::Op::MOVE;
  move.src0 = mat;
  const double bytes = 64 * 128 * 2;
  for (auto [space, rate] : std::vector<std::pair<trace::MemSpace, double>>{
           {trace::LEFT, 129.7}, {trace::BIAS, 129.7}, {trace::RIGHT, 85.4}, {trace::VEC, 65.3}}) {
    move.dst = tile(space, trace::FP16);
    EXPECT_NEAR(OpCostNs(move, kernel, config), bytes / rate / kClockGhz, 1e-9) << space;
  }
  // Out of L0C at the FIXPIPE drain rate.
  move.src0 = tile(trace::ACC, trace::FP32);
  move.dst = tile(trace::MAT, trace::FP32);
  EXPECT_NEAR(OpCostNs(move, kernel, config), 2 * bytes / 118 / kClockGhz, 1e-9);

  CompiledOp mm;
  mm.kind = trace::Op::MATMUL;
  mm.src0 = mat;
  mm.m = 64;
  mm.n = 64;
  mm.k = 128;
  const double plain = OpCostNs(mm, kernel, config);
  EXPECT_NEAR(plain, MatmulNs(64, 64, 128, trace::FP16, config), 1e-9);
  mm.accumulate = true;
  mm.src2 = mm.dst = tile(trace::ACC, trace::FP32);
  EXPECT_EQ(OpCostNs(mm, kernel, config), plain);
}

TEST(OpCostTest, MatmulFp32TakesTwoCubePassesPerFractal) {
  // 64x64x64 FP32: kt = 8, cpr = 2 -> mad = 21 + 2*4*8*4 = 277; MTE1-bound.
  const double load = 16384 / 129.7 + 16384 / 85.4;
  EXPECT_NEAR(MatmulCycles(64, 64, 64, trace::FP32, kCube), std::max(load, 277.0) + 164 + 64 * 4.45,
              1e-9);
  // Compute-bound case shows the passes: m = n = 256 would not fit L0, so use
  // a thin-k shape where mad dominates: 16 x 16 x 8 -> load 2*512 B.
  EXPECT_NEAR(MatmulCycles(16, 16, 8, trace::FP32, kCube),
              std::max(512 / 129.7 + 512 / 85.4, 21.0 + 2 * 1 * 1 * 1) + 164 + 16 * 4.45, 1e-9);
}

TEST(OpCostTest, MatmulDrainChargesTheOddPartOfTheFractalCount) {
  // n = 80: N1 = 80/8 = 10, odd part 5 -> 4 extra passes of 2.6 per row.
  const double load = 16 * 16 * 2 / 129.7 + 16 * 80 * 2 / 85.4;
  const double drain = 164 + 16 * (4.45 + 2.6 * 4);
  EXPECT_NEAR(MatmulCycles(16, 80, 16, trace::FP16, kCube), std::max(load, 26.0) + drain, 1e-9);
}

TEST(OpCostTest, OversizedMatmulSplitsIntoL0OutputTiles) {
  // 256^3 FP16 does not fit L0 (A, B 128 KB; C 256 KB): it runs as four
  // 128x128 output tiles, each accumulating the full k = 256 in one L0C.
  EXPECT_NEAR(MatmulCycles(256, 256, 256, trace::FP16, kCube),
              4 * MatmulCycles(128, 128, 256, trace::FP16, kCube), 1e-6);
  // k = 1024 splits into 4 k blocks of 256 (L0A/L0B hold 64 KB): one MAD head
  // per k block, one drain for the single output tile.
  const double load = 128 * 1024 * 2 / 129.7 + 1024 * 128 * 2 / 85.4;
  const double mad = 4 * 21 + 8 * 64 * 8;
  EXPECT_NEAR(MatmulCycles(128, 128, 1024, trace::FP16, kCube),
              std::max(load, mad) + 164 + 128 * 4.45, 1e-9);
}

TEST(OpCostTest, CostSummaryTakesTheDominantTermSplitOverPhases) {
  ChipConfig config;
  trace::CostSummary cost;
  cost.set_cube_flops(2.0 * 4096 * 1.85e9 * 1e-6);  // 1 us of cube work
  cost.set_vector_elements(64 * 1.85e9 * 0.5e-6);   // 0.5 us of vector work
  cost.set_bytes_in(1000);
  cost.set_barrier_phases(1);
  CostSummaryTiming t = CostSummaryTime(cost, trace::MIX, 1, config);
  EXPECT_EQ(t.phases, 2);
  EXPECT_NEAR(t.phase_ns, 500, 1e-6);
  EXPECT_NEAR(t.total_ns(), 1000, 1e-6);
  EXPECT_EQ(t.engine, EngineKind::kCube);

  cost.set_fixed_cycles(3700);  // overrides the rest: 2 us
  t = CostSummaryTime(cost, trace::AIV, 1, config);
  EXPECT_NEAR(t.total_ns(), 2000, 1e-6);
  EXPECT_EQ(t.engine, EngineKind::kVector);

  // An AIV reads at core.gm_to_ub_bytes_per_cycle and writes at
  // core.ub_to_gm_bytes_per_cycle: 1 us each here.
  trace::CostSummary mte;
  mte.set_bytes_in(std::llround(62.3 * 1850));
  mte.set_bytes_out(std::llround(65.3 * 1850));
  EXPECT_NEAR(CostSummaryTime(mte, trace::AIV, 1, config).total_ns(), 2000, 1e-6);
  // An AIC reads into L1 and drains L0C; a MIX call uses its cluster's AIC
  // and both AIV.
  mte.set_bytes_in(std::llround(166.3 * 1850));
  mte.set_bytes_out(118 * 1850);
  EXPECT_NEAR(CostSummaryTime(mte, trace::AIC, 1, config).total_ns(), 2000, 1e-6);
  mte.set_bytes_in(std::llround((166.3 + 2 * 62.3) * 1850));
  mte.set_bytes_out(std::llround((118 + 2 * 65.3) * 1850));
  EXPECT_NEAR(CostSummaryTime(mte, trace::MIX, 1, config).total_ns(), 2000, 1e-6);
}

TEST(OpCostTest, CostSummaryWorkIsTheCallsSharedOverItsBlocksButFixedCyclesArePerBlock) {
  ChipConfig config;
  trace::CostSummary work;
  work.set_bytes_in(std::llround(62.3 * 1850 * 8));  // 8 us of AIV reads for the whole call
  EXPECT_NEAR(CostSummaryTime(work, trace::AIV, 1, config).total_ns(), 8000, 1e-6);
  EXPECT_NEAR(CostSummaryTime(work, trace::AIV, 4, config).total_ns(), 2000, 1e-6);
  trace::CostSummary fixed;
  fixed.set_fixed_cycles(3700);  // 2 us, whatever the block count
  EXPECT_NEAR(CostSummaryTime(fixed, trace::AIV, 4, config).total_ns(), 2000, 1e-6);
}

TEST(OpCostTest, KernelDurationAddsStartAndFinishToSerialisedOpCosts) {
  ChipConfig config;
  ExecutionProfile p;
  p.Add({0, trace::Op::MATMUL, EngineKind::kCube, CarryCopy::kNone, 0, 0, 0, 100});
  p.Add({1, trace::Op::ADD, EngineKind::kVector, CarryCopy::kNone, 0, 0, 0, 50});
  EXPECT_NEAR(KernelDurationNs(p, config), 400 + 150 + 200, 1e-9);
  EXPECT_NEAR(p.cube_ns, 100, 1e-12);
  EXPECT_NEAR(p.vector_ns, 50, 1e-12);
}

// The issue-24 ops, compiled from a kernel so that elements and shapes come
// from the op program as they do in a run: a [64, 128] FP32 input.
TEST(OpCostTest, ReductionsBroadcastsAndShapeOpsByHand) {
  using K = trace::Op;
  kernel_testing::KernelBuilder kb("ops");
  const uint32_t x = kb.TensorParam("x", trace::FP32);
  const uint32_t t = kb.Tile("t", {64, 128}, trace::FP32);
  const uint32_t row = kb.Tile("row", {64, 1}, trace::FP32);
  const uint32_t col = kb.Tile("col", {1, 128}, trace::FP32);
  const uint32_t d = kb.Tile("d", {64, 128}, trace::FP32);
  const uint32_t wide = kb.Tile("wide", {64, 256}, trace::FP32);
  const uint32_t view = kb.Tile("view", {128, 64}, trace::FP32);
  const uint32_t one_row = kb.Tile("one_row", {1, 128}, trace::FP32);
  const uint32_t one_col = kb.Tile("one_col", {1, 128}, trace::FP32);
  kb.Load(t, x, {kernel_testing::C(0), kernel_testing::C(0)});  // 0
  kb.Unary(K::ROW_MIN, row, t);                                 // 1
  kb.Unary(K::COL_SUM, col, t);                                 // 2
  kb.Binary(K::SUB, d, t, row).set_broadcast(K::ROW);           // 3
  kb.Binary(K::DIV, d, t, col).set_broadcast(K::COL);           // 4
  kb.Unary(K::EXPAND, d, row).set_broadcast(K::ROW);            // 5
  kb.Binary(K::CONCAT, wide, t, d);                             // 6
  kb.Unary(K::RESHAPE, view, t);                                // 7
  kb.Unary(K::TRANSPOSE_VIEW, view, t);                         // 8
  trace::Op& assemble = kb.Binary(K::ASSEMBLE, d, t, col);      // 9
  *assemble.add_offsets() = kernel_testing::C(3);
  *assemble.add_offsets() = kernel_testing::C(0);
  kb.Load(one_row, x, {kernel_testing::C(0), kernel_testing::C(0)});  // 10
  kb.Unary(K::COL_MAX, one_col, one_row);                             // 11
  absl::StatusOr<CompiledKernel> k = CompileKernel(kb.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  ChipConfig config;
  auto cost = [&](int i) { return OpCostNs(k->ops[static_cast<size_t>(i)], *k, config); };
  const double bytes = 64 * 128 * 4;
  // Row reduction: the input's bytes at the tile-tile rate (128 B/cycle).
  EXPECT_NEAR(cost(1), bytes / 128 / kClockGhz, 1e-9);
  // Column reduction: 63 row additions of 128 elements at the tile-tile rate.
  EXPECT_NEAR(cost(2), std::ceil(63.0 * 128 * 4 / 128) / kClockGhz, 1e-9);
  // Broadcasts: the result's elements at the tile-tile (divide) rate.
  EXPECT_NEAR(cost(3), bytes / 128 / kClockGhz, 1e-9);
  EXPECT_NEAR(cost(4), bytes / 64 / kClockGhz, 1e-9);
  // Expand and concat write their result at the one-input rate (256 B/cycle).
  EXPECT_NEAR(cost(5), bytes / 256 / kClockGhz, 1e-9);
  EXPECT_NEAR(cost(6), 2 * bytes / 256 / kClockGhz, 1e-9);
  // Views are free; a UB assemble copies its source at the one-input rate.
  EXPECT_EQ(cost(7), 0);
  EXPECT_EQ(cost(8), 0);
  EXPECT_NEAR(cost(9), std::ceil(128.0 * 4 / 256) / kClockGhz, 1e-9);
  // A column reduction of one row is a copy.
  EXPECT_NEAR(cost(11), std::ceil(128.0 * 4 / 256) / kClockGhz, 1e-9);
  EXPECT_EQ(VectorClassOf(K::COL_MIN, false), VectorClass::kBinary);
  EXPECT_EQ(VectorClassOf(K::EXPAND, false), VectorClass::kUnary);
}

TEST(OpCostTest, AnAccumulatorAssembledIntoL1DrainsThroughTheFixpipe) {
  using K = trace::Op;
  kernel_testing::KernelBuilder kb("tinsert", trace::AIC);
  const uint32_t x = kb.TensorParam("x", trace::BF16);
  const uint32_t a = kb.Tile("a", {32, 32}, trace::BF16, trace::MAT);
  const uint32_t acc = kb.Tile("acc", {32, 32}, trace::FP32, trace::ACC);
  const uint32_t big = kb.Tile("big", {64, 64}, trace::BF16, trace::MAT);
  const uint32_t out = kb.Tile("out", {64, 64}, trace::BF16, trace::MAT);
  kb.Load(a, x, {kernel_testing::C(0), kernel_testing::C(0)});
  kb.Matmul(acc, a, a);
  kb.Load(big, x, {kernel_testing::C(0), kernel_testing::C(0)});
  trace::Op& assemble = kb.Binary(K::ASSEMBLE, out, big, acc);
  *assemble.add_offsets() = kernel_testing::C(32);
  *assemble.add_offsets() = kernel_testing::C(0);
  absl::StatusOr<CompiledKernel> k = CompileKernel(kb.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  ChipConfig config;
  // 32 x 32 BF16 results (2 KiB) at the drain rate (118 B/cycle).
  EXPECT_NEAR(OpCostNs(k->ops[3], *k, config), 32.0 * 32 * 2 / 118 / kClockGhz, 1e-9);
  EXPECT_EQ(k->ops[3].engine, EngineKind::kCube);
  EXPECT_EQ(PipeOf(*k, k->ops[3]), Pipe::kFixpipe);  // the cube's TINSERT out of L0C
}

}  // namespace
}  // namespace pto
