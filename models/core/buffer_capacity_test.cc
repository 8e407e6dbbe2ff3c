#include "models/core/buffer_capacity.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using ::pto::kernel_testing::KernelBuilder;
using ::testing::HasSubstr;

CompiledKernel OneTile(std::vector<int64_t> shape, trace::DType dtype, trace::MemSpace space) {
  KernelBuilder kb("k", space == trace::VEC ? trace::AIV : trace::AIC);
  const uint32_t t = kb.Tile("acc", std::move(shape), dtype, space);
  kb.Full(t, 0);
  return *CompileKernel(kb.kernel());
}

TEST(BufferCapacityTest, EachSpaceHasItsKey) {
  CoreParams core;
  EXPECT_EQ(SpaceCapacityBytes(trace::VEC, core), 196608);
  EXPECT_EQ(SpaceCapacityBytes(trace::MAT, core), 524288);
  EXPECT_EQ(SpaceCapacityBytes(trace::ACC, core), 131072);
  EXPECT_EQ(SpaceCapacityBytes(trace::LEFT, core), 65536);
  EXPECT_EQ(SpaceCapacityBytes(trace::RIGHT, core), 65536);
  EXPECT_EQ(SpaceCapacityBytes(trace::BIAS, core), 1024);
  EXPECT_EQ(SpaceCapacityBytes(trace::MEM_SPACE_UNSPECIFIED, core), 0);
}

TEST(BufferCapacityTest, ATileUpToItsSpaceFitsAndOneByteMoreDoesNot) {
  CoreParams core;
  // 128 x 256 FP32 = 131072 bytes: exactly L0C.
  EXPECT_TRUE(CheckTileCapacities(OneTile({128, 256}, trace::FP32, trace::ACC), core).ok());
  core.l0c_bytes = 131071;
  const absl::Status status =
      CheckTileCapacities(OneTile({128, 256}, trace::FP32, trace::ACC), core);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("kernel 'k': tile 0 ('acc') is 128 x 256 FP32, 131072 bytes, larger than "
                        "its space ACC (L0C, core.l0c_bytes = 131071)"));
}

// Three 64 KiB Vec tiles: 192 KiB in buffers of their own, 128 KiB when the
// third shares the first's buffer.
CompiledKernel ThreeTiles(bool share) {
  KernelBuilder kb("k", trace::AIV);
  for (int i = 0; i < 3; ++i) kb.Full(kb.Tile("t", {128, 128}, trace::FP32), 0);
  if (share) kb.ShareBuffer(2, 0);
  return *CompileKernel(kb.kernel());
}

TEST(BufferCapacityTest, ASpacesBuffersMustFitItTogether) {
  CoreParams core;
  core.ub_bytes = 3 * 65536;
  EXPECT_TRUE(CheckTileCapacities(ThreeTiles(false), core).ok());
  core.ub_bytes = 3 * 65536 - 1;
  const absl::Status status = CheckTileCapacities(ThreeTiles(false), core);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("kernel 'k': its 3 VEC buffers (TileDecl.buffer) hold "
                                          "196608 bytes, more than the space (UB, core.ub_bytes "
                                          "= 196607)"));
  // Each buffer is as large as its largest tile, not the sum of them.
  core.ub_bytes = 2 * 65536;
  EXPECT_TRUE(CheckTileCapacities(ThreeTiles(true), core).ok());
}

}  // namespace
}  // namespace pto
