#include "sim/check_runner.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "common/tensor_fill.h"

namespace pto {
namespace {

std::vector<int64_t> Unflatten(int64_t flat, const trace::Tensor& tensor) {
  std::vector<int64_t> index(tensor.shape_size());
  for (int d = tensor.shape_size() - 1; d >= 0; --d) {
    index[d] = flat % tensor.shape(d);
    flat /= tensor.shape(d);
  }
  return index;
}

}  // namespace

CheckResult RunCheck(const trace::Check& check, const trace::Tensor& tensor,
                     const MemoryImage& memory) {
  CheckResult result;
  result.tensor = tensor.name();
  result.name = check.name().empty() ? tensor.name() : check.name();
  result.origin = check.origin();
  const size_t elem = DTypeSize(tensor.dtype());
  const size_t count = tensor.size_bytes() / elem;
  const uint8_t* actual = memory.Span(tensor.gm_addr(), tensor.size_bytes());
  if (actual == nullptr) {
    result.error = "the tensor has no contents (timing-only run)";
    return result;
  }
  std::vector<uint8_t> expected(tensor.size_bytes());
  if (absl::Status s = FillTensor(check.expected(), tensor.dtype(), count, expected.data());
      !s.ok()) {
    result.error = std::string(s.message());
    return result;
  }
  for (size_t i = 0; i < count; ++i) {
    const double a = LoadAsDouble(tensor.dtype(), actual + i * elem);
    const double e = LoadAsDouble(tensor.dtype(), expected.data() + i * elem);
    const double error = std::fabs(a - e);
    const bool both_nan = std::isnan(a) && std::isnan(e);
    const bool ok = both_nan || error <= check.atol() + check.rtol() * std::fabs(e);
    if (!both_nan && !std::isnan(error) && error > result.max_abs_error) {
      result.max_abs_error = error;
    }
    if (!ok) {
      if (result.mismatches == 0) {
        result.first_mismatch = Unflatten(static_cast<int64_t>(i), tensor);
        result.actual = a;
        result.expected = e;
      }
      ++result.mismatches;
    }
  }
  result.passed = result.mismatches == 0;
  return result;
}

std::string DescribeCheck(const CheckResult& result) {
  std::string text = absl::StrCat("check '", result.name, "'");
  if (!result.origin.empty()) absl::StrAppend(&text, " (", result.origin, ")");
  if (!result.error.empty()) return absl::StrCat(text, ": NOT EVALUATED, ", result.error);
  if (result.passed) {
    return absl::StrCat(text, ": PASS, max abs error ", result.max_abs_error);
  }
  return absl::StrCat(text, ": FAIL, ", result.mismatches, " element(s) of '", result.tensor,
                      "' outside tolerance; first at [", absl::StrJoin(result.first_mismatch, ", "),
                      "]: got ", result.actual, ", expected ", result.expected, "; max abs error ",
                      result.max_abs_error);
}

}  // namespace pto
