// libFuzzer target: ptoc's lexer, parser and evaluator on an arbitrary DSL
// source, compiled the way the pypto package hands a call to ptoc (ptoc
// --call): the input holds the kernels, and the call `k(a, out)` follows it
// with two shape-only 64 x 64 FP32 tensors. The compile-time work limit is
// lowered so one input stays fast. Seeds: fuzz/ptoc_seeds/*.py.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontend/call_compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<pto::ptoc::CallTensor> tensors(2);
  for (size_t i = 0; i < tensors.size(); ++i) {
    tensors[i].name = i == 0 ? "a" : "out";
    tensors[i].dtype = pto::trace::FP32;
    tensors[i].shape = {64, 64};
  }
  const pto::ptoc::CallRequest request =
      pto::ptoc::RequestForSource("fuzz.py", std::string(reinterpret_cast<const char*>(data), size),
                                  "k(a, out)", std::move(tensors));
  pto::ptoc::CompileOptions options;
  options.timing_only = true;  // no reference evaluation of tensor data
  options.max_statements = 20000;
  (void)pto::ptoc::CompileCall(request, nullptr, options);
  return 0;
}
