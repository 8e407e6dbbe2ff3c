#ifndef PTO_FRONTEND_STREAM_SUMMARY_H_
#define PTO_FRONTEND_STREAM_SUMMARY_H_

#include <string>
#include <vector>

#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A compact view of a compiled stream for tests and for reading by eye:
// per launch its records in order, scopes included.
struct TaskSummary {
  std::string kind;  // "submit", "dummy", "alloc"
  int index = 0;     // 0-based record index in the launch
  std::string name;
  trace::CoreType core_type = trace::CORE_TYPE_UNSPECIFIED;
  int block_num = 0;  // 0 when symbolic
  trace::BlockSymbol block_symbol = trace::BLOCK_SYMBOL_UNSPECIFIED;
  std::vector<trace::ArgDirection> directions;  // tensor args in order
  std::vector<uint32_t> tensor_ids;
  std::vector<uint32_t> deps;
  uint32_t scope_depth = 0;
  bool has_predicate = false;
  bool allow_early_resolve = false;
  bool sync_start = false;
};

struct LaunchSummary {
  std::string name;
  std::vector<TaskSummary> tasks;
  // "A1" = AUTO scope begin at depth 1, "M2" manual, "E2" end, "T" a task.
  std::string scope_shape;
  int checks_after = 0;
};

std::vector<LaunchSummary> Summarize(const trace::TraceText& trace);

// Every kernel of a stream in id order: the header's, then each Declare
// record's (a recorded run declares each later call's kernels before it).
std::vector<const trace::Kernel*> Kernels(const trace::TraceText& trace);

// The latest declaration of tensor `id` (header or Declare), or null.
const trace::Tensor* TensorById(const trace::TraceText& trace, uint32_t id);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_STREAM_SUMMARY_H_
