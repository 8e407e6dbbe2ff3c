#ifndef PTO_MODELS_HAZARD_STRIDED_RANGE_H_
#define PTO_MODELS_HAZARD_STRIDED_RANGE_H_

#include <cstdint>

namespace pto {

// GM bytes as a tile transfer touches them: rows of `row` bytes, `stride`
// bytes apart, from `begin` up to `end` (the last row's end). A contiguous
// range is one row: stride 0, row = end - begin. Rows never overlap or
// abut (row < stride; abutting rows are one contiguous range).
struct StridedRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t row = 0;
  uint64_t stride = 0;

  static StridedRange Contiguous(uint64_t begin, uint64_t end) {
    return {begin, end, end - begin, 0};
  }
  // `rows` rows; contiguous when they abut or there is one.
  static StridedRange Rows(uint64_t base, int64_t rows, uint64_t row, uint64_t stride);

  bool contiguous() const { return stride == 0; }
  int64_t rows() const {
    return contiguous() ? 1 : static_cast<int64_t>((end - begin - row) / stride) + 1;
  }
};

// The first and last byte (exclusive) the two ranges share, as
// [*lo, *hi); false when they share none. O(1) when either is contiguous
// or both have one stride, else the rows of one inside the other's bounds.
bool Intersect(const StridedRange& a, const StridedRange& b, uint64_t* lo, uint64_t* hi);

// Whether every byte of `inner` is in `outer`.
bool Covers(const StridedRange& outer, const StridedRange& inner);

// Whether a ∪ b is exactly one strided range, and then that range in
// `*merged`: one covers the other, b continues a's rows (or a b's) at the
// same stride, or they are side by side columns of the same rows. A tile
// loop's transfers of one operand then keep one entry, not one per tile.
bool Coalesce(const StridedRange& a, const StridedRange& b, StridedRange* merged);

// `range` with each row rounded out to whole `line`s (a write-back writes
// whole lines); false when the rounded rows would not be evenly strided
// (the stride is not a multiple of the line), so the caller rounds row by
// row.
bool RoundOutToLines(const StridedRange& range, uint64_t line, StridedRange* rounded);

}  // namespace pto

#endif  // PTO_MODELS_HAZARD_STRIDED_RANGE_H_
