#ifndef PTO_FRONTEND_PL_VALUES_H_
#define PTO_FRONTEND_PL_VALUES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/launch_builder.h"
#include "frontend/program_builder.h"
#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// Values of the `pl` and `torch` APIs that are not tensors, tiles or TaskIds.

// pl.FP32, torch.float32, pl.TASK_ID, ...
class DTypeValue : public Object {
 public:
  DTypeValue(trace::DType dtype, std::string spelling, bool task_id = false)
      : dtype_(dtype), spelling_(std::move(spelling)), task_id_(task_id) {}
  std::string TypeName() const override { return "dtype"; }
  trace::DType dtype() const { return dtype_; }
  const std::string& spelling() const { return spelling_; }
  bool is_task_id() const { return task_id_; }

 private:
  trace::DType dtype_;
  std::string spelling_;
  bool task_id_;
};

// A member of pl.Level, pl.SplitMode, pl.SyncAllMode, pl.KernelType, ...
class EnumValue : public Object {
 public:
  EnumValue(std::string enum_name, std::string member, int64_t value)
      : enum_name_(std::move(enum_name)), member_(std::move(member)), value_(value) {}
  std::string TypeName() const override { return enum_name_; }
  const std::string& enum_name() const { return enum_name_; }
  const std::string& member() const { return member_; }
  int64_t value() const { return value_; }

 private:
  std::string enum_name_;
  std::string member_;
  int64_t value_;
};

// A type annotation: pl.Tensor, pl.Out[pl.Tensor], pl.Scalar[pl.INT32], ...
class Annotation : public Object {
 public:
  enum class Kind { kTensor, kScalar, kTile, kTaskId, kArray, kOther };
  Annotation(Kind kind, std::string spelling) : kind_(kind), spelling_(std::move(spelling)) {}
  std::string TypeName() const override { return "annotation"; }
  Kind kind() const { return kind_; }
  // Wrappers (pl.Out, pl.InOut) before they are subscripted.
  bool is_wrapper() const { return wrapper_; }
  void set_wrapper(bool w) { wrapper_ = w; }
  trace::KernelParam::Direction direction() const { return direction_; }
  void set_direction(trace::KernelParam::Direction d) { direction_ = d; }
  trace::DType dtype() const { return dtype_; }
  void set_dtype(trace::DType d) { dtype_ = d; }
  // pl.Tile[..., pl.Mem.X]; MEM_SPACE_UNSPECIFIED when it names none.
  trace::MemSpace space() const { return space_; }
  void set_space(trace::MemSpace s) { space_ = s; }
  // pl.Tile[..., <pl.MemRef or one of its slots>, ...] (memref.h); None if
  // the annotation names none.
  const Value& memref() const { return memref_; }
  void set_memref(Value m) { memref_ = std::move(m); }
  // pl.Tensor[[r, c], ...]'s shape as written: ints and pl.dynamic dims
  // (empty when none was given).
  const std::vector<Value>& shape() const { return shape_; }
  void set_shape(std::vector<Value> shape) { shape_ = std::move(shape); }
  const std::string& spelling() const { return spelling_; }

 private:
  Kind kind_;
  std::string spelling_;
  bool wrapper_ = false;
  trace::KernelParam::Direction direction_ = trace::KernelParam::IN;
  trace::DType dtype_ = trace::DTYPE_UNSPECIFIED;
  trace::MemSpace space_ = trace::MEM_SPACE_UNSPECIFIED;
  Value memref_;
  std::vector<Value> shape_;
};

// kOpaque (pypto@e2d0f78a docs/en/user/language/01-functions.md, the default
// type of @pl.function and @pl.jit.opaque's) takes its plane from where it is
// used: a program's entry called from the host is its orchestration; called
// from an orchestration it runs there (its pl.at scopes become tasks); called
// inside a task body it is part of that body.
enum class FunctionKind { kPlain, kJit, kIncore, kInline, kExtern, kOpaque };

// @pl.jit.extern(core_type=..., <cost>): a kernel known by its cost summary
// alone (vendor kernels, calibration and stress workloads).
struct ExternSpec {
  trace::CoreType core_type = trace::AIV;
  uint32_t block_num = 1;
  trace::BlockSymbol block_symbol = trace::BLOCK_SYMBOL_UNSPECIFIED;
  trace::CostSummary cost;
};

class Env;

// A `def` evaluated at run time (closure over its defining environment).
class FunctionValue : public Object {
 public:
  FunctionValue(const Stmt* def, std::shared_ptr<Env> closure, std::vector<Value> defaults)
      : def_(def), closure_(std::move(closure)), defaults_(std::move(defaults)) {}
  std::string TypeName() const override { return "function"; }
  const Stmt* def() const { return def_; }
  const std::shared_ptr<Env>& closure() const { return closure_; }
  const std::vector<Value>& defaults() const { return defaults_; }
  FunctionKind kind() const { return kind_; }
  void set_kind(FunctionKind k) { kind_ = k; }
  bool auto_scope() const { return auto_scope_; }
  void set_auto_scope(bool a) { auto_scope_ = a; }
  const std::shared_ptr<const ExternSpec>& extern_spec() const { return extern_spec_; }
  void set_extern_spec(std::shared_ptr<const ExternSpec> s) { extern_spec_ = std::move(s); }
  // @pl.function(attrs={"split": ...}): the split of every task of this kernel.
  const std::optional<trace::SplitMode>& split() const { return split_; }
  void set_split(std::optional<trace::SplitMode> s) { split_ = s; }
  // Parameter annotations, evaluated when the def ran.
  std::vector<Value>& annotations() { return annotations_; }
  const std::vector<Value>& annotations() const { return annotations_; }

 private:
  const Stmt* def_;
  std::shared_ptr<Env> closure_;
  std::vector<Value> defaults_;
  std::vector<Value> annotations_;
  FunctionKind kind_ = FunctionKind::kPlain;
  bool auto_scope_ = true;
  std::optional<trace::SplitMode> split_;
  std::shared_ptr<const ExternSpec> extern_spec_;
};

// `self.method` of a @pl.program class: calls prepend the program as `self`.
class BoundMethod : public Object {
 public:
  BoundMethod(std::shared_ptr<FunctionValue> fn, Value self)
      : fn_(std::move(fn)), self_(std::move(self)) {}
  std::string TypeName() const override { return "method"; }
  const std::shared_ptr<FunctionValue>& function() const { return fn_; }
  CallArgs WithSelf(const CallArgs& args) const {
    CallArgs out = args;
    out.positional.insert(out.positional.begin(), self_);
    out.positional_locs.insert(out.positional_locs.begin(), args.loc);
    out.positional_names.insert(out.positional_names.begin(), "self");
    return out;
  }

 private:
  std::shared_ptr<FunctionValue> fn_;
  Value self_;
};

// pl.jit / pl.jit.incore / pl.jit.inline, possibly with options.
class Decorator : public Object {
 public:
  Decorator(FunctionKind kind, bool auto_scope = true) : kind_(kind), auto_scope_(auto_scope) {}
  std::string TypeName() const override { return "decorator"; }
  FunctionKind kind() const { return kind_; }
  bool auto_scope() const { return auto_scope_; }
  const std::shared_ptr<const ExternSpec>& extern_spec() const { return extern_spec_; }
  void set_extern_spec(std::shared_ptr<const ExternSpec> s) { extern_spec_ = std::move(s); }
  // @pl.function(strict_ssa=True): every name of the function bound once.
  bool strict_ssa() const { return strict_ssa_; }
  void set_strict_ssa(bool s) { strict_ssa_ = s; }
  const std::optional<trace::SplitMode>& split() const { return split_; }
  void set_split(std::optional<trace::SplitMode> s) { split_ = s; }

 private:
  FunctionKind kind_;
  bool auto_scope_;
  bool strict_ssa_ = false;
  std::optional<trace::SplitMode> split_;
  std::shared_ptr<const ExternSpec> extern_spec_;
};

// Python's len(range(start, stop, step)) for step != 0, without overflow:
// the bounds may be anywhere in the 64-bit range.
inline unsigned __int128 RangeLength(int64_t start, int64_t stop, int64_t step) {
  const __int128 span = step > 0 ? __int128{stop} - start : __int128{start} - stop;
  const __int128 stride = step > 0 ? __int128{step} : -__int128{step};
  return span <= 0 ? 0 : static_cast<unsigned __int128>((span + stride - 1) / stride);
}

// pl.range / pl.parallel / pl.unroll / pl.pipeline / range(...)
class LoopSpec : public Object {
 public:
  enum class Kind { kPyRange, kRange, kParallel, kUnroll, kPipeline };
  LoopSpec(Kind kind, Value start, Value stop, Value step)
      : kind_(kind), start_(std::move(start)), stop_(std::move(stop)), step_(std::move(step)) {}
  std::string TypeName() const override {
    if (kind_ == Kind::kPyRange) return "range";
    return kind_ == Kind::kPipeline ? "pl.pipeline" : "pl.range";
  }
  Kind kind() const { return kind_; }
  // pl.pipeline's stage=: how many copies of the body one iteration runs.
  int64_t stages() const { return stages_; }
  void set_stages(int64_t stages) { stages_ = stages; }
  const Value& start() const { return start_; }
  const Value& stop() const { return stop_; }
  const Value& step() const { return step_; }
  // init_values= of pl.range / pl.parallel: the loop-carried values'
  // initial values (frontend-semantics: PyPTO's iter_args).
  const std::optional<std::vector<Value>>& init_values() const { return init_values_; }
  SourceLocation init_values_loc() const { return init_values_loc_; }
  void set_init_values(std::vector<Value> values, SourceLocation loc) {
    init_values_ = std::move(values);
    init_values_loc_ = loc;
  }

 private:
  Kind kind_;
  Value start_, stop_, step_;
  int64_t stages_ = 1;
  std::optional<std::vector<Value>> init_values_;
  SourceLocation init_values_loc_;
};

// pl.split(mode) / pl.cross_core_slot(slot_num=N)
class Optimization : public Object {
 public:
  std::string TypeName() const override { return "pl.optimization"; }
  std::optional<trace::SplitMode> split;
  std::optional<uint32_t> slot_num;
};

// pl.system.available_aiv_count() / available_cluster_count()
class AvailableCount : public Object {
 public:
  explicit AvailableCount(trace::BlockSymbol symbol) : symbol_(symbol) {}
  std::string TypeName() const override { return "available core count"; }
  trace::BlockSymbol symbol() const { return symbol_; }

 private:
  trace::BlockSymbol symbol_;
};

// `tensor[i, j]` read in orchestration code.
class ElementRef : public Object {
 public:
  ElementRef(std::shared_ptr<TensorRef> tensor, std::vector<int64_t> indices)
      : tensor_(std::move(tensor)), indices_(std::move(indices)) {}
  std::string TypeName() const override { return "tensor element"; }
  const std::shared_ptr<TensorRef>& tensor() const { return tensor_; }
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<TensorRef> tensor_;
  std::vector<int64_t> indices_;
};

// `tensor[i, j] OP literal` — a dispatch predicate.
class PredicateValue : public Object {
 public:
  explicit PredicateValue(trace::Predicate p) : predicate_(std::move(p)) {}
  std::string TypeName() const override { return "predicate"; }
  const trace::Predicate& predicate() const { return predicate_; }

 private:
  trace::Predicate predicate_;
};

// A tensor's window at device-integer offsets inside a task body
// (`x[b:b + 1, :]`, `pl.slice(x, shape, [i * 16, 0])` with i a device loop
// variable): loads and stores through it add its offsets to theirs, on the
// task's view of `base`.
class DeviceTensorView : public Object {
 public:
  DeviceTensorView(std::shared_ptr<TensorRef> base, std::vector<Value> offsets,
                   std::vector<int64_t> shape)
      : base_(std::move(base)), offsets_(std::move(offsets)), shape_(std::move(shape)) {}
  std::string TypeName() const override { return "pl.Tensor (a window at device offsets)"; }
  const std::shared_ptr<TensorRef>& base() const { return base_; }
  const std::vector<Value>& offsets() const { return offsets_; }
  const std::vector<int64_t>& shape() const { return shape_; }

 private:
  std::shared_ptr<TensorRef> base_;
  std::vector<Value> offsets_;  // ints or SymInts, one per dim of base
  std::vector<int64_t> shape_;
};

// What pl.at / pl.spmd / an incore call asks of its task.
struct TaskOptions {
  std::string name_hint;
  std::vector<Value> deps;  // TaskIds, TaskId arrays, None
  std::vector<std::shared_ptr<TensorRef>> no_dep;
  bool allow_early_resolve = false;
  bool sync_start = false;
  bool spmd = false;
  Value core_num;  // int or AvailableCount (spmd only)
  std::optional<trace::Predicate> predicate;
  std::optional<trace::SplitMode> split;
  std::optional<uint32_t> slot_num;
  // For the verifiers' messages: how the launch was written ('{m}' of
  // _validate_predicate_deps in hw-native-sys/pypto@e2d0f78a
  // python/pypto/language/parser/ast_parser.py) and where its arguments are.
  std::string method = "pl.at()";
  SourceLocation predicate_loc, deps_loc, no_dep_loc;
  std::vector<std::string> no_dep_names;
};

// pl.at(...) or pl.spmd(...) awaiting its `with`/`for`.
class TaskScopeSpec : public Object {
 public:
  explicit TaskScopeSpec(TaskOptions options) : options_(std::move(options)) {}
  std::string TypeName() const override { return options_.spmd ? "pl.spmd" : "pl.at"; }
  const TaskOptions& options() const { return options_; }

 private:
  TaskOptions options_;
};

// pl.manual_scope() or pl.scope(mode=...): a runtime scope.
class ManualScopeSpec : public Object {
 public:
  explicit ManualScopeSpec(bool manual = true) : manual_(manual) {}
  std::string TypeName() const override { return manual_ ? "pl.manual_scope" : "pl.scope"; }
  bool manual() const { return manual_; }

 private:
  bool manual_;
};

// pl.no_dep(t) at a kernel call's argument: that slot skips dependency
// tracking (NO_DEP), as no_dep_args= does for pl.at.
class NoDepMarker : public Object {
 public:
  explicit NoDepMarker(std::shared_ptr<TensorRef> tensor) : tensor_(std::move(tensor)) {}
  std::string TypeName() const override { return "pl.no_dep"; }
  const std::shared_ptr<TensorRef>& tensor() const { return tensor_; }

 private:
  std::shared_ptr<TensorRef> tensor_;
};

class RunConfigValue : public Object {
 public:
  explicit RunConfigValue(std::string platform) : platform_(std::move(platform)) {}
  std::string TypeName() const override { return "RunConfig"; }
  const std::string& platform() const { return platform_; }

 private:
  std::string platform_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_PL_VALUES_H_
