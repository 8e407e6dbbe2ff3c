#include "models/aicpu/overlap.h"

#include <cstdint>

#include "common/dtype.h"

namespace pto {
namespace {

// Splits `view.start_offset` into one start index per dimension, greedily from
// the outermost (largest) stride. Succeeds only when the strides nest like a
// row-major layout around the whole view: every inner dimension's box fits
// inside one step of the next outer stride. Then each element of the view has
// exactly one index tuple, and two such views with the same strides share an
// element exactly when their boxes intersect.
bool StartIndices(const TensorView& view, int64_t start[kMaxTensorDims]) {
  int64_t rest = view.start_offset;
  if (rest < 0) return false;
  for (int d = 0; d < view.ndims; ++d) {
    const int64_t stride = view.strides[d];
    if (stride <= 0) return false;
    start[d] = rest / stride;
    rest %= stride;
    if (d > 0 && (start[d] + view.shape[d]) * stride > view.strides[d - 1]) return false;
  }
  return rest == 0;
}

bool SameLayout(const TensorView& a, const TensorView& b) {
  if (a.dtype != b.dtype || a.ndims != b.ndims) return false;
  for (int d = 0; d < a.ndims; ++d) {
    if (a.strides[d] != b.strides[d]) return false;
  }
  return true;
}

}  // namespace

const char* OverlapName(Overlap overlap) {
  switch (overlap) {
    case Overlap::kNone:
      return "none";
    case Overlap::kCovered:
      return "covered";
    case Overlap::kOther:
      return "other";
  }
  return "other";
}

ByteRange ByteRangeOf(const TensorView& view) { return {view.first_byte(), view.end_byte()}; }

Overlap ClassifyOverlap(const TensorView& consumer, const TensorView& producer) {
  return ClassifyOverlap(consumer, ByteRangeOf(consumer), producer, ByteRangeOf(producer));
}

Overlap ClassifyOverlap(const TensorView& consumer, const ByteRange& consumer_bytes,
                        const TensorView& producer, const ByteRange& producer_bytes) {
  if (consumer.base_addr != producer.base_addr) return Overlap::kNone;

  // L1: flat ranges of the root buffer.
  if (consumer_bytes.end <= producer_bytes.begin || producer_bytes.end <= consumer_bytes.begin) {
    return Overlap::kNone;
  }

  // L2: per-dimension boxes, only when the layouts are directly comparable.
  if (!SameLayout(consumer, producer)) return Overlap::kOther;
  int64_t consumer_start[kMaxTensorDims];
  int64_t producer_start[kMaxTensorDims];
  if (!StartIndices(consumer, consumer_start) || !StartIndices(producer, producer_start)) {
    return Overlap::kOther;
  }
  bool contains = true;
  for (int d = 0; d < consumer.ndims; ++d) {
    const int64_t c_lo = consumer_start[d];
    const int64_t c_hi = c_lo + consumer.shape[d];
    const int64_t p_lo = producer_start[d];
    const int64_t p_hi = p_lo + producer.shape[d];
    if (c_hi <= p_lo || p_hi <= c_lo) return Overlap::kNone;
    if (p_lo < c_lo || c_hi < p_hi) contains = false;
  }
  return contains ? Overlap::kCovered : Overlap::kOther;
}

}  // namespace pto
