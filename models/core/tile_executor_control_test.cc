// Device-side control (task stream version 9): IF arms chosen per block,
// READ values as branch conditions and loop bounds, phis, valid shapes and
// FILLPAD, and READs of a timing-only run.
#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/tile_executor_fixture.h"
#include "models/gm/memory_image.h"

namespace pto {
namespace {

using kernel_testing::Bin;
using kernel_testing::BlockIdx;
using kernel_testing::C;
using kernel_testing::KernelBuilder;
using kernel_testing::LoopVar;
using kernel_testing::Reg;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using trace::IntExpr;
using trace::Op;

constexpr int kRows = 2;
constexpr int kCols = 8;
constexpr uint64_t kMode = kGmBase + 0xC0000;

TensorBinding Vector(uint64_t addr, trace::DType dtype, int64_t n) {
  TensorBinding t;
  t.gm_addr = addr;
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = n;
  t.strides[0] = 1;
  return t;
}

class ControlTest : public TileExecutorFixture {
 protected:
  // y = x * 2 when mode[block] == 1, else -x; then + 1 on odd blocks (a phi
  // whose else value is the prior tile).
  CompiledKernel Branchy() {
    KernelBuilder kb("branchy");
    const uint32_t x = kb.TensorParam("x", trace::FP32);
    const uint32_t mode = kb.TensorParam("mode", trace::INT32);
    const uint32_t out = kb.TensorParam("out", trace::FP32);
    const uint32_t t = kb.Tile("t", {kRows, kCols}, trace::FP32);
    const uint32_t doubled = kb.Tile("doubled", {kRows, kCols}, trace::FP32);
    const uint32_t negated = kb.Tile("negated", {kRows, kCols}, trace::FP32);
    const uint32_t y = kb.Tile("y", {kRows, kCols}, trace::FP32);
    const uint32_t plus = kb.Tile("plus", {kRows, kCols}, trace::FP32);
    const uint32_t z = kb.Tile("z", {kRows, kCols}, trace::FP32);
    const uint32_t m = kb.ScalarReg();
    kb.Load(t, x, {C(0), C(0)});
    kb.Read(m, mode, {BlockIdx()});
    Op& first = kb.BeginIf(Bin(IntExpr::EQ, Reg(m), C(1)));
    kb.WithScalar(Op::MUL, doubled, t, 2.0);
    kb.Else();
    kb.Unary(Op::NEG, negated, t);
    kb.EndIf();
    KernelBuilder::Phi(first, y, doubled, negated);
    Op& second = kb.BeginIf(Bin(IntExpr::MOD, BlockIdx(), C(2)));
    kb.WithScalar(Op::ADD, plus, y, 1.0);
    kb.EndIf();
    KernelBuilder::Phi(second, z, plus, y);
    kb.Store(z, out, {C(0), C(0)});
    return Compile(kb);
  }
};

TEST_F(ControlTest, EachBlockTakesTheArmItsValuesChoose) {
  const CompiledKernel k = Branchy();
  const std::vector<float> x = Ramp(kRows * kCols, -3, 0.5f);
  PutF32(kA, x);
  PutAs(trace::INT32, kMode, {1, 0, 0, 1});
  const int32_t kinds[4][2] = {
      {Op::MUL, -1}, {Op::NEG, Op::ADD}, {Op::NEG, -1}, {Op::MUL, Op::ADD}};
  for (int b = 0; b < 4; ++b) {
    ASSERT_TRUE(Run(k,
                    {BoundArg::Tensor(Matrix(kA, trace::FP32, kRows, kCols)),
                     BoundArg::Tensor(Vector(kMode, trace::INT32, 4)),
                     BoundArg::Tensor(Matrix(kOut, trace::FP32, kRows, kCols))},
                    BlockContext{b, 4, 0})
                    .ok());
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      want[i] = (b == 0 || b == 3) ? 2 * x[i] : -x[i];
      if (b % 2 == 1) want[i] += 1;
    }
    EXPECT_THAT(GetF32(kOut, x.size()), ElementsAreArray(want)) << "block " << b;
    // The block's records are the path it took: LOAD, READ, its arms' ops,
    // STORE -- nothing of the arms it skipped.
    std::vector<int32_t> ran;
    for (const OpRecord& r : profile_.records) ran.push_back(r.kind);
    std::vector<int32_t> expected = {Op::LOAD, Op::READ, kinds[b][0]};
    if (kinds[b][1] >= 0) expected.push_back(kinds[b][1]);
    expected.push_back(Op::STORE);
    EXPECT_EQ(ran, expected) << "block " << b;
  }
}

TEST_F(ControlTest, ALoopBoundReadFromATensorSetsTheTripCount) {
  // for i in range(n): out[i, :] = i, with n = cfg[0].
  KernelBuilder kb("ragged");
  const uint32_t cfg = kb.TensorParam("cfg", trace::INT32);
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t row = kb.Tile("row", {1, kCols}, trace::FP32);
  const uint32_t n = kb.ScalarReg();
  kb.Read(n, cfg, {C(0)});
  kb.BeginLoop(0, C(0), Reg(n));
  kb.Full(row, 7);
  kb.Store(row, out, {LoopVar(0), C(0)});
  kb.EndLoop();
  const CompiledKernel k = Compile(kb);
  for (int32_t trips : {0, 3, 5}) {
    PutF32(kOut, std::vector<float>(6 * kCols, 0));
    PutAs(trace::INT32, kMode, {static_cast<double>(trips)});
    ASSERT_TRUE(Run(k, {BoundArg::Tensor(Vector(kMode, trace::INT32, 1)),
                        BoundArg::Tensor(Matrix(kOut, trace::FP32, 6, kCols))})
                    .ok());
    int stores = 0;
    for (const OpRecord& r : profile_.records) stores += r.kind == Op::STORE;
    EXPECT_EQ(stores, trips);
    const std::vector<float> got = GetF32(kOut, 6 * kCols);
    for (int r = 0; r < 6; ++r) EXPECT_EQ(got[r * kCols], r < trips ? 7.0f : 0.0f) << r;
  }
  // A bound that leaves the tensor fails on the first store out of range.
  PutAs(trace::INT32, kMode, {7});
  const absl::Status s = Run(k, {BoundArg::Tensor(Vector(kMode, trace::INT32, 1)),
                                 BoundArg::Tensor(Matrix(kOut, trace::FP32, 6, kCols))});
  EXPECT_THAT(s.message(), HasSubstr("leaves the view"));
}

TEST_F(ControlTest, AScalarPhiCarriesAValueOutOfTheArms) {
  // limit = 2 if block 0 else 5; for i in range(limit): out[i] = 1.
  KernelBuilder kb("scalar_phi");
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t row = kb.Tile("row", {1, kCols}, trace::FP32);
  const uint32_t limit = kb.ScalarReg();
  Op& branch = kb.BeginIf(Bin(IntExpr::EQ, BlockIdx(), C(0)));
  kb.EndIf();
  trace::Op::Branch::ScalarPhi* phi = branch.mutable_branch()->add_scalar_phis();
  phi->set_reg(limit);
  *phi->mutable_then_expr() = C(2);
  *phi->mutable_else_expr() = C(5);
  kb.BeginLoop(0, C(0), Reg(limit));
  kb.Full(row, 1);
  kb.Store(row, out, {LoopVar(0), C(0)});
  kb.EndLoop();
  const CompiledKernel k = Compile(kb);
  for (int b = 0; b < 2; ++b) {
    ASSERT_TRUE(
        Run(k, {BoundArg::Tensor(Matrix(kOut, trace::FP32, 6, kCols))}, BlockContext{b, 2, 0})
            .ok());
    int stores = 0;
    for (const OpRecord& r : profile_.records) stores += r.kind == Op::STORE;
    EXPECT_EQ(stores, b == 0 ? 2 : 5);
  }
}

TEST_F(ControlTest, AValidShapeLoadsItsRegionAndFillPadSetsTheRest) {
  // s = load(valid_shape=[2, vlen]); rowmax(fillpad(s, min)); stores of s
  // itself write only its valid region.
  KernelBuilder kb("valid");
  const uint32_t x = kb.TensorParam("x", trace::FP32);
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t copy = kb.TensorParam("copy", trace::FP32);
  const uint32_t vlen = kb.ScalarParam("vlen");
  const uint32_t s = kb.Tile("s", {kRows, kCols}, trace::FP32);
  const uint32_t padded = kb.Tile("padded", {kRows, kCols}, trace::FP32);
  const uint32_t scaled = kb.Tile("scaled", {kRows, kCols}, trace::FP32);
  const uint32_t tmp = kb.Tile("tmp", {kRows, kCols}, trace::FP32);
  const uint32_t rmax = kb.Tile("rmax", {kRows, 1}, trace::FP32);
  Op& load = kb.Load(s, x, {C(0), C(0)});
  *load.add_valid_shape() = C(kRows);
  *load.add_valid_shape() = kernel_testing::ScalarParam(vlen);
  kb.Add(Op::FILLPAD).set_dst(padded);
  kb.program()->mutable_ops()->rbegin()->add_srcs(s);
  kb.program()->mutable_ops()->rbegin()->set_pad(Op::PAD_MIN);
  kb.Create(tmp);
  kb.Unary(Op::ROW_MAX, rmax, padded).add_srcs(tmp);
  kb.Store(rmax, out, {C(0), C(0)});
  kb.WithScalar(Op::MUL, scaled, s, 10.0);
  kb.Store(scaled, copy, {C(0), C(0)});
  const CompiledKernel k = Compile(kb);
  ASSERT_TRUE(k.uses_valid_shapes);
  // All negative, and larger to the right: the max over the first vlen
  // columns is the last valid one.
  std::vector<float> data(kRows * kCols);
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) data[r * kCols + c] = -100.0f + c + 20.0f * r;
  }
  PutF32(kA, data);
  PutF32(kB, std::vector<float>(kRows * kCols, 99));
  ASSERT_TRUE(Run(k, {BoundArg::Tensor(Matrix(kA, trace::FP32, kRows, kCols)),
                      BoundArg::Tensor(Matrix(kOut, trace::FP32, kRows, 1)),
                      BoundArg::Tensor(Matrix(kB, trace::FP32, kRows, kCols)), BoundArg::Int(5)})
                  .ok());
  EXPECT_THAT(GetF32(kOut, 2), ElementsAreArray({-96.0f, -76.0f}));
  const std::vector<float> copied = GetF32(kB, kRows * kCols);
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      EXPECT_EQ(copied[r * kCols + c], c < 5 ? 10 * data[r * kCols + c] : 99.0f) << r << "," << c;
    }
  }
  // GM traffic is the valid region's: 2 x 5 FP32 in, 2 x 5 out (plus the
  // two row maxima).
  EXPECT_EQ(profile_.gm_bytes_read, 2 * 5 * 4);
  EXPECT_EQ(profile_.gm_bytes_written, 2 * 5 * 4 + 2 * 4);
  // A valid extent beyond the tile is an error of the instance.
  const absl::Status s9 =
      Run(k, {BoundArg::Tensor(Matrix(kA, trace::FP32, kRows, kCols)),
              BoundArg::Tensor(Matrix(kOut, trace::FP32, kRows, 1)),
              BoundArg::Tensor(Matrix(kB, trace::FP32, kRows, kCols)), BoundArg::Int(9)});
  EXPECT_THAT(s9.message(), HasSubstr("valid_shape[1] is 9 but tile 's' has 8 columns"));
}

TEST_F(ControlTest, AReductionCoversTheValidRegionOnly) {
  // As the PTO ISA's reductions iterate validRow x validCol (upstream's
  // tests/st/runtime/ops/test_row_min.py poisons the padding): the padding,
  // NaN until a fillpad, takes no part in a row or column reduction.
  KernelBuilder kb("unpadded");
  const uint32_t x = kb.TensorParam("x", trace::FP32);
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t cols_out = kb.TensorParam("cols_out", trace::FP32);
  const uint32_t s = kb.Tile("s", {kRows, kCols}, trace::FP32);
  const uint32_t tmp = kb.Tile("tmp", {kRows, kCols}, trace::FP32);
  const uint32_t rsum = kb.Tile("rsum", {kRows, 1}, trace::FP32);
  const uint32_t cmax = kb.Tile("cmax", {1, kCols}, trace::FP32);
  Op& load = kb.Load(s, x, {C(0), C(0)});
  *load.add_valid_shape() = C(1);
  *load.add_valid_shape() = C(3);
  kb.Create(tmp);
  kb.Unary(Op::ROW_SUM, rsum, s).add_srcs(tmp);
  kb.Store(rsum, out, {C(0), C(0)});
  kb.Unary(Op::COL_MAX, cmax, s);
  kb.Store(cmax, cols_out, {C(0), C(0)});
  const CompiledKernel k = Compile(kb);
  std::vector<float> data(kRows * kCols, -1000.0f);  // poison outside [1, 3]
  data[0] = 1, data[1] = 2, data[2] = 4;
  PutF32(kA, data);
  PutF32(kOut, {9, 9});
  PutF32(kB, std::vector<float>(kCols, 9));
  ASSERT_TRUE(Run(k, {BoundArg::Tensor(Matrix(kA, trace::FP32, kRows, kCols)),
                      BoundArg::Tensor(Matrix(kOut, trace::FP32, kRows, 1)),
                      BoundArg::Tensor(Matrix(kB, trace::FP32, 1, kCols))})
                  .ok());
  // The results' valid regions are [1, 1] and [1, 3]: only those are stored.
  EXPECT_THAT(GetF32(kOut, 2), ElementsAreArray({7.0f, 9.0f}));
  std::vector<float> cols(kCols, 9.0f);
  cols[0] = 1, cols[1] = 2, cols[2] = 4;
  EXPECT_THAT(GetF32(kB, kCols), ElementsAreArray(cols));
}

TEST_F(ControlTest, TimingOnlyReadsComeFromTheHostsValuesOrFailSayingWhy) {
  KernelBuilder kb("timed");
  const uint32_t cfg = kb.TensorParam("cfg", trace::INT32);
  const uint32_t n = kb.ScalarReg();
  kb.Read(n, cfg, {C(1)});
  kb.BeginLoop(0, C(0), Reg(n));
  kb.Full(kb.Tile("t", {1, kCols}, trace::FP32), 0);
  kb.EndLoop();
  const CompiledKernel k = Compile(kb);
  const std::vector<BoundArg> args = {BoundArg::Tensor(Vector(kMode, trace::INT32, 2))};
  // No scalar memory: the run has no values at all.
  EXPECT_THAT(Run(k, args, {}, /*functional=*/false).message(),
              HasSubstr("this timing-only run has no tensor contents"));
  MemoryImage image;
  image.AddRegion(kGmBase, 0x1000, "other", /*allocate=*/false);
  image.AddControlRegion(kMode, 8, "cfg");
  const int32_t values[2] = {9, 4};
  std::memcpy(image.Span(kMode, 8), values, 8);
  exec_.set_scalar_memory(&image);
  ASSERT_TRUE(Run(k, args, {}, /*functional=*/false).ok());
  int fills = 0;
  for (const OpRecord& r : profile_.records) fills += r.kind == Op::FULL;
  EXPECT_EQ(fills, 4);
  // A timing-only task that stores into cfg leaves its values unknown: the
  // executor tells the scalar memory what its STOREs cover.
  KernelBuilder writer("writer");
  const uint32_t dst = writer.TensorParam("dst", trace::INT32);
  const uint32_t zeros = writer.Tile("zeros", {1, 2}, trace::INT32);
  writer.Full(zeros, 0);
  writer.Store(zeros, dst, {C(0)});
  const CompiledKernel w = Compile(writer);
  ASSERT_TRUE(Run(w, args, {}, /*functional=*/false).ok());
  EXPECT_THAT(Run(k, args, {}, /*functional=*/false).message(),
              HasSubstr("'cfg' was written by a task on the device"));
  exec_.set_scalar_memory(nullptr);
}

TEST_F(ControlTest, ExtractTakesAWindowAtOffsetsFromALoop) {
  // for i in range(2): out[i, :] = t[2 - 1 - i, 4:8] (pl.slice of a tile).
  KernelBuilder kb("extract");
  const uint32_t x = kb.TensorParam("x", trace::FP32);
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t t = kb.Tile("t", {kRows, kCols}, trace::FP32);
  const uint32_t w = kb.Tile("w", {1, 4}, trace::FP32);
  kb.Load(t, x, {C(0), C(0)});
  kb.BeginLoop(0, C(0), C(kRows));
  Op& extract = kb.Add(Op::EXTRACT);
  extract.set_dst(w);
  extract.add_srcs(t);
  *extract.add_offsets() = Bin(IntExpr::SUB, C(kRows - 1), LoopVar(0));
  *extract.add_offsets() = C(4);
  kb.Store(w, out, {LoopVar(0), C(0)});
  kb.EndLoop();
  const CompiledKernel k = Compile(kb);
  const std::vector<float> x_values = Ramp(kRows * kCols, 0, 1);
  PutF32(kA, x_values);
  ASSERT_TRUE(Run(k, {BoundArg::Tensor(Matrix(kA, trace::FP32, kRows, kCols)),
                      BoundArg::Tensor(Matrix(kOut, trace::FP32, kRows, 4))})
                  .ok());
  EXPECT_THAT(GetF32(kOut, 8), ElementsAreArray(std::vector<float>{12, 13, 14, 15, 4, 5, 6, 7}));
  // A window that leaves its source is an error of the instance.
  KernelBuilder bad(kb);
  bad.program()->mutable_ops(1)->mutable_loop()->mutable_body(0)->mutable_offsets(1)->set_constant(
      5);
  EXPECT_THAT(std::string(CompileKernel(bad.kernel()).status().message()),
              HasSubstr("extracts [1, 4] at offsets[1] = 5 from [2, 8]; it must lie inside: 0 <= "
                        "offset <= 4"));
}

TEST(ControlCompileTest, RejectsMalformedBranchesReadsAndValidShapes) {
  const auto error = [](const KernelBuilder& kb) {
    absl::StatusOr<CompiledKernel> k = CompileKernel(kb.kernel());
    return k.ok() ? std::string("compiled") : std::string(k.status().message());
  };
  {
    // A tile written in one arm only is not written after the IF.
    KernelBuilder kb("one_arm");
    const uint32_t out = kb.TensorParam("out", trace::FP32);
    const uint32_t t = kb.Tile("t", {1, kCols}, trace::FP32);
    kb.BeginIf(BlockIdx());
    kb.Full(t, 1);
    kb.EndIf();
    kb.Store(t, out, {C(0), C(0)});
    EXPECT_THAT(error(kb), HasSubstr("reads tile 0 ('t') before any op writes it"));
  }
  {
    // A phi is the IF's: an arm may not write it.
    KernelBuilder kb("phi_written");
    const uint32_t a = kb.Tile("a", {1, kCols}, trace::FP32);
    const uint32_t b = kb.Tile("b", {1, kCols}, trace::FP32);
    const uint32_t phi = kb.Tile("phi", {1, kCols}, trace::FP32);
    kb.Full(a, 1);
    Op& branch = kb.BeginIf(BlockIdx());
    kb.Full(phi, 2);
    kb.Else();
    kb.Full(b, 3);
    kb.EndIf();
    KernelBuilder::Phi(branch, phi, a, b);
    EXPECT_THAT(error(kb), HasSubstr("a phi of kernel 'phi_written' op 1 (IF"));
  }
  {
    // A phi's value must exist at its arm's end.
    KernelBuilder kb("phi_missing");
    const uint32_t a = kb.Tile("a", {1, kCols}, trace::FP32);
    const uint32_t b = kb.Tile("b", {1, kCols}, trace::FP32);
    const uint32_t phi = kb.Tile("phi", {1, kCols}, trace::FP32);
    Op& branch = kb.BeginIf(BlockIdx());
    kb.Full(a, 1);
    kb.Else();
    kb.Full(a, 2);
    kb.EndIf();
    KernelBuilder::Phi(branch, phi, a, b);
    EXPECT_THAT(error(kb), HasSubstr("takes tile 1 ('b') from its else arm, which nothing writes"));
  }
  {
    KernelBuilder kb("float_read");
    const uint32_t x = kb.TensorParam("x", trace::FP32);
    kb.Read(kb.ScalarReg(), x, {C(0)});
    EXPECT_THAT(error(kb), HasSubstr("a scalar register holds an integer"));
  }
  {
    KernelBuilder kb("bad_reg");
    const uint32_t x = kb.TensorParam("x", trace::INT32);
    kb.Read(3, x, {C(0)});
    EXPECT_THAT(error(kb), HasSubstr("scalar_reg is 3 but the program has 0 scalar registers"));
  }
  {
    KernelBuilder kb("wide_valid");
    const uint32_t x = kb.TensorParam("x", trace::FP32);
    Op& load = kb.Load(kb.Tile("s", {kRows, kCols}, trace::FP32), x, {C(0), C(0)});
    *load.add_valid_shape() = C(kRows);
    *load.add_valid_shape() = C(kCols + 1);
    EXPECT_THAT(error(kb), HasSubstr("valid_shape[1] is 9 but tile 's' is [2, 8]"));
  }
}

}  // namespace
}  // namespace pto
