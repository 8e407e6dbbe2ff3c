#include "models/aicpu/tensor_view.h"

#include "absl/strings/str_cat.h"

namespace pto {

int64_t TensorView::num_elements() const {
  int64_t n = 1;
  for (int d = 0; d < ndims; ++d) n *= shape[d];
  return n;
}

int64_t TensorView::element_extent() const {
  int64_t last = 0;
  for (int d = 0; d < ndims; ++d) last += (shape[d] - 1) * strides[d];
  return last + 1;
}

uint64_t TensorView::first_byte() const {
  return base_addr + static_cast<uint64_t>(start_offset) * DTypeSize(dtype);
}

uint64_t TensorView::end_byte() const {
  return first_byte() + static_cast<uint64_t>(element_extent()) * DTypeSize(dtype);
}

TensorView WholeView(const trace::Tensor& root) {
  TensorView view;
  view.tensor_id = root.id();
  view.base_addr = root.gm_addr();
  view.dtype = root.dtype();
  // A rank MakeView rejects would overrun shape[]/strides[]; leave it empty.
  if (root.shape_size() > kMaxTensorDims) return view;
  view.ndims = root.shape_size();
  int64_t stride = 1;
  for (int d = view.ndims - 1; d >= 0; --d) {
    view.shape[d] = root.shape(d);
    view.strides[d] = stride;
    stride *= root.shape(d);
  }
  return view;
}

absl::StatusOr<TensorView> MakeView(const trace::Tensor& root, const trace::TensorArg& arg) {
  const int rank = root.shape_size();
  // Built only on the error paths: views are made per argument of every task.
  auto who = [&root] { return absl::StrCat("tensor '", root.name(), "' (id ", root.id(), ")"); };
  if (rank < 1 || rank > kMaxTensorDims) {
    return absl::InvalidArgumentError(
        absl::StrCat(who(), " has rank ", rank, "; expected 1 to ", kMaxTensorDims));
  }
  if (arg.offsets_size() != 0 && arg.offsets_size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("view of ", who(), " has ", arg.offsets_size(),
                                                   " offsets; expected ", rank, " (one per dim)"));
  }
  if (arg.shape_size() != 0 && arg.shape_size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "view of ", who(), " has a rank-", arg.shape_size(), " shape; expected rank ", rank));
  }
  TensorView view = WholeView(root);
  int64_t start = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = root.shape(d);
    const int64_t offset = arg.offsets_size() ? arg.offsets(d) : 0;
    const int64_t extent = arg.shape_size() ? arg.shape(d) : dim;
    if (extent <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("view of ", who(), " has size ", extent, " in dim ", d, "; expected > 0"));
    }
    // Compare without overflow: offset in [0, dim - extent].
    if (offset < 0 || extent > dim || offset > dim - extent) {
      return absl::InvalidArgumentError(absl::StrCat("view of ", who(), " dim ", d, " covers [",
                                                     offset, ", ", offset, " + ", extent,
                                                     ") but the tensor has ", dim, " there"));
    }
    view.shape[d] = extent;
    start += offset * view.strides[d];
  }
  view.start_offset = start;
  return view;
}

}  // namespace pto
