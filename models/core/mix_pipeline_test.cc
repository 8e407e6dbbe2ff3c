#include "models/core/mix_pipeline.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

// Tiles: 0 = a (cube input), 1 = acc (crosses C2V), 2 = out (vector).
CompiledKernel MixKernel() {
  CompiledKernel kernel;
  kernel.name = "mix";
  kernel.core_type = trace::MIX;
  for (const char* name : {"a", "acc", "out"}) {
    CompiledTile tile;
    tile.name = name;
    tile.dtype = trace::FP32;
    tile.rows = 32;
    tile.cols = 128;  // 16 KiB
    kernel.tiles.push_back(tile);
  }
  CompiledOp load;  // op 0: cube loads a
  load.kind = trace::Op::LOAD;
  load.engine = EngineKind::kCube;
  load.dst = 0;
  CompiledOp matmul;  // op 1: acc = a @ a
  matmul.kind = trace::Op::MATMUL;
  matmul.engine = EngineKind::kCube;
  matmul.dst = 1;
  matmul.src0 = 0;
  matmul.src1 = 0;
  CompiledOp add;  // op 2: out = acc + 1 (reads the crossing tile)
  add.kind = trace::Op::ADD;
  add.engine = EngineKind::kVector;
  add.dst = 2;
  add.src0 = 1;
  CompiledOp store;  // op 3: store out
  store.kind = trace::Op::STORE;
  store.engine = EngineKind::kVector;
  store.src0 = 2;
  kernel.ops = {load, matmul, add, store};
  return kernel;
}

OpRecord Record(const CompiledKernel& kernel, uint32_t op, double cost_ns) {
  OpRecord r;
  r.op_index = op;
  r.kind = kernel.ops[op].kind;
  r.engine = kernel.ops[op].engine;
  r.cost_ns = cost_ns;
  return r;
}

// `tiles` iterations of load, matmul (cube) and add, store (vector).
std::vector<OpRecord> Stream(const CompiledKernel& kernel, int tiles, double cube_ns,
                             double vector_ns) {
  std::vector<OpRecord> records;
  for (int t = 0; t < tiles; ++t) {
    records.push_back(Record(kernel, 0, cube_ns / 4));
    records.push_back(Record(kernel, 1, cube_ns * 3 / 4));
    records.push_back(Record(kernel, 2, vector_ns / 2));
    records.push_back(Record(kernel, 3, vector_ns / 2));
  }
  return records;
}

MixRingParams Ring(int64_t slots, trace::SplitMode split = trace::SPLIT_NONE) {
  MixRingParams params;
  params.slot_num = slots;
  params.split = split;
  params.transfer_latency_ns = 100;
  params.transfer_bytes_per_ns = 16384.0 / 100;  // a 16 KiB tile: 100 ns more
  return params;
}

TEST(MixPipelineTest, ASingleTileRunsItsEnginesOneAfterTheOther) {
  const CompiledKernel kernel = MixKernel();
  const auto timeline = ScheduleMixBlock(Stream(kernel, 1, 400, 400), kernel, Ring(2));
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  // Cube 400 ns, the push (100 + 100 ns), the vector side's copy out of the
  // slot (200 ns), then its 400 ns.
  EXPECT_DOUBLE_EQ(timeline->cube_end_ns, 600);
  EXPECT_DOUBLE_EQ(timeline->vector_end_ns, 1200);
  EXPECT_EQ(timeline->pushes, 1);
  EXPECT_DOUBLE_EQ(EngineOverlapNs(*timeline), 0);
  EXPECT_DOUBLE_EQ(timeline->data_wait_ns, 600);
  EXPECT_DOUBLE_EQ(EngineBusyNs(*timeline, EngineKind::kCube), 600);    // ops + push
  EXPECT_DOUBLE_EQ(EngineBusyNs(*timeline, EngineKind::kVector), 600);  // pop + ops
}

TEST(MixPipelineTest, ALoopOfTilesOverlapsCubeAndVector) {
  const CompiledKernel kernel = MixKernel();
  const auto timeline = ScheduleMixBlock(Stream(kernel, 4, 400, 400), kernel, Ring(2));
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  EXPECT_EQ(timeline->pushes, 4);
  EXPECT_GT(EngineOverlapNs(*timeline), 0);
  // Faster than running the engines one after the other.
  EXPECT_LT(timeline->vector_end_ns, 4 * (400 + 200 + 200 + 400));
}

TEST(MixPipelineTest, ARingBoundLoopRunsFasterWithMoreSlots) {
  // 100 ns of work per tile on each engine, 200 ns per push and per copy
  // out: with one slot every push waits for the previous copy out.
  const CompiledKernel kernel = MixKernel();
  const auto records = Stream(kernel, 8, 100, 100);
  const auto one = ScheduleMixBlock(records, kernel, Ring(1));
  const auto two = ScheduleMixBlock(records, kernel, Ring(2));
  const auto four = ScheduleMixBlock(records, kernel, Ring(4));
  ASSERT_TRUE(one.ok() && two.ok() && four.ok());
  EXPECT_GT(one->vector_end_ns, two->vector_end_ns);
  EXPECT_GE(two->vector_end_ns, four->vector_end_ns);
  EXPECT_GT(one->slot_wait_ns, two->slot_wait_ns);
}

TEST(MixPipelineTest, SplitModesHalveOnlyTheVectorSide) {
  const CompiledKernel kernel = MixKernel();
  const auto records = Stream(kernel, 1, 400, 400);
  const auto whole = ScheduleMixBlock(records, kernel, Ring(2));
  const auto halves = ScheduleMixBlock(records, kernel, Ring(2, trace::SPLIT_UP_DOWN));
  ASSERT_TRUE(whole.ok() && halves.ok());
  EXPECT_DOUBLE_EQ(halves->cube_end_ns, whole->cube_end_ns);
  // Copy out 200 ns + 400 ns of ops; split: half the bytes (100 + 50 ns)
  // and half the ops.
  EXPECT_DOUBLE_EQ(whole->vector_end_ns - whole->cube_end_ns, 600);
  EXPECT_DOUBLE_EQ(halves->vector_end_ns - halves->cube_end_ns, 350);
}

TEST(MixPipelineTest, AnOpReadingTwoPushedTilesWithOneSlotDeadlocks) {
  CompiledKernel kernel = MixKernel();
  // op 4: the cube writes a second crossing tile (into `a`); op 5: the
  // vector adds both — it needs both tiles in the ring at once.
  CompiledOp second = kernel.ops[1];
  second.dst = 0;
  second.src0 = 1;
  second.src1 = 1;
  CompiledOp both = kernel.ops[2];
  both.src0 = 1;
  both.src1 = 0;
  kernel.ops.push_back(second);
  kernel.ops.push_back(both);
  std::vector<OpRecord> records = {Record(kernel, 0, 10), Record(kernel, 1, 10),
                                   Record(kernel, 4, 10), Record(kernel, 5, 10)};
  // Tile 1 is read by op 4 on the cube itself, so only op 5 copies out:
  // acc (1) and the second result (0) both cross; with one slot the second
  // push waits for a copy-out that needs the second push first.
  const auto one = ScheduleMixBlock(records, kernel, Ring(1));
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(std::string(one.status().message()), HasSubstr("cross-core ring deadlocked"));
  EXPECT_TRUE(ScheduleMixBlock(records, kernel, Ring(2)).ok());
}

TEST(MixPipelineTest, ASingleEngineStreamHasNoPushes) {
  const CompiledKernel kernel = MixKernel();
  std::vector<OpRecord> records = {Record(kernel, 0, 100), Record(kernel, 1, 300)};
  const auto timeline = ScheduleMixBlock(records, kernel, Ring(2));
  ASSERT_TRUE(timeline.ok());
  EXPECT_EQ(timeline->pushes, 0);
  EXPECT_DOUBLE_EQ(timeline->cube_end_ns, 400);
  EXPECT_DOUBLE_EQ(timeline->vector_end_ns, 0);
}

}  // namespace
}  // namespace pto
