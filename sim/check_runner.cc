#include "sim/check_runner.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "common/tensor_fill.h"

namespace pto {

CheckResult RunCheck(const trace::Check& check, const trace::Tensor& tensor,
                     const MemoryImage& memory) {
  CheckResult result;
  result.tensor = tensor.name();
  result.name = check.name().empty() ? tensor.name() : check.name();
  result.origin = check.origin();
  result.shape.assign(tensor.shape().begin(), tensor.shape().end());
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
  const CloseTolerance tolerance{check.rtol(), check.atol(), check.equal_nan()};
  for (size_t i = 0; i < count; ++i) {
    result.stats.Add(LoadAsDouble(tensor.dtype(), actual + i * elem),
                     LoadAsDouble(tensor.dtype(), expected.data() + i * elem), tolerance);
  }
  result.passed = result.stats.passed();
  return result;
}

std::string DescribeCheck(const CheckResult& result) {
  std::string text = absl::StrCat("check '", result.name, "'");
  if (!result.origin.empty()) absl::StrAppend(&text, " (", result.origin, ")");
  if (!result.error.empty()) return absl::StrCat(text, ": NOT EVALUATED, ", result.error);
  if (result.passed) {
    return absl::StrCat(text, ": PASS, max abs error ", result.stats.max_abs_error);
  }
  return absl::StrCat(
      text, ": FAIL, ",
      DescribeMismatches(result.stats, result.shape, absl::StrCat(" of '", result.tensor, "'")));
}

namespace {

// A number JSON can hold, or null for NaN and infinities.
nlohmann::json FiniteOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json CheckToJson(const CheckResult& r) {
  const CloseStats& s = r.stats;
  nlohmann::json j = {{"name", r.name},
                      {"tensor", r.tensor},
                      {"origin", r.origin},
                      {"passed", r.passed},
                      {"max_abs_error", FiniteOrNull(s.max_abs_error)},
                      {"mismatches", s.mismatches},
                      {"nonfinite_mismatches", s.nonfinite_mismatches()},
                      {"nan_mismatches", s.nan_mismatches}};
  if (!r.passed && s.first_mismatch >= 0) {
    j["first_mismatch"] = r.Index(s.first_mismatch);
    j["actual"] = FiniteOrNull(s.first_actual);
    j["expected"] = FiniteOrNull(s.first_expected);
  }
  if (s.first_nan >= 0) j["first_nan"] = r.Index(s.first_nan);
  if (s.first_inf >= 0) j["first_infinite"] = r.Index(s.first_inf);
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

}  // namespace pto
