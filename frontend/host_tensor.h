#ifndef PTO_FRONTEND_HOST_TENSOR_H_
#define PTO_FRONTEND_HOST_TENSOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A torch tensor of the harness: contiguous row-major values held as doubles
// that are exactly representable in `dtype` (every result is rounded to the
// dtype, as torch stores it).
//
// A shape-only tensor (ptoc --timing-only) has a shape and a dtype but no
// values: the weights of a large model would not fit in memory. Every host op
// on a shape-only operand gives a shape-only result of the right shape and
// dtype without computing anything.
class HostTensor : public Object {
 public:
  enum class Contents { kValues, kShapeOnly };
  HostTensor(std::vector<int64_t> shape, trace::DType dtype, Contents contents = Contents::kValues);
  std::string TypeName() const override { return "torch.Tensor"; }

  const std::vector<int64_t>& shape() const { return shape_; }
  trace::DType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }
  bool shape_only() const { return shape_only_; }
  // Empty for a shape-only tensor.
  const std::vector<double>& values() const { return values_; }
  // Sets element i, rounded to the dtype (nothing for a shape-only tensor).
  void Set(int64_t i, double v);
  // Replaces all values (rounded); clears the provenance.
  void Assign(const std::vector<double>& values);

  // How the contents came about when that is shorter than the bytes
  // (torch.randn with a seed, zeros, full); reset by any modification.
  const std::optional<trace::TensorInit>& provenance() const { return provenance_; }
  void set_provenance(trace::TensorInit init) { provenance_ = std::move(init); }

  // The contents as a TensorInit: the provenance when known, else zeros or
  // explicit little-endian bytes.
  trace::TensorInit ToInit() const;
  // Little-endian bytes in `dtype`.
  std::string Bytes(trace::DType dtype) const;

  // False once a device launch wrote it and no reference evaluation has
  // supplied the result yet.
  bool known() const { return known_; }
  void set_known(bool known) { known_ = known; }

  // Computed on the host from a tensor that lives on the device (a slice of
  // a launch output, out * 2, ...): it has no GM copy a check could name.
  bool device_derived() const { return device_derived_; }
  void set_device_derived(bool d) { device_derived_ = d; }

 private:
  std::vector<int64_t> shape_;
  trace::DType dtype_;
  int64_t numel_;
  bool shape_only_;
  std::vector<double> values_;
  std::optional<trace::TensorInit> provenance_;
  bool known_ = true;
  bool device_derived_ = false;
};

// Rounds `v` to what a `dtype` element holds.
double RoundToDType(trace::DType dtype, double v);

// Result dtype of a binary op the way torch promotes (float wins over int,
// the wider float wins; a Python float scalar makes an int tensor FP32).
trace::DType PromoteDTypes(trace::DType a, trace::DType b);

// Elementwise binary op with numpy/torch broadcasting. `a_scalar`/`b_scalar`
// stand for a Python number operand when the tensor pointer is null.
absl::StatusOr<std::shared_ptr<HostTensor>> HostBinary(
    const HostTensor* a, double a_scalar, bool a_float, const HostTensor* b, double b_scalar,
    bool b_float, const std::function<double(double, double)>& fn, bool comparison = false);

std::shared_ptr<HostTensor> HostUnary(const HostTensor& a, const std::function<double(double)>& fn);

absl::StatusOr<std::shared_ptr<HostTensor>> HostMatmul(const HostTensor& a, const HostTensor& b);
std::shared_ptr<HostTensor> HostCast(const HostTensor& a, trace::DType dtype);
absl::StatusOr<std::shared_ptr<HostTensor>> HostCat(
    const std::vector<std::shared_ptr<HostTensor>>& parts, int64_t dim);
absl::StatusOr<std::shared_ptr<HostTensor>> HostRoll(const HostTensor& a, int64_t shift,
                                                     std::optional<int64_t> dim);
absl::StatusOr<std::shared_ptr<HostTensor>> HostWhere(const HostTensor& cond, const HostTensor& a,
                                                      const HostTensor& b);

// One index entry of a subscript: an integer (drops the dim) or a slice.
struct HostIndex {
  bool is_slice = false;
  int64_t index = 0;
  std::optional<int64_t> start, stop, step;
};
// Resolves `index` against `shape`: per dim start/stop/step and whether the
// dim is kept. Errors name what is out of range.
struct ResolvedIndex {
  std::vector<int64_t> start, count, step;
  std::vector<bool> keep;
};
absl::StatusOr<ResolvedIndex> ResolveIndex(const std::vector<int64_t>& shape,
                                           const std::vector<HostIndex>& index);
std::shared_ptr<HostTensor> HostGather(const HostTensor& a, const ResolvedIndex& r);
// Writes `src` (broadcast scalar when null) into the region `r` of `a`.
absl::Status HostScatter(HostTensor* a, const ResolvedIndex& r, const HostTensor* src,
                         double scalar);

int64_t NumElements(const std::vector<int64_t>& shape);
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_HOST_TENSOR_H_
