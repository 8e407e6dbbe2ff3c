// Windows of tensors at device-integer offsets inside a task body
// (DeviceTensorView): `x[b:b + 1, :]` and `pl.slice(x, shape, [i * 16, 0])`
// where b and i are device integers. Upstream's tensor-to-tile lowering turns
// such a view's loads and stores into ones at the summed offsets
// (hw-native-sys/pypto@e2d0f78a docs/en/user/language/03-memory.md); ptoc
// does the same when a load, store or tensor-level op reaches the view.
#ifndef PTO_SIM_FRONTEND_DEVICE_VIEWS_H_
#define PTO_SIM_FRONTEND_DEVICE_VIEWS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/interpreter.h"
#include "frontend/pl_values.h"

namespace pto::ptoc {

// stop - start as a compile-time integer: both constants, or stop written as
// start + n (or n + start). A window's extent must be known to ptoc.
absl::StatusOr<int64_t> StaticExtent(const Value& start, const Value& stop);

// The window of `base` (a TensorRef or a DeviceTensorView) at `offsets`
// (ints or device ints, relative to base) of `shape`; a TensorRef view when
// every offset is an int. Bounds known at compile time are checked.
absl::StatusOr<Value> WindowOf(Interpreter* interp, const Value& base,
                               const std::vector<Value>& offsets, const std::vector<int64_t>& shape,
                               SourceLocation loc);

// Per dim, a + b (ints fold).
absl::StatusOr<std::vector<Value>> AddOffsets(const std::vector<Value>& a,
                                              const std::vector<Value>& b);

}  // namespace pto::ptoc

#endif  // PTO_SIM_FRONTEND_DEVICE_VIEWS_H_
