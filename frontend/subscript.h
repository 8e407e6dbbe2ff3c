#ifndef PTO_FRONTEND_SUBSCRIPT_H_
#define PTO_FRONTEND_SUBSCRIPT_H_

// Python subscripts (x[i], x[a:b:s]) resolved against a shape, as the
// evaluator indexes lists, tuples and strings.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"

namespace pto::ptoc {

// One index entry of a subscript: an integer (drops the dim) or a slice.
struct IndexEntry {
  bool is_slice = false;
  int64_t index = 0;
  std::optional<int64_t> start, stop, step;
};

// Per dim: start, count, step, and whether the dim is kept.
struct ResolvedIndex {
  std::vector<int64_t> start, count, step;
  std::vector<bool> keep;
};

// Resolves `index` against `shape` with Python's rules (negative indices
// count from the end, slices clamp); errors name what is out of range.
absl::StatusOr<ResolvedIndex> ResolveIndex(const std::vector<int64_t>& shape,
                                           const std::vector<IndexEntry>& index);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_SUBSCRIPT_H_
