#include "frontend/host_tensor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto::ptoc {

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

HostTensor::HostTensor(std::vector<int64_t> shape, trace::DType dtype,
                       std::optional<std::string> bytes)
    : shape_(std::move(shape)), dtype_(dtype), bytes_(std::move(bytes)) {}

trace::TensorInit HostTensor::ToInit() const {
  trace::TensorInit init;
  if (!bytes_) return init;  // no contents to describe
  if (std::all_of(bytes_->begin(), bytes_->end(), [](char b) { return b == 0; })) {
    init.set_zeros(true);
  } else {
    init.set_data(*bytes_);
  }
  return init;
}

}  // namespace pto::ptoc
