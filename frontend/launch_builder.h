#ifndef PTO_FRONTEND_LAUNCH_BUILDER_H_
#define PTO_FRONTEND_LAUNCH_BUILDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A runtime TaskId: the 0-based record index of a submit/dummy/alloc within
// its launch, or invalid (None, an unset array slot, a skipped dummy).
class TaskIdValue : public Object {
 public:
  TaskIdValue(int launch, int index, uint32_t scope = 0)
      : launch_(launch), index_(index), scope_(scope) {}
  std::string TypeName() const override { return "pl.TaskId"; }
  int launch() const { return launch_; }
  int index() const { return index_; }
  bool valid() const { return index_ >= 0; }
  // The serial of the runtime scope the task was submitted in (0 = the
  // launch's outer scope): a scalar TaskId dies with it (pypto@e2d0f78a
  // docs/en/user/tasks/01-scopes.md).
  uint32_t scope() const { return scope_; }
  // Read out of a TaskId array (arr[i]): arrays are carried out of scopes.
  bool from_array() const { return from_array_; }
  std::shared_ptr<TaskIdValue> AsArraySlot() const {
    auto slot = std::make_shared<TaskIdValue>(launch_, index_, scope_);
    slot->from_array_ = true;
    return slot;
  }

 private:
  int launch_;
  int index_;
  uint32_t scope_;
  bool from_array_ = false;
};

// pl.array.create(N, pl.TASK_ID): slots start invalid; arr[i] = tid updates.
class TaskIdArray : public Object {
 public:
  explicit TaskIdArray(size_t n) : slots_(n), serial_(NextSerial()) {}
  std::string TypeName() const override { return "pl.Array[TASK_ID]"; }
  std::vector<std::shared_ptr<TaskIdValue>>& slots() { return slots_; }
  // Creation order: arrays made inside a pl.parallel body are not carried.
  uint64_t serial() const { return serial_; }
  static uint64_t PeekSerial() { return counter() + 1; }

 private:
  static uint64_t& counter() {
    static uint64_t n = 0;
    return n;
  }
  static uint64_t NextSerial() { return ++counter(); }
  std::vector<std::shared_ptr<TaskIdValue>> slots_;
  uint64_t serial_;
};

// The orchestration records of one launch: scopes (AUTO/MANUAL with depth),
// submits, dummies and allocs, each taking one index; and the call-site
// direction rules that need the scope structure (R-seq, R-prior, R-enclosing).
class LaunchBuilder {
 public:
  LaunchBuilder(int launch_serial, std::string name) : serial_(launch_serial), name_(name) {}

  int serial() const { return serial_; }
  const std::string& name() const { return name_; }

  // The launch's outer scope (depth 0) is implicit; every BeginScope emits a
  // ScopeBegin one deeper.
  void BeginScope(trace::ScopeBegin::Mode mode);
  void EndScope();
  uint32_t depth() const { return scopes_.size(); }
  bool in_manual_scope() const;
  // Serial of the innermost open scope (0 = the outer one) and whether the
  // scope with `serial` is still open.
  uint32_t current_scope() const { return scopes_.empty() ? 0 : scopes_.back().serial; }
  bool scope_open(uint32_t serial) const;
  // Whether a scalar TaskId produced in scope `serial` may still be named:
  // its scope is open, or it is carried to a later sibling of that scope
  // (the next iteration of the same loop) while their parent is open.
  bool task_id_usable(uint32_t serial) const;

  // Sequential (pl.range) ancestors in the orchestration: R-seq.
  void EnterSequentialLoop() { ++sequential_loops_; }
  void ExitSequentialLoop() { --sequential_loops_; }

  // Tensors whose root is a jit parameter declared pl.InOut: R-enclosing.
  void AddInOutRoot(uint32_t tensor_id) { inout_roots_.insert(tensor_id); }

  // The call-site direction of a tensor argument bound to a kernel parameter
  // of direction `param` (pypto@e2d0f78a docs/en/dev/passes/37-derive_call_directions.md).
  trace::ArgDirection CallSiteDirection(trace::KernelParam::Direction param, uint32_t root_tensor,
                                        bool no_dep) const;
  // Marks the roots a task wrote, for R-prior of later siblings.
  void NoteWrites(const std::vector<uint32_t>& roots);

  // What the verifiers need to prove a predicate's producer (verifiers.cc): which
  // task last wrote a tensor root, and the name its TaskId was bound to.
  void NoteTaskWrites(int index, const std::vector<uint32_t>& roots);
  int LastWriter(uint32_t root) const;
  void BindName(int index, std::string name) { task_names_[index] = std::move(name); }
  std::string BoundName(int index) const;

  // Appends a record and returns its index.
  int AddSubmit(trace::Submit submit);
  int AddDummy(trace::Dummy dummy);
  int AddAlloc(trace::Alloc alloc);
  void AddHostRead(trace::HostRead read);

  std::vector<trace::StreamRecord>& records() { return records_; }
  int task_count() const { return next_index_; }

 private:
  struct Scope {
    trace::ScopeBegin::Mode mode;
    std::set<uint32_t> written_roots;
    uint32_t serial = 0;
  };

  int serial_;
  std::string name_;
  std::vector<Scope> scopes_;
  Scope outer_{trace::ScopeBegin::AUTO, {}};
  int sequential_loops_ = 0;
  std::set<uint32_t> inout_roots_;
  std::vector<trace::StreamRecord> records_;
  int next_index_ = 0;
  uint32_t next_scope_serial_ = 1;
  std::map<uint32_t, uint32_t> scope_parent_;
  std::map<uint32_t, int> last_writer_;
  std::map<int, std::string> task_names_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_LAUNCH_BUILDER_H_
