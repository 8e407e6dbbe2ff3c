// pl.pipeline(N, stage=F) in a kernel body, lowered as upstream's
// LowerPipelineLoops pass does (hw-native-sys/pypto@e2d0f78a
// docs/en/dev/passes/28-lower_pipeline_loops.md): a main loop of stride
// F * step whose body is F copies of the original one, copy k at loop
// variable i + k * step, then a tail for the iterations that do not fill a
// group of F. Each copy is interpreted anew, so its tiles are new registers.
//
// With compile-time bounds the tail is T % F copies flattened after the loop.
// With device bounds upstream dispatches the tail through an if-cascade on the
// remainder count; ptoc has no device-side `if`, so the tail is a second device
// loop over [main_end, stop) with one copy as its body, which runs fewer than F
// times and computes the same values.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"
#include "frontend/name_analysis.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

trace::IntExpr Constant(int64_t v) {
  trace::IntExpr e;
  e.set_constant(v);
  return e;
}

absl::StatusOr<trace::IntExpr> Apply(trace::IntExpr::BinOp op, const trace::IntExpr& a,
                                     const trace::IntExpr& b) {
  return ToIntExpr(IntBinary(op, a, b));
}

// The end of the main loop, start + (T // F) * F * step with
// T = max(0, ceil((stop - start) / step)), as a device expression (step > 0).
absl::StatusOr<trace::IntExpr> DynamicMainEnd(const trace::IntExpr& start,
                                              const trace::IntExpr& stop, int64_t step,
                                              int64_t stages) {
  PTOC_ASSIGN_OR_RETURN(span, Apply(trace::IntExpr::SUB, stop, start));
  PTOC_ASSIGN_OR_RETURN(rounded, Apply(trace::IntExpr::ADD, span, Constant(step - 1)));
  PTOC_ASSIGN_OR_RETURN(trips, Apply(trace::IntExpr::FLOOR_DIV, rounded, Constant(step)));
  // An empty range (stop < start) must not give a negative main trip count,
  // or the remainder loop would start below `start`.
  PTOC_ASSIGN_OR_RETURN(clamped, Apply(trace::IntExpr::MAX, trips, Constant(0)));
  PTOC_ASSIGN_OR_RETURN(groups, Apply(trace::IntExpr::FLOOR_DIV, clamped, Constant(stages)));
  PTOC_ASSIGN_OR_RETURN(length, Apply(trace::IntExpr::MUL, groups, Constant(stages * step)));
  return Apply(trace::IntExpr::ADD, start, length);
}

}  // namespace

absl::StatusOr<Interpreter::Flow> Interpreter::RunPipelineLoop(const Stmt& stmt,
                                                               const LoopSpec& spec,
                                                               const std::shared_ptr<Env>& env) {
  const int64_t stages = spec.stages();
  if (stages == 1) return RunDeviceLoop(stmt, spec, env);  // nothing to replicate
  // Its body is cloned: pl.MemRef refuses it (memref.cc).
  struct BodyScope {
    int* depth;
    explicit BodyScope(int* d) : depth(d) { ++*depth; }
    ~BodyScope() { --*depth; }
  } scope(&pipeline_bodies_);
  // MakeLoop checked the step: a nonzero compile-time int, > 0 for device bounds.
  const int64_t step = spec.step().i();
  int64_t stride = 0;
  if (__builtin_mul_overflow(stages, step, &stride)) {
    return Error(stmt.value->loc, absl::StrCat("pl.pipeline() stage * step (", stages, " * ", step,
                                               ") overflows a 64-bit integer"));
  }
  DeviceLoopShape main_loop;
  main_loop.step = Constant(stride);
  main_loop.clones = stages;
  main_loop.clone_step = step;
  PTOC_ASSIGN_OR_RETURN(start, ToIntExpr(spec.start()));
  PTOC_ASSIGN_OR_RETURN(stop, ToIntExpr(spec.stop()));
  main_loop.start = start;

  if (!spec.start().is_integral() || !spec.stop().is_integral()) {
    PTOC_ASSIGN_OR_RETURN(main_end, DynamicMainEnd(start, stop, step, stages));
    main_loop.stop = main_end;
    std::vector<Value> carried;
    PTOC_RETURN_IF_ERROR(TraceDeviceLoop(stmt, spec, main_loop, env, &carried));
    DeviceLoopShape rest;
    rest.start = main_end;
    rest.stop = stop;
    rest.step = Constant(step);
    // The remainder loop starts from what the main loop leaves.
    LoopSpec rest_spec(LoopSpec::Kind::kRange, Value(), Value(), Value());
    if (spec.init_values()) rest_spec.set_init_values(carried, spec.init_values_loc());
    PTOC_RETURN_IF_ERROR(TraceDeviceLoop(stmt, rest_spec, rest, env, nullptr));
    return Flow::kNormal;
  }

  const int64_t first = spec.start().i();
  const __int128 trips = RangeLength(first, spec.stop().i(), step);
  const __int128 groups = trips / stages;
  // Within one step past `stop`, which may not fit next to the int64 limits.
  const __int128 end = first + groups * stages * step;
  if (end > INT64_MAX || end < INT64_MIN) {
    return Error(stmt.value->loc, "pl.pipeline() bounds are too close to the 64-bit limits");
  }
  const int64_t main_end = static_cast<int64_t>(end);
  std::vector<Value> carried = spec.init_values().value_or(std::vector<Value>{});
  if (groups > 0) {  // else no main loop at all, only the tail copies
    main_loop.stop = Constant(main_end);
    PTOC_RETURN_IF_ERROR(TraceDeviceLoop(stmt, spec, main_loop, env, &carried));
  }
  const int64_t tail = static_cast<int64_t>(trips % stages);
  if (groups > 0 && tail == 0) return Flow::kNormal;
  PTOC_RETURN_IF_ERROR(RunFlatClones(stmt, spec, main_end, tail, step, std::move(carried), env));
  return Flow::kNormal;
}

absl::Status Interpreter::RunFlatClones(const Stmt& stmt, const LoopSpec& spec, int64_t first,
                                        int64_t clones, int64_t step,
                                        std::vector<Value> iter_values,
                                        const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(targets, ReadLoopTargets(stmt, spec));
  for (size_t j = 0; j < targets.iter_args.size(); ++j) {
    env->Set(targets.iter_args[j], iter_values[j]);
  }
  if (clones > 0) {
    PTOC_ASSIGN_OR_RETURN(last, RunClones(stmt, targets, Value::Int(first), clones, step, env));
    if (last.yielded) {
      iter_values = *last.yielded;
    } else {
      for (size_t j = 0; j < targets.iter_args.size(); ++j) {
        iter_values[j] = *env->Lookup(targets.iter_args[j]);
      }
    }
  }
  if (!spec.init_values()) return absl::OkStatus();
  return BindIterResults(YieldAssignment(stmt.body), targets.iter_args, iter_values, env);
}

}  // namespace pto::ptoc
