#include "models/core/mix_pipeline.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/base/chip_config.h"
#include "models/core/testing/kernel_builder.h"
#include "models/core/tile_executor.h"

namespace pto {
namespace {

using kernel_testing::C;
using kernel_testing::KernelBuilder;
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

// A halved vector transfer's per-byte part: its reads at the AIV's read rate,
// its writes at its write rate; nothing to split when the rates are unset.
TEST(MixPipelineTest, GmBytesTakeTheirDirectionsRates) {
  OpRecord record;
  record.gm_bytes_read = 1000;
  record.gm_bytes_written = 600;
  MixRingParams ring;
  EXPECT_EQ(GmBytesNs(record, ring), 0);
  ring.gm_read_bytes_per_ns = 100;
  ring.gm_write_bytes_per_ns = 20;
  EXPECT_DOUBLE_EQ(GmBytesNs(record, ring), 10 + 30);
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
  // Each op's own interval: the add starts once its input is copied out.
  EXPECT_THAT(timeline->op_start_ns, testing::ElementsAre(0, 100, 800, 1000));
  EXPECT_THAT(timeline->op_end_ns, testing::ElementsAre(100, 400, 1000, 1200));
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

// Loop carries. Tiles: a, b (cube inputs) and [32, 128] FP32 results (16 KiB,
// one 200 ns transfer through Ring()).
struct CarryMix {
  KernelBuilder b{"carry", trace::MIX};
  uint32_t ga = b.TensorParam("ga", trace::FP16);
  uint32_t gb = b.TensorParam("gb", trace::FP16);
  uint32_t a = b.Tile("a", {32, 16}, trace::FP16, trace::MAT);
  uint32_t bt = b.Tile("b", {16, 128}, trace::FP16, trace::MAT);
  uint32_t Result(const char* name, trace::MemSpace space = trace::ACC) {
    return b.Tile(name, {32, 128}, trace::FP32, space);
  }
  void LoadInputs() {
    b.Load(a, ga, {C(0), C(0)});
    b.Load(bt, gb, {C(0), C(0)});
  }
  CompiledKernel Compile() {
    absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
    EXPECT_TRUE(k.ok()) << k.status();
    return k.ok() ? *std::move(k) : CompiledKernel{};
  }
};

OpRecord CarryRecord(uint32_t loop, CarryCopy copy) {
  OpRecord r;
  r.op_index = loop;
  r.kind = trace::Op::LOOP;
  r.carry = copy;
  return r;
}

TEST(MixPipelineTest, AReadOfACarryWaitsForTheOtherEnginesNextOrInit) {
  // p = a @ b; for i in range(4): v = p + 1 (vector); p = a @ b (cube)
  CarryMix m;
  const uint32_t c0 = m.Result("c0");
  const uint32_t c = m.Result("c");
  const uint32_t p = m.Result("p");
  const uint32_t v = m.Result("v", trace::VEC);
  m.LoadInputs();                                  // ops 0, 1
  m.b.Matmul(c0, m.a, m.bt);                       // op 2
  trace::Op& loop = m.b.BeginLoop(0, C(0), C(4));  // op 3
  m.b.WithScalar(trace::Op::ADD, v, p, 1.0);       // op 4
  m.b.Matmul(c, m.a, m.bt);                        // op 5
  m.b.EndLoop();
  KernelBuilder::Carry(loop, p, c0, c, "p");
  const CompiledKernel kernel = m.Compile();
  std::vector<OpRecord> records = {Record(kernel, 0, 0), Record(kernel, 1, 0),
                                   Record(kernel, 2, 100), CarryRecord(3, CarryCopy::kInit)};
  for (int i = 0; i < 4; ++i) {
    records.push_back(Record(kernel, 4, 50));
    records.push_back(Record(kernel, 5, 100));
    records.push_back(CarryRecord(3, CarryCopy::kNext));
  }
  const auto timeline = ScheduleMixBlock(records, kernel, Ring(2));
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  // Iteration i's add reads the result of the matmul before it (the init's
  // for i = 0): four crossings, the last matmul's result is never read.
  // Cube: 0-100 c0, push -300; 300-400, push -600; 600-700, push -900 (its
  // slot freed at 500); 900-1000, push -1200 (freed at 800); 1200-1300.
  // Vector: each add copies its tile out once it landed (300, 600, 900,
  // 1200) for 200 ns, then runs 50 ns.
  EXPECT_EQ(timeline->pushes, 4);
  EXPECT_DOUBLE_EQ(timeline->cube_end_ns, 1300);
  EXPECT_DOUBLE_EQ(timeline->vector_end_ns, 1450);
  EXPECT_DOUBLE_EQ(timeline->data_wait_ns, 300 + 3 * 50);
  EXPECT_DOUBLE_EQ(timeline->slot_wait_ns, 0);
  EXPECT_DOUBLE_EQ(EngineBusyNs(*timeline, EngineKind::kVector), 4 * 250);
}

TEST(MixPipelineTest, ASwapOfCarriesRenamesBothAtOnce) {
  // x = a @ b; y = a @ b; for _ in range(3): s, t = t, s  (s = x, t = y
  // first); v = s + 1; w = t + 1. Three swaps: v reads y, w reads x.
  CarryMix m;
  const uint32_t x = m.Result("x");
  const uint32_t y = m.Result("y");
  const uint32_t s = m.Result("s");
  const uint32_t t = m.Result("t");
  const uint32_t v = m.Result("v", trace::VEC);
  const uint32_t w = m.Result("w", trace::VEC);
  m.LoadInputs();                                  // ops 0, 1
  m.b.Matmul(x, m.a, m.bt);                        // op 2
  m.b.Matmul(y, m.a, m.bt);                        // op 3
  trace::Op& loop = m.b.BeginLoop(0, C(0), C(3));  // op 4
  m.b.EndLoop();
  m.b.WithScalar(trace::Op::ADD, v, s, 1.0);  // op 5
  m.b.WithScalar(trace::Op::ADD, w, t, 1.0);  // op 6
  KernelBuilder::Carry(loop, s, x, t, "s");
  KernelBuilder::Carry(loop, t, y, s, "t");
  const CompiledKernel kernel = m.Compile();
  std::vector<OpRecord> records = {Record(kernel, 0, 0), Record(kernel, 1, 0),
                                   Record(kernel, 2, 100), Record(kernel, 3, 100),
                                   CarryRecord(4, CarryCopy::kInit)};
  for (int i = 0; i < 3; ++i) records.push_back(CarryRecord(4, CarryCopy::kNext));
  records.push_back(Record(kernel, 5, 50));
  records.push_back(Record(kernel, 6, 50));
  const auto timeline = ScheduleMixBlock(records, kernel, Ring(2));
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  // Cube: x 0-100, push -300; y 300-400, push -600. Vector: v copies y out
  // 600-800, runs -850; w copies x out 850-1050, runs -1100. (Renaming one
  // carry after the other would leave both on y: one push, done at 900.)
  EXPECT_EQ(timeline->pushes, 2);
  EXPECT_DOUBLE_EQ(timeline->cube_end_ns, 600);
  EXPECT_DOUBLE_EQ(timeline->vector_end_ns, 1100);
}

TEST(MixPipelineTest, CarriesScheduleLikeTheSameKernelWithoutThem) {
  // With carries: p = a @ b; for i in range(4): v = p + 1; c = a @ b;
  // p, last = c, c (last without init); w = last + 1. Without: the same
  // dependencies through one tile c, rewritten in place.
  const auto build = [](bool carried) {
    CarryMix m;
    const uint32_t c0 = m.Result("c0");
    const uint32_t c = m.Result("c");
    const uint32_t p = m.Result("p");
    const uint32_t last = m.Result("last");
    const uint32_t v = m.Result("v", trace::VEC);
    const uint32_t w = m.Result("w", trace::VEC);
    m.LoadInputs();
    m.b.Matmul(carried ? c0 : c, m.a, m.bt);
    trace::Op& loop = m.b.BeginLoop(0, C(0), C(4));
    m.b.WithScalar(trace::Op::ADD, v, carried ? p : c, 1.0);
    m.b.Matmul(c, m.a, m.bt);
    m.b.EndLoop();
    m.b.WithScalar(trace::Op::ADD, w, carried ? last : c, 1.0);
    if (carried) {
      KernelBuilder::Carry(loop, p, c0, c, "p");
      KernelBuilder::Carry(loop, last, KernelBuilder::kNoInit, c, "last");
    }
    return m.Compile();
  };
  const auto schedule = [](const CompiledKernel& kernel) {
    const auto view = [](int64_t rows, int64_t cols) {
      TensorBinding t;
      t.dtype = trace::FP16;
      t.rank = 2;
      t.shape[0] = rows;
      t.shape[1] = t.strides[0] = cols;
      t.strides[1] = 1;
      return t;
    };
    TileExecutor exec{ChipConfig{}};
    ExecutionProfile profile;
    const std::vector<BoundArg> args = {BoundArg::Tensor(view(32, 16)),
                                        BoundArg::Tensor(view(16, 128))};
    EXPECT_TRUE(exec.Execute(kernel, {}, args, /*functional=*/false, nullptr, &profile).ok());
    return ScheduleMixBlock(profile.records, kernel, Ring(2));
  };
  const auto with = schedule(build(true));
  const auto without = schedule(build(false));
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->pushes, 5);  // the first matmul, then every loop matmul
  EXPECT_EQ(with->pushes, without->pushes);
  EXPECT_EQ(with->cube_end_ns, without->cube_end_ns);
  EXPECT_EQ(with->vector_end_ns, without->vector_end_ns);
  EXPECT_EQ(with->data_wait_ns, without->data_wait_ns);
  EXPECT_EQ(with->slot_wait_ns, without->slot_wait_ns);
  EXPECT_EQ(with->busy.size(), without->busy.size());
}

TEST(MixPipelineTest, AnIfsPhiCarriesItsArmsResultAcrossTheRing) {
  // if cond: p = a @ b (then) else: p = a @ b + 0 on the cube (else); then
  // v = p + 1 on the vector side. The phi is a rename: the vector add waits
  // for the arm's matmul across the ring, as it waits for a matmul of the
  // same kernel without the IF.
  const auto build = [](int form) {  // 0: no IF; 1: then arm runs; 2: else arm runs
    CarryMix m;
    const uint32_t t = m.Result("t");
    const uint32_t e = m.Result("e");
    const uint32_t p = m.Result("p");
    const uint32_t v = m.Result("v", trace::VEC);
    m.LoadInputs();
    if (form == 0) {
      m.b.Matmul(p, m.a, m.bt);
    } else {
      trace::Op& branch = m.b.BeginIf(C(form == 1 ? 1 : 0));
      m.b.Matmul(t, m.a, m.bt);
      m.b.Else();
      m.b.Matmul(e, m.a, m.bt);
      m.b.EndIf();
      KernelBuilder::Phi(branch, p, t, e);
    }
    m.b.WithScalar(trace::Op::ADD, v, p, 1.0);
    return m.Compile();
  };
  const auto schedule = [](const CompiledKernel& kernel) {
    TensorBinding t;
    t.dtype = trace::FP16;
    t.rank = 2;
    TensorBinding a = t, b = t;
    a.shape[0] = 32;
    a.shape[1] = a.strides[0] = 16;
    a.strides[1] = 1;
    b.shape[0] = 16;
    b.shape[1] = b.strides[0] = 128;
    b.strides[1] = 1;
    TileExecutor exec{ChipConfig{}};
    ExecutionProfile profile;
    const std::vector<BoundArg> args = {BoundArg::Tensor(a), BoundArg::Tensor(b)};
    EXPECT_TRUE(exec.Execute(kernel, {}, args, /*functional=*/false, nullptr, &profile).ok());
    return ScheduleMixBlock(profile.records, kernel, Ring(2));
  };
  const auto plain = schedule(build(0));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->pushes, 1);
  for (int form : {1, 2}) {
    SCOPED_TRACE(form == 1 ? "then" : "else");
    const auto branchy = schedule(build(form));
    ASSERT_TRUE(branchy.ok()) << branchy.status();
    EXPECT_EQ(branchy->pushes, 1);  // without the rename, the add would wait for nothing
    EXPECT_EQ(branchy->cube_end_ns, plain->cube_end_ns);
    EXPECT_EQ(branchy->vector_end_ns, plain->vector_end_ns);
    EXPECT_EQ(branchy->data_wait_ns, plain->data_wait_ns);
  }
}

}  // namespace
}  // namespace pto
