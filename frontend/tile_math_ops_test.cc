// The version-10 vector ops of pl (issue 26) through scripts as users write
// them: the ops each call emits and upstream's argument rules. Their values
// are checked against torch by traces/vector_math.py and the executor's own
// tests (models/core/tile_executor_math_ops_test.cc).
#include <string>
#include <vector>

#include "frontend/testing/snippets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using K = trace::Op;

constexpr const char* kPrelude = kPlTorchPrelude;

// The task body after `t = pl.load(a, [0, 0], [16, 16])`.
std::string Kernel(const std::string& body) {
  return OneTaskScript("        t = pl.load(a, [0, 0], [16, 16])\n" + body);
}

std::string Error(const std::string& body) { return CompileSnippetError(kPrelude, Kernel(body)); }

TEST(TileMathOpsTest, CompareWritesAPackedMaskThatSelectReads) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        tmp = pl.tile.create([1, 32], dtype=pl.UINT8)\n"
                       "        m: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(t, 0.5, cmp_type=3)\n"
                       "        pl.store(pl.tile.sels(m, t, tmp, -1.0), [0, 0], out)\n"));
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::CREATE, K::CMP, K::SELECT, K::STORE));
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_EQ(ops[2].compare(), K::CMP_LE);  // cmp_type 3 + 1
  EXPECT_EQ(ops[2].scalar().literal(), 0.5);
  // [mask, src, tmp] and the scalar
  EXPECT_THAT(ops[3].srcs(), ElementsAre(ops[2].dst(), ops[0].dst(), ops[1].dst()));
  EXPECT_EQ(ops[3].scalar().literal(), -1.0);
  const auto& mask = t.header().kernels(0).program().tiles(static_cast<int>(ops[2].dst()));
  EXPECT_EQ(mask.dtype(), trace::UINT8);
  EXPECT_THAT(mask.shape(), ElementsAre(16, 32));
}

TEST(TileMathOpsTest, TensorLevelCompareIsOneWhereTrue) {
  // pl.cmp of tensors: upstream lowers it to tile.cmp + tile.full + tile.sel.
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        pl.store(pl.cmp(a, 0.0, cmp_type=4), [0, 0], out)\n"));
  EXPECT_THAT(KernelOpKinds(t),
              ElementsAre(K::LOAD, K::LOAD, K::CMP, K::FULL, K::FULL, K::SELECT, K::STORE));
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_EQ(ops[3].scalar().literal(), 1.0);
  EXPECT_EQ(ops[4].scalar().literal(), 0.0);
  EXPECT_THAT(ops[5].srcs(), ElementsAre(ops[2].dst(), ops[3].dst(), ops[4].dst()));
}

TEST(TileMathOpsTest, UnaryActivationsAndRemainders) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        tmp = pl.create_tile([16, 16], dtype=pl.FP32)\n"
                       "        x = pl.log(pl.abs(t), high_precision=True)\n"
                       "        x = pl.tile.prelu(pl.tile.lrelu(x, 0.2), t, tmp)\n"
                       "        x = pl.fmod(pl.fmods(x, 3.0), t)\n"
                       "        pl.store(pl.mul(pl.tile.sin(x), pl.tile.cos(x)), [0, 0], out)\n"));
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::CREATE, K::ABS, K::LOG, K::LRELU, K::PRELU,
                                            K::FMOD, K::FMOD, K::SIN, K::COS, K::MUL, K::STORE));
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_EQ(ops[4].scalar().literal(), 0.2);
  EXPECT_EQ(ops[5].srcs_size(), 3);  // x, slope, scratch
  EXPECT_EQ(ops[6].scalar().literal(), 3.0);
  EXPECT_EQ(ops[7].srcs_size(), 2);
}

TEST(TileMathOpsTest, ProductsPartialsExpDifAndTriangles) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      Kernel(
          "        tmp = pl.create_tile([16, 16], dtype=pl.FP32)\n"
          "        b = pl.load(a, [0, 0], [16, 16], valid_shape=[8, 8])\n"
          "        p = pl.part_max(t, b)\n"
          "        e = pl.row_expand_expdif(p, pl.row_prod(p, tmp))\n"
          "        c = pl.col_prod(e)\n"
          "        u = pl.tile.tri(-2, [16, 16], valid_shape=[16, 8], dtype=pl.FP32, upper=True)\n"
          "        pl.store(pl.col_expand_mul(u, c), [0, 0], out)\n"));
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::CREATE, K::LOAD, K::MAX, K::ROW_PROD,
                                            K::EXPDIF, K::COL_PROD, K::TRI, K::MUL, K::STORE));
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_TRUE(ops[3].partial());
  EXPECT_EQ(ops[4].srcs_size(), 2);  // the input and its scratch
  EXPECT_EQ(ops[5].broadcast(), K::ROW);
  EXPECT_EQ(ops[7].diagonal().constant(), -2);
  EXPECT_TRUE(ops[7].upper());
  ASSERT_EQ(ops[7].valid_shape_size(), 2);
  EXPECT_EQ(ops[7].valid_shape(1).constant(), 8);
}

TEST(TileMathOpsTest, UpstreamsArgumentRules) {
  EXPECT_THAT(Error("        pl.store(pl.tile.cmps(t, 0.0, cmp_type=-1), [0, 0], out)\n"),
              HasSubstr("pl.tile.cmps() argument 'cmp_type' must be 0..5"));
  EXPECT_THAT(Error("        pl.store(pl.tile.cmps(t, t), [0, 0], out)\n"),
              HasSubstr("argument 'rhs' must be a scalar (int, float or pl.Scalar); for two tiles "
                        "use pl.tile.cmp"));
  EXPECT_THAT(Error("        pl.store(pl.not_(t), [0, 0], out)\n"),
              HasSubstr("pl.not_ is bitwise and takes an integer tile, got FP32"));
  EXPECT_THAT(Error("        pl.store(pl.tile.lrelu(t, t), [0, 0], out)\n"),
              HasSubstr("argument 'slope' must be a scalar"));
  EXPECT_THAT(Error("        pl.store(pl.fmods(t, t), [0, 0], out)\n"),
              HasSubstr("for two tiles use pl.fmod"));
  EXPECT_THAT(Error("        pl.store(pl.part_add(t, 1.0), [0, 0], out)\n"),
              HasSubstr("argument 'src1' must be a tile"));
  EXPECT_THAT(Error("        pl.store(pl.tile.tri(0, [16, 16], valid_shape=[17, 16]), [0, 0], "
                    "out)\n"),
              HasSubstr("argument 'valid_shape' must be inside the shape [16, 16]"));
  EXPECT_THAT(Error("        tmp = pl.tile.create([1, 32], dtype=pl.UINT8)\n"
                    "        m = pl.tile.create([8, 32], dtype=pl.UINT8)\n"
                    "        pl.store(pl.tile.sel(m, t, t, tmp), [0, 0], out)\n"),
              HasSubstr("pl.tile.sel: the mask is UINT8 [8, 32]; selecting [16, 16] takes an "
                        "integer mask of 16 rows"));
}

TEST(TileMathOpsTest, UnsignedAnnotationsTakeSignedHostTensorsOfTheirWidth) {
  // torch has no uint16: scripts pass int16 bytes for a pl.UINT16 parameter.
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      "@pl.jit\n"
      "def f(a: pl.Tensor[[16, 16], pl.UINT16], out: pl.Out[pl.Tensor[[16, 16], pl.UINT16]]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.not_(pl.load(a, [0, 0], [16, 16])), [0, 0], out)\n"
      "    return out\n"
      "f(torch.ones(16, 16, dtype=torch.int16), torch.zeros(16, 16, dtype=torch.int16))\n");
  for (const trace::Tensor& tensor : t.header().tensors()) {
    EXPECT_EQ(tensor.dtype(), trace::UINT16) << tensor.name();
  }
}

}  // namespace
}  // namespace pto::ptoc
