#ifndef PTO_FRONTEND_HOST_TENSOR_H_
#define PTO_FRONTEND_HOST_TENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A tensor argument of a kernel call, as the script's CPython made it: its
// shape, dtype and, unless it is shape-only (a meta tensor, --timing-only),
// its little-endian row-major bytes. ptoc computes nothing on it: the
// launch takes it into GM as it is.
class HostTensor : public Object {
 public:
  HostTensor(std::vector<int64_t> shape, trace::DType dtype,
             std::optional<std::string> bytes = std::nullopt);
  std::string TypeName() const override { return "torch.Tensor"; }

  const std::vector<int64_t>& shape() const { return shape_; }
  trace::DType dtype() const { return dtype_; }
  bool shape_only() const { return !bytes_.has_value(); }
  // The same bytes read as another dtype of their width (a signed int
  // tensor a parameter annotates as unsigned).
  void Reinterpret(trace::DType dtype) { dtype_ = dtype; }

  // The contents as a TensorInit: zeros when every byte is 0, else the
  // bytes; nothing for a shape-only tensor.
  trace::TensorInit ToInit() const;

 private:
  std::vector<int64_t> shape_;
  trace::DType dtype_;
  std::optional<std::string> bytes_;
};

int64_t NumElements(const std::vector<int64_t>& shape);
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_HOST_TENSOR_H_
