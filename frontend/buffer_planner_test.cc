// The buffer planner (buffer_planner.h): lifetimes, in-place reuse, loop
// extension, semantic aliases, pipeline copies and capacity, on programs
// written out as protobuf text, then through ptoc on kernels.
#include "frontend/buffer_planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "frontend/testing/snippets.h"
#include "google/protobuf/text_format.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

trace::KernelProgram Program(const std::string& text) {
  trace::KernelProgram p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &p)) << text;
  return p;
}

// Tiles of 64 x 64 FP32 (16 KiB) in Vec unless given.
std::string Tiles(int n, const std::string& space = "VEC") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "tiles { shape: 64 shape: 64 dtype: FP32 space: " + space + " }\n";
  }
  return out;
}

BufferPlan Plan(const trace::KernelProgram& p, BufferPlanOptions options = {}) {
  auto plan = PlanBuffers(p, options, "k");
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : BufferPlan{};
}

TEST(BufferPlannerTest, AnElementwiseOpWritesItsInputsBufferInPlace) {
  // t0 = load; t1 = exp(t0); store t1: t0 dies where t1 is born.
  const BufferPlan plan = Plan(Program(Tiles(2) + "ops { kind: LOAD dst: 0 }\n"
                                                  "ops { kind: EXP dst: 1 srcs: 0 }\n"
                                                  "ops { kind: STORE srcs: 1 }\n"));
  EXPECT_THAT(plan.buffer, ElementsAre(0, 0));
  EXPECT_EQ(plan.count, 1u);
}

TEST(BufferPlannerTest, TilesAliveTogetherGetBuffersOfTheirOwn) {
  // t0 and t1 are both read by the add.
  const BufferPlan plan = Plan(Program(Tiles(3) + "ops { kind: LOAD dst: 0 }\n"
                                                  "ops { kind: LOAD dst: 1 }\n"
                                                  "ops { kind: ADD dst: 2 srcs: 0 srcs: 1 }\n"
                                                  "ops { kind: STORE srcs: 2 }\n"));
  EXPECT_NE(plan.buffer[0], plan.buffer[1]);
  // The sum goes in place into one of its operands.
  EXPECT_TRUE(plan.buffer[2] == plan.buffer[0] || plan.buffer[2] == plan.buffer[1]);
  EXPECT_EQ(plan.count, 2u);
}

TEST(BufferPlannerTest, OpsThatReadWhileWritingNeverWriteInPlace) {
  for (const char* kind : {"RECIP", "RSQRT", "ROW_SUM", "ROW_MAX"}) {
    const BufferPlan plan =
        Plan(Program(Tiles(2) + "ops { kind: LOAD dst: 0 }\nops { kind: " + kind +
                     " dst: 1 srcs: 0 }\nops { kind: STORE srcs: 1 }\n"));
    EXPECT_NE(plan.buffer[0], plan.buffer[1]) << kind;
  }
  // A widening cast outruns its input; a narrowing one does not.
  const std::string cast = "ops { kind: LOAD dst: 0 }\nops { kind: CAST dst: 1 srcs: 0 }\n";
  const std::string bf16 = "tiles { shape: 64 shape: 64 dtype: BF16 space: VEC }\n";
  const std::string fp32 = "tiles { shape: 64 shape: 64 dtype: FP32 space: VEC }\n";
  const BufferPlan widening = Plan(Program(bf16 + fp32 + cast));
  EXPECT_NE(widening.buffer[0], widening.buffer[1]);
  const BufferPlan narrowing = Plan(Program(fp32 + bf16 + cast));
  EXPECT_EQ(narrowing.buffer[0], narrowing.buffer[1]);
}

TEST(BufferPlannerTest, SpacesNeverShare) {
  const BufferPlan plan = Plan(Program(Tiles(1, "VEC") + Tiles(1, "MAT") +
                                       "ops { kind: LOAD dst: 0 }\n"
                                       "ops { kind: STORE srcs: 0 }\n"
                                       "ops { kind: LOAD dst: 1 }\n"
                                       "ops { kind: STORE srcs: 1 }\n"));
  EXPECT_NE(plan.buffer[0], plan.buffer[1]);
}

TEST(BufferPlannerTest, ATileReadInALoopItWasWrittenBeforeLivesToTheLoopsEnd) {
  // t0 is loaded before the loop and read at its first op; t1 and t2 are
  // the body's. Without the extension t2 could take t0's buffer, which the
  // next iteration still reads.
  const BufferPlan plan =
      Plan(Program(Tiles(3) +
                   "ops { kind: LOAD dst: 0 }\n"
                   "ops { kind: LOOP loop { var: 0 stop { constant: 4 } step { constant: 1 }\n"
                   "  body { kind: LOAD dst: 1 }\n"
                   "  body { kind: ADD dst: 2 srcs: 1 srcs: 0 }\n"
                   "  body { kind: STORE srcs: 2 } } }\n"));
  EXPECT_NE(plan.buffer[2], plan.buffer[0]);
  EXPECT_NE(plan.buffer[1], plan.buffer[0]);
  EXPECT_EQ(plan.buffer[2], plan.buffer[1]);  // in place
}

TEST(BufferPlannerTest, ALoopCarryAndAnInPlaceAccumulationAreOneBuffer) {
  // acc (t1) = matmul before the loop; the loop carries it (t2), accumulates
  // into t5 and takes t5 as next. Tiles: a, acc0, carried, x, y, acc.
  const std::string acc = "tiles { shape: 64 shape: 64 dtype: FP32 space: ACC }\n";
  const std::string mat = "tiles { shape: 64 shape: 64 dtype: BF16 space: MAT }\n";
  const BufferPlan plan =
      Plan(Program(mat + acc + acc + mat + mat + acc +
                   "ops { kind: LOAD dst: 0 }\n"
                   "ops { kind: MATMUL dst: 1 srcs: 0 srcs: 0 }\n"
                   "ops { kind: LOOP loop { var: 0 stop { constant: 4 } step { constant: 1 }\n"
                   "  carries { tile: 2 init: 1 next: 5 }\n"
                   "  body { kind: LOAD dst: 3 }\n"
                   "  body { kind: LOAD dst: 4 }\n"
                   "  body { kind: MATMUL accumulate: true dst: 5 srcs: 3 srcs: 4 srcs: 2 } } }\n"
                   "ops { kind: STORE srcs: 2 }\n"));
  EXPECT_EQ(plan.buffer[1], plan.buffer[2]);
  EXPECT_EQ(plan.buffer[2], plan.buffer[5]);
  EXPECT_NE(plan.buffer[3], plan.buffer[4]);
}

// Two copies of load -> exp -> store: tiles 0, 1 are copy 0's, 2, 3 copy 1's.
trace::KernelProgram TwoCopies(const std::string& tiles) {
  return Program(tiles +
                 "ops { kind: LOOP loop { var: 0 stop { constant: 8 } step { constant: 2 }\n"
                 "  body { kind: LOAD dst: 0 }\n"
                 "  body { kind: EXP dst: 1 srcs: 0 }\n"
                 "  body { kind: STORE srcs: 1 }\n"
                 "  body { kind: LOAD dst: 2 }\n"
                 "  body { kind: EXP dst: 3 srcs: 2 }\n"
                 "  body { kind: STORE srcs: 3 } } }\n");
}

BufferPlanOptions TwoStages() {
  BufferPlanOptions options;
  options.groups = {{2, "t.py:3"}};
  options.stages = {{0, 0}, {0, 0}, {0, 1}, {0, 1}};
  return options;
}

TEST(BufferPlannerTest, PipelineCopiesGetBuffersOfTheirOwn) {
  // Untagged, the copies' lifetimes are disjoint: one buffer.
  EXPECT_THAT(Plan(TwoCopies(Tiles(4))).buffer, ElementsAre(0, 0, 0, 0));
  const BufferPlan plan = Plan(TwoCopies(Tiles(4)), TwoStages());
  EXPECT_EQ(plan.buffer[0], plan.buffer[1]);
  EXPECT_EQ(plan.buffer[2], plan.buffer[3]);
  EXPECT_NE(plan.buffer[0], plan.buffer[2]);
  EXPECT_TRUE(plan.warnings.empty());
}

TEST(BufferPlannerTest, ADepthThatDoesNotFitIsReducedWithAWarning) {
  BufferPlanOptions options = TwoStages();
  // Room for one 16 KiB buffer only.
  options.capacity = [](trace::MemSpace) -> uint64_t { return 20000; };
  const BufferPlan plan = Plan(TwoCopies(Tiles(4)), options);
  EXPECT_THAT(plan.buffer, ElementsAre(0, 0, 0, 0));
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_THAT(plan.warnings[0], HasSubstr("t.py:3: warning: pl.pipeline(stage=2) gets depth 1 "
                                          "in Vec (UB)"));
}

TEST(BufferPlannerTest, TilesThatCannotFitAtDepthOneAreAnError) {
  trace::KernelProgram p = Program(Tiles(3) +
                                   "ops { kind: LOAD dst: 0 }\n"
                                   "ops { kind: LOAD dst: 1 }\n"
                                   "ops { kind: ADD dst: 2 srcs: 0 srcs: 1 }\n"
                                   "ops { kind: STORE srcs: 2 }\n");
  BufferPlanOptions options;
  options.capacity = [](trace::MemSpace) -> uint64_t { return 20000; };
  auto plan = PlanBuffers(p, options, "k");
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(),
              HasSubstr("Function 'k': its Vec (UB) tiles need 32768 bytes of buffers"));
}

constexpr char kPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n";

std::string LoadExpStore(const std::string& loop) {
  return "@pl.jit\n"
         "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
         "    with pl.at(level=pl.Level.CORE_GROUP):\n"
         "        for i in " +
         loop +
         ":\n"
         "            t = pl.load(a, [i * 16, 0], [16, 16])\n"
         "            pl.store(pl.exp(t), [i * 16, 0], out)\n"
         "    return out\n"
         "a = torch.zeros(64, 16)\n"
         "out = torch.zeros(64, 16)\n"
         "k(a, out)\n";
}

uint32_t BufferCount(const trace::TraceText& t) {
  std::set<uint32_t> buffers;
  for (const trace::TileDecl& tile : t.header().kernels(0).program().tiles()) {
    buffers.insert(tile.buffer());
  }
  return static_cast<uint32_t>(buffers.size());
}

TEST(BufferPlannerTest, PtocPlansASingleBufferedLoopIntoOneBufferAndAPipelinedOneIntoTwo) {
  EXPECT_EQ(BufferCount(CompileCleanSnippet(kPrelude, LoadExpStore("pl.range(4)"))), 1u);
  EXPECT_EQ(BufferCount(CompileCleanSnippet(kPrelude, LoadExpStore("pl.pipeline(4, stage=2)"))),
            2u);
  EXPECT_EQ(BufferCount(CompileCleanSnippet(kPrelude, LoadExpStore("pl.pipeline(4, stage=4)"))),
            4u);
}

TEST(BufferPlannerTest, PtocWarnsWhenAPipelinesCopiesDoNotFit) {
  // Two 128 KiB FP32 tiles per copy would need 256 KiB of the 184 KiB UB.
  const std::string body =
      "@pl.jit\n"
      "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
      "        for i in pl.pipeline(2, stage=2):\n"
      "            t = pl.load(a, [i * 128, 0], [128, 256])\n"
      "            pl.store(pl.exp(t), [i * 128, 0], out)\n"
      "    return out\n"
      "a = torch.zeros(256, 256)\n"
      "out = torch.zeros(256, 256)\n"
      "k(a, out)\n";
  std::vector<std::string> warnings;
  const trace::TraceText t = CompileSnippet(kPrelude, body, &warnings);
  EXPECT_EQ(BufferCount(t), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("t.py:6: warning: pl.pipeline(stage=2) gets depth 1 in Vec "
                                     "(UB): 2 copies of its tiles do not fit the 188416 bytes"));
}

}  // namespace
}  // namespace pto::ptoc
