#include "frontend/subscript.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {

absl::StatusOr<ResolvedIndex> ResolveIndex(const std::vector<int64_t>& shape,
                                           const std::vector<IndexEntry>& index) {
  if (index.size() > shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("too many indices (", index.size(), ") for rank ", shape.size()));
  }
  ResolvedIndex r;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t len = shape[d];
    if (d >= index.size()) {
      r.start.push_back(0);
      r.count.push_back(len);
      r.step.push_back(1);
      r.keep.push_back(true);
      continue;
    }
    const IndexEntry& ix = index[d];
    if (!ix.is_slice) {
      int64_t i = ix.index < 0 ? ix.index + len : ix.index;
      if (i < 0 || i >= len) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", ix.index, " is out of range for dim ", d, " of size ", len));
      }
      r.start.push_back(i);
      r.count.push_back(1);
      r.step.push_back(1);
      r.keep.push_back(false);
      continue;
    }
    const int64_t step = ix.step.value_or(1);
    if (step <= 0) return absl::InvalidArgumentError("slice steps must be positive");
    auto clamp = [&](int64_t v) {
      if (v < 0) v += len;
      return std::min(std::max<int64_t>(v, 0), len);
    };
    const int64_t start = ix.start ? clamp(*ix.start) : 0;
    const int64_t stop = ix.stop ? clamp(*ix.stop) : len;
    r.start.push_back(start);
    r.count.push_back(stop > start ? (stop - start + step - 1) / step : 0);
    r.step.push_back(step);
    r.keep.push_back(true);
  }
  return r;
}

}  // namespace pto::ptoc
