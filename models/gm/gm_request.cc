#include "models/gm/gm_request.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace pto {

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
