#ifndef PTO_FRONTEND_VERIFIER_H_
#define PTO_FRONTEND_VERIFIER_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "frontend/kernel_builder.h"
#include "frontend/pl_values.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

class Interpreter;

// Everything a compile-time check (pypto's, cited in verifiers.h) may look at
// when a task is about to be emitted: what the source asked for, the submit and
// kernel ptoc built from it, and where it was written.
struct TaskSite {
  const TaskOptions& options;
  const trace::Submit& submit;
  const trace::Kernel& kernel;
  SourceLocation loc;
  uint32_t scope_depth = 0;
  bool in_manual_scope = false;
  // What the body did while it was traced (SPMD body rules, no_dep_args).
  const KernelBuilder& builder;
};

// A verifier runs on every task before its submit is recorded; an error
// status (made with Interpreter::Error, so it carries file:line:col) stops
// compilation. The verifiers of verifiers.h (predicate producer in deps, hard syncall
// occupancy, closed-scope deps, on-chip capacity, ...) implement this.
class TaskVerifier {
 public:
  virtual ~TaskVerifier() = default;
  virtual absl::Status Check(Interpreter& interp, const TaskSite& site) = 0;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_VERIFIER_H_
