#include "models/gm/gm_request.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace pto {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether, for some k in [k_min, k_max], the bytes [offset + k * stride,
// + first_row) meet [0, second_row) (stride > 0): -first_row - offset <
// k * stride < second_row - offset.
bool ShiftsMeet(int64_t offset, int64_t first_row, int64_t second_row, int64_t stride,
                int64_t k_min, int64_t k_max) {
  const int64_t lo = FloorDiv(-first_row - offset, stride) + 1;
  const int64_t hi = -FloorDiv(offset - second_row, stride) - 1;  // ceil(..) - 1
  return std::max(lo, k_min) <= std::min(hi, k_max);
}

// Whether [begin, begin + length) meets a row of `runs`.
bool RangeMeetsRuns(uint64_t begin, uint64_t length, const GmRuns& runs) {
  if (runs.rows == 1 || runs.stride == 0) {
    return begin < runs.base + runs.row_bytes && runs.base < begin + length;
  }
  // Row q of `runs` against the range: offset (base - begin) + q * stride.
  return ShiftsMeet(static_cast<int64_t>(runs.base - begin), static_cast<int64_t>(runs.row_bytes),
                    static_cast<int64_t>(length), static_cast<int64_t>(runs.stride), 0,
                    runs.rows - 1);
}

}  // namespace

bool RunsOverlap(const GmRuns& a, const GmRuns& b) {
  if (a.rows <= 0 || b.rows <= 0 || a.row_bytes == 0 || b.row_bytes == 0) return false;
  if (a.end() <= b.base || b.end() <= a.base) return false;
  if (a.rows > 1 && b.rows > 1 && a.stride == b.stride && a.stride > 0) {
    // Row i of a against row j of b: k = i - j in [-(b.rows - 1), a.rows - 1].
    return ShiftsMeet(static_cast<int64_t>(a.base - b.base), static_cast<int64_t>(a.row_bytes),
                      static_cast<int64_t>(b.row_bytes), static_cast<int64_t>(a.stride),
                      -(b.rows - 1), a.rows - 1);
  }
  const GmRuns& few = a.rows <= b.rows ? a : b;
  const GmRuns& many = a.rows <= b.rows ? b : a;
  for (int64_t row = 0; row < few.rows; ++row) {
    if (RangeMeetsRuns(few.base + static_cast<uint64_t>(row) * few.stride, few.row_bytes, many)) {
      return true;
    }
  }
  return false;
}

absl::Status CheckRuns(const GmRuns& runs, GmDirection direction) {
  const char* what = direction == GmDirection::kWrite ? "write" : "read";
  if (runs.rows <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("GM ", what, " at 0x", absl::Hex(runs.base),
                                                   ": rows is ", runs.rows, "; expected >= 1"));
  }
  if (runs.row_bytes == 0) {
    return absl::InvalidArgumentError(absl::StrCat("GM ", what, " at 0x", absl::Hex(runs.base),
                                                   ": row_bytes is 0; expected >= 1"));
  }
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const uint64_t rows_after_first = static_cast<uint64_t>(runs.rows - 1);
  if ((rows_after_first > 0 && runs.stride > (kMax - runs.row_bytes) / rows_after_first) ||
      runs.row_bytes > kMax / static_cast<uint64_t>(runs.rows) ||
      runs.base > kMax - (rows_after_first * runs.stride + runs.row_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GM ", what, " at 0x", absl::Hex(runs.base), ": ", runs.rows, " rows of ",
                     runs.row_bytes, " bytes, ", runs.stride,
                     " apart, run past the 64-bit address space; expected a lower address"));
  }
  if (direction == GmDirection::kWrite && runs.rows > 1 && runs.stride < runs.row_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GM write at 0x", absl::Hex(runs.base), ": rows of ", runs.row_bytes, " bytes are ",
        runs.stride, " bytes apart, so they overlap; expected a stride >= the row's bytes"));
  }
  return absl::OkStatus();
}

}  // namespace pto
