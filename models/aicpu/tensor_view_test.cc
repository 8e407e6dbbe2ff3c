#include "models/aicpu/tensor_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

trace::Tensor Root(std::vector<int64_t> shape, DType dtype = trace::FP32) {
  trace::Tensor root;
  root.set_id(3);
  root.set_name("out");
  root.set_dtype(dtype);
  root.set_gm_addr(0x10000);
  for (int64_t dim : shape) root.add_shape(dim);
  return root;
}

trace::TensorArg Arg(std::vector<int64_t> offsets, std::vector<int64_t> shape) {
  trace::TensorArg arg;
  arg.set_tensor_id(3);
  for (int64_t o : offsets) arg.add_offsets(o);
  for (int64_t s : shape) arg.add_shape(s);
  return arg;
}

TEST(WholeViewTest, RowMajorStridesAndRootFields) {
  const TensorView view = WholeView(Root({4, 8, 16}));
  EXPECT_EQ(view.tensor_id, 3u);
  EXPECT_EQ(view.base_addr, 0x10000u);
  EXPECT_EQ(view.dtype, trace::FP32);
  EXPECT_EQ(view.ndims, 3);
  EXPECT_EQ(view.start_offset, 0);
  EXPECT_EQ(view.shape[0], 4);
  EXPECT_EQ(view.shape[2], 16);
  EXPECT_EQ(view.strides[0], 128);
  EXPECT_EQ(view.strides[1], 16);
  EXPECT_EQ(view.strides[2], 1);
  EXPECT_EQ(view.num_elements(), 512);
  EXPECT_EQ(view.element_extent(), 512);
  EXPECT_EQ(view.end_byte() - view.first_byte(), 512u * 4);
}

TEST(MakeViewTest, EmptyOffsetsAndShapeNameTheWholeTensor) {
  const absl::StatusOr<TensorView> view = MakeView(Root({256, 128}), Arg({}, {}));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->start_offset, 0);
  EXPECT_EQ(view->shape[0], 256);
  EXPECT_EQ(view->shape[1], 128);
}

TEST(MakeViewTest, OffsetsBecomeStartOffsetInElements) {
  const absl::StatusOr<TensorView> view = MakeView(Root({256, 128}), Arg({64, 32}, {64, 32}));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->start_offset, 64 * 128 + 32);
  EXPECT_EQ(view->shape[0], 64);
  EXPECT_EQ(view->shape[1], 32);
  EXPECT_EQ(view->strides[0], 128);
  EXPECT_EQ(view->strides[1], 1);
  EXPECT_EQ(view->num_elements(), 64 * 32);
  // Last element is row 127, column 63.
  EXPECT_EQ(view->element_extent(), 63 * 128 + 31 + 1);
  EXPECT_EQ(view->first_byte(), 0x10000u + (64 * 128 + 32) * 4);
}

TEST(MakeViewTest, ByteRangeUsesElementSize) {
  const absl::StatusOr<TensorView> view = MakeView(Root({8, 8}, trace::FP16), Arg({2, 0}, {1, 8}));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->first_byte(), 0x10000u + 16 * 2);
  EXPECT_EQ(view->end_byte(), 0x10000u + 24 * 2);
}

TEST(MakeViewTest, ViewPastTheEndIsRejectedNamingTensorAndDim) {
  const absl::StatusOr<TensorView> view = MakeView(Root({256, 128}), Arg({200, 0}, {64, 128}));
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(view.status().message(), HasSubstr("tensor 'out' (id 3)"));
  EXPECT_THAT(view.status().message(), HasSubstr("dim 0 covers [200, 200 + 64)"));
  EXPECT_THAT(view.status().message(), HasSubstr("the tensor has 256 there"));
}

TEST(MakeViewTest, NegativeOffsetIsRejected) {
  const absl::StatusOr<TensorView> view = MakeView(Root({256, 128}), Arg({0, -1}, {8, 8}));
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("dim 1 covers [-1, -1 + 8)"));
}

TEST(MakeViewTest, ViewLargerThanTensorIsRejected) {
  const absl::StatusOr<TensorView> view = MakeView(Root({16}), Arg({}, {17}));
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("dim 0 covers [0, 0 + 17)"));
}

TEST(MakeViewTest, EmptyExtentIsRejected) {
  const absl::StatusOr<TensorView> view = MakeView(Root({16, 16}), Arg({0, 0}, {4, 0}));
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("has size 0 in dim 1; expected > 0"));
}

TEST(MakeViewTest, WrongNumberOfOffsetsIsRejected) {
  const absl::StatusOr<TensorView> view = MakeView(Root({16, 16}), Arg({1}, {}));
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("has 1 offsets; expected 2 (one per dim)"));
}

TEST(MakeViewTest, WrongShapeRankIsRejected) {
  const absl::StatusOr<TensorView> view = MakeView(Root({16, 16}), Arg({}, {4, 4, 4}));
  ASSERT_FALSE(view.ok());
  EXPECT_THAT(view.status().message(), HasSubstr("rank-3 shape; expected rank 2"));
}

TEST(MakeViewTest, RootRankOutsideOneToFiveIsRejected) {
  const absl::StatusOr<TensorView> six = MakeView(Root({1, 1, 1, 1, 1, 1}), Arg({}, {}));
  ASSERT_FALSE(six.ok());
  EXPECT_THAT(six.status().message(), HasSubstr("has rank 6; expected 1 to 5"));
  const absl::StatusOr<TensorView> scalar = MakeView(Root({}), Arg({}, {}));
  ASSERT_FALSE(scalar.ok());
  EXPECT_THAT(scalar.status().message(), HasSubstr("has rank 0"));
}

TEST(WholeViewTest, RankAboveFiveYieldsAnEmptyViewInsteadOfOverrunning) {
  const TensorView view = WholeView(Root({1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(view.ndims, 0);
}

}  // namespace
}  // namespace pto
