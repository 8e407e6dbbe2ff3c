// The executor's version-10 vector ops (ABS .. EXPDIF, partial ops), each
// against a hand-computed reference.
#include <cmath>
#include <functional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/tile_executor_fixture.h"

namespace pto {
namespace {

using kernel_testing::C;
using kernel_testing::KernelBuilder;
using ::testing::HasSubstr;
using trace::Op;

constexpr int kRows = 2;
constexpr int kCols = 8;
constexpr int kN = kRows * kCols;

class MathOpsTest : public TileExecutorFixture {
 protected:
  BoundArg Arg(uint64_t addr, trace::DType dt, int64_t rows, int64_t cols) {
    return BoundArg::Tensor(Matrix(addr, dt, rows, cols));
  }
  // Runs `build` on x (kA) and returns out (kOut), both [kRows, kCols] of dt.
  std::vector<double> RunOne(trace::DType dt, const std::vector<double>& x,
                             const std::function<void(KernelBuilder&, uint32_t, uint32_t)>& build) {
    KernelBuilder kb("math");
    const uint32_t xp = kb.TensorParam("x", dt);
    const uint32_t out = kb.TensorParam("out", dt);
    const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
    const uint32_t d = kb.Tile("d", {kRows, kCols}, dt);
    kb.Load(t, xp, {C(0), C(0)});
    build(kb, d, t);
    kb.Store(d, out, {C(0), C(0)});
    const CompiledKernel k = Compile(kb);
    PutAs(dt, kA, x);
    EXPECT_TRUE(Run(k, {Arg(kA, dt, kRows, kCols), Arg(kOut, dt, kRows, kCols)}).ok());
    return GetAs(dt, kOut, kN);
  }
};

std::vector<double> Signed() {
  std::vector<double> v(kN);
  for (int i = 0; i < kN; ++i) v[i] = (i * 5) % 13 - 6.5;
  return v;
}

TEST_F(MathOpsTest, OneInputOpsMatchTheirFormulas) {
  const std::vector<double> x = Signed();
  struct Case {
    Op::Kind kind;
    double (*ref)(double);
  };
  const Case cases[] = {{Op::ABS, [](double v) { return std::fabs(v); }},
                        {Op::SIN, [](double v) { return std::sin(v); }},
                        {Op::COS, [](double v) { return std::cos(v); }}};
  for (const Case& c : cases) {
    SCOPED_TRACE(Op::Kind_Name(c.kind));
    const std::vector<double> got = RunOne(
        trace::FP32, x, [&](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(c.kind, d, t); });
    for (int i = 0; i < kN; ++i) EXPECT_NEAR(got[i], c.ref(x[i]), 1e-6) << i;
  }
  std::vector<double> positive(kN);
  for (int i = 0; i < kN; ++i) positive[i] = 0.5 + i;
  const std::vector<double> logs =
      RunOne(trace::FP32, positive,
             [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(Op::LOG, d, t); });
  for (int i = 0; i < kN; ++i) EXPECT_NEAR(logs[i], std::log(positive[i]), 1e-6) << i;
}

TEST_F(MathOpsTest, LeakyAndParametricReluScaleOnlyTheNegatives) {
  const std::vector<double> x = Signed();
  const std::vector<double> leaky = RunOne(
      trace::FP32, x,
      [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.WithScalar(Op::LRELU, d, t, 0.25); });
  // PRELU with the input as its own slope: x > 0 ? x : x * x.
  const std::vector<double> param =
      RunOne(trace::FP32, x,
             [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Binary(Op::PRELU, d, t, t); });
  for (int i = 0; i < kN; ++i) {
    EXPECT_FLOAT_EQ(leaky[i], x[i] > 0 ? x[i] : 0.25 * x[i]) << i;
    EXPECT_FLOAT_EQ(param[i], x[i] > 0 ? x[i] : x[i] * x[i]) << i;
  }
}

TEST_F(MathOpsTest, NotFlipsEveryBitOfSignedAndUnsignedIntegers) {
  std::vector<double> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = i * 17 % 256;
  const std::vector<double> u8 = RunOne(
      trace::UINT8, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(Op::NOT, d, t); });
  const std::vector<double> i32 = RunOne(
      trace::INT32, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(Op::NOT, d, t); });
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(u8[i], static_cast<uint8_t>(~static_cast<uint8_t>(x[i]))) << i;
    EXPECT_EQ(i32[i], ~static_cast<int32_t>(x[i])) << i;
  }
}

TEST_F(MathOpsTest, FmodKeepsTheDividendsSign) {
  const std::vector<double> x = Signed();
  const std::vector<double> by_scalar =
      RunOne(trace::FP32, x,
             [](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.WithScalar(Op::FMOD, d, t, 2.5); });
  for (int i = 0; i < kN; ++i) {
    EXPECT_FLOAT_EQ(by_scalar[i], std::fmod(x[i], 2.5)) << i;
    if (x[i] < 0) EXPECT_LE(by_scalar[i], 0) << i;
  }
}

TEST_F(MathOpsTest, CompareThenSelectPicksPerElement) {
  // mask = x > 0 (one UINT8 byte per row of 8 columns); d = mask ? x : -1.
  const std::vector<double> x = Signed();
  const std::vector<double> got =
      RunOne(trace::FP32, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) {
        const uint32_t mask = kb.Tile("mask", {kRows, 32}, trace::UINT8);
        kb.WithScalar(Op::CMP, mask, t, 0.0).set_compare(Op::CMP_GT);
        kb.WithScalar(Op::SELECT, d, mask, -1.0).add_srcs(t);  // [mask, t], scalar
      });
  for (int i = 0; i < kN; ++i) EXPECT_EQ(got[i], x[i] > 0 ? x[i] : -1.0) << i;
  // Tile against tile, selecting between two tiles.
  const std::vector<double> eq =
      RunOne(trace::FP32, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) {
        const uint32_t mask = kb.Tile("mask", {kRows, 32}, trace::UINT8);
        const uint32_t zeros = kb.Tile("zeros", {kRows, kCols}, trace::FP32);
        kb.Full(zeros, 0);
        kb.Binary(Op::CMP, mask, t, t).set_compare(Op::CMP_NE);  // never true
        trace::Op& sel = kb.Binary(Op::SELECT, d, mask, t);
        sel.add_srcs(zeros);
      });
  for (int i = 0; i < kN; ++i) EXPECT_EQ(eq[i], 0) << i;
}

TEST_F(MathOpsTest, ProductsReduceRowsAndColumns) {
  KernelBuilder kb("prod");
  const uint32_t xp = kb.TensorParam("x", trace::FP32);
  const uint32_t rows_out = kb.TensorParam("rows_out", trace::FP32);
  const uint32_t cols_out = kb.TensorParam("cols_out", trace::FP32);
  const uint32_t t = kb.Tile("t", {kRows, kCols}, trace::FP32);
  const uint32_t tmp = kb.Tile("tmp", {kRows, kCols}, trace::FP32);
  const uint32_t rp = kb.Tile("rp", {kRows, 1}, trace::FP32);
  const uint32_t cp = kb.Tile("cp", {1, kCols}, trace::FP32);
  kb.Load(t, xp, {C(0), C(0)});
  kb.Create(tmp);
  kb.Unary(Op::ROW_PROD, rp, t).add_srcs(tmp);
  kb.Unary(Op::COL_PROD, cp, t);
  kb.Store(rp, rows_out, {C(0), C(0)});
  kb.Store(cp, cols_out, {C(0), C(0)});
  const CompiledKernel k = Compile(kb);
  const std::vector<double> x = Signed();
  PutAs(trace::FP32, kA, x);
  ASSERT_TRUE(Run(k, {Arg(kA, trace::FP32, kRows, kCols), Arg(kB, trace::FP32, kRows, 1),
                      Arg(kOut, trace::FP32, 1, kCols)})
                  .ok());
  const std::vector<double> rows = GetAs(trace::FP32, kB, kRows);
  const std::vector<double> cols = GetAs(trace::FP32, kOut, kCols);
  for (int r = 0; r < kRows; ++r) {
    double p = 1;
    for (int c = 0; c < kCols; ++c) p *= x[r * kCols + c];
    EXPECT_FLOAT_EQ(rows[r], p) << r;
  }
  for (int c = 0; c < kCols; ++c) EXPECT_FLOAT_EQ(cols[c], x[c] * x[kCols + c]) << c;
}

TEST_F(MathOpsTest, TriangleSetsItsValidRegion) {
  const std::vector<double> x(kN, 7);
  const std::vector<double> got =
      RunOne(trace::FP32, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) {
        kb.Full(d, 7);  // 7 everywhere first
        trace::Op& tri = kb.Add(Op::TRI);
        tri.set_dst(d);
        *tri.mutable_diagonal() = C(1);
        tri.set_upper(true);
        *tri.add_valid_shape() = C(kRows);
        *tri.add_valid_shape() = C(4);
      });
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      // The triangle's valid region is [2, 4]: the STORE writes only it, so
      // GM keeps its 0 past column 4 (FillTriangle's test shows the tile
      // keeps its 7 there).
      const double want = c >= 4 ? 0 : (c >= r + 1 ? 1 : 0);
      EXPECT_EQ(got[r * kCols + c], want) << r << "," << c;
    }
  }
}

TEST_F(MathOpsTest, ExpDifSubtractsTheRowValueBeforeExp) {
  const std::vector<double> x = Signed();
  const std::vector<double> got =
      RunOne(trace::FP32, x, [](KernelBuilder& kb, uint32_t d, uint32_t t) {
        const uint32_t tmp = kb.Tile("tmp", {kRows, kCols}, trace::FP32);
        const uint32_t row_max = kb.Tile("row_max", {kRows, 1}, trace::FP32);
        kb.Create(tmp);
        kb.Unary(Op::ROW_MAX, row_max, t).add_srcs(tmp);
        kb.Binary(Op::EXPDIF, d, t, row_max).set_broadcast(Op::ROW);
      });
  for (int r = 0; r < kRows; ++r) {
    double hi = -1e9;
    for (int c = 0; c < kCols; ++c) hi = std::max(hi, x[r * kCols + c]);
    for (int c = 0; c < kCols; ++c) {
      EXPECT_NEAR(got[r * kCols + c], std::exp(x[r * kCols + c] - hi), 1e-6) << r << "," << c;
    }
  }
}

TEST_F(MathOpsTest, PartialAddCopiesWhereOnlyOneOperandIsValid) {
  // a valid [2, 8], b valid [1, 4]: the sum on b's region, a elsewhere.
  KernelBuilder kb("part");
  const uint32_t xp = kb.TensorParam("x", trace::FP32);
  const uint32_t out = kb.TensorParam("out", trace::FP32);
  const uint32_t a = kb.Tile("a", {kRows, kCols}, trace::FP32);
  const uint32_t b = kb.Tile("b", {kRows, kCols}, trace::FP32);
  const uint32_t d = kb.Tile("d", {kRows, kCols}, trace::FP32);
  kb.Load(a, xp, {C(0), C(0)});
  trace::Op& load_b = kb.Load(b, xp, {C(0), C(0)});
  *load_b.add_valid_shape() = C(1);
  *load_b.add_valid_shape() = C(4);
  kb.Binary(Op::ADD, d, a, b).set_partial(true);
  kb.Store(d, out, {C(0), C(0)});
  const CompiledKernel k = Compile(kb);
  const std::vector<double> x = Signed();
  PutAs(trace::FP32, kA, x);
  PutAs(trace::FP32, kOut, std::vector<double>(kN, 0));
  ASSERT_TRUE(
      Run(k, {Arg(kA, trace::FP32, kRows, kCols), Arg(kOut, trace::FP32, kRows, kCols)}).ok());
  const std::vector<double> got = GetAs(trace::FP32, kOut, kN);
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      const double v = x[r * kCols + c];
      EXPECT_FLOAT_EQ(got[r * kCols + c], r < 1 && c < 4 ? 2 * v : v) << r << "," << c;
    }
  }
}

TEST_F(MathOpsTest, ValidationNamesTheRule) {
  const auto error = [&](const std::function<void(KernelBuilder&, uint32_t, uint32_t)>& build,
                         trace::DType dt = trace::FP32) {
    KernelBuilder kb("bad");
    const uint32_t xp = kb.TensorParam("x", dt);
    const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
    const uint32_t d = kb.Tile("d", {kRows, kCols}, dt);
    kb.Load(t, xp, {C(0), C(0)});
    build(kb, d, t);
    absl::StatusOr<CompiledKernel> k = CompileKernel(kb.kernel());
    return k.ok() ? std::string("ok") : std::string(k.status().message());
  };
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(Op::NOT, d, t); }),
              HasSubstr("NOT is bitwise"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Unary(Op::SIN, d, t); },
                    trace::FP16),
              HasSubstr("is not FP32"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) {
                const uint32_t mask = kb.Tile("mask", {kRows, 32}, trace::UINT8);
                kb.WithScalar(Op::CMP, mask, t, 0.0);
              }),
              HasSubstr("has no compare"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) {
                const uint32_t mask = kb.Tile("mask", {1, 32}, trace::UINT8);
                kb.WithScalar(Op::CMP, mask, t, 0.0).set_compare(Op::CMP_EQ);
              }),
              HasSubstr("needs 2 rows of at least 1 bytes"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) {
                kb.WithScalar(Op::ADD, d, t, 1.0).set_partial(true);
              }),
              HasSubstr("a partial op takes two tiles"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) {
                *kb.Unary(Op::EXP, d, t).mutable_diagonal() = C(0);
              }),
              HasSubstr("only TRI reads"));
  EXPECT_THAT(error([](KernelBuilder& kb, uint32_t d, uint32_t t) {
                trace::Op& tri = kb.Add(Op::TRI);
                tri.set_dst(d);
              }),
              HasSubstr("has no diagonal"));
  EXPECT_THAT(
      error([](KernelBuilder& kb, uint32_t d, uint32_t t) { kb.Binary(Op::EXPDIF, d, t, t); }),
      HasSubstr("EXPDIF subtracts a row"));
}

}  // namespace
}  // namespace pto
