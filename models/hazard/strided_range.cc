#include "models/hazard/strided_range.h"

#include <algorithm>

namespace pto {
namespace {

// The first byte of `s` in [from, to), if any.
bool FirstIn(const StridedRange& s, uint64_t from, uint64_t to, uint64_t* lo) {
  from = std::max(from, s.begin);
  to = std::min(to, s.end);
  if (from >= to) return false;
  if (s.contiguous()) {
    *lo = from;
    return true;
  }
  const uint64_t k = (from - s.begin) / s.stride;
  uint64_t start = s.begin + k * s.stride;
  if (start + s.row <= from) start += s.stride;  // `from` falls in a gap
  if (start >= to) return false;
  *lo = std::max(from, start);
  return true;
}

// The last byte (exclusive) of `s` in [from, to), if any.
bool LastIn(const StridedRange& s, uint64_t from, uint64_t to, uint64_t* hi) {
  from = std::max(from, s.begin);
  to = std::min(to, s.end);
  if (from >= to) return false;
  if (s.contiguous()) {
    *hi = to;
    return true;
  }
  const uint64_t start = s.begin + (to - 1 - s.begin) / s.stride * s.stride;
  const uint64_t row_end = start + s.row;
  if (row_end <= from) return false;
  *hi = std::min(to, row_end);
  return true;
}

}  // namespace

StridedRange StridedRange::Rows(uint64_t base, int64_t rows, uint64_t row, uint64_t stride) {
  if (rows <= 1 || stride == 0) return Contiguous(base, base + row);
  const uint64_t end = base + static_cast<uint64_t>(rows - 1) * stride + row;
  if (stride <= row) return Contiguous(base, end);  // rows abut or overlap
  return {base, end, row, stride};
}

namespace {

// b's rows continue a's (b right after a's last row, one row length and
// stride), or b is the next column of a's rows.
bool Follows(const StridedRange& a, const StridedRange& b, StridedRange* merged) {
  const int64_t a_rows = a.rows();
  const int64_t b_rows = b.rows();
  if (a.row == b.row && b.begin > a.begin) {
    // A one-row range takes the other's stride, or the gap between them.
    const uint64_t stride = !a.contiguous()   ? a.stride
                            : !b.contiguous() ? b.stride
                                              : b.begin - a.begin;
    const bool strides_agree =
        (a.contiguous() || a.stride == stride) && (b.contiguous() || b.stride == stride);
    if (strides_agree && stride > a.row &&
        b.begin == a.begin + static_cast<uint64_t>(a_rows) * stride) {
      *merged = StridedRange::Rows(a.begin, a_rows + b_rows, a.row, stride);
      return true;
    }
  }
  if (a_rows == b_rows && b.begin == a.begin + a.row && (a_rows == 1 || a.stride == b.stride) &&
      a.row + b.row <= (a_rows == 1 ? a.row + b.row : a.stride)) {
    *merged = StridedRange::Rows(a.begin, a_rows, a.row + b.row, a_rows == 1 ? 0 : a.stride);
    return true;
  }
  return false;
}

}  // namespace

bool Coalesce(const StridedRange& a, const StridedRange& b, StridedRange* merged) {
  if (a.contiguous() && b.contiguous() && b.begin <= a.end && a.begin <= b.end) {
    *merged = StridedRange::Contiguous(std::min(a.begin, b.begin), std::max(a.end, b.end));
    return true;
  }
  if (Covers(a, b)) {
    *merged = a;
    return true;
  }
  if (Covers(b, a)) {
    *merged = b;
    return true;
  }
  return Follows(a, b, merged) || Follows(b, a, merged);
}

bool Intersect(const StridedRange& a, const StridedRange& b, uint64_t* lo, uint64_t* hi) {
  const uint64_t from = std::max(a.begin, b.begin);
  const uint64_t to = std::min(a.end, b.end);
  if (from >= to) return false;
  if (a.contiguous()) return FirstIn(b, from, to, lo) && LastIn(b, from, to, hi);
  if (b.contiguous()) return FirstIn(a, from, to, lo) && LastIn(a, from, to, hi);
  if (a.stride == b.stride) {
    // The rows keep one offset from each other: they meet everywhere or
    // nowhere.
    const StridedRange& first = a.begin <= b.begin ? a : b;
    const StridedRange& second = a.begin <= b.begin ? b : a;
    const uint64_t offset = (second.begin - first.begin) % a.stride;
    if (offset >= first.row && offset + second.row <= a.stride) return false;
  }
  // Row by row through the one with fewer rows in [from, to), from each end.
  const StridedRange& sparse = a.stride >= b.stride ? a : b;
  const StridedRange& dense = a.stride >= b.stride ? b : a;
  const uint64_t first_row = sparse.begin + (from - sparse.begin) / sparse.stride * sparse.stride;
  bool found = false;
  for (uint64_t start = first_row; start < to; start += sparse.stride) {
    if (FirstIn(dense, std::max(start, from), std::min(start + sparse.row, to), lo)) {
      found = true;
      break;
    }
  }
  if (!found) return false;
  for (uint64_t start = sparse.begin + (to - 1 - sparse.begin) / sparse.stride * sparse.stride;;
       start -= sparse.stride) {
    if (LastIn(dense, std::max(start, from), std::min(start + sparse.row, to), hi)) return true;
  }
}

bool Covers(const StridedRange& outer, const StridedRange& inner) {
  if (inner.begin < outer.begin || inner.end > outer.end) return false;
  if (outer.contiguous()) return true;
  const auto row_fits = [&outer](uint64_t begin, uint64_t end) {
    const uint64_t start = outer.begin + (begin - outer.begin) / outer.stride * outer.stride;
    return end <= start + outer.row;
  };
  if (inner.contiguous()) return row_fits(inner.begin, inner.end);
  if (inner.stride % outer.stride == 0) return row_fits(inner.begin, inner.begin + inner.row);
  for (uint64_t start = inner.begin; start < inner.end; start += inner.stride) {
    if (!row_fits(start, start + inner.row)) return false;
  }
  return true;
}

bool RoundOutToLines(const StridedRange& range, uint64_t line, StridedRange* rounded) {
  const auto down = [line](uint64_t x) { return x / line * line; };
  const auto up = [line](uint64_t x) { return (x + line - 1) / line * line; };
  if (range.contiguous()) {
    *rounded = StridedRange::Contiguous(down(range.begin), up(range.end));
    return true;
  }
  if (range.stride % line != 0) return false;
  const uint64_t begin = down(range.begin);
  const uint64_t row = up(range.begin + range.row) - begin;
  *rounded = StridedRange::Rows(begin, range.rows(), row, range.stride);
  return true;
}

}  // namespace pto
