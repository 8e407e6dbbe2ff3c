#ifndef PTO_MODELS_AICPU_OVERLAP_H_
#define PTO_MODELS_AICPU_OVERLAP_H_

#include <cstdint>

#include "models/aicpu/tensor_view.h"

namespace pto {

// How a consumer's view relates to a registered producer's view, in the
// runtime's terms (PTO2TensorMapEntry::check_overlap's OverlapStatus).
enum class Overlap {
  kNone,     // no shared element: no dependency
  kCovered,  // the consumer view contains the whole producer view
  kOther,    // they share elements (or might: the test is conservative)
};

// "none" / "covered" / "other", the spelling deps.json uses.
const char* OverlapName(Overlap overlap);

// Classifies `consumer` against `producer` as the runtime does:
//  1. different root buffers (base_addr) never overlap;
//  2. disjoint flat ranges [start_offset, start_offset + extent) -> kNone
//     (compared in bytes, which equals elements when the dtypes match);
//  3. same dtype, ndims and strides, and strides that decompose start_offset
//     into per-dimension start indices -> the per-dimension box test gives
//     kNone, kCovered or kOther;
//  4. anything else -> kOther (a dependency the runtime keeps to be safe).
Overlap ClassifyOverlap(const TensorView& consumer, const TensorView& producer);

// The bytes a view spans, [first_byte(), end_byte()), for callers that test
// one view against many and want to compute each range once.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};
ByteRange ByteRangeOf(const TensorView& view);

// ClassifyOverlap with the ranges precomputed by ByteRangeOf.
Overlap ClassifyOverlap(const TensorView& consumer, const ByteRange& consumer_bytes,
                        const TensorView& producer, const ByteRange& producer_bytes);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_OVERLAP_H_
