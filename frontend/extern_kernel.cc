// @pl.jit.extern: a kernel declared by its cost summary alone. Each call from
// the orchestration is one submit of a Kernel whose body is a CostSummary;
// pto_sim charges its time and executes nothing.
#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {

absl::StatusOr<ExternSpec> Interpreter::ReadExternSpec(const CallArgs& args) {
  ExternSpec spec;
  bool has_core_type = false, has_cost = false;
  if (!args.positional.empty()) {
    return Error(args.loc, "@pl.jit.extern takes keyword arguments only");
  }
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto& [name, v] = args.keywords[k];
    const SourceLocation loc = args.keyword_locs[k];
    if (name == "core_type") {
      auto* e = v.As<EnumValue>();
      if (!e || e->enum_name() != "pl.KernelType") {
        return Error(loc, "@pl.jit.extern core_type must be pl.KernelType.AIV, AIC or MIX");
      }
      spec.core_type = e->member() == "AIC"   ? trace::AIC
                       : e->member() == "MIX" ? trace::MIX
                                              : trace::AIV;
      has_core_type = true;
    } else if (name == "block_num") {
      if (auto* avail = v.As<AvailableCount>()) {
        spec.block_symbol = avail->symbol();
      } else if (v.is_integral() && v.i() >= 1) {
        spec.block_num = static_cast<uint32_t>(v.i());
      } else {
        return Error(loc,
                     "@pl.jit.extern block_num must be a positive integer or "
                     "pl.system.available_aiv_count() / available_cluster_count()");
      }
    } else if (name == "cube_flops" || name == "vector_elements") {
      if (!v.is_number() || v.f() < 0) {
        return Error(loc, absl::StrCat("@pl.jit.extern ", name, " must be a number >= 0"));
      }
      name == "cube_flops" ? spec.cost.set_cube_flops(v.f()) : spec.cost.set_vector_elements(v.f());
      has_cost |= v.f() > 0;
    } else if (name == "bytes_in" || name == "bytes_out" || name == "fixed_cycles" ||
               name == "barrier_phases") {
      if (!v.is_integral() || v.i() < 0) {
        return Error(loc, absl::StrCat("@pl.jit.extern ", name, " must be an integer >= 0"));
      }
      const uint64_t n = static_cast<uint64_t>(v.i());
      if (name == "bytes_in") spec.cost.set_bytes_in(n);
      if (name == "bytes_out") spec.cost.set_bytes_out(n);
      if (name == "fixed_cycles") spec.cost.set_fixed_cycles(n);
      if (name == "barrier_phases") spec.cost.set_barrier_phases(static_cast<uint32_t>(n));
      has_cost |= name != "barrier_phases" && n > 0;
    } else {
      return Error(loc, absl::StrCat("@pl.jit.extern does not accept '", name,
                                     "'; valid: core_type, block_num, cube_flops, "
                                     "vector_elements, bytes_in, bytes_out, barrier_phases, "
                                     "fixed_cycles"));
    }
  }
  if (!has_core_type) {
    return Error(args.loc,
                 "@pl.jit.extern requires core_type= (pl.KernelType.AIV, AIC or MIX): the "
                 "runtime dispatches the kernel by its shape");
  }
  if (!has_cost) {
    return Error(args.loc,
                 "@pl.jit.extern needs a cost: cube_flops, vector_elements, bytes_in/bytes_out "
                 "or fixed_cycles (AICore cycles, which override the rest)");
  }
  return spec;
}

namespace {

// The task keywords an extern call takes besides the kernel's parameters.
struct ExternTaskOptions {
  std::vector<Value> deps;
  SourceLocation deps_loc;
  bool allow_early_resolve = false;
  bool sync_start = false;
  std::string name_hint;
};

}  // namespace

absl::StatusOr<Value> Interpreter::CallExtern(const std::shared_ptr<FunctionValue>& fn,
                                              const CallArgs& call) {
  const Stmt& def = *fn->def();
  const ExternSpec& spec = *fn->extern_spec();
  // deps= / allow_early_resolve= / sync_start= / name_hint= belong to the
  // task (as on pl.spmd); the other arguments bind the kernel's parameters.
  CallArgs args = call;
  args.keywords.clear();
  args.keyword_locs.clear();
  args.keyword_literal.clear();
  ExternTaskOptions task;
  for (size_t k = 0; k < call.keywords.size(); ++k) {
    const auto& [name, v] = call.keywords[k];
    const SourceLocation loc = call.keyword_locs[k];
    if (name == "deps") {
      if (!v.is_sequence()) {
        return Error(loc, "deps= must be a list / tuple / comprehension of TaskId values");
      }
      task.deps = v.items();
      task.deps_loc = loc;
    } else if (name == "allow_early_resolve" || name == "sync_start") {
      if (!v.is_bool()) {
        return Error(loc, absl::StrCat("@pl.jit.extern call: ", name, " must be True or False"));
      }
      (name == "sync_start" ? task.sync_start : task.allow_early_resolve) = v.b();
    } else if (name == "name_hint") {
      if (!v.is_str()) return Error(loc, "@pl.jit.extern call: name_hint must be a string");
      task.name_hint = v.s();
    } else {
      args.keywords.push_back(call.keywords[k]);
      args.keyword_locs.push_back(loc);
      if (k < call.keyword_literal.size()) args.keyword_literal.push_back(call.keyword_literal[k]);
    }
  }
  PTOC_ASSIGN_OR_RETURN(env, BindParams(*fn, args));
  trace::Kernel kernel;
  kernel.set_name(def.name);
  kernel.set_core_type(spec.core_type);
  *kernel.mutable_cost() = spec.cost;
  kernel.set_origin(Origin(def.loc));
  const int kid = program_.AddKernel(std::move(kernel));

  trace::Submit submit;
  submit.set_name(task.name_hint.empty() ? def.name : task.name_hint);
  const int aic = spec.core_type == trace::AIV ? -1 : kid;
  const int aiv = spec.core_type == trace::AIC ? -1 : kid;
  const int aiv1 = spec.core_type == trace::MIX ? kid : -1;
  submit.add_kernel_ids(aic), submit.add_kernel_ids(aiv), submit.add_kernel_ids(aiv1);
  if (spec.block_symbol != trace::BLOCK_SYMBOL_UNSPECIFIED) {
    submit.set_block_symbol(spec.block_symbol);
  } else {
    submit.set_block_num(spec.block_num);
  }
  std::vector<uint32_t> written;
  std::vector<trace::Arg> scalars;  // scalars follow the tensors
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Value v = *env->Lookup(def.params[i].name);
    auto* a = fn->annotations()[i].As<Annotation>();
    if (auto ref = v.AsShared<TensorRef>()) {
      const auto param = a ? a->direction() : trace::KernelParam::IN;
      trace::TensorArg* t = submit.add_args()->mutable_tensor();
      t->set_tensor_id(ref->tensor_id());
      if (!ref->is_whole()) {
        for (int64_t o : ref->offsets()) t->add_offsets(o);
        for (int64_t s : ref->shape()) t->add_shape(s);
      }
      t->set_direction(launch_->CallSiteDirection(param, ref->tensor_id(), false));
      if (param != trace::KernelParam::IN) written.push_back(ref->tensor_id());
    } else if (i == 0 && def.params[0].name == "self" && v.As<Namespace>()) {
      continue;  // a @pl.program method's program
    } else if (v.is_number()) {
      trace::Arg arg;
      v.is_float() ? arg.mutable_scalar()->set_f(v.f()) : arg.mutable_scalar()->set_i(v.i());
      scalars.push_back(std::move(arg));
    } else {
      return Error(args.ArgLoc(i), absl::StrCat("argument '", def.params[i].name,
                                                "' of an extern kernel must be a tensor or a "
                                                "number, got ",
                                                v.TypeName()));
    }
  }
  for (auto& s : scalars) *submit.add_args() = std::move(s);
  PTOC_ASSIGN_OR_RETURN(deps, ResolveDeps(task.deps, task.deps.empty() ? args.loc : task.deps_loc));
  for (uint32_t d : deps) submit.add_deps(d);
  submit.set_sync_start(task.sync_start);
  submit.set_allow_early_resolve(task.allow_early_resolve);
  submit.set_origin(Origin(args.loc));
  const int index = launch_->AddSubmit(std::move(submit));
  launch_->NoteWrites(written);
  launch_->NoteTaskWrites(index, written);
  ++task_sites_;
  return Value::Obj(
      std::make_shared<TaskIdValue>(launch_->serial(), index, launch_->current_scope()));
}

}  // namespace pto::ptoc
