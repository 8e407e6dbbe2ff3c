#include "models/aicpu/overlap.h"

#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

constexpr uint64_t kBase = 0x20000;

// A view of a row-major root of `root_shape` at `offsets` with `shape`.
TensorView Slice(std::vector<int64_t> root_shape, std::vector<int64_t> offsets,
                 std::vector<int64_t> shape, uint64_t base = kBase, DType dtype = trace::FP32) {
  TensorView view;
  view.base_addr = base;
  view.dtype = dtype;
  view.ndims = static_cast<int>(root_shape.size());
  int64_t stride = 1;
  for (int d = view.ndims - 1; d >= 0; --d) {
    view.strides[d] = stride;
    stride *= root_shape[d];
  }
  for (int d = 0; d < view.ndims; ++d) {
    view.shape[d] = shape[d];
    view.start_offset += offsets[d] * view.strides[d];
  }
  return view;
}

TEST(ClassifyOverlapTest, DifferentRootBuffersNeverOverlap) {
  EXPECT_EQ(ClassifyOverlap(Slice({16, 16}, {0, 0}, {16, 16}, kBase),
                            Slice({16, 16}, {0, 0}, {16, 16}, kBase + 0x1000)),
            Overlap::kNone);
}

TEST(ClassifyOverlapTest, DisjointRowBandsAreNone) {
  EXPECT_EQ(
      ClassifyOverlap(Slice({256, 128}, {64, 0}, {64, 128}), Slice({256, 128}, {0, 0}, {64, 128})),
      Overlap::kNone);
}

TEST(ClassifyOverlapTest, DisjointColumnBandsAreNoneThroughThePerDimTest) {
  // The flat ranges interleave; only the per-dimension test separates them.
  const TensorView left = Slice({256, 128}, {0, 0}, {256, 64});
  const TensorView right = Slice({256, 128}, {0, 64}, {256, 64});
  EXPECT_EQ(ClassifyOverlap(left, right), Overlap::kNone);
  EXPECT_EQ(ClassifyOverlap(right, left), Overlap::kNone);
}

TEST(ClassifyOverlapTest, IdenticalViewsAreCovered) {
  const TensorView v = Slice({256, 128}, {64, 0}, {64, 128});
  EXPECT_EQ(ClassifyOverlap(v, v), Overlap::kCovered);
}

TEST(ClassifyOverlapTest, ConsumerContainingProducerIsCoveredButNotTheReverse) {
  const TensorView whole = Slice({256, 128}, {0, 0}, {256, 128});
  const TensorView tile = Slice({256, 128}, {64, 32}, {64, 32});
  EXPECT_EQ(ClassifyOverlap(/*consumer=*/whole, /*producer=*/tile), Overlap::kCovered);
  EXPECT_EQ(ClassifyOverlap(/*consumer=*/tile, /*producer=*/whole), Overlap::kOther);
}

TEST(ClassifyOverlapTest, PartialOverlapIsOther) {
  EXPECT_EQ(
      ClassifyOverlap(Slice({256, 128}, {32, 0}, {64, 128}), Slice({256, 128}, {0, 0}, {64, 128})),
      Overlap::kOther);
}

TEST(ClassifyOverlapTest, ThreeDimensionalBoxesAreComparedPerDim) {
  const TensorView a = Slice({4, 8, 16}, {1, 0, 0}, {2, 4, 16});
  const TensorView b = Slice({4, 8, 16}, {1, 4, 0}, {2, 4, 16});  // other half of dim 1
  const TensorView c = Slice({4, 8, 16}, {2, 2, 4}, {1, 1, 4});   // inside a
  EXPECT_EQ(ClassifyOverlap(a, b), Overlap::kNone);
  EXPECT_EQ(ClassifyOverlap(a, c), Overlap::kCovered);
  EXPECT_EQ(ClassifyOverlap(b, c), Overlap::kNone);
}

TEST(ClassifyOverlapTest, DifferentStridesOverSharedElementsAreConservativelyOther) {
  // The same buffer seen as 256x128 and as 128x256: column band 0..63 of the
  // first and columns 192..255 of the second are element-disjoint in truth,
  // but the layouts differ, so the runtime keeps the dependency.
  const TensorView narrow = Slice({256, 128}, {0, 0}, {256, 64});
  const TensorView wide = Slice({128, 256}, {0, 192}, {128, 64});
  EXPECT_EQ(ClassifyOverlap(narrow, wide), Overlap::kOther);
  EXPECT_EQ(ClassifyOverlap(wide, narrow), Overlap::kOther);
}

TEST(ClassifyOverlapTest, DifferentStridesWithDisjointFlatRangesAreNone) {
  EXPECT_EQ(
      ClassifyOverlap(Slice({256, 128}, {0, 0}, {64, 128}), Slice({128, 256}, {64, 0}, {64, 256})),
      Overlap::kNone);
}

TEST(ClassifyOverlapTest, DifferentDtypesCompareBytesThenStayConservative) {
  // 16 FP32 elements = 64 bytes; the FP16 view starts at byte 64.
  const TensorView fp32 = Slice({16}, {0}, {16}, kBase, trace::FP32);
  const TensorView fp16_after = Slice({64}, {32}, {32}, kBase, trace::FP16);
  const TensorView fp16_inside = Slice({64}, {0}, {8}, kBase, trace::FP16);
  EXPECT_EQ(ClassifyOverlap(fp32, fp16_after), Overlap::kNone);
  EXPECT_EQ(ClassifyOverlap(fp32, fp16_inside), Overlap::kOther);
}

TEST(ClassifyOverlapTest, StridesThatDoNotNestAreConservativelyOther) {
  // Hand-made views whose inner box wraps past the outer stride: the
  // per-dimension test would be unsound, so it is not used.
  TensorView a = Slice({8, 8}, {0, 0}, {2, 8});
  TensorView b = Slice({8, 8}, {0, 0}, {2, 8});
  a.start_offset = 4;  // columns 4..11 of an 8-wide row: wraps
  EXPECT_EQ(ClassifyOverlap(a, b), Overlap::kOther);
}

TEST(OverlapNameTest, MatchesDepsJsonSpelling) {
  EXPECT_STREQ(OverlapName(Overlap::kCovered), "covered");
  EXPECT_STREQ(OverlapName(Overlap::kOther), "other");
  EXPECT_STREQ(OverlapName(Overlap::kNone), "none");
}

}  // namespace
}  // namespace pto
