#ifndef PTO_SIM_TESTING_OUTPUT_FIXTURES_H_
#define PTO_SIM_TESTING_OUTPUT_FIXTURES_H_

// Synthetic observer input for the output writers' tests: tasks, arguments
// and core intervals built by hand, no simulation.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "models/aicpu/task.h"
#include "models/run_observer.h"

namespace pto::testing {

inline constexpr TimePs kUs = 1000000;  // picoseconds per microsecond

// A fresh, empty directory under the test's temporary directory.
inline std::string FreshOutputDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/outputs_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files in `dir`, sorted.
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline Task MakeTask(TaskSeq seq, uint32_t index, const std::string& name, TaskShape shape,
                     uint64_t ring = 0, uint64_t local = ~uint64_t{0}) {
  Task t;
  t.seq = seq;
  t.index_in_launch = index;
  t.runtime_id = (ring << 32) | (local == ~uint64_t{0} ? index : local);
  t.name = name;
  t.shape = shape;
  t.scope_depth = static_cast<uint32_t>(ring);
  if (shape == TaskShape::kAic) t.kernel_ids[0] = 0;
  if (shape == TaskShape::kAiv) t.kernel_ids[1] = 1;
  if (shape == TaskShape::kMix) t.kernel_ids[0] = t.kernel_ids[1] = t.kernel_ids[2] = 2;
  t.kernel = shape == TaskShape::kAic   ? 0
             : shape == TaskShape::kAiv ? 1
             : shape == TaskShape::kMix ? 2
                                        : -1;
  return t;
}

// A 1-D (or 2-D with `cols`) row-major FP32 view of the tensor at `base`.
inline TaskArg TensorArgOf(uint32_t tensor_id, uint64_t base, trace::ArgDirection direction,
                           int64_t rows, int64_t cols = 0, int64_t start_offset = 0) {
  TaskArg a;
  a.is_tensor = true;
  a.direction = direction;
  a.view.tensor_id = tensor_id;
  a.view.base_addr = base;
  a.view.dtype = trace::FP32;
  a.view.start_offset = start_offset;
  if (cols == 0) {
    a.view.ndims = 1;
    a.view.shape[0] = rows;
    a.view.strides[0] = 1;
  } else {
    a.view.ndims = 2;
    a.view.shape[0] = rows;
    a.view.shape[1] = cols;
    a.view.strides[0] = cols;
    a.view.strides[1] = 1;
  }
  return a;
}

// Times in microseconds.
inline CoreInterval IntervalUs(int core, TaskSeq task, uint32_t reg, double dispatch,
                               double receive, double start, double end, double finish,
                               int64_t block = 0, int thread = 0) {
  CoreInterval c;
  c.core = core;
  c.task = task;
  c.block = block;
  c.reg_task_id = reg;
  c.thread = thread;
  auto ps = [](double us) { return static_cast<TimePs>(us * 1e6 + 0.5); };
  c.dispatch = ps(dispatch);
  c.receive = ps(receive);
  c.start = ps(start);
  c.end = ps(end);
  c.finish = ps(finish);
  return c;
}

inline DepEdge Edge(TaskSeq producer, EdgeSource source, int arg = -1) {
  DepEdge e;
  e.producer = producer;
  e.source = source;
  e.arg_index = arg;
  return e;
}

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_OUTPUT_FIXTURES_H_
