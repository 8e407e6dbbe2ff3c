// KernelProgram.buffer_count and the pl.MemRef fields of TileDecl (slots,
// slot): CompiledKernel::tile_buffers, CompiledTile's runtime slot, and the
// errors for each.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/kernel_program.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using kernel_testing::Bin;
using kernel_testing::C;
using kernel_testing::KernelBuilder;
using kernel_testing::LoopVar;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using trace::Op;

std::string CompileError(const KernelBuilder& b) {
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  EXPECT_FALSE(k.ok());
  return std::string(k.status().message());
}

// for i in range(4): t (slot i % 2 of buffers 1-2) = load; u = exp(t).
KernelBuilder SlotLoop(trace::IntExpr slot) {
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t t = b.Tile("t", {4}, trace::FP32);
  const uint32_t u = b.Tile("u", {4}, trace::FP32);
  b.program()->set_buffer_count(4);
  b.program()->mutable_tiles(t)->set_buffer(1);
  b.program()->mutable_tiles(t)->set_slots(2);
  *b.program()->mutable_tiles(t)->mutable_slot() = std::move(slot);
  b.program()->mutable_tiles(u)->set_buffer(3);
  b.BeginLoop(0, C(0), C(4));
  b.Load(t, x, {C(0)});
  b.Unary(Op::EXP, u, t);
  b.EndLoop();
  return b;
}

TEST(KernelBuffersTest, WithoutBufferCountEveryTileIsItsOwn) {
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t t = b.Tile("t", {4}, trace::FP32);
  const uint32_t u = b.Tile("u", {4}, trace::FP32);
  b.program()->mutable_tiles(u)->set_buffer(0);  // not used without buffer_count
  b.Load(t, x, {C(0)});
  b.Unary(Op::EXP, u, t);
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->tile_buffers, ElementsAre(0, 1));
  EXPECT_EQ(k->buffer_count, 2u);
}

TEST(KernelBuffersTest, RuntimeSlotIsCompiledAndBuffersAreTheStreams) {
  absl::StatusOr<CompiledKernel> k =
      CompileKernel(SlotLoop(Bin(trace::IntExpr::MOD, LoopVar(0), C(2))).kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->tile_buffers, ElementsAre(1, 3));
  EXPECT_EQ(k->buffer_count, 4u);
  EXPECT_TRUE(k->tiles[0].has_slot);
  EXPECT_EQ(k->tiles[0].slots, 2u);
  EXPECT_FALSE(k->tiles[1].has_slot);
}

TEST(KernelBuffersTest, CarriesJoinBuffersNotTiles) {
  // acc carried with init zero (buffer 5) and next sum (buffer 2): one
  // buffer, the lowest id, 2.
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t zero = b.Tile("zero", {4}, trace::FP32);
  const uint32_t acc = b.Tile("acc", {4}, trace::FP32);
  const uint32_t sum = b.Tile("sum", {4}, trace::FP32);
  b.program()->set_buffer_count(6);
  b.program()->mutable_tiles(zero)->set_buffer(5);
  b.program()->mutable_tiles(acc)->set_buffer(4);
  b.program()->mutable_tiles(sum)->set_buffer(2);
  b.Load(zero, x, {C(0)});
  trace::Op& loop = b.BeginLoop(0, C(0), C(2));
  b.Binary(Op::ADD, sum, acc, acc);
  b.EndLoop();
  KernelBuilder::Carry(loop, acc, zero, sum, "acc");
  absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_THAT(k->tile_buffers, ElementsAre(2, 2, 2));
}

TEST(KernelBuffersTest, RejectsBuffersAndSlotsOutOfRange) {
  KernelBuilder over = SlotLoop(LoopVar(0));
  over.program()->mutable_tiles(0)->set_buffer(3);  // slots 3-4 of 4 buffers
  EXPECT_THAT(CompileError(over),
              HasSubstr("kernel 'k': tile 0 ('t') lives in buffer 3 with 2 runtime slots; "
                        "expected buffer + max(slots, 1) <= 4"));
  KernelBuilder no_slots = SlotLoop(LoopVar(0));
  no_slots.program()->mutable_tiles(0)->set_slots(0);
  EXPECT_THAT(CompileError(no_slots), HasSubstr("and slots > 0 with a slot"));
  KernelBuilder no_count = SlotLoop(LoopVar(0));
  no_count.program()->set_buffer_count(0);
  EXPECT_THAT(CompileError(no_count), HasSubstr("set when any tile has slots"));
}

TEST(KernelBuffersTest, ASlotReadsOnlyTheLoopVarsAroundItsOps) {
  // Loop var 1 encloses no op that uses t.
  EXPECT_THAT(CompileError(SlotLoop(LoopVar(1))),
              HasSubstr("kernel 'k' op 1 (LOAD, test.py:2): tile 0 ('t') slot: "));
}

TEST(KernelBuffersTest, ARuntimeSlotTileIsNotCarried) {
  KernelBuilder b("k");
  const uint32_t x = b.TensorParam("x", trace::FP32);
  const uint32_t zero = b.Tile("zero", {4}, trace::FP32);
  const uint32_t acc = b.Tile("acc", {4}, trace::FP32);
  const uint32_t sum = b.Tile("sum", {4}, trace::FP32);
  b.program()->set_buffer_count(4);
  b.program()->mutable_tiles(zero)->set_buffer(0);
  b.program()->mutable_tiles(acc)->set_buffer(1);
  b.program()->mutable_tiles(sum)->set_buffer(2);
  b.program()->mutable_tiles(sum)->set_slots(2);
  *b.program()->mutable_tiles(sum)->mutable_slot() = LoopVar(0);
  b.Load(zero, x, {C(0)});
  trace::Op& loop = b.BeginLoop(0, C(0), C(2));
  b.Binary(Op::ADD, sum, acc, acc);
  b.EndLoop();
  KernelBuilder::Carry(loop, acc, zero, sum, "acc");
  EXPECT_THAT(CompileError(b), HasSubstr("carries tile 2 ('sum'), which has a runtime slot"));
}

}  // namespace
}  // namespace pto
