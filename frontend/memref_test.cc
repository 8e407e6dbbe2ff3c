// pl.MemRef: explicit buffer slots (pypto@e2d0f78a
// python/pypto/language/typing/memref.py), the TileDecl.buffer / slots /
// slot it compiles to, and the errors of its rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "frontend/testing/snippets.h"

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n";

// Line 3 onwards: `decls` (module level, line 3), then a kernel whose loop
// body (line 8 on) is `body`, over 4 tiles of [16, 16] FP32.
std::string Program(const std::string& decls, const std::string& body,
                    const std::string& loop = "pl.range(4)") {
  return absl::StrCat(decls, "\n",
                      "@pl.jit\n"
                      "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                      "        for i in ",
                      loop,
                      ":\n",  // line 7
                      body,
                      "    return out\n"
                      "k(torch.ones(64, 16), torch.zeros(64, 16))\n");
}

// The page's explicit_slots form, inline: a load into slot i % 2 of "ub".
constexpr char kInlineSlots[] =
    "            t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"ub\", slots=2)[i % 2], pl.Mem.Vec] = "
    "pl.load(a, [i * 16, 0], [16, 16])\n"
    "            pl.store(pl.exp(t), [i * 16, 0], out)\n";

const trace::KernelProgram& ProgramOf(const trace::TraceText& t) {
  return t.header().kernels(0).program();
}

TEST(MemRef, InlineRuntimeSlotIsTheAllocationsFirstBufferPlusASlotExpr) {
  const trace::TraceText t = CompileCleanSnippet(kPrelude, Program("", kInlineSlots));
  const trace::KernelProgram& p = ProgramOf(t);
  ASSERT_EQ(p.tiles_size(), 2);
  // The planner's buffers come first (the exp's tile, 0; it may not go in
  // place into an author's slot), then "ub"'s two slots, buffers 1 and 2.
  EXPECT_EQ(p.tiles(0).buffer(), 1u);
  EXPECT_EQ(p.tiles(0).slots(), 2u);
  ASSERT_TRUE(p.tiles(0).has_slot());
  EXPECT_EQ(p.tiles(0).slot().binary().op(), trace::IntExpr::MOD);
  EXPECT_EQ(p.tiles(0).slot().binary().lhs().loop_var(), 0u);
  EXPECT_EQ(p.tiles(0).slot().binary().rhs().constant(), 2);
  EXPECT_EQ(p.tiles(1).buffer(), 0u);
  EXPECT_EQ(p.tiles(1).slots(), 0u);
  EXPECT_FALSE(p.tiles(1).has_slot());
  EXPECT_EQ(p.buffer_count(), 3u);
}

TEST(MemRef, VariableFormWithLiteralSlotsFoldsIntoTheBuffer) {
  const std::string body =
      "            x: pl.Tile[[16, 16], pl.FP32, buf[1], pl.Mem.Vec] = "
      "pl.load(a, [i * 16, 0], [16, 16])\n"
      "            y: pl.Tile[[16, 16], pl.FP32, buf[0], pl.Mem.Vec] = pl.exp(x)\n"
      "            pl.store(y, [i * 16, 0], out)\n";
  const trace::TraceText t =
      CompileCleanSnippet(kPrelude, Program("buf = pl.MemRef(slots=2)", body));
  const trace::KernelProgram& p = ProgramOf(t);
  ASSERT_EQ(p.tiles_size(), 2);
  // No tile is left to plan: buf's slots are buffers 0 and 1; x is in slot
  // 1, y in slot 0.
  EXPECT_EQ(p.tiles(0).buffer(), 1u);
  EXPECT_EQ(p.tiles(1).buffer(), 0u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(p.tiles(i).slots(), 2u);
    EXPECT_FALSE(p.tiles(i).has_slot());
  }
  EXPECT_EQ(p.buffer_count(), 2u);
}

TEST(MemRef, OneSlotAllocationSharedByName) {
  const std::string body =
      "            x: pl.Tile[[16, 16], pl.FP32, s, pl.Mem.Vec] = pl.load(a, [i * 16, 0], [16, "
      "16])\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"other\"), pl.Mem.Vec] = pl.exp(x)\n"
      "            pl.store(y, [i * 16, 0], out)\n";
  const trace::KernelProgram p =
      ProgramOf(CompileCleanSnippet(kPrelude, Program("s = pl.MemRef()", body)));
  // The allocations by name after the planner's (none): "other" 0, s 1.
  EXPECT_EQ(p.tiles(0).buffer(), 1u);
  EXPECT_EQ(p.tiles(1).buffer(), 0u);
  EXPECT_EQ(p.tiles(0).slots(), 1u);
  EXPECT_EQ(p.buffer_count(), 2u);
}

TEST(MemRef, TilesWithoutMemRefAreThePlanners) {
  const trace::KernelProgram p = ProgramOf(CompileCleanSnippet(
      kPrelude, Program("",
                        "            t = pl.load(a, [i * 16, 0], [16, 16])\n"
                        "            pl.store(pl.exp(t), [i * 16, 0], out)\n")));
  // The exp writes in place: one buffer.
  EXPECT_EQ(p.tiles(0).buffer(), 0u);
  EXPECT_EQ(p.tiles(1).buffer(), 0u);
  EXPECT_EQ(p.tiles(0).slots(), 0u);
  EXPECT_EQ(p.buffer_count(), 1u);
}

std::string Error(const std::string& decls, const std::string& body,
                  const std::string& loop = "pl.range(4)") {
  return CompileSnippetError(kPrelude, Program(decls, body, loop));
}

constexpr char kLoadInto[] =
    "            t: pl.Tile[[16, 16], pl.FP32, SLOT, pl.Mem.Vec] = "
    "pl.load(a, [i * 16, 0], [16, 16])\n"
    "            pl.store(t, [i * 16, 0], out)\n";

std::string LoadInto(const std::string& slot) {
  std::string s = kLoadInto;
  s.replace(s.find("SLOT"), 4, slot);
  return s;
}

TEST(MemRef, SlotsMustBeAPositiveIntegerLiteral) {
  EXPECT_THAT(Error("b = pl.MemRef(slots=0)", LoadInto("b[0]")),
              HasSubstr("bad.py:3:15: error: slots must be a positive integer literal"));
  // (The evaluator's rule: under a script CPython computes n first.)
  EXPECT_THAT(
      EvaluateSnippetError(kPrelude, Program("n = 2\nb = pl.MemRef(slots=n)", LoadInto("b[0]"))),
      HasSubstr("bad.py:4:15: error: slots must be a positive integer literal (at most 1024), e.g. "
                "pl.MemRef(\"scratch\", slots=2), got 2 (a computed value, not a literal)"));
  EXPECT_THAT(Error("b = pl.MemRef(slots=-1)", LoadInto("b[0]")),
              HasSubstr("slots must be a positive integer literal"));
  EXPECT_THAT(Error("b = pl.MemRef(\"\")", LoadInto("b")),
              HasSubstr("bad.py:3:15: error: pl.MemRef's name must be a non-empty string"));
}

TEST(MemRef, LiteralSubscriptMustBeInRange) {
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", LoadInto("b[2]")),
              HasSubstr("bad.py:8:45: error: slot index 2 is out of range for 'b', declared "
                        "with 2 slots; subscript within [0, 2)"));
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", LoadInto("b[-1]")),
              HasSubstr("slot index -1 is out of range"));
  EXPECT_THAT(Error("b = pl.MemRef()", LoadInto("b[0]")),
              HasSubstr("'b' was declared with a single slot, so it cannot be subscripted"));
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", LoadInto("b")),
              HasSubstr("bad.py:8:19: error: 'b' has 2 slots; pick one with a subscript"));
  // The legal neighbour: the last slot.
  CompileSnippet(kPrelude, Program("b = pl.MemRef(slots=2)", LoadInto("b[1]")));
}

TEST(MemRef, NotInsideAPipelineBody) {
  EXPECT_THAT(Error("", LoadInto("pl.MemRef(\"ub\", slots=2)[0]"), "pl.pipeline(4, stage=2)"),
              HasSubstr("bad.py:8:46: error: pl.MemRef cannot be declared inside a "
                        "pl.pipeline(stage=F) body"));
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", LoadInto("b[0]"), "pl.pipeline(4, stage=2)"),
              HasSubstr("bad.py:8:19: error: a pl.MemRef tile cannot be bound inside a "
                        "pl.pipeline(stage=F) body"));
  // stage=1 clones nothing.
  CompileSnippet(
      kPrelude, Program("b = pl.MemRef(slots=2)", LoadInto("b[i % 2]"), "pl.pipeline(4, stage=1)"));
}

TEST(MemRef, OneMemorySpacePerAllocation) {
  const std::string body =
      "            x: pl.Tile[[16, 16], pl.FP32, b[0], pl.Mem.Vec] = "
      "pl.load(a, [i * 16, 0], [16, 16])\n"
      "            y: pl.Tile[[16, 16], pl.FP32, b[1], pl.Mem.Mat] = "
      "pl.load(a, [i * 16, 0], [16, 16])\n"
      "            pl.store(x, [i * 16, 0], out)\n";
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", body),
              HasSubstr("bad.py:9:19: error: tiles bound to the pl.MemRef allocation 'b' must "
                        "share one memory space: this one is in Mat (L1) but the allocation is "
                        "in Vec (UB) (line 8:19)"));
  // The annotated tile's own space must be the annotation's.
  const std::string acc =
      "            l = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "            r = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "            c: pl.Tile[[16, 16], pl.FP32, b[0], pl.Mem.Vec] = pl.matmul(l, r)\n"
      "            pl.store(c, [i * 16, 0], out)\n";
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", acc),
              HasSubstr("bad.py:10:19: error: the annotation says Vec (UB) but the value is in "
                        "Acc (L0C)"));
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)",
                    "            t: pl.Tile[[16, 16], pl.FP32, b[0]] = pl.load(a, [0, 0], [16, "
                    "16])\n            pl.store(t, [0, 0], out)\n"),
              HasSubstr("bad.py:8:24: error: a pl.Tile annotation with a pl.MemRef must also "
                        "name its memory space"));
}

TEST(MemRef, NoAliasesAndOneDeclarationPerName) {
  EXPECT_THAT(
      EvaluateSnippetError(kPrelude, Program("b = pl.MemRef(slots=2)\nc = b", LoadInto("c[0]"))),
      HasSubstr("bad.py:4:1: error: the pl.MemRef() bound to 'b' is also bound to 'c'"));
  // In a script both names are one object in CPython; a kernel that reads
  // both gets the alias, not two allocations.
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)\nc = b",
                    "            x: pl.Tile[[16, 16], pl.FP32, b[0], pl.Mem.Vec] = "
                    "pl.load(a, [i * 16, 0], [16, 16])\n"
                    "            y: pl.Tile[[16, 16], pl.FP32, c[1], pl.Mem.Vec] = pl.exp(x)\n"
                    "            pl.store(y, [i * 16, 0], out)\n"),
              HasSubstr("the pl.MemRef() bound to 'b' is also bound to 'c'"));
  // An explicit name is the allocation's own: binding it to another variable is fine.
  CompileSnippet(kPrelude, Program("b = pl.MemRef(\"ub\", slots=2)\nc = b", LoadInto("c[i % 2]")));
  const std::string two =
      "            x: pl.Tile[[16, 16], pl.FP32, b[0], pl.Mem.Vec] = "
      "pl.load(a, [i * 16, 0], [16, 16])\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"b\", slots=2)[1], pl.Mem.Vec] = "
      "pl.exp(x)\n"
      "            pl.store(y, [i * 16, 0], out)\n";
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", two),
              HasSubstr("bad.py:9:19: error: two separate pl.MemRef declarations both resolve to "
                        "the name 'b'"));
  const std::string counts =
      "            x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"u\", slots=2)[0], pl.Mem.Vec] = "
      "pl.load(a, [i * 16, 0], [16, 16])\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"u\", slots=3)[1], pl.Mem.Vec] = "
      "pl.exp(x)\n"
      "            pl.store(y, [i * 16, 0], out)\n";
  EXPECT_THAT(Error("", counts), HasSubstr("'u' is declared here with 3 slots but with 2"));
}

TEST(MemRef, ARuntimeSlotIsLeftToTheSimulator) {
  // i % 2 + 1 is 2 on odd iterations: ptoc writes the expression and the
  // simulator range-checks it per op, so the run stops at the first odd
  // iteration (bad_inputs: memref_runtime_slot).
  EXPECT_THAT(Error("b = pl.MemRef(slots=2)", LoadInto("b[i % 2 + 1]")),
              HasSubstr("tile 't0' picks slot 2 of its pl.MemRef allocation, which has 2 slots; "
                        "expected 0 <= slot < 2"));
}

}  // namespace
}  // namespace pto::ptoc
