#ifndef PTO_FRONTEND_INTERPRETER_H_
#define PTO_FRONTEND_INTERPRETER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "frontend/ast.h"
#include "frontend/dict_value.h"
#include "frontend/host_tensor.h"
#include "frontend/kernel_builder.h"
#include "frontend/launch_builder.h"
#include "frontend/pl_values.h"
#include "frontend/program_builder.h"
#include "frontend/reference.h"
#include "frontend/source.h"
#include "frontend/value.h"
#include "frontend/verifier.h"

namespace pto::ptoc {

// Compile-time work limits (docs/ptoc.md, "Limits"): ptoc runs the
// orchestration code, so a hostile description must end with an error, not
// hang or exhaust memory.
inline constexpr int64_t kMaxStatementsRun = int64_t{1} << 22;
inline constexpr uint64_t kMaxSequenceLength = uint64_t{1} << 22;

// A variable scope: one per function call, plus the module's.
class Env {
 public:
  explicit Env(std::shared_ptr<Env> parent) : parent_(std::move(parent)) {}
  const Value* Lookup(const std::string& name) const;
  void Set(const std::string& name, Value v) { vars_[name] = std::move(v); }
  void Erase(const std::string& name) { vars_.erase(name); }
  const std::map<std::string, Value>& vars() const { return vars_; }

 private:
  std::map<std::string, Value> vars_;
  std::shared_ptr<Env> parent_;
};

// The tracing interpreter of the DSL: runs a call request's prelude and
// definitions, then the call; a call of a @pl.jit function becomes one launch
// whose orchestration code emits records, and whose pl.at / pl.spmd bodies and
// incore calls are traced into kernels.
// `(x,) = pl.yield_(v)`: one yielded value unpacks into a 1-tuple target.
inline Value YieldedFor(const Expr& target, const Value& v) {
  const bool one_tuple = (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) &&
                         target.elts.size() == 1;
  return one_tuple && !v.is_sequence() ? Value::Tuple({v}) : v;
}

class Interpreter {
 public:
  Interpreter(const SourceFile& source, std::unique_ptr<ReferenceEvaluator> reference);

  absl::Status Run(const Module& module);
  // Runs on every task before it is emitted (pypto's compile-time checks, see verifiers.h).
  void AddVerifier(std::unique_ptr<TaskVerifier> verifier) {
    verifiers_.push_back(std::move(verifier));
  }
  trace::TraceText Finish() const { return program_.Finish(); }
  // Binds a module-level name before Run (a value the caller computed: the
  // pypto package's call arguments, see call_compiler.h).
  void SetGlobal(const std::string& name, Value value) { globals_->Set(name, std::move(value)); }
  // At most this many statements run at compile time (kMaxStatementsRun).
  void set_max_statements(int64_t max) { max_statements_ = max; }
  // --timing-only: tensors have no contents, so no reference evaluation.
  bool timing_only() const { return timing_only_; }
  // A value that decides device control comes from `tensor_id` (a kernel's
  // pl.read, an orchestration read): in a timing-only run it must be the
  // host's, so the tensor needs contents and no task may have written it.
  absl::Status CheckControlSource(uint32_t tensor_id, SourceLocation loc);
  void set_timing_only() {
    timing_only_ = true;
    reference_failure_ = "--timing-only turns the reference evaluation off";
  }

  // ---- used by the builtin modules (pl_module.cc)
  absl::Status Error(SourceLocation loc, absl::string_view message) const {
    return source_.Error(loc, message);
  }
  std::string Origin(SourceLocation loc) const { return source_.Origin(loc); }
  bool in_kernel() const { return kernel_ != nullptr; }
  // Inside the body of a pl.pipeline(stage=F > 1), which is cloned.
  bool in_pipeline_body() const { return pipeline_bodies_ > 0; }
  bool in_launch() const { return launch_ != nullptr; }
  KernelBuilder* kernel() { return kernel_; }
  LaunchBuilder* launch() { return launch_.get(); }
  ProgramBuilder& program() { return program_; }
  SourceLocation current_loc() const { return current_loc_; }

  // A GM tensor's shape as the runtime describes one: 1 to 5 dims
  // (MAX_TENSOR_DIMS), each at least 1; else an error about `what`.
  absl::Status CheckGmShape(const std::vector<int64_t>& shape, const std::string& what,
                            SourceLocation loc) const;
  // A tile value for `v`: a tile, or a GM tensor view loaded whole.
  absl::StatusOr<std::shared_ptr<Tile>> AsTile(const Value& v, SourceLocation loc);
  absl::StatusOr<Value> CallValue(const Value& callee, const CallArgs& args);
  // An incore kernel call from the orchestration is one task; `options`
  // carries what pl.submit / pl.spmd_submit asked, `task_id` receives its
  // TaskId.
  absl::StatusOr<Value> CallIncore(const std::shared_ptr<FunctionValue>& fn, const CallArgs& args,
                                   TaskOptions options = {}, Value* task_id = nullptr);
  absl::StatusOr<int> EmitDummy(const std::vector<Value>& deps, SourceLocation loc);
  absl::StatusOr<std::vector<uint32_t>> ResolveDeps(const std::vector<Value>& deps,
                                                    SourceLocation loc) const;
  // Diagnostics that do not stop compilation, formatted like errors.
  void Warn(SourceLocation loc, absl::string_view message);
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  enum class Flow { kNormal, kReturn, kBreak, kContinue };

  // What kind of block ExecBlock runs, for the liveness questions of
  // MayReadLater.
  enum class BlockKind {
    kPlain,
    kRepeated,      // a loop body the interpreter runs again after its end
    kFunctionBody,  // the body of a call (or the module): nothing runs after it
  };
  absl::StatusOr<Flow> ExecBlock(const Block& block, const std::shared_ptr<Env>& env,
                                 BlockKind kind = BlockKind::kPlain);
  absl::StatusOr<Flow> Exec(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::Status ExecImport(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::Status ExecFunctionDef(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::StatusOr<Flow> ExecFor(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::StatusOr<Flow> ExecWith(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::StatusOr<Flow> ExecIf(const Stmt& stmt, const std::shared_ptr<Env>& env);
  // device_branches.cc: an if on a device integer inside a kernel (Op.IF),
  // its arms (each with a branch frame, so pl.yield_ names the arm's
  // results), and the phis after it.
  absl::StatusOr<Flow> RunDeviceIf(const Stmt& stmt, const trace::IntExpr& cond,
                                   const std::shared_ptr<Env>& env);
  absl::StatusOr<Flow> RunArm(const Block& arm, const std::shared_ptr<Env>& env);
  absl::Status BindPhis(const Stmt& stmt, const std::set<std::string>& names,
                        const std::map<std::string, Value>& then_values,
                        const std::map<std::string, Value>& else_values,
                        const std::shared_ptr<Env>& env);
  // An if's pl.yield_s: in both arms or neither, with one arity.
  absl::Status CheckArmYields(const Stmt& stmt) const;
  absl::StatusOr<Value> BranchYield(const CallArgs& args);
  absl::Status Assign(const Expr& target, const Value& value, const std::shared_ptr<Env>& env);
  absl::Status AssignSubscript(const Expr& target, const Value& value,
                               const std::shared_ptr<Env>& env);

  absl::StatusOr<Value> Eval(const Expr& e, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> EvalCall(const Expr& e, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> EvalAttribute(const Expr& e, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> EvalSubscript(const Expr& e, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> EvalCompare(const Expr& e, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> EvalListComp(const Expr& e, const std::shared_ptr<Env>& env);
  absl::Status CompLevel(const Expr& e, size_t level, const std::shared_ptr<Env>& env,
                         std::vector<Value>* out);

 public:
  // Python's == on two sequences, nested ones included (kMaxDataNesting).
  absl::StatusOr<bool> SequencesEqual(const Value& a, const Value& b, SourceLocation loc);
  absl::StatusOr<Value> Binary(const std::string& op, const Value& a, const Value& b,
                               SourceLocation loc);
  absl::StatusOr<bool> Truthy(const Value& v, SourceLocation loc);
  // Reads a device tensor element in the orchestration: emits a HostRead and
  // resolves the value with the reference over the tasks submitted so far.
  absl::StatusOr<Value> ReadDeviceElement(uint32_t tensor_id, const std::vector<int64_t>& indices,
                                          SourceLocation loc);
  absl::StatusOr<std::vector<Value>> Iterate(const Value& v, SourceLocation loc) const;
  // @pl.jit.extern's options (extern_kernel.cc), also pl.function(external_source=)'s.
  absl::StatusOr<ExternSpec> ReadExternSpec(const CallArgs& args);
  // t[a:b, c:d] of a tensor: a view, as pl.slice (eval.cc).
  absl::StatusOr<Value> TensorSlice(const Value& base, const std::vector<Value>& parts,
                                    SourceLocation loc);
  // arr[index] = value of a TaskId array (a deferred write in a pl.parallel
  // body, as a loop carry).
  absl::Status SetTaskIdSlot(const Value& array, int64_t index, const Value& value,
                             SourceLocation loc);
  // Python's == on dict keys (strings, numbers, bools, enum members).
  DictValue::KeyEquals DictKeyEquals() const;
  // d.keys() / values() / items() / get(): the dict methods kernels use.
  std::optional<Value> DictMethod(const std::shared_ptr<DictValue>& dict, const std::string& name);

 private:
  absl::StatusOr<Value> CallFunction(const std::shared_ptr<FunctionValue>& fn,
                                     const CallArgs& args);
  absl::StatusOr<std::shared_ptr<Env>> BindParams(const FunctionValue& fn, const CallArgs& args);
  absl::StatusOr<Value> RunBody(const FunctionValue& fn, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> Launch(const std::shared_ptr<FunctionValue>& fn, const CallArgs& args);
  // Runs the finished launch on the reference and refreshes the host values
  // of the tensors it wrote (or marks them unknown when it cannot).
  // Initialises ptoc's GM copy for tensors declared since the last call.
  void SyncGm();
  absl::Status ExecClassDef(const Stmt& stmt, const std::shared_ptr<Env>& env);
  absl::StatusOr<Value> CallExtern(const std::shared_ptr<FunctionValue>& fn, const CallArgs& args);

  // Traces `body` as one task's kernel and emits its submit; returns the
  // TaskId value.
  absl::StatusOr<Value> TraceTask(const std::string& default_name, const TaskOptions& options,
                                  SourceLocation loc, const std::function<absl::Status()>& body);
  absl::StatusOr<Flow> RunOrchestrationLoop(const Stmt& stmt, const LoopSpec& spec,
                                            const std::shared_ptr<Env>& env);
  absl::StatusOr<Flow> RunDeviceLoop(const Stmt& stmt, const LoopSpec& spec,
                                     const std::shared_ptr<Env>& env);
  // The loop variable and the iter_arg names of `for i, (a, b) in
  // pl.range(..., init_values=(x, y))`; checks them against the loop.
  struct LoopTargets {
    const Expr* var = nullptr;
    std::vector<std::string> iter_args;
  };
  absl::StatusOr<LoopTargets> ReadLoopTargets(const Stmt& stmt, const LoopSpec& spec) const;
  // After a pl.at / pl.spmd body: Out parameters it rebound without writing
  // are errors, and tiles still named and read later leave the task through
  // an intermediate GM tensor (issue: values that cross tasks).
  absl::Status FinishTaskBody(const std::shared_ptr<Env>& env, bool spmd);
  // Whether the value `name` holds may still be read after the statement
  // running now, within the running function (name_analysis.h).
  bool MayReadLater(const std::string& name) const;

  const SourceFile& source_;
  std::unique_ptr<ReferenceEvaluator> reference_;
  std::shared_ptr<Env> globals_;
  std::shared_ptr<Env> builtins_;
  std::shared_ptr<Namespace> pl_;
  std::shared_ptr<Namespace> torch_;
  std::shared_ptr<Namespace> runtime_;
  ProgramBuilder program_;
  bool timing_only_ = false;
  // The tensors a task has written so far (OUTPUT / INOUT / OUTPUT_EXISTING
  // arguments): of earlier launches, and of the running one (reset per
  // launch), kept up to date incrementally (WrittenByATask).
  struct WrittenTensors {
    size_t scanned = 0;
    int launch = -1;
    absl::flat_hash_set<uint32_t> ids;
  };
  WrittenTensors written_before_, written_now_;
  bool WrittenByATask(uint32_t tensor_id, bool this_launch_only);
  // Timing-only orchestration reads: host values per tensor, decoded once.
  std::map<uint32_t, std::vector<uint8_t>> host_values_;
  std::unique_ptr<LaunchBuilder> launch_;
  KernelBuilder* kernel_ = nullptr;
  int launch_count_ = 0;
  int task_sites_ = 0;
  Value return_value_;
  SourceLocation current_loc_;
  // ptoc's copy of GM for the reference evaluation, and how many header
  // tensors it has initialised.
  std::vector<uint8_t> gm_;
  int gm_tensors_ = 0;
  std::string reference_failure_;
  std::vector<std::string> warnings_;
  std::vector<std::unique_ptr<TaskVerifier>> verifiers_;
  int call_depth_ = 0;
  int64_t statements_run_ = 0;  // bounded by max_statements_
  int64_t max_statements_ = kMaxStatementsRun;
  // Whether the running @pl.jit function has automatic scopes (pl.scope()).
  bool launch_auto_scope_ = true;
  // Deferred TaskId array writes of the pl.parallel loops being run.
  struct ParallelCarry {
    uint64_t first_new_array = 0;
    struct Write {
      Value array;
      int64_t index;
      std::shared_ptr<TaskIdValue> slot;
    };
    std::vector<Write> writes;
  };
  std::vector<ParallelCarry> parallel_carries_;

  // The blocks being run, innermost last (MayReadLater).
  struct BlockCursor {
    const Block* block;
    size_t index;
    BlockKind kind;
  };
  std::vector<BlockCursor> cursors_;

 public:
  // pl.yield_(...) inside the loop being run (pl_module.cc).
  absl::StatusOr<Value> Yield(const CallArgs& args);

 private:
  // One per loop being run (device or orchestration), and a barrier per task
  // body: where pl.yield_ delivers its values.
  struct CarryFrame {
    size_t arity = 0;           // init_values count; 0 = the loop has none
    bool task_barrier = false;  // a task body: yields cannot reach outside it
    bool branch = false;        // an if arm: its pl.yield_ names the arm's results
    std::optional<std::vector<Value>> yielded;
    SourceLocation yield_loc;
    const Stmt* yield_stmt = nullptr;  // `x = pl.yield_(...)`: binds x after the loop
  };
  std::vector<CarryFrame> carry_frames_;
  // The assignment whose value is being evaluated, when it is `x = pl.yield_(...)`.
  const Stmt* yield_assignment_ = nullptr;

  // How a device loop lays out its body: `clones` copies per iteration, copy
  // k with the loop variable + k * clone_step (pl.pipeline); one copy for
  // pl.range / pl.parallel.
  struct DeviceLoopShape {
    trace::IntExpr start, stop, step;
    int64_t clones = 1;
    int64_t clone_step = 0;
  };
  // Traces `stmt` as one Op.LOOP of `shape`; `results` (if given) receives
  // the values of the loop's iter_args after it.
  absl::Status TraceDeviceLoop(const Stmt& stmt, const LoopSpec& spec, const DeviceLoopShape& shape,
                               const std::shared_ptr<Env>& env, std::vector<Value>* results);
  // Runs `clones` copies of the loop body, copy k with the loop variable at
  // `var` + k * clone_step; each copy's yielded values are the next one's
  // iter_args. Returns the last copy's frame.
  absl::StatusOr<CarryFrame> RunClones(const Stmt& stmt, const LoopTargets& targets,
                                       const Value& var, int64_t clones, int64_t clone_step,
                                       const std::shared_ptr<Env>& env);
  // Binds a loop's iter_arg results after it: to the `x = pl.yield_(...)`
  // targets, or without a yield to the iter_args and `<iter_arg>_out`.
  absl::Status BindIterResults(const Stmt* yield_stmt, const std::vector<std::string>& iter_args,
                               const std::vector<Value>& results, const std::shared_ptr<Env>& env);
  // pl.pipeline(..., stage=F) in a kernel body (pipeline_loops.cc).
  absl::StatusOr<Flow> RunPipelineLoop(const Stmt& stmt, const LoopSpec& spec,
                                       const std::shared_ptr<Env>& env);
  // pl.pipeline's static tail: `clones` copies of the body straight-line
  // from loop variable `first`, starting from iter_args `iter_values`.
  absl::Status RunFlatClones(const Stmt& stmt, const LoopSpec& spec, int64_t first, int64_t clones,
                             int64_t step, std::vector<Value> iter_values,
                             const std::shared_ptr<Env>& env);
  // The running launch's pl.Out / pl.InOut parameters, by name, with the
  // tensor each was bound to (FinishTaskBody), and the jit body's scope.
  std::map<std::string, std::shared_ptr<TensorRef>> out_params_;
  const Env* launch_env_ = nullptr;
  int pipeline_bodies_ = 0;  // open pl.pipeline(stage > 1) bodies
};

// Task options read the same way by pl.at / pl.spmd / pl.submit.
absl::Status ReadDeps(Interpreter* interp, const Value& v, SourceLocation loc,
                      TaskOptions* options);
absl::Status ReadPredicate(Interpreter* interp, const Value& v, SourceLocation loc,
                           TaskOptions* options);
// pl.program, pl.function, pl.FunctionType, pl.submit, pl.spmd_submit
// (program_form.cc).
void AddProgramForm(Interpreter* interp, Namespace* pl);

// The pl module, bound to an interpreter.
std::shared_ptr<Namespace> MakePlModule(Interpreter* interp);
// torch's dtypes, the only names of torch a kernel source reads.
std::shared_ptr<Namespace> MakeTorchModule();
// pl.Out[pl.Tensor], pl.Scalar[pl.INT32], pl.Tile[[r, c], pl.FP32], ...
absl::StatusOr<Value> AnnotationSubscript(Interpreter* interp, const Annotation& a,
                                          const Value& index, SourceLocation loc);
// The value of a device tensor element read in the orchestration.
absl::StatusOr<Value> ReadElementRef(Interpreter* interp, const ElementRef& el, SourceLocation loc);
// Python builtins (range, len, min, ...).
void AddPythonBuiltins(Interpreter* interp, Env* env);

struct CompileOptions {
  // --timing-only: no reference evaluation, no checks, tensors without
  // contents (header.timing_only), for workloads whose data would not fit.
  bool timing_only = false;
  // Compile-time work limit (statements run); tests and fuzzers lower it.
  int64_t max_statements = kMaxStatementsRun;
};

// Runs `module` (parsed from `source`) on an interpreter set up as ptoc's
// (verifiers, limits, --timing-only); `setup`, if given, binds globals first.
// `finish`, if given, sees the interpreter and its stream last.
absl::StatusOr<trace::TraceText> CompileModule(
    const SourceFile& source, const Module& module, std::vector<std::string>* warnings,
    const CompileOptions& options, const std::function<void(Interpreter&)>& setup = nullptr,
    const std::function<absl::Status(Interpreter&, trace::TraceText*)>& finish = nullptr);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_INTERPRETER_H_
