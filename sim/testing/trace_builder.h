#ifndef PTO_SIM_TESTING_TRACE_BUILDER_H_
#define PTO_SIM_TESTING_TRACE_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/task_stream.pb.h"

namespace pto::testing {

// Builds small task streams for tests: tensors, cost-summary or copy
// kernels, and one launch of scopes and submits. Record indices (for deps)
// are returned by the methods that create tasks.
class TraceBuilder {
 public:
  explicit TraceBuilder(std::string launch_name);

  // A [rows, cols] FP32 tensor, zero-filled unless `contents` is false.
  uint32_t Tensor(const std::string& name, int64_t rows, int64_t cols, bool contents = true);
  // A kernel that costs `cycles` AICore cycles and touches no data.
  uint32_t CostKernel(const std::string& name, trace::CoreType type, uint64_t cycles);

  void BeginScope(trace::ScopeBegin::Mode mode = trace::ScopeBegin::AUTO);
  void EndScope();

  struct TensorUse {
    uint32_t tensor;
    trace::ArgDirection direction;
  };
  // Submits `kernel` (its core type decides the slots); returns its index.
  uint32_t Submit(const std::string& name, uint32_t kernel, std::vector<TensorUse> args = {},
                  std::vector<uint32_t> deps = {}, int64_t blocks = 1, bool early = false,
                  bool sync_start = false);
  uint32_t Dummy(const std::string& name, std::vector<uint32_t> deps);

  // Closes the launch (and any open scopes) and returns the stream.
  trace::TraceText Finish();

 private:
  trace::TraceText text_;
  std::vector<trace::ScopeBegin::Mode> scopes_;
  uint32_t next_index_ = 0;
  uint64_t next_addr_ = 0;
};

// Reads a whole task stream, binary (.pb) or text (.pbtxt), into memory.
trace::TraceText LoadTraceFile(const std::string& path);
// Writes `text` as FreshDir(name)/name.pbtxt and returns the path.
std::string SaveTraceFile(const trace::TraceText& text, const std::string& name);

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_TRACE_BUILDER_H_
