#ifndef PTO_MODELS_AICPU_TENSOR_VIEW_H_
#define PTO_MODELS_AICPU_TENSOR_VIEW_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/dtype.h"
#include "proto/task_stream.pb.h"

namespace pto {

inline constexpr int kMaxTensorDims = 5;

// A rectangular window of a root tensor, in the runtime's ChipTensor terms:
// a flat element offset into the root buffer plus per-dimension shape and
// element strides.
struct TensorView {
  uint32_t tensor_id = 0;
  uint64_t base_addr = 0;  // GM address of the root tensor's element 0
  DType dtype = trace::DTYPE_UNSPECIFIED;
  int ndims = 0;
  int64_t start_offset = 0;  // elements
  int64_t shape[kMaxTensorDims] = {};
  int64_t strides[kMaxTensorDims] = {};  // elements, > 0

  int64_t num_elements() const;
  // One past the last element the view touches, relative to start_offset.
  int64_t element_extent() const;
  uint64_t first_byte() const;
  uint64_t end_byte() const;  // exclusive
};

// The view of `root` an argument names: `arg.offsets` per dimension (empty =
// all zero) and `arg.shape` (empty = the whole tensor), with the root's
// row-major strides. Fails, naming the tensor and dimension, when the view
// leaves the tensor or its rank or sizes are invalid.
absl::StatusOr<TensorView> MakeView(const trace::Tensor& root, const trace::TensorArg& arg);

// The whole of `root`; ndims 0 when its rank exceeds kMaxTensorDims.
TensorView WholeView(const trace::Tensor& root);

}  // namespace pto

#endif  // PTO_MODELS_AICPU_TENSOR_VIEW_H_
