// Device-side control in ptoc: how a kernel's `if` on a device integer, its
// phis and yields, pl.read, valid shapes and pl.dynamic become the stream
// (docs/ptoc.md, "Device-side control").
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

const trace::KernelProgram& Program(const trace::TraceText& t) {
  return t.header().kernels(0).program();
}

TEST(DeviceBranchTest, ATileReboundInOneArmIsAPhiWithThePriorValue) {
  // Block 0 doubles its rows; the others keep them: the else value is the
  // tile from before the if.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for b in pl.spmd(2):\n"
      "        t = pl.load(a, [b * 8, 0], [8, 8])\n"
      "        if b == 0:\n"
      "            t = pl.mul(t, 2.0)\n"
      "        pl.store(t, [b * 8, 0], out)\n"
      "    return out\n"
      "a = torch.randn(16, 8)\n"
      "out = torch.zeros(16, 8)\n"
      "k(a, out)\n"
      "e = a.clone()\n"
      "e[:8] *= 2\n"
      "torch.testing.assert_close(out, e)\n");
  const trace::KernelProgram& p = Program(t);
  ASSERT_EQ(p.ops(1).kind(), trace::Op::IF);
  const trace::Op::Branch& branch = p.ops(1).branch();
  ASSERT_EQ(branch.phis_size(), 1);
  EXPECT_EQ(branch.phis(0).name(), "t");
  EXPECT_EQ(branch.phis(0).else_value(), p.ops(0).dst());  // the loaded tile
  EXPECT_EQ(branch.phis(0).then_value(), branch.then_body(0).dst());
  // The store reads the phi, and the phi shares its values' buffer.
  EXPECT_EQ(p.ops(2).srcs(0), branch.phis(0).tile());
  EXPECT_EQ(p.tiles(static_cast<int>(branch.phis(0).tile())).buffer(),
            p.tiles(static_cast<int>(branch.phis(0).else_value())).buffer());
}

TEST(DeviceBranchTest, IntegersBoundInTheArmsAreScalarPhisAndReadsAreRegisters) {
  // The ragged-tail idiom: the trip count and the last block's width come
  // from cfg; the width is an if's scalar phi.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(data: pl.Tensor, cfg: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        n = pl.cast(pl.read(cfg, [0]), pl.INDEX)\n"
      "        last = pl.read(cfg, [1])\n"
      "        for i in pl.range(n):\n"
      "            if i == n - 1:\n"
      "                vlen = last\n"
      "            else:\n"
      "                vlen = 16\n"
      "            s = pl.load(data, [0, i * 16], [8, 16], valid_shape=[8, vlen])\n"
      "            pl.store(pl.tile.fillpad(s), [0, i * 16], out)\n"
      "    return out\n"
      "d = torch.randn(8, 48)\n"
      "out = torch.full((8, 48), 5.0)\n"
      "k(d, torch.tensor([3, 10], dtype=torch.int32), out)\n"
      "e = d.clone()\n"
      "e[:, 42:] = 0\n"
      "torch.testing.assert_close(out, e)\n");
  const trace::KernelProgram& p = Program(t);
  EXPECT_EQ(p.scalar_count(), 3);  // two reads, one phi
  ASSERT_EQ(p.ops(0).kind(), trace::Op::READ);
  EXPECT_EQ(p.ops(0).scalar_reg(), 0u);
  ASSERT_EQ(p.ops(1).kind(), trace::Op::READ);
  const trace::Op& loop = p.ops(2);
  ASSERT_EQ(loop.kind(), trace::Op::LOOP);
  EXPECT_EQ(loop.loop().stop().scalar_reg(), 0u);
  const trace::Op::Branch& branch = loop.loop().body(0).branch();
  ASSERT_EQ(branch.scalar_phis_size(), 1);
  EXPECT_EQ(branch.scalar_phis(0).then_expr().scalar_reg(), 1u);
  EXPECT_EQ(branch.scalar_phis(0).else_expr().constant(), 16);
  const trace::Op& load = loop.loop().body(1);
  ASSERT_EQ(load.valid_shape_size(), 2);
  EXPECT_EQ(load.valid_shape(1).scalar_reg(), branch.scalar_phis(0).reg());
  // cfg decides control: a timing-only stream would keep its values.
  EXPECT_TRUE(t.header().tensors(1).control());
  EXPECT_FALSE(t.header().tensors(0).control());
}

TEST(DeviceBranchTest, ExplicitYieldsNameTheArmsResults) {
  // The accumulator form with pl.yield_ in both arms.
  Compile(
      "@pl.jit\n"
      "def k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        acc = pl.create_tile([16, 16], dtype=pl.FP32, target_memory=pl.MemorySpace.Acc)\n"
      "        for k in pl.range(2):\n"
      "            ta = pl.load(a, [0, k * 16], [16, 16])\n"
      "            tb = pl.load(b, [k * 16, 0], [16, 16])\n"
      "            if k == 0:\n"
      "                acc = pl.yield_(pl.matmul(ta, tb))\n"
      "            else:\n"
      "                acc = pl.yield_(pl.matmul_acc(acc, ta, tb))\n"
      "        pl.store(acc, [0, 0], c)\n"
      "    return c\n"
      "a = torch.randn(16, 32)\n"
      "b = torch.randn(32, 16)\n"
      "c = torch.zeros(16, 16)\n"
      "k(a, b, c)\n"
      "torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)\n");
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for b in pl.spmd(2):\n"
                           "        t = pl.load(a, [0, 0], [8, 8])\n"
                           "        if b == 0:\n"
                           "            u, v = pl.yield_(t, t)\n"
                           "        else:\n"
                           "            u = pl.yield_(t)\n"
                           "        pl.store(u, [0, 0], out)\n"
                           "    return out\n"
                           "k(torch.ones(8, 8), torch.zeros(8, 8))\n"),
              HasSubstr("bad.py:10:13: error: this arm yields 1 value(s) but the then arm (line 8) "
                        "yields 2; both arms of an if yield as many"));
}

TEST(DeviceBranchTest, ArmsThatDisagreeOnAValuesKindAreLocatedErrors) {
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for b in pl.spmd(2):\n"
                           "        t = pl.load(a, [0, 0], [8, 8])\n"
                           "        if b == 0:\n"
                           "            t = pl.load(a, [0, 0], [4, 8])\n"
                           "        pl.store(t, [0, 0], out)\n"
                           "    return out\n"
                           "k(torch.ones(8, 8), torch.zeros(8, 8))\n"),
              HasSubstr("bad.py:7:9: error: 't' is a [4, 8] FP32 tile after the then arm but a "
                        "[8, 8] FP32 tile after the else arm; a tile merged after a device-side if "
                        "keeps one shape and dtype in both arms"));
  EXPECT_THAT(CompileError("@pl.jit\n"
                           "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                           "    for b in pl.spmd(2):\n"
                           "        if b == 0:\n"
                           "            break\n"
                           "    return out\n"
                           "k(torch.ones(8, 8), torch.zeros(8, 8))\n"),
              HasSubstr("return/break/continue cannot leave a device-side if"));
}

TEST(DeviceBranchTest, OrchestrationReadsAndDimsAreHostValues) {
  // pl.tensor.read / pl.tensor.dim in the orchestration: the loop over
  // requests runs on the host with each request's length.
  const trace::TraceText t = Compile(
      "@pl.jit\n"
      "def k(lens: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    for b in pl.range(pl.tensor.dim(lens, 0)):\n"
      "        n = pl.tensor.read(lens, [b])\n"
      "        for i in pl.range(n):\n"
      "            with pl.at(level=pl.Level.CORE_GROUP):\n"
      "                pl.store(pl.tile.full([1, 8], pl.FP32, 1.0), [b, i * 8], out)\n"
      "    return out\n"
      "out = torch.zeros(3, 24)\n"
      "k(torch.tensor([1, 3, 2], dtype=torch.int32), out)\n"
      "e = torch.zeros(3, 24)\n"
      "e[0, :8] = 1\n"
      "e[1, :24] = 1\n"
      "e[2, :16] = 1\n"
      "torch.testing.assert_close(out, e)\n");
  int submits = 0;
  for (const trace::StreamRecord& r : t.records()) submits += r.has_submit();
  EXPECT_EQ(submits, 6);  // 1 + 3 + 2
}

}  // namespace
}  // namespace pto::ptoc
