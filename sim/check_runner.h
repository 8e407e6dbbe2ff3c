#ifndef PTO_SIM_CHECK_RUNNER_H_
#define PTO_SIM_CHECK_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/close.h"
#include "models/gm/memory_image.h"
#include "nlohmann/json.hpp"
#include "proto/task_stream.pb.h"

namespace pto {

struct CheckResult {
  std::string name;    // the harness expression, or the tensor name
  std::string tensor;  // the tensor's name in the kernel description
  std::string origin;
  bool passed = false;
  std::vector<int64_t> shape;  // the tensor's, for per-dimension indices
  // Counts, first mismatches (flat) and the greatest error; its
  // max_abs_error is NaN or infinite when a mismatch's difference is.
  CloseStats stats;
  std::string error;  // set when the check could not be evaluated

  // Per-dimension index of a flat one of `stats`.
  std::vector<int64_t> Index(int64_t flat) const { return UnflattenIndex(flat, shape); }
};

// Compares the tensor's GM contents with the check's expected contents
// element by element with torch.testing.assert_close's rule (IsClose in
// common/close.h): NaN or Inf where a finite value is expected fails, NaN
// matches NaN only with the check's equal_nan.
CheckResult RunCheck(const trace::Check& check, const trace::Tensor& tensor,
                     const MemoryImage& memory);

// "check 'c' (file.py:30): PASS, max abs error 1.2e-07" or the mismatch
// details, naming NaN and infinite mismatches (DescribeMismatches).
std::string DescribeCheck(const CheckResult& result);

// The check's entry in stats.json's checks.results. JSON has no NaN or
// infinity, so a non-finite max_abs_error (and actual / expected value) is
// null, never a number: nonfinite_mismatches > 0 says why, nan_mismatches > 0
// that it is NaN rather than infinite (README, "What a run prints").
nlohmann::json CheckToJson(const CheckResult& result);

}  // namespace pto

#endif  // PTO_SIM_CHECK_RUNNER_H_
