#include "models/core/block_pipes.h"

#include <algorithm>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using ::pto::kernel_testing::C;
using ::pto::kernel_testing::KernelBuilder;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(BlockPipesTest, EachOpKindGoesToItsPipe) {
  KernelBuilder kb("k", trace::AIC);
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t a = kb.Tile("a", {16, 16}, trace::FP32, trace::MAT);
  const uint32_t b = kb.Tile("b", {16, 16}, trace::FP32, trace::MAT);
  const uint32_t c = kb.Tile("c", {16, 16}, trace::FP32, trace::ACC);
  kb.Load(a, x, {C(0), C(0)});
  kb.Load(b, x, {C(0), C(0)});
  kb.Matmul(c, a, b);
  kb.Store(c, y, {C(0), C(0)});
  kb.Add(trace::Op::FENCE);
  const CompiledKernel kernel = *CompileKernel(kb.kernel());
  std::vector<Pipe> pipes;
  for (const CompiledOp& op : kernel.ops) pipes.push_back(PipeOf(kernel, op));
  EXPECT_THAT(pipes,
              ElementsAre(Pipe::kMte2, Pipe::kMte2, Pipe::kCube, Pipe::kFixpipe, Pipe::kScalar));

  KernelBuilder vec("v");
  const uint32_t vx = vec.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t t = vec.Tile("t", {1, 16}, trace::FP32);
  const uint32_t u = vec.Tile("u", {1, 16}, trace::FP32);
  vec.Load(t, vx, {C(0), C(0)});
  vec.Unary(trace::Op::EXP, u, t);
  vec.Store(u, vx, {C(0), C(0)});
  const CompiledKernel v = *CompileKernel(vec.kernel());
  EXPECT_EQ(PipeOf(v, v.ops[1]), Pipe::kVector);
  EXPECT_EQ(PipeOf(v, v.ops[2]), Pipe::kMte3);
}

TEST(BlockPipesTest, DescribesBuffersTransfersAndBarriers) {
  KernelBuilder kb("v");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t t = kb.Tile("t", {1, 16}, trace::FP32);
  const uint32_t u = kb.Tile("u", {1, 16}, trace::FP32);
  kb.Load(t, x, {C(0), C(0)});
  kb.Binary(trace::Op::ADD, u, t, t);
  kb.Store(u, x, {C(0), C(0)});
  kb.Add(trace::Op::CACHE_INVALID).set_whole_cache(true);
  const CompiledKernel kernel = *CompileKernel(kb.kernel());
  ChipConfig config;
  config.core.dcci_ns = 200;
  const GmRuns runs{0x1000, 64, 1, 64};
  PipeOpSpec spec;

  DescribePipeOp(kernel, OpRecord{0, trace::Op::LOAD}, runs, config, &spec);
  EXPECT_TRUE(spec.external);
  EXPECT_TRUE(spec.touches_gm);
  EXPECT_FALSE(spec.gm_write);
  EXPECT_EQ(spec.gm.base, 0x1000u);
  EXPECT_THAT(spec.reads, IsEmpty());
  EXPECT_THAT(spec.writes, ElementsAre(t));

  OpRecord add{1, trace::Op::ADD};
  add.cost_ns = 12.5;
  DescribePipeOp(kernel, add, GmRuns{}, config, &spec);
  EXPECT_FALSE(spec.external);
  EXPECT_FALSE(spec.touches_gm);
  EXPECT_EQ(spec.duration, 12500);
  EXPECT_THAT(spec.reads, ElementsAre(t, t));
  EXPECT_THAT(spec.writes, ElementsAre(u));

  DescribePipeOp(kernel, OpRecord{2, trace::Op::STORE}, runs, config, &spec);
  EXPECT_TRUE(spec.gm_write);
  EXPECT_THAT(spec.reads, ElementsAre(u));
  EXPECT_THAT(spec.writes, IsEmpty());

  DescribePipeOp(kernel, OpRecord{3, trace::Op::CACHE_INVALID}, GmRuns{}, config, &spec);
  EXPECT_TRUE(spec.barrier);
  EXPECT_FALSE(spec.external);
  EXPECT_EQ(spec.duration, 200000);
  EXPECT_THAT(spec.reads, IsEmpty());
}

TEST(BlockPipesTest, ALoopCarryIsOneBufferAndASwapTwo) {
  // acc carried with init `zero` and next `sum`: one buffer. A swap
  // (p takes q, q takes p) keeps two.
  KernelBuilder kb("carry");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t zero = kb.Tile("zero", {1, 16}, trace::FP32);
  const uint32_t acc = kb.Tile("acc", {1, 16}, trace::FP32);
  const uint32_t sum = kb.Tile("sum", {1, 16}, trace::FP32);
  const uint32_t p = kb.Tile("p", {1, 16}, trace::FP32);
  const uint32_t q = kb.Tile("q", {1, 16}, trace::FP32);
  const uint32_t p0 = kb.Tile("p0", {1, 16}, trace::FP32);
  const uint32_t q0 = kb.Tile("q0", {1, 16}, trace::FP32);
  kb.Load(zero, x, {C(0), C(0)});
  kb.Load(p0, x, {C(0), C(0)});
  kb.Load(q0, x, {C(0), C(0)});
  trace::Op& loop = kb.BeginLoop(0, C(0), C(2));
  kb.Binary(trace::Op::ADD, sum, acc, p);
  kb.EndLoop();
  KernelBuilder::Carry(loop, acc, zero, sum, "acc");
  KernelBuilder::Carry(loop, p, p0, q, "p");
  KernelBuilder::Carry(loop, q, q0, p, "q");
  const absl::StatusOr<CompiledKernel> kernel = CompileKernel(kb.kernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::vector<uint32_t>& buffer = kernel->tile_buffers;
  EXPECT_EQ(buffer[acc], buffer[zero]);
  EXPECT_EQ(buffer[sum], buffer[zero]);
  EXPECT_EQ(buffer[p], buffer[p0]);
  EXPECT_EQ(buffer[q], buffer[q0]);
  EXPECT_NE(buffer[p], buffer[q]);
  EXPECT_NE(buffer[p], buffer[acc]);
  EXPECT_EQ(buffer[acc], zero);  // named by its lowest tile
}

// A kernel with buffer_count: tiles live in their TileDecl.buffer, a carry
// joins buffers (not tiles), and a runtime slot adds the record's slot.
TEST(BlockPipesTest, BuffersComeFromTheStreamAndRuntimeSlotsPickOne) {
  KernelBuilder kb("slots");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t t = kb.Tile("t", {1, 16}, trace::FP32);
  const uint32_t u = kb.Tile("u", {1, 16}, trace::FP32);
  const uint32_t v = kb.Tile("v", {1, 16}, trace::FP32);
  kb.program()->set_buffer_count(6);
  // t: slot (loop var 0) of a 2-slot allocation at buffers 3-4; u: slot 1
  // of it, folded (buffer 4); v: buffer 5.
  kb.program()->mutable_tiles(t)->set_buffer(3);
  kb.program()->mutable_tiles(t)->set_slots(2);
  *kb.program()->mutable_tiles(t)->mutable_slot() = kernel_testing::LoopVar(0);
  kb.program()->mutable_tiles(u)->set_buffer(4);
  kb.program()->mutable_tiles(u)->set_slots(2);
  kb.program()->mutable_tiles(v)->set_buffer(5);
  kb.BeginLoop(0, C(0), C(2));
  kb.Load(t, x, {C(0), C(0)});
  kb.Binary(trace::Op::ADD, v, t, t);
  kb.Unary(trace::Op::EXP, u, v);
  kb.EndLoop();
  const absl::StatusOr<CompiledKernel> kernel = CompileKernel(kb.kernel());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_THAT(kernel->tile_buffers, ElementsAre(3, 4, 5));
  EXPECT_EQ(kernel->buffer_count, 6u);
  ChipConfig config;
  PipeOpSpec spec;
  OpRecord load{1, trace::Op::LOAD};
  load.slot[0] = 1;  // t's slot when it ran: buffer 3 + 1
  DescribePipeOp(*kernel, load, GmRuns{0x1000, 64, 1, 64}, config, &spec);
  EXPECT_THAT(spec.writes, ElementsAre(4));
  OpRecord add{2, trace::Op::ADD};
  add.slot[1] = add.slot[2] = 0;
  DescribePipeOp(*kernel, add, GmRuns{}, config, &spec);
  EXPECT_THAT(spec.reads, ElementsAre(3, 3));
  EXPECT_THAT(spec.writes, ElementsAre(5));
}

// The pipe ops of `kernel`'s records (one per op, in order, each of cost 0:
// only the matmuls' steps take time), run with no transfer taking time;
// the block's end.
TimePs RunOnPipes(const CompiledKernel& kernel, const ChipConfig& config, PipeScheduler* pipes) {
  BlockPipes block(config);
  block.Begin(kernel);
  for (uint32_t i = 0; i < kernel.ops.size(); ++i) {
    OpRecord record{i, kernel.ops[i].kind};
    block.Add(record, GmRuns{0x1000, 64, 1, 64}, pipes);
  }
  pipes->Start(0);
  std::vector<uint32_t> started;
  while (!pipes->finished()) {
    pipes->TakeStarted(&started);
    for (uint32_t op : started) pipes->Complete(op, pipes->timing(op).start);
    if (started.empty()) pipes->RunUntil(pipes->next_internal_at());
  }
  return pipes->end_time();
}

// `steps` matmuls [16, k] x [k, 128] BF16 from L1 into one accumulator; with
// `created`, upstream's form: every step a matmul_acc onto an accumulator
// created with no contents (pl.tile.create).
CompiledKernel MatmulChain(int64_t k, int steps, bool created = false) {
  KernelBuilder kb("mm", trace::AIC);
  const uint32_t a = kb.Tile("a", {16, k}, trace::BF16, trace::MAT);
  const uint32_t b = kb.Tile("b", {k, 128}, trace::BF16, trace::MAT);
  const uint32_t c = kb.Tile("c", {16, 128}, trace::FP32, trace::ACC);
  kb.Full(a, 1);
  kb.Full(b, 1);
  if (created) kb.Create(c);
  for (int i = 0; i < steps; ++i) {
    if (created) {
      kb.MatmulAcc(c, a, b, c);
    } else {
      kb.Matmul(c, a, b);
    }
  }
  return *CompileKernel(kb.kernel());
}

TEST(BlockPipesTest, AMatmulMovesItsKBlocksThroughMte1WhileTheCubeComputes) {
  // [16, 512] x [512, 128] BF16 at 1 GHz. ChooseL0Tiling gives k0 = 256 (B
  // must fit 64 KiB); two B blocks of 256 x 128 do not, so k0 = 128: four
  // K-blocks, each an MTE1 move of 16*128*2 B at 129.7 B/cycle plus
  // 128*128*2 B at 85.4 (415.29 cycles) and a MAD of 21 + 1*8*8 = 85
  // cycles. With two slots each MTE1 move follows the one before it and the
  // MADs trail them: the block ends after four moves and one MAD.
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  const CompiledKernel kernel = MatmulChain(512, 1);
  PipeScheduler pipes;
  const TimePs end = RunOnPipes(kernel, config, &pipes);
  const TimePs move = Ns(16 * 128 * 2 / 129.7 + 128 * 128 * 2 / 85.4);
  const TimePs mad = Ns(85);
  EXPECT_EQ(pipes.size(), 2u + 8u);
  EXPECT_EQ(end, 4 * move + mad);
  EXPECT_EQ(pipes.busy(Pipe::kMte1), 4 * move);
  EXPECT_EQ(pipes.busy(Pipe::kCube), 4 * mad);
}

TEST(BlockPipesTest, EightKStepsOf256TakeTheTimeOfOneMatmulOver2048) {
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  const CompiledKernel whole = MatmulChain(2048, 1);
  const CompiledKernel steps = MatmulChain(256, 8);
  PipeScheduler a, b;
  const TimePs one = RunOnPipes(whole, config, &a);
  const TimePs eight = RunOnPipes(steps, config, &b);
  EXPECT_EQ(one, eight);
  EXPECT_EQ(a.busy(Pipe::kCube), b.busy(Pipe::kCube));
}

TEST(BlockPipesTest, ACreatedAccumulatorIsNoPipeOpAndCostsNoTime) {
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  PipeScheduler plain, created, whole;
  const TimePs plain_end = RunOnPipes(MatmulChain(256, 8), config, &plain);
  const TimePs created_end = RunOnPipes(MatmulChain(256, 8, /*created=*/true), config, &created);
  EXPECT_EQ(created.size(), plain.size());  // the CREATE added nothing
  EXPECT_EQ(created_end, plain_end);
  EXPECT_EQ(created_end, RunOnPipes(MatmulChain(2048, 1), config, &whole));
  EXPECT_EQ(created.busy(Pipe::kScalar), 0);
}

// A [128, 256] weight read through pl.tile.transpose_view, or with the
// matmul's b_trans flag: the same operand bytes, moves and MADs.
CompiledKernel TransposedProduct(bool view) {
  KernelBuilder kb("mm_t", trace::AIC);
  const uint32_t a = kb.Tile("a", {16, 256}, trace::BF16, trace::MAT);
  const uint32_t w = kb.Tile("w", {128, 256}, trace::BF16, trace::MAT);
  const uint32_t c = kb.Tile("c", {16, 128}, trace::FP32, trace::ACC);
  kb.Full(a, 1);
  kb.Full(w, 1);
  if (view) {
    const uint32_t wt = kb.Tile("wt", {256, 128}, trace::BF16, trace::MAT);
    kb.Unary(trace::Op::TRANSPOSE_VIEW, wt, w);
    kb.Matmul(c, a, wt);
  } else {
    kb.Matmul(c, a, w, /*a_trans=*/false, /*b_trans=*/true);
  }
  return *CompileKernel(kb.kernel());
}

TEST(BlockPipesTest, ATransposedViewIsNoPipeOpAndTheMatmulReadsItsSourcesBuffer) {
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  PipeScheduler viewed, flagged;
  const TimePs viewed_end = RunOnPipes(TransposedProduct(true), config, &viewed);
  const TimePs flagged_end = RunOnPipes(TransposedProduct(false), config, &flagged);
  EXPECT_EQ(viewed.size(), flagged.size());  // the view added no pipe op
  EXPECT_EQ(viewed_end, flagged_end);
  EXPECT_GT(viewed_end, 0);
}

TEST(BlockPipesTest, AFixpipeStoreTakesTheDrainOfItsAccumulator) {
  // A [16, 128] FP32 accumulator: drain = 164 + 16 * max(4.45, 4*128/118)
  // cycles (the odd part of 128/8 is 1: no penalty), after the GM latency.
  KernelBuilder kb("st", trace::AIC);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t c = kb.Tile("c", {16, 128}, trace::FP32, trace::ACC);
  kb.Full(c, 0);
  kb.Store(c, y, {C(0), C(0)});
  const CompiledKernel kernel = *CompileKernel(kb.kernel());
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  config.core.gm_latency_ns = 500;
  PipeOpSpec spec;
  DescribePipeOp(kernel, OpRecord{1, trace::Op::STORE}, GmRuns{0, 512, 16, 512}, config, &spec);
  EXPECT_EQ(spec.pipe, Pipe::kFixpipe);
  EXPECT_TRUE(spec.external);
  EXPECT_EQ(spec.duration, Ns(500 + 164 + 16 * std::max(4.45, 4.0 * 128 / 118)));
}

}  // namespace
}  // namespace pto
