// The reductions, broadcasts, shape ops and namespaces of pl (issue 24),
// through scripts as users run them: the ops each call emits, and upstream's
// level errors. Their values are checked against torch by traces/tile_ops.py
// and the executor's own tests.
#include <string>
#include <vector>

#include "frontend/testing/snippets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kPrelude = kPlTorchPrelude;

std::string Kernel(const std::string& body) { return OneTaskScript(body); }

std::string Error(const std::string& body) { return CompileSnippetError(kPrelude, Kernel(body)); }

TEST(TileOpsTest, RowReductionsTakeTheirScratchAsASecondSource) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        x = pl.load(a, [0, 0], [16, 16])\n"
                       "        tmp = pl.create_tile([16, 16], dtype=pl.FP32)\n"
                       "        m = pl.tile.row_min(x, tmp)\n"
                       "        s = pl.col_sum(x, tmp_tile=tmp)\n"
                       "        pl.store(pl.row_expand_add(x, m), [0, 0], out)\n"
                       "        pl.store(pl.col_expand_sub(x, s), [0, 0], out)\n"));
  using K = trace::Op;
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::CREATE, K::ROW_MIN, K::COL_SUM, K::ADD,
                                            K::STORE, K::SUB, K::STORE));
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_EQ(ops[2].srcs_size(), 2);  // the input and the scratch
  EXPECT_EQ(ops[3].srcs_size(), 2);
  EXPECT_EQ(ops[4].broadcast(), K::ROW);
  EXPECT_EQ(ops[6].broadcast(), K::COL);
  const auto& tiles = t.header().kernels(0).program().tiles();
  EXPECT_THAT(tiles[static_cast<int>(ops[2].dst())].shape(), ElementsAre(16, 1));
  EXPECT_THAT(tiles[static_cast<int>(ops[3].dst())].shape(), ElementsAre(1, 16));
}

TEST(TileOpsTest, UpstreamsScratchRulesForTilesAndTensors) {
  EXPECT_THAT(Error("        pl.store(pl.row_max(pl.load(a, [0, 0], [16, 16])), [0, 0], out)\n"),
              HasSubstr("pl.row_max: Tile inputs require tmp_tile with the same dtype and rank as "
                        "the input, and every dimension at least as large as the corresponding "
                        "input dimension"));
  EXPECT_THAT(Error("        tmp = pl.create_tile([16, 16], dtype=pl.FP32)\n"
                    "        pl.store(pl.row_sum(a, tmp), [0, 0], out)\n"),
              HasSubstr("pl.row_sum: Tensor inputs must not pass tmp_tile"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        tmp = pl.create_tile([8, 16], dtype=pl.FP32)\n"
                    "        pl.store(pl.row_sum(x, tmp), [0, 0], out)\n"),
              HasSubstr("pl.row_sum: tmp_tile is FP32 [8, 16] for a FP32 [16, 16] input"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.col_max(x, x), [0, 0], out)\n"),
              HasSubstr("pl.col_max() takes at most 1 arguments, got 2"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.row_max(x, x), [0, 0], out)\n"),
              HasSubstr("pl.row_max: tmp_tile is the input itself; give the scratch a tile of "
                        "its own"));
}

TEST(TileOpsTest, ATensorLevelReductionLoadsTheTensorWhole) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        pl.store(pl.tensor.col_max(a), [0, 0], out)\n"));
  using K = trace::Op;
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::COL_MAX, K::STORE));
}

TEST(TileOpsTest, ShapeOpsAndFills) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      Kernel("        x = pl.load(a, [0, 0], [16, 8])\n"
             "        j = pl.concat(x, pl.tile.full([16, 8], pl.FP32, 2.0))\n"
             "        for i in pl.range(2):\n"
             "            j = pl.tile.assemble(j, pl.load(a, [0, 0], [4, 8]), [i * 4, 8])\n"
             "        v = pl.tile.transpose_view(pl.reshape(j, [16, 16]))\n"
             "        tmp = pl.create_tile([16, 16], dtype=pl.FP32)\n"
             "        pl.store(pl.row_expand(v, pl.row_max(v, tmp)), [0, 0], out)\n"));
  using K = trace::Op;
  const std::vector<trace::Op> ops = KernelOps(t);
  EXPECT_THAT(KernelOpKinds(t),
              ElementsAre(K::LOAD, K::FULL, K::CONCAT, K::LOOP, K::RESHAPE, K::TRANSPOSE_VIEW,
                          K::CREATE, K::ROW_MAX, K::EXPAND, K::STORE));
  EXPECT_EQ(ops[1].scalar().literal(), 2.0);
  const trace::Op& assemble = ops[3].loop().body(1);
  ASSERT_EQ(assemble.kind(), K::ASSEMBLE);
  ASSERT_EQ(assemble.offsets_size(), 2);
  EXPECT_TRUE(assemble.offsets(0).has_binary());  // i * 4, a device integer
  EXPECT_EQ(assemble.offsets(1).constant(), 8);
  EXPECT_EQ(ops[8].broadcast(), K::ROW);
  // A view is its source's buffer.
  const auto& tiles = t.header().kernels(0).program().tiles();
  EXPECT_EQ(tiles[static_cast<int>(ops[4].dst())].buffer(),
            tiles[static_cast<int>(ops[4].srcs(0))].buffer());
}

TEST(TileOpsTest, ShapeOpErrorsAreLocated) {
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.reshape(x, [4, 16]), [0, 0], out)\n"),
              HasSubstr("bad.py:8:32: error: pl.reshape: cannot reshape a [16, 16] tile (256 "
                        "elements) to [4, 16] (64 elements)"));
  EXPECT_THAT(
      Error("        x = pl.load(a, [0, 0], [16, 8])\n"
            "        y = pl.load(a, [0, 0], [8, 8])\n"
            "        pl.store(pl.concat(x, y), [0, 0], out)\n"),
      HasSubstr("pl.concat joins columns of tiles with equal rows, got [16, 8] and [8, 8]"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        y = pl.load(a, [0, 0], [8, 16], target_memory=pl.Mem.Mat)\n"
                    "        pl.store(pl.tile.assemble(x, y, [0, 0]), [0, 0], out)\n"),
              HasSubstr("pl.tile.assemble writes a Mat (L1) tile into a Vec (UB) tile"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        v = pl.load(a, [0, 0], [1, 8])\n"
                    "        pl.store(pl.col_expand(x, v), [0, 0], out)\n"),
              HasSubstr("pl.col_expand: col_vec is [1, 8] but the tile is [16, 16]"));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        m = pl.row_max(x, pl.create_tile([16, 16], dtype=pl.FP32))\n"
                    "        pl.store(pl.row_expand_add(x, m, x), [0, 0], out)\n"),
              HasSubstr("takes no tmp in ptoc"));
}

TEST(TileOpsTest, AViewOfARuntimeSlotIsRefused) {
  EXPECT_THAT(Error("        for i in pl.range(4):\n"
                    "            t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"ub\", slots=2)[i % 2], "
                    "pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])\n"
                    "            pl.store(pl.reshape(t, [16, 16]), [0, 0], out)\n"),
              HasSubstr("pl.reshape views a pl.MemRef tile whose slot is picked at run time"));
}

TEST(TileOpsTest, CastModesByNameAndCode) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      "@pl.jit\n"
      "def f(a: pl.Tensor, b: pl.Out[pl.Tensor], c: pl.Out[pl.Tensor], d: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        x = pl.load(a, [0, 0], [16, 16])\n"
      "        pl.store(pl.cast(x, pl.INT32), [0, 0], b)\n"
      "        pl.store(pl.cast(x, pl.INT32, mode=\"floor\"), [0, 0], c)\n"
      "        pl.store(pl.cast(x, pl.INT32, mode=6), [0, 0], d)\n"
      "    return b\n"
      "a = torch.randn(16, 16) * 4\n"
      "b, c, d = (torch.zeros(16, 16, dtype=torch.int32) for _ in range(3))\n"
      "f(a, b, c, d)\n"
      "torch.testing.assert_close(c, torch.floor(a).to(torch.int32))\n");
  std::vector<trace::Op::CastMode> modes;
  for (const trace::Op& op : KernelOps(t)) {
    if (op.kind() == trace::Op::CAST) modes.push_back(op.cast_mode());
  }
  // The default ("round") is written as no mode.
  EXPECT_THAT(modes, ElementsAre(trace::Op::CAST_MODE_UNSPECIFIED, trace::Op::CAST_FLOOR,
                                 trace::Op::CAST_ODD));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.cast(x, pl.INT32, mode=7), [0, 0], out)\n"),
              HasSubstr("Invalid rounding mode 7. Expected int in range [0, 6]."));
}

TEST(TileOpsTest, NamespacesAndTheirLevels) {
  // pl.tile.X takes tiles; pl.X and pl.tensor.X also take tensors (loaded).
  EXPECT_THAT(Error("        pl.store(pl.tile.exp(a), [0, 0], out)\n"),
              HasSubstr("pl.tile.exp takes Tile operands, but argument 1 is a Tensor; pl.load it "
                        "first, or call pl.exp for the tensor level"));
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        pl.store(pl.tensor.add(pl.exp(a), 1.0), [0, 0], out)\n"));
  using K = trace::Op;
  EXPECT_THAT(KernelOpKinds(t), ElementsAre(K::LOAD, K::EXP, K::ADD, K::STORE));
  // Tile-only ops have no tensor form.
  EXPECT_THAT(Error("        pl.store(pl.tensor.relu(a), [0, 0], out)\n"),
              HasSubstr("pl.tensor.relu is not supported by ptoc"));
  // Upstream's tile level transposes with a view, not a flag.
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.matmul(x, x, a_trans=True), [0, 0], out)\n"),
              HasSubstr("pl.matmul: 'a_trans' is not supported for Tile operands."));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.matmul(x, x, out_dtype=pl.BF16), [0, 0], out)\n"),
              HasSubstr("pl.matmul: out_dtype=BF16 is not supported for Tile operands — the Cube "
                        "accumulator fixes the result dtype, deduced as FP32 here."));
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.matmul(x, x, c_matrix_nz=True), [0, 0], out)\n"),
              HasSubstr("pl.matmul: 'c_matrix_nz' is not supported for Tile operands."));
}

TEST(TileOpsTest, ScalarMaxAndMinFoldOrBecomeDeviceExpressions) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude, Kernel("        for i in pl.range(pl.max(1, 2)):\n"
                       "            x = pl.load(a, [pl.min(i * 8, 8), 0], [8, 16])\n"
                       "            pl.store(x, [i * 8, 0], out)\n"));
  const std::vector<trace::Op> ops = KernelOps(t);
  ASSERT_EQ(ops[0].kind(), trace::Op::LOOP);
  EXPECT_EQ(ops[0].loop().stop().constant(), 2);  // pl.max(1, 2) folds
  EXPECT_EQ(ops[0].loop().body(0).offsets(0).binary().op(), trace::IntExpr::MIN);
  EXPECT_THAT(Error("        x = pl.load(a, [0, 0], [16, 16])\n"
                    "        pl.store(pl.max(x, 1), [0, 0], out)\n"),
              HasSubstr("pl.max() argument 'lhs' must be a scalar (int or pl.Scalar); tile "
                        "reductions are direction-specific: use pl.row_max or pl.col_max"));
}

TEST(TileOpsTest, FullIsATensorInTheOrchestrationAndATileInATaskBody) {
  const trace::TraceText t = CompileCleanSnippet(
      kPrelude,
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    ones = pl.full([16, 16], pl.FP32, 1.0)\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.add(pl.load(ones, [0, 0], [16, 16]), pl.load(a, [0, 0], [16, 16])),\n"
      "                 [0, 0], out)\n"
      "    return out\n"
      "a = torch.randn(16, 16)\n"
      "out = torch.zeros(16, 16)\n"
      "f(a, out)\n"
      "torch.testing.assert_close(out, a + 1)\n");
  bool filled = false;
  for (const trace::Tensor& tensor : t.header().tensors()) {
    filled |= tensor.init().has_fill() && tensor.init().fill().value() == 1.0;
  }
  EXPECT_TRUE(filled);
  // In a task body the filled tensor is a tile (upstream lowers tensor.full
  // to tile.full there): a FULL op, no GM tensor.
  const trace::TraceText body = CompileCleanSnippet(
      kPrelude,
      "@pl.jit\n"
      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        pl.store(pl.add(pl.full([16, 16], pl.FP32, 2.0), a), [0, 0], out)\n"
      "    return out\n"
      "a = torch.randn(16, 16)\n"
      "out = torch.zeros(16, 16)\n"
      "f(a, out)\n"
      "torch.testing.assert_close(out, a + 2)\n");
  EXPECT_EQ(body.header().tensors_size(), 2);
  EXPECT_EQ(body.header().kernels(0).program().ops(0).kind(), trace::Op::FULL);
}

}  // namespace
}  // namespace pto::ptoc
