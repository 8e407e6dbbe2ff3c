#ifndef PTO_SIM_CHECK_RUNNER_H_
#define PTO_SIM_CHECK_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/gm/memory_image.h"
#include "proto/task_stream.pb.h"

namespace pto {

struct CheckResult {
  std::string name;    // the harness expression, or the tensor name
  std::string tensor;  // the tensor's name in the kernel description
  std::string origin;
  bool passed = false;
  double max_abs_error = 0;
  int64_t mismatches = 0;
  // The first element outside rtol/atol, as a per-dimension index; empty if
  // none. With its actual and expected values.
  std::vector<int64_t> first_mismatch;
  double actual = 0;
  double expected = 0;
  std::string error;  // set when the check could not be evaluated
};

// Compares the tensor's GM contents with the check's expected contents:
// element i passes when |actual - expected| <= atol + rtol * |expected|
// (torch.testing.assert_close's rule); NaN matches only NaN.
CheckResult RunCheck(const trace::Check& check, const trace::Tensor& tensor,
                     const MemoryImage& memory);

// "check 'c' (file.py:30): PASS, max error 1.2e-07" or the mismatch details.
std::string DescribeCheck(const CheckResult& result);

}  // namespace pto

#endif  // PTO_SIM_CHECK_RUNNER_H_
