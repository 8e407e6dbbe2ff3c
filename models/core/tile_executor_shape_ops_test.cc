// The executor's reductions, broadcasts, shape ops and cast modes (task
// stream version 8), each against a hand-computed reference for FP32, FP16,
// BF16 and INT32.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/tile_executor_fixture.h"
#include "models/core/tile_codec.h"

namespace pto {
namespace {

using kernel_testing::C;
using kernel_testing::KernelBuilder;
using kernel_testing::LoopVar;
using ::testing::HasSubstr;
using trace::Op;

constexpr int kRows = 4;
constexpr int kCols = 8;

// Small integers: every dtype holds them and their sums exactly.
std::vector<double> Input() {
  std::vector<double> v(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) v[i] = (i * 7) % 11 - 5;
  return v;
}

class ShapeOpsTest : public TileExecutorFixture,
                     public ::testing::WithParamInterface<trace::DType> {
 protected:
  BoundArg Arg(uint64_t addr, int64_t rows, int64_t cols) {
    return BoundArg::Tensor(Matrix(addr, GetParam(), rows, cols));
  }
};

TEST_P(ShapeOpsTest, RowAndColumnReductions) {
  const trace::DType dt = GetParam();
  KernelBuilder kb("reduce");
  const uint32_t x = kb.TensorParam("x", dt);
  const uint32_t rows_out = kb.TensorParam("rows_out", dt);
  const uint32_t cols_out = kb.TensorParam("cols_out", dt);
  const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
  const uint32_t tmp = kb.Tile("tmp", {kRows, kCols + 8}, dt);  // larger is allowed
  const uint32_t col_tmp = kb.Tile("col_tmp", {kRows, kCols}, dt);
  const uint32_t rmin = kb.Tile("rmin", {kRows, 1}, dt);
  const uint32_t csum = kb.Tile("csum", {1, kCols}, dt);
  const uint32_t csum_tree = kb.Tile("csum_tree", {1, kCols}, dt);
  const uint32_t cmax = kb.Tile("cmax", {1, kCols}, dt);
  const uint32_t cmin = kb.Tile("cmin", {kCols}, dt);  // rank 1 is one row
  kb.Load(t, x, {C(0), C(0)});
  kb.Create(tmp);
  kb.Create(col_tmp);
  kb.Unary(Op::ROW_MIN, rmin, t).add_srcs(tmp);
  kb.Unary(Op::COL_SUM, csum, t);
  kb.Unary(Op::COL_SUM, csum_tree, t).add_srcs(col_tmp);
  kb.Unary(Op::COL_MAX, cmax, t);
  kb.Unary(Op::COL_MIN, cmin, t);
  kb.Store(rmin, rows_out, {C(0), C(0)});
  kb.Store(csum, cols_out, {C(0), C(0)});
  kb.Store(csum_tree, cols_out, {C(1), C(0)});
  kb.Store(cmax, cols_out, {C(2), C(0)});
  kb.Store(cmin, cols_out, {C(3), C(0)});
  const CompiledKernel k = Compile(kb);
  const std::vector<double> in = Input();
  PutAs(dt, kA, in);
  ASSERT_TRUE(Run(k, {Arg(kA, kRows, kCols), Arg(kB, kRows, 1), Arg(kOut, 4, kCols)}).ok());

  const std::vector<double> row_min = GetAs(dt, kB, kRows);
  const std::vector<double> cols = GetAs(dt, kOut, 4 * kCols);
  for (int r = 0; r < kRows; ++r) {
    double lo = 1e9;
    for (int c = 0; c < kCols; ++c) lo = std::min(lo, in[r * kCols + c]);
    EXPECT_EQ(row_min[r], lo) << "row " << r;
  }
  for (int c = 0; c < kCols; ++c) {
    double sum = 0, hi = -1e9, lo = 1e9;
    for (int r = 0; r < kRows; ++r) {
      sum += in[r * kCols + c];
      hi = std::max(hi, in[r * kCols + c]);
      lo = std::min(lo, in[r * kCols + c]);
    }
    EXPECT_EQ(cols[c], sum) << "col_sum " << c;
    EXPECT_EQ(cols[kCols + c], sum) << "col_sum with scratch " << c;
    EXPECT_EQ(cols[2 * kCols + c], hi) << "col_max " << c;
    EXPECT_EQ(cols[3 * kCols + c], lo) << "col_min " << c;
  }
}

// The reference of one broadcast op, rounded as the executor rounds the
// result to its dtype (integers divide toward zero).
double Reference(Op::Kind kind, double a, double b, trace::DType dt) {
  double v = 0;
  switch (kind) {
    case Op::ADD:
      v = a + b;
      break;
    case Op::SUB:
      v = a - b;
      break;
    case Op::MUL:
      v = a * b;
      break;
    case Op::DIV:
      v = a / b;
      break;
    case Op::MAX:
      v = std::max(a, b);
      break;
    default:
      v = std::min(a, b);
      break;
  }
  if (dt == trace::INT32) return std::trunc(v);
  if (dt == trace::FP32) return static_cast<float>(v);
  return CastElement(v, dt, Op::CAST_RINT);
}

TEST_P(ShapeOpsTest, RowAndColumnBroadcastsApplyOneValuePerRowOrColumn) {
  const trace::DType dt = GetParam();
  const Op::Kind kinds[] = {Op::ADD, Op::SUB, Op::MUL, Op::DIV, Op::MAX, Op::MIN};
  for (const Op::Broadcast broadcast : {Op::ROW, Op::COL}) {
    for (const Op::Kind kind : kinds) {
      SCOPED_TRACE(Op::Kind_Name(kind) + " " + Op::Broadcast_Name(broadcast));
      const bool row = broadcast == Op::ROW;
      KernelBuilder kb("broadcast");
      const uint32_t x = kb.TensorParam("x", dt);
      const uint32_t v = kb.TensorParam("v", dt);
      const uint32_t out = kb.TensorParam("out", dt);
      const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
      const uint32_t tv = kb.Tile("tv", {row ? kRows : 1, row ? 1 : kCols}, dt);
      const uint32_t d = kb.Tile("d", {kRows, kCols}, dt);
      kb.Load(t, x, {C(0), C(0)});
      kb.Load(tv, v, {C(0), C(0)});
      kb.Binary(kind, d, t, tv).set_broadcast(broadcast);
      kb.Store(d, out, {C(0), C(0)});
      const CompiledKernel k = Compile(kb);
      const std::vector<double> in = Input();
      std::vector<double> vec(row ? kRows : kCols);
      for (size_t i = 0; i < vec.size(); ++i) vec[i] = static_cast<double>(i % 3) + 2;  // no zero
      PutAs(dt, kA, in);
      PutAs(dt, kB, vec);
      ASSERT_TRUE(Run(k, {Arg(kA, kRows, kCols), Arg(kB, row ? kRows : 1, row ? 1 : kCols),
                          Arg(kOut, kRows, kCols)})
                      .ok());
      const std::vector<double> got = GetAs(dt, kOut, kRows * kCols);
      for (int r = 0; r < kRows; ++r) {
        for (int c = 0; c < kCols; ++c) {
          const double b = row ? vec[r] : vec[c];
          EXPECT_EQ(got[r * kCols + c], Reference(kind, in[r * kCols + c], b, dt))
              << "[" << r << ", " << c << "]";
        }
      }
    }
  }
}

TEST_P(ShapeOpsTest, ExpandConcatAssembleReshapeAndTransposeView) {
  const trace::DType dt = GetParam();
  KernelBuilder kb("shapes");
  const uint32_t x = kb.TensorParam("x", dt);
  const uint32_t out = kb.TensorParam("out", dt);
  const uint32_t out4 = kb.TensorParam("out4", dt);
  const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
  const uint32_t left = kb.Tile("left", {kRows, 3}, dt);
  const uint32_t right = kb.Tile("right", {kRows, 5}, dt);
  const uint32_t row_vec = kb.Tile("row_vec", {kRows, 1}, dt);
  const uint32_t col_vec = kb.Tile("col_vec", {1, kCols}, dt);
  const uint32_t joined = kb.Tile("joined", {kRows, kCols}, dt);
  const uint32_t row_wide = kb.Tile("row_wide", {kRows, kCols}, dt);
  const uint32_t col_wide = kb.Tile("col_wide", {kRows, kCols}, dt);
  const uint32_t patch = kb.Tile("patch", {2, 3}, dt);
  const uint32_t assembled = kb.Tile("assembled", {kRows, kCols}, dt);
  const uint32_t flat = kb.Tile("flat", {kCols, kRows}, dt);
  const uint32_t turned = kb.Tile("turned", {kCols, kRows}, dt);
  kb.Load(t, x, {C(0), C(0)});
  kb.Load(left, x, {C(0), C(0)});
  kb.Load(right, x, {C(0), C(3)});
  kb.Load(row_vec, x, {C(0), C(7)});
  kb.Load(col_vec, x, {C(3), C(0)});
  kb.Load(patch, x, {C(2), C(5)});
  kb.Binary(Op::CONCAT, joined, left, right);
  kb.Unary(Op::EXPAND, row_wide, row_vec).set_broadcast(Op::ROW);
  kb.Unary(Op::EXPAND, col_wide, col_vec).set_broadcast(Op::COL);
  trace::Op& assemble = kb.Binary(Op::ASSEMBLE, assembled, t, patch);
  *assemble.add_offsets() = C(1);
  *assemble.add_offsets() = C(0);
  kb.Unary(Op::RESHAPE, flat, t);
  kb.Unary(Op::TRANSPOSE_VIEW, turned, t);
  kb.Store(joined, out, {C(0), C(0)});
  kb.Store(row_wide, out, {C(kRows), C(0)});
  kb.Store(col_wide, out, {C(2 * kRows), C(0)});
  kb.Store(assembled, out, {C(3 * kRows), C(0)});
  kb.Store(flat, out4, {C(0), C(0)});
  kb.Store(turned, out4, {C(kCols), C(0)});
  const CompiledKernel k = Compile(kb);
  const std::vector<double> in = Input();
  PutAs(dt, kA, in);
  const uint64_t k_out4 = kOut + 0x10000;
  ASSERT_TRUE(
      Run(k, {Arg(kA, kRows, kCols), Arg(kOut, 4 * kRows, kCols), Arg(k_out4, 2 * kCols, kRows)})
          .ok());
  const std::vector<double> got = GetAs(dt, kOut, 4 * kRows * kCols);
  const std::vector<double> got4 = GetAs(dt, k_out4, 2 * kCols * kRows);
  auto at = [&](int r, int c) { return in[r * kCols + c]; };
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      // Concat of columns [0, 3) and [3, 8) is the input again.
      EXPECT_EQ(got[r * kCols + c], at(r, c)) << "concat " << r << "," << c;
      EXPECT_EQ(got[(kRows + r) * kCols + c], at(r, 7)) << "row expand";
      EXPECT_EQ(got[(2 * kRows + r) * kCols + c], at(3, c)) << "col expand";
      const bool in_patch = r >= 1 && r < 3 && c < 3;
      EXPECT_EQ(got[(3 * kRows + r) * kCols + c], in_patch ? at(r + 1, c + 5) : at(r, c))
          << "assemble " << r << "," << c;
    }
  }
  for (int i = 0; i < kRows * kCols; ++i) EXPECT_EQ(got4[i], in[i]) << "reshape " << i;
  for (int r = 0; r < kCols; ++r) {
    for (int c = 0; c < kRows; ++c) {
      EXPECT_EQ(got4[(kCols + r) * kRows + c], at(c, r)) << "transpose " << r << "," << c;
    }
  }
}

TEST_P(ShapeOpsTest, AssembleOffsetsFromALoopAreRangeCheckedPerInstance) {
  const trace::DType dt = GetParam();
  KernelBuilder kb("assemble_loop");
  const uint32_t x = kb.TensorParam("x", dt);
  const uint32_t out = kb.TensorParam("out", dt);
  const uint32_t t = kb.Tile("t", {kRows, kCols}, dt);
  const uint32_t row = kb.Tile("row", {1, kCols}, dt);
  const uint32_t next = kb.Tile("next", {kRows, kCols}, dt);
  kb.Load(t, x, {C(0), C(0)});
  kb.Load(row, x, {C(0), C(0)});
  // for i in range(5): t = assemble(t, row, [i, 0]) -- i = 4 leaves the tile.
  trace::Op& loop = kb.BeginLoop(0, C(0), C(5));
  trace::Op& assemble = kb.Binary(Op::ASSEMBLE, next, t, row);
  *assemble.add_offsets() = LoopVar(0);
  *assemble.add_offsets() = C(0);
  kb.EndLoop();
  (void)loop;
  kb.Store(next, out, {C(0), C(0)});
  const CompiledKernel k = Compile(kb);
  PutAs(dt, kA, Input());
  const absl::Status s = Run(k, {Arg(kA, kRows, kCols), Arg(kOut, kRows, kCols)});
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("at offsets [4, 0] in 'next' [4, 8]; offsets[0] must be in "
                                     "[0, 3]"));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ShapeOpsTest,
                         ::testing::Values(trace::FP32, trace::FP16, trace::BF16, trace::INT32),
                         [](const ::testing::TestParamInfo<trace::DType>& info) {
                           return trace::DType_Name(info.param);
                         });

}  // namespace
}  // namespace pto
