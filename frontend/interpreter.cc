#include "frontend/interpreter.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "common/ring_limits.h"
#include "common/tensor_fill.h"
#include "frontend/memref.h"
#include "frontend/name_analysis.h"
#include "frontend/parser.h"
#include "frontend/pl_args.h"
#include "frontend/status_macros.h"
#include "frontend/tile_ops.h"
#include "frontend/verifiers.h"

namespace pto::ptoc {

const Value* Env::Lookup(const std::string& name) const {
  for (const Env* e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) return &it->second;
  }
  return nullptr;
}

Interpreter::Interpreter(const SourceFile& source, std::unique_ptr<ReferenceEvaluator> reference)
    : source_(source), reference_(std::move(reference)), program_(source.name()) {
  builtins_ = std::make_shared<Env>(nullptr);
  globals_ = std::make_shared<Env>(builtins_);
  AddPythonBuiltins(this, builtins_.get());
  pl_ = MakePlModule(this);
  torch_ = MakeTorchModule();
  runtime_ = std::make_shared<Namespace>("pypto.runtime");
  runtime_->AddFunction("RunConfig", [this](const CallArgs& args) -> absl::StatusOr<Value> {
    std::string platform;
    if (const Value* p = args.Keyword("platform")) {
      if (!p->is_str()) return Error(args.loc, "RunConfig(platform=...) must be a string");
      platform = p->s();
    } else if (!args.positional.empty() && args.positional[0].is_str()) {
      platform = args.positional[0].s();
    }
    // Ring sizes (pypto@e2d0f78a docs/en/user/performance/05-memory.md): one value for
    // all four rings or one per ring.
    const std::pair<const char*, int> rings[] = {
        {"ring_task_window", 1}, {"ring_heap", 2}, {"ring_dep_pool", 3}};
    for (const auto& [key, field] : rings) {
      const Value* v = args.Keyword(key);
      if (!v) continue;
      std::vector<Value> items = v->is_sequence() ? v->items() : std::vector<Value>{*v};
      bool ok = items.size() == 1 || items.size() == 4;
      for (const Value& item : items) ok &= item.is_integral() && item.i() >= 1;
      if (!ok) {
        return Error(args.KeywordLoc(key),
                     absl::StrCat("RunConfig(", key,
                                  "=...) must be a positive integer (all four rings) or a list "
                                  "of 4 positive integers (one per ring, by scope depth "
                                  "min(depth, 3)), got ",
                                  v->Repr()));
      }
      // The runtime's own ranges (common/ring_limits.h), which pto_sim
      // enforces when it reads the stream.
      for (const Value& item : items) {
        const int64_t n = item.i();
        std::string why;
        if (field == 1 && (n < kMinTaskWindow || n > kMaxTaskWindow || !IsPowerOfTwo(n))) {
          why = absl::StrCat("a power of two in [", kMinTaskWindow, ", ", kMaxTaskWindow, "]");
        } else if (field == 2 && (n < kMinHeapBytes || n > kMaxHeapBytes)) {
          why = absl::StrCat("in [", kMinHeapBytes, ", ", kMaxHeapBytes, "] bytes");
        } else if (field == 3 && (n < kMinDepPool || n > kMaxDepPool)) {
          why = absl::StrCat("in [", kMinDepPool, ", ", kMaxDepPool, "] entries");
        }
        if (!why.empty()) {
          return Error(args.KeywordLoc(key),
                       absl::StrCat("RunConfig(", key, "=...) value ", n,
                                    " is outside the runtime's range: each entry must be ", why,
                                    " (RuntimeEnv::validate of the runtime)"));
        }
      }
      trace::RingSizes* sizes = program_.mutable_ring_sizes();
      auto* out = field == 1   ? sizes->mutable_task_window()
                  : field == 2 ? sizes->mutable_heap_bytes()
                               : sizes->mutable_dep_pool();
      out->Clear();
      for (const Value& item : items) out->Add(static_cast<uint64_t>(item.i()));
    }
    // Other RunConfig options (swimlane, dep_gen, ...) only affect the device
    // tooling; pto_sim's own flags replace them.
    program_.set_platform(platform);
    return Value::Obj(std::make_shared<RunConfigValue>(platform));
  });
}

absl::Status Interpreter::Run(const Module& module) {
  auto flow = ExecBlock(module.body, globals_, BlockKind::kFunctionBody);
  if (!flow.ok()) return flow.status();
  if (*flow == Flow::kReturn) return Error({1, 1}, "'return' outside a function");
  return absl::OkStatus();
}

absl::Status Interpreter::CheckGmShape(const std::vector<int64_t>& shape, const std::string& what,
                                       SourceLocation loc) const {
  // pto_sim's trace reader enforces the same limits on every header tensor.
  if (shape.empty() || shape.size() > 5) {
    return Error(loc, absl::StrCat(what, " has rank ", shape.size(),
                                   "; a GM tensor of the runtime has 1 to 5 dims "
                                   "(MAX_TENSOR_DIMS), so give it a shape of rank 1..5"));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1) {
      return Error(loc, absl::StrCat(what, " has size ", shape[d], " in dim ", d,
                                     "; the runtime allocates no empty tensors, so give every "
                                     "dim at least one element"));
    }
  }
  return absl::OkStatus();
}

void Interpreter::SyncGm() {
  const trace::StreamHeader& header = program_.header();
  for (; gm_tensors_ < header.tensors_size(); ++gm_tensors_) {
    const trace::Tensor& t = header.tensors(gm_tensors_);
    const size_t end = t.gm_addr() + t.size_bytes();
    if (gm_.size() < end) gm_.resize(end, 0);
    absl::Status s = FillTensor(t.init(), t.dtype(), t.size_bytes() / DTypeSize(t.dtype()),
                                gm_.data() + t.gm_addr());
    if (!s.ok() && reference_failure_.empty()) reference_failure_ = std::string(s.message());
  }
}

bool Interpreter::WrittenByATask(uint32_t tensor_id, bool this_launch_only) {
  const auto scan = [](const std::vector<trace::StreamRecord>& records, WrittenTensors* seen) {
    for (; seen->scanned < records.size(); ++seen->scanned) {
      const trace::StreamRecord& record = records[seen->scanned];
      if (!record.has_submit()) continue;
      for (const trace::Arg& arg : record.submit().args()) {
        if (!arg.has_tensor()) continue;
        const trace::ArgDirection d = arg.tensor().direction();
        if (d == trace::OUTPUT || d == trace::INOUT || d == trace::OUTPUT_EXISTING) {
          seen->ids.insert(arg.tensor().tensor_id());
        }
      }
    }
  };
  if (launch_ != nullptr) {
    if (written_now_.launch != launch_count_) written_now_ = WrittenTensors{0, launch_count_, {}};
    scan(launch_->records(), &written_now_);
    if (written_now_.ids.count(tensor_id)) return true;
  }
  if (this_launch_only) return false;
  scan(program_.records(), &written_before_);
  return written_before_.ids.count(tensor_id) > 0;
}

absl::Status Interpreter::CheckControlSource(uint32_t tensor_id, SourceLocation loc) {
  if (!timing_only_) return absl::OkStatus();
  const trace::Tensor& t = program_.tensor(tensor_id);
  if (WrittenByATask(tensor_id, /*this_launch_only=*/false)) {
    return Error(loc, absl::StrCat("'", t.name(),
                                   "' decides control here, but a task writes it first: a "
                                   "timing-only run has no device values, so run functionally "
                                   "(without --timing-only / meta tensors) to follow it"));
  }
  if (t.init().contents_case() == trace::TensorInit::CONTENTS_NOT_SET) {
    return Error(loc, absl::StrCat("'", t.name(),
                                   "' decides control here, but this timing-only run has no "
                                   "contents for it (a meta tensor, or --timing-only): pass it as "
                                   "a CPU tensor or TensorSpec(init_value=...), or run "
                                   "functionally"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Interpreter::ReadDeviceElement(uint32_t tensor_id,
                                                     const std::vector<int64_t>& indices,
                                                     SourceLocation loc) {
  if (!in_launch() || in_kernel()) {
    return Error(loc, "device tensor elements can only be read in the orchestration body");
  }
  PTOC_RETURN_IF_ERROR(CheckControlSource(tensor_id, loc));
  trace::HostRead read;
  read.set_tensor_id(tensor_id);
  for (int64_t i : indices) read.add_indices(i);
  read.set_origin(Origin(loc));
  launch_->AddHostRead(read);
  if (timing_only_) {
    // The host's value (CheckControlSource): the tensor's initial contents.
    const trace::Tensor& t = program_.tensor(tensor_id);
    auto [it, fresh] = host_values_.try_emplace(tensor_id);
    if (fresh) {
      it->second.resize(t.size_bytes());
      PTOC_RETURN_IF_ERROR(FillTensor(t.init(), t.dtype(), t.size_bytes() / DTypeSize(t.dtype()),
                                      it->second.data()));
    }
    int64_t flat = 0;
    for (int d = 0; d < t.shape_size(); ++d) flat = flat * t.shape(d) + indices[d];
    const uint8_t* elem = it->second.data() + flat * DTypeSize(t.dtype());
    if (IsFloat(t.dtype())) return Value::Float(LoadAsDouble(t.dtype(), elem));
    return Value::Int(LoadAsInt64(t.dtype(), elem));
  }
  // The orchestrator waits for the element's producer; at compile time the
  // reference runs the tasks submitted so far, in program order -- unless
  // none of them writes the tensor: its value is then what GM held when the
  // launch began.
  SyncGm();
  if (!WrittenByATask(tensor_id, /*this_launch_only=*/true)) {
    const trace::Tensor& t = program_.tensor(tensor_id);
    int64_t flat = 0;
    for (int d = 0; d < t.shape_size(); ++d) flat = flat * t.shape(d) + indices[d];
    const uint8_t* elem = gm_.data() + t.gm_addr() + flat * DTypeSize(t.dtype());
    if (IsFloat(t.dtype())) return Value::Float(LoadAsDouble(t.dtype(), elem));
    return Value::Int(LoadAsInt64(t.dtype(), elem));
  }
  std::vector<uint8_t> gm = gm_;
  absl::Status s = reference_failure_.empty()
                       ? reference_->RunLaunch(program_.header(), launch_->records(), &gm)
                       : absl::FailedPreconditionError(reference_failure_);
  if (!s.ok()) {
    return Error(loc, absl::StrCat("reading a device value in the orchestration needs ptoc's "
                                   "reference evaluation, which failed: ",
                                   s.message()));
  }
  const trace::Tensor& t = program_.tensor(tensor_id);
  int64_t flat = 0;
  for (int d = 0; d < t.shape_size(); ++d) flat = flat * t.shape(d) + indices[d];
  const uint8_t* elem = gm.data() + t.gm_addr() + flat * DTypeSize(t.dtype());
  if (IsFloat(t.dtype())) return Value::Float(LoadAsDouble(t.dtype(), elem));
  return Value::Int(LoadAsInt64(t.dtype(), elem));
}

absl::StatusOr<Value> ReadElementRef(Interpreter* interp, const ElementRef& el,
                                     SourceLocation loc) {
  std::vector<int64_t> indices = el.indices();
  for (size_t d = 0; d < indices.size(); ++d) indices[d] += el.tensor()->offsets()[d];
  return interp->ReadDeviceElement(el.tensor()->tensor_id(), indices, loc);
}

// ---------------------------------------------------------------------------
// Statements

absl::StatusOr<Interpreter::Flow> Interpreter::ExecBlock(const Block& block,
                                                         const std::shared_ptr<Env>& env,
                                                         BlockKind kind) {
  cursors_.push_back({&block, 0, kind});
  const size_t depth = cursors_.size();
  absl::StatusOr<Flow> result = Flow::kNormal;
  for (size_t i = 0; i < block.size(); ++i) {
    cursors_[depth - 1].index = i;
    result = Exec(*block[i], env);
    if (!result.ok() || *result != Flow::kNormal) break;
  }
  cursors_.resize(depth - 1);
  return result;
}

bool Interpreter::MayReadLater(const std::string& name) const {
  for (size_t k = cursors_.size(); k-- > 0;) {
    const BlockCursor& c = cursors_[k];
    const NameUse use = FirstUse(*c.block, c.index + 1, name);
    if (use == NameUse::kRead) return true;
    if (use == NameUse::kDead) return false;
    // The next iteration of a loop body starts at its top again.
    if (c.kind == BlockKind::kRepeated && FirstUse(*c.block, 0, name) == NameUse::kRead) {
      return true;
    }
    if (c.kind == BlockKind::kFunctionBody) return false;
  }
  return false;
}

absl::StatusOr<Interpreter::Flow> Interpreter::Exec(const Stmt& stmt,
                                                    const std::shared_ptr<Env>& env) {
  current_loc_ = stmt.loc;
  // Nested loops each under the per-loop limit can still multiply into hours.
  if (++statements_run_ > max_statements_) {
    return Error(stmt.loc, absl::StrCat("the description runs more than ", max_statements_,
                                        " statements at compile time (nested loops?); ptoc "
                                        "unrolls everything, so keep the work under that"));
  }
  switch (stmt.kind) {
    case StmtKind::kExpr: {
      PTOC_ASSIGN_OR_RETURN(v, Eval(*stmt.value, env));
      (void)v;
      return Flow::kNormal;
    }
    case StmtKind::kAssign: {
      // `x = pl.yield_(v)` names the loop's result (Yield reads this).
      yield_assignment_ = IsYieldCall(*stmt.value) ? &stmt : nullptr;
      auto value = Eval(*stmt.value, env);
      yield_assignment_ = nullptr;
      if (!value.ok()) return value.status();
      const Value& v = *value;
      const bool yield = IsYieldCall(*stmt.value);
      for (const auto& target : stmt.targets) {
        PTOC_RETURN_IF_ERROR(Assign(*target, yield ? YieldedFor(*target, v) : v, env));
      }
      return Flow::kNormal;
    }
    case StmtKind::kAnnAssign: {
      PTOC_ASSIGN_OR_RETURN(annotation, Eval(*stmt.annotation, env));
      if (!stmt.value) return Flow::kNormal;
      PTOC_ASSIGN_OR_RETURN(v, Eval(*stmt.value, env));
      auto* a = annotation.As<Annotation>();
      if (a && a->space() != trace::MEM_SPACE_UNSPECIFIED && v.As<Tile>()) {
        PTOC_ASSIGN_OR_RETURN(tile, AsTile(v, stmt.value->loc));
        PTOC_RETURN_IF_ERROR(ApplyTileAnnotation(this, *tile, a->space(), stmt.annotation->loc));
        if (!a->memref().is_none()) {
          PTOC_RETURN_IF_ERROR(
              BindTileToMemRef(this, *tile, a->memref(), a->space(), stmt.annotation->loc));
        }
      } else if (a && !a->memref().is_none()) {
        return Error(stmt.value->loc, absl::StrCat("a pl.MemRef places tiles of a kernel body; "
                                                   "this value is ",
                                                   v.TypeName()));
      }
      PTOC_RETURN_IF_ERROR(Assign(*stmt.targets[0], v, env));
      return Flow::kNormal;
    }
    case StmtKind::kAugAssign: {
      PTOC_ASSIGN_OR_RETURN(current, Eval(*stmt.targets[0], env));
      PTOC_ASSIGN_OR_RETURN(rhs, Eval(*stmt.value, env));
      PTOC_ASSIGN_OR_RETURN(result, Binary(stmt.name, current, rhs, stmt.loc));
      PTOC_RETURN_IF_ERROR(Assign(*stmt.targets[0], result, env));
      return Flow::kNormal;
    }
    case StmtKind::kImport:
    case StmtKind::kImportFrom:
      PTOC_RETURN_IF_ERROR(ExecImport(stmt, env));
      return Flow::kNormal;
    case StmtKind::kFunctionDef:
      PTOC_RETURN_IF_ERROR(ExecFunctionDef(stmt, env));
      return Flow::kNormal;
    case StmtKind::kReturn:
      if (call_depth_ == 0) return Error(stmt.loc, "'return' outside a function");
      if (stmt.value) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*stmt.value, env));
        return_value_ = v;
      } else {
        return_value_ = Value::None();
      }
      return Flow::kReturn;
    case StmtKind::kIf:
      return ExecIf(stmt, env);
    case StmtKind::kFor:
      return ExecFor(stmt, env);
    case StmtKind::kWith:
      return ExecWith(stmt, env);
    case StmtKind::kPass:
      return Flow::kNormal;
    case StmtKind::kBreak:
      return Flow::kBreak;
    case StmtKind::kContinue:
      return Flow::kContinue;
    case StmtKind::kClassDef:
      PTOC_RETURN_IF_ERROR(ExecClassDef(stmt, env));
      return Flow::kNormal;
    case StmtKind::kAssert: {
      PTOC_ASSIGN_OR_RETURN(v, Eval(*stmt.value, env));
      PTOC_ASSIGN_OR_RETURN(ok, Truthy(v, stmt.value->loc));
      if (!ok) {
        std::string message = "assertion failed";
        if (stmt.message) {
          PTOC_ASSIGN_OR_RETURN(m, Eval(*stmt.message, env));
          message = absl::StrCat("assertion failed: ", m.is_str() ? m.s() : m.Repr());
        }
        return Error(stmt.loc, message);
      }
      return Flow::kNormal;
    }
  }
  return Error(stmt.loc, "internal error: unknown statement kind");
}

absl::Status Interpreter::ExecImport(const Stmt& stmt, const std::shared_ptr<Env>& env) {
  for (size_t i = 0; i < stmt.names.size(); ++i) {
    const std::string& name = stmt.names[i];
    const std::string& alias = stmt.aliases[i];
    if (stmt.kind == StmtKind::kImport) {
      if (name == "pypto.language" && !alias.empty()) {
        env->Set(alias, Value::Obj(pl_));
      } else if (name == "torch") {
        env->Set(alias.empty() ? "torch" : alias, Value::Obj(torch_));
      } else if (name == "math" || name == "sys" || name == "os" || name == "argparse") {
        return Error(stmt.loc, absl::StrCat("module '", name, "' is not available in ptoc"));
      } else {
        return Error(stmt.loc,
                     absl::StrCat("ptoc cannot import '", name,
                                  "'; supported: 'import pypto.language as pl', 'import torch', "
                                  "'from pypto.runtime import RunConfig'"));
      }
      continue;
    }
    // from M import name
    if (stmt.name == "pypto" && name == "language") {
      env->Set(alias.empty() ? name : alias, Value::Obj(pl_));
    } else if (stmt.name == "pypto.runtime" && name == "RunConfig") {
      env->Set(alias.empty() ? name : alias, *runtime_->Get("RunConfig"));
    } else {
      return Error(stmt.loc, absl::StrCat("ptoc cannot import '", name, "' from '", stmt.name,
                                          "'; supported: 'from pypto.runtime import RunConfig'"));
    }
  }
  return absl::OkStatus();
}

absl::Status Interpreter::ExecFunctionDef(const Stmt& stmt, const std::shared_ptr<Env>& env) {
  std::vector<Value> defaults;
  std::vector<Value> annotations;
  for (const Param& p : stmt.params) {
    if (p.default_value) {
      PTOC_ASSIGN_OR_RETURN(d, Eval(*p.default_value, env));
      defaults.push_back(d);
    } else {
      defaults.push_back(Value());
    }
    if (p.annotation) {
      PTOC_ASSIGN_OR_RETURN(a, Eval(*p.annotation, env));
      annotations.push_back(a);
    } else {
      annotations.push_back(Value());
    }
  }
  auto fn = std::make_shared<FunctionValue>(&stmt, env, std::move(defaults));
  fn->annotations() = std::move(annotations);
  // Decorators apply bottom-up; only pl.jit and its variants are accepted.
  for (auto it = stmt.decorators.rbegin(); it != stmt.decorators.rend(); ++it) {
    PTOC_ASSIGN_OR_RETURN(d, Eval(**it, env));
    if (auto* bare = d.As<BuiltinFunction>(); bare && bare->name() == "pl.function") {
      // A bare @pl.function: pl.function(f) makes f Opaque (program_form.cc).
      CallArgs call;
      call.loc = (*it)->loc;
      call.positional.push_back(Value::Obj(fn));
      call.positional_locs.push_back((*it)->loc);
      PTOC_RETURN_IF_ERROR(bare->Call(call).status());
      continue;
    }
    auto* deco = d.As<Decorator>();
    if (!deco) {
      return Error((*it)->loc,
                   absl::StrCat("decorator of type '", d.TypeName(),
                                "' is not supported; ptoc accepts @pl.jit, @pl.jit.incore and "
                                "@pl.jit.inline"));
    }
    fn->set_kind(deco->kind());
    fn->set_auto_scope(deco->auto_scope());
    fn->set_split(deco->split());
    if (deco->strict_ssa()) PTOC_RETURN_IF_ERROR(CheckStrictSsa(stmt, source_));
    if (deco->kind() == FunctionKind::kExtern) {
      if (!deco->extern_spec()) {
        return Error((*it)->loc,
                     "@pl.jit.extern needs its cost summary, e.g. "
                     "@pl.jit.extern(core_type=pl.KernelType.AIC, cube_flops=2 * M * N * K)");
      }
      fn->set_extern_spec(deco->extern_spec());
    }
  }
  env->Set(stmt.name, Value::Obj(fn));
  return absl::OkStatus();
}

absl::StatusOr<Interpreter::Flow> Interpreter::ExecIf(const Stmt& stmt,
                                                      const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(test, Eval(*stmt.value, env));
  PTOC_RETURN_IF_ERROR(CheckArmYields(stmt));
  if (in_kernel()) {
    if (auto* sym = test.As<SymInt>()) return RunDeviceIf(stmt, sym->expr(), env);
  }
  PTOC_ASSIGN_OR_RETURN(taken, Truthy(test, stmt.value->loc));
  const Block& branch = taken ? stmt.body : stmt.orelse;
  if (branch.empty()) return Flow::kNormal;
  // Each branch of the orchestration is an AUTO scope (pypto@e2d0f78a
  // docs/en/user/tasks/01-scopes.md), except inside
  // a manual scope; an elif is an if nested in the else branch.
  const bool scoped = in_launch() && !in_kernel() && !launch_->in_manual_scope();
  if (scoped) launch_->BeginScope(trace::ScopeBegin::AUTO);
  auto flow = RunArm(branch, env);
  if (scoped) launch_->EndScope();
  return flow;
}

absl::StatusOr<Interpreter::Flow> Interpreter::ExecFor(const Stmt& stmt,
                                                       const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(iter, Eval(*stmt.value, env));
  if (auto* spec = iter.As<TaskScopeSpec>()) {
    if (!spec->options().spmd) {
      return Error(stmt.value->loc, "pl.at is a 'with' scope, not a loop");
    }
    if (in_kernel()) return Error(stmt.value->loc, "pl.spmd cannot be nested in a task body");
    if (!in_launch())
      return Error(stmt.value->loc, "pl.spmd is only valid inside a @pl.jit function");
    if (!spec->options().deps.empty()) {
      return Error(spec->options().deps_loc,
                   "pl.spmd() does not accept 'deps=' here: the loop form binds no TaskId. "
                   "Write 'with pl.spmd(n, deps=[...]) as tid:' to carry dependencies");
    }
    auto tid = TraceTask("spmd", spec->options(), stmt.loc, [&]() -> absl::Status {
      trace::IntExpr block;
      block.set_var(trace::IntExpr::BLOCK_IDX);
      kernel_->NoteBlockIdxRead();
      PTOC_RETURN_IF_ERROR(
          Assign(*stmt.targets[0], Value::Obj(std::make_shared<SymInt>(block)), env));
      PTOC_ASSIGN_OR_RETURN(f, ExecBlock(stmt.body, env));
      if (f != Flow::kNormal) {
        return Error(stmt.loc, "return/break/continue cannot leave a pl.spmd body");
      }
      return FinishTaskBody(env, /*spmd=*/true);
    });
    if (!tid.ok()) return tid.status();
    return Flow::kNormal;
  }
  if (auto* spec = iter.As<LoopSpec>()) {
    if (spec->kind() == LoopSpec::Kind::kPipeline && !in_kernel()) {
      // It replicates a device loop's body; a host loop has no buffers to rotate.
      return Error(stmt.value->loc,
                   "pl.pipeline is only valid in a kernel body (a pl.at / pl.spmd body or a "
                   "@pl.jit.incore function), where it lowers a device loop; in orchestration "
                   "code use pl.range");
    }
    if (in_kernel()) {
      if (spec->kind() == LoopSpec::Kind::kRange || spec->kind() == LoopSpec::Kind::kParallel) {
        return RunDeviceLoop(stmt, *spec, env);
      }
      if (spec->kind() == LoopSpec::Kind::kPipeline) return RunPipelineLoop(stmt, *spec, env);
    } else if (in_launch()) {
      return RunOrchestrationLoop(stmt, *spec, env);
    } else if (spec->kind() != LoopSpec::Kind::kPyRange) {
      return Error(stmt.value->loc,
                   "pl.range/pl.parallel/pl.unroll are only valid inside a "
                   "@pl.jit or @pl.jit.incore function");
    }
  }
  PTOC_ASSIGN_OR_RETURN(items, Iterate(iter, stmt.value->loc));
  for (const Value& item : items) {
    PTOC_RETURN_IF_ERROR(Assign(*stmt.targets[0], item, env));
    PTOC_ASSIGN_OR_RETURN(flow, ExecBlock(stmt.body, env, BlockKind::kRepeated));
    if (flow == Flow::kBreak) break;
    if (flow == Flow::kReturn) return flow;
  }
  return Flow::kNormal;
}

absl::StatusOr<Interpreter::Flow> Interpreter::RunOrchestrationLoop(
    const Stmt& stmt, const LoopSpec& spec, const std::shared_ptr<Env>& env) {
  if (!spec.start().is_integral() || !spec.stop().is_integral() || !spec.step().is_integral()) {
    return Error(stmt.value->loc, "orchestration loop bounds must be compile-time integers");
  }
  const int64_t start = spec.start().i(), stop = spec.stop().i(), step = spec.step().i();
  if (step == 0) return Error(stmt.value->loc, "loop step must not be zero");
  constexpr int64_t kMaxIterations = 1 << 22;
  const unsigned __int128 trips = RangeLength(start, stop, step);
  if (trips > kMaxIterations) {
    return Error(stmt.value->loc,
                 absl::StrCat("this orchestration loop runs ", static_cast<uint64_t>(trips),
                              " iterations; ptoc unrolls it into the stream, so keep it under ",
                              kMaxIterations));
  }
  // pl.unroll is expanded first: its iterations are siblings in the
  // enclosing scope. Other loop bodies are AUTO scopes unless in a manual
  // scope; pl.range (and Python range) is a sequential ancestor (R-seq).
  const bool unrolled = spec.kind() == LoopSpec::Kind::kUnroll;
  const bool sequential =
      spec.kind() == LoopSpec::Kind::kRange || spec.kind() == LoopSpec::Kind::kPyRange;
  const bool scoped = !unrolled && !launch_->in_manual_scope();
  PTOC_ASSIGN_OR_RETURN(targets, ReadLoopTargets(stmt, spec));
  if (sequential) launch_->EnterSequentialLoop();
  const bool parallel = spec.kind() == LoopSpec::Kind::kParallel;
  if (parallel) parallel_carries_.push_back({TaskIdArray::PeekSerial(), {}});
  // init_values= carries: the host runs every iteration, so a carried value
  // is simply passed from one iteration's yield to the next one's iter_arg.
  std::vector<Value> carried = spec.init_values().value_or(std::vector<Value>{});
  const Stmt* yield_stmt = YieldAssignment(stmt.body);
  Flow result = Flow::kNormal;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    PTOC_RETURN_IF_ERROR(Assign(*targets.var, Value::Int(i), env));
    for (size_t k = 0; k < targets.iter_args.size(); ++k)
      env->Set(targets.iter_args[k], carried[k]);
    carry_frames_.push_back({carried.size()});
    if (scoped) launch_->BeginScope(trace::ScopeBegin::AUTO);
    auto flow = ExecBlock(stmt.body, env, BlockKind::kRepeated);
    if (scoped) launch_->EndScope();
    CarryFrame frame = std::move(carry_frames_.back());
    carry_frames_.pop_back();
    if (!flow.ok()) return flow.status();
    if (frame.yielded) {
      carried = *frame.yielded;
    } else {
      for (size_t k = 0; k < targets.iter_args.size(); ++k) {
        carried[k] = *env->Lookup(targets.iter_args[k]);
      }
    }
    if (*flow == Flow::kBreak) break;
    if (*flow == Flow::kReturn) {
      result = Flow::kReturn;
      break;
    }
  }
  if (spec.init_values()) {
    PTOC_RETURN_IF_ERROR(BindIterResults(yield_stmt, targets.iter_args, carried, env));
  }
  if (sequential) launch_->ExitSequentialLoop();
  if (parallel) {
    ParallelCarry carry = std::move(parallel_carries_.back());
    parallel_carries_.pop_back();
    for (auto& w : carry.writes) {
      auto* arr = w.array.As<TaskIdArray>();
      if (!parallel_carries_.empty() && arr->serial() < parallel_carries_.back().first_new_array) {
        parallel_carries_.back().writes.push_back(std::move(w));  // still carried outward
      } else {
        arr->slots()[w.index] = w.slot;
      }
    }
  }
  return result;
}

absl::StatusOr<Interpreter::Flow> Interpreter::ExecWith(const Stmt& stmt,
                                                        const std::shared_ptr<Env>& env) {
  if (stmt.with_exprs.size() != 1) {
    return Error(stmt.loc, "ptoc supports one context manager per 'with'");
  }
  const Expr& item = *stmt.with_exprs[0];
  PTOC_ASSIGN_OR_RETURN(ctx, Eval(item, env));
  const Expr* target = stmt.with_targets[0].get();
  if (auto* scope = ctx.As<ManualScopeSpec>(); scope && !scope->manual()) {
    if (!in_launch() || in_kernel()) {
      return Error(item.loc,
                   "pl.scope() is only valid in the orchestration body of a @pl.jit function");
    }
    if (launch_->in_manual_scope()) {
      return Error(item.loc,
                   "an AUTO scope may not be nested inside a manual scope: the manual scope "
                   "already decides every edge; drop the inner pl.scope()");
    }
    if (launch_auto_scope_) {
      return Error(item.loc,
                   "a hand-placed AUTO 'with pl.scope()' requires @pl.jit(auto_scope=False): "
                   "with automatic scopes on, the compiler already opens one here");
    }
    if (target) return Error(target->loc, "pl.scope() binds no value; drop 'as'");
    launch_->BeginScope(trace::ScopeBegin::AUTO);
    auto flow = ExecBlock(stmt.body, env);
    launch_->EndScope();
    return flow;
  }
  if (ctx.As<ManualScopeSpec>()) {
    if (!in_launch() || in_kernel()) {
      return Error(item.loc,
                   "pl.manual_scope() is only valid in the orchestration body of a "
                   "@pl.jit function");
    }
    if (launch_->in_manual_scope()) {
      return Error(item.loc, "a manual scope may not be nested inside another manual scope");
    }
    if (target) return Error(target->loc, "pl.manual_scope() binds no value; drop 'as'");
    launch_->BeginScope(trace::ScopeBegin::MANUAL);
    auto flow = ExecBlock(stmt.body, env);
    launch_->EndScope();
    return flow;
  }
  if (auto* spec = ctx.As<TaskScopeSpec>()) {
    if (in_kernel()) {
      return Error(item.loc, absl::StrCat(spec->TypeName(), " cannot be nested in a task body"));
    }
    if (!in_launch()) {
      return Error(item.loc,
                   absl::StrCat(spec->TypeName(), " is only valid inside a @pl.jit function"));
    }
    if (spec->options().spmd && !spec->options().deps.empty() && !target) {
      return Error(spec->options().deps_loc,
                   "pl.spmd() does not accept 'deps=' here: this form binds no TaskId. Write "
                   "'with pl.spmd(n, deps=[...]) as tid:' to carry dependencies");
    }
    Flow body_flow = Flow::kNormal;
    PTOC_ASSIGN_OR_RETURN(
        tid, TraceTask(spec->options().spmd ? "spmd" : "at", spec->options(), stmt.loc,
                       [&]() -> absl::Status {
                         PTOC_ASSIGN_OR_RETURN(f, ExecBlock(stmt.body, env));
                         body_flow = f;
                         if (f != Flow::kNormal) {
                           return Error(stmt.loc, "return/break/continue cannot leave a task body");
                         }
                         return FinishTaskBody(env, spec->options().spmd);
                       }));
    if (target) PTOC_RETURN_IF_ERROR(Assign(*target, tid, env));
    return body_flow;
  }
  return Error(item.loc, absl::StrCat("'", ctx.TypeName(),
                                      "' is not a context manager ptoc knows; use pl.at, "
                                      "pl.spmd or pl.manual_scope"));
}

absl::Status Interpreter::Assign(const Expr& target, const Value& value,
                                 const std::shared_ptr<Env>& env) {
  switch (target.kind) {
    case ExprKind::kName:
      if (auto* m = value.As<MemRefDecl>()) {
        PTOC_RETURN_IF_ERROR(NameMemRef(this, m, target.name, target.loc));
      }
      env->Set(target.name, value);
      if (in_kernel()) kernel_->NoteAssignment(target.name, target.loc);
      // The name a TaskId is bound to (`tid = ...`, `_, tid = pl.submit(...)`),
      // for the predicate's producer-in-deps message (verifiers.cc).
      if (auto* t = value.As<TaskIdValue>();
          t && t->valid() && in_launch() && t->launch() == launch_->serial()) {
        launch_->BindName(t->index(), target.name);
      }
      if (auto* t = value.As<TensorRef>();
          t && t->is_whole() && program_.NameDeviceTensor(t->tensor_id(), target.name)) {
        t->set_name(program_.tensor(t->tensor_id()).name());
      }
      return absl::OkStatus();
    case ExprKind::kTuple:
    case ExprKind::kList: {
      PTOC_ASSIGN_OR_RETURN(items, Iterate(value, target.loc));
      if (items.size() != target.elts.size()) {
        return Error(target.loc, absl::StrCat("cannot unpack ", items.size(), " values into ",
                                              target.elts.size(), " targets"));
      }
      for (size_t i = 0; i < items.size(); ++i) {
        PTOC_RETURN_IF_ERROR(Assign(*target.elts[i], items[i], env));
      }
      return absl::OkStatus();
    }
    case ExprKind::kSubscript:
      return AssignSubscript(target, value, env);
    default:
      return Error(target.loc, "ptoc cannot assign to this target");
  }
}

// ---------------------------------------------------------------------------
// Calls

absl::StatusOr<std::shared_ptr<Env>> Interpreter::BindParams(const FunctionValue& fn,
                                                             const CallArgs& args) {
  const Stmt& def = *fn.def();
  auto env = std::make_shared<Env>(fn.closure());
  std::vector<bool> bound(def.params.size(), false);
  if (args.positional.size() > def.params.size()) {
    return Error(args.loc, absl::StrCat(def.name, "() takes ", def.params.size(), " arguments but ",
                                        args.positional.size(), " were given"));
  }
  for (size_t i = 0; i < args.positional.size(); ++i) {
    env->Set(def.params[i].name, args.positional[i]);
    bound[i] = true;
  }
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto& [name, value] = args.keywords[k];
    size_t i = 0;
    while (i < def.params.size() && def.params[i].name != name) ++i;
    if (i == def.params.size()) {
      return Error(args.keyword_locs[k],
                   absl::StrCat(def.name, "() got an unexpected keyword argument '", name, "'"));
    }
    if (bound[i]) {
      return Error(args.keyword_locs[k],
                   absl::StrCat(def.name, "() got multiple values for argument '", name, "'"));
    }
    env->Set(name, value);
    bound[i] = true;
  }
  for (size_t i = 0; i < def.params.size(); ++i) {
    if (bound[i]) continue;
    if (!def.params[i].default_value) {
      return Error(args.loc, absl::StrCat(def.name, "() missing required argument '",
                                          def.params[i].name, "'"));
    }
    env->Set(def.params[i].name, fn.defaults()[i]);
  }
  return env;
}

absl::StatusOr<Value> Interpreter::RunBody(const FunctionValue& fn,
                                           const std::shared_ptr<Env>& env) {
  if (call_depth_ > 200) return Error(fn.def()->loc, "recursion too deep");
  ++call_depth_;
  return_value_ = Value::None();
  auto flow = ExecBlock(fn.def()->body, env, BlockKind::kFunctionBody);
  --call_depth_;
  if (!flow.ok()) return flow.status();
  if (*flow == Flow::kBreak || *flow == Flow::kContinue) {
    return Error(fn.def()->loc, "'break'/'continue' outside a loop");
  }
  Value result = *flow == Flow::kReturn ? return_value_ : Value::None();
  return_value_ = Value::None();
  return result;
}

absl::StatusOr<Value> Interpreter::CallValue(const Value& callee, const CallArgs& args) {
  if (auto* builtin = callee.As<BuiltinFunction>()) {
    auto result = builtin->Call(args);
    if (!result.ok() && result.status().message().find(": error: ") == std::string::npos) {
      // Builtins without a location get the call's.
      return Error(args.loc, result.status().message());
    }
    return result;
  }
  if (auto fn = callee.AsShared<FunctionValue>()) {
    return CallFunction(fn, args);
  }
  if (auto* method = callee.As<BoundMethod>()) {
    // A program's Opaque entry called from the host is its orchestration.
    if (method->function()->kind() == FunctionKind::kOpaque && !in_launch()) {
      return Launch(method->function(), method->WithSelf(args));
    }
    return CallFunction(method->function(), method->WithSelf(args));
  }
  if (auto* deco = callee.As<Decorator>()) {
    if (args.positional.size() == 1 && args.positional[0].As<FunctionValue>()) {
      auto fn = args.positional[0].AsShared<FunctionValue>();
      fn->set_kind(deco->kind());
      return Value::Obj(fn);
    }
    if (deco->kind() == FunctionKind::kExtern) {
      PTOC_ASSIGN_OR_RETURN(spec, ReadExternSpec(args));
      auto out = std::make_shared<Decorator>(FunctionKind::kExtern);
      out->set_extern_spec(std::make_shared<const ExternSpec>(std::move(spec)));
      return Value::Obj(out);
    }
    bool auto_scope = true;
    for (const auto& [name, value] : args.keywords) {
      if (name == "auto_scope" && deco->kind() == FunctionKind::kJit) {
        auto_scope = value.is_bool() ? value.b() : true;
      } else if (name != "level") {
        return Error(args.KeywordLoc(name),
                     absl::StrCat("unsupported decorator option '", name, "'"));
      }
    }
    return Value::Obj(std::make_shared<Decorator>(deco->kind(), auto_scope));
  }
  return Error(args.loc, absl::StrCat("'", callee.TypeName(), "' object is not callable"));
}

absl::StatusOr<Value> Interpreter::CallFunction(const std::shared_ptr<FunctionValue>& fn,
                                                const CallArgs& args) {
  switch (fn->kind()) {
    case FunctionKind::kJit:
      if (in_launch()) {
        return Error(args.loc,
                     "calling a @pl.jit function from inside another launch is not "
                     "supported; use @pl.jit.inline for helpers");
      }
      return Launch(fn, args);
    case FunctionKind::kIncore:
      if (!in_launch()) {
        return Error(args.loc,
                     "a @pl.jit.incore kernel can only be called from a @pl.jit "
                     "function");
      }
      return CallIncore(fn, args);
    case FunctionKind::kExtern:
      if (!in_launch() || in_kernel()) {
        return Error(args.loc,
                     "a @pl.jit.extern kernel can only be called from the orchestration body of "
                     "a @pl.jit function (it is one task)");
      }
      return CallExtern(fn, args);
    case FunctionKind::kOpaque:
      if (!in_launch()) {
        return Error(args.loc,
                     absl::StrCat("Opaque function '", fn->def()->name,
                                  "' takes its plane from its caller, and the host gives it "
                                  "none: call it from a @pl.jit / Orchestration body, make it a "
                                  "@pl.program's entry, or decorate it @pl.jit to launch it"));
      }
      [[fallthrough]];
    case FunctionKind::kInline:
    case FunctionKind::kPlain: {
      PTOC_ASSIGN_OR_RETURN(env, BindParams(*fn, args));
      return RunBody(*fn, env);
    }
  }
  return Error(args.loc, "internal error: unknown function kind");
}

absl::StatusOr<Value> Interpreter::Launch(const std::shared_ptr<FunctionValue>& fn,
                                          const CallArgs& call) {
  const Stmt& def = *fn->def();
  CallArgs args = call;
  // config= is the runtime's RunConfig; pto_sim's --config replaces it.
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    if (args.keywords[k].first == "config") {
      if (auto* rc = args.keywords[k].second.As<RunConfigValue>()) {
        program_.set_platform(rc->platform());
      }
      args.keywords.erase(args.keywords.begin() + k);
      args.keyword_locs.erase(args.keyword_locs.begin() + k);
      if (k < args.keyword_literal.size()) {
        args.keyword_literal.erase(args.keyword_literal.begin() + k);
      }
      break;
    }
  }
  PTOC_ASSIGN_OR_RETURN(env, BindParams(*fn, args));
  PTOC_RETURN_IF_ERROR(CheckDynamicDims(this, *fn, *env, args));
  TakeUnsignedAnnotations(*fn, *env);
  launch_ = std::make_unique<LaunchBuilder>(launch_count_++, def.name);
  task_sites_ = 0;
  trace::StreamRecord begin;
  begin.mutable_launch_begin()->set_name(def.name);
  begin.mutable_launch_begin()->set_origin(Origin(args.loc));
  // Host tensors become GM tensors; their host objects receive the results.
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Param& p = def.params[i];
    const Value* v = env->Lookup(p.name);
    auto host = v ? v->AsShared<HostTensor>() : nullptr;
    if (!host) continue;
    // The call statement's name for the argument (the script's variable).
    std::string name = p.name;
    if (i < call.positional_names.size() && !call.positional_names[i].empty()) {
      name = call.positional_names[i];
    }
    if (absl::Status s =
            CheckGmShape(host->shape(), absl::StrCat("tensor '", name, "'"), call.ArgLoc(i));
        !s.ok()) {
      launch_.reset();
      return s;
    }
    const uint32_t id = program_.TensorForHost(host, name, Origin(args.loc));
    begin.mutable_launch_begin()->add_arg_tensor_ids(id);
    // Inside the function the tensor goes by its parameter name.
    auto ref = std::make_shared<TensorRef>(id, p.name, host->dtype(), host->shape());
    env->Set(p.name, Value::Obj(ref));
    if (auto* a = fn->annotations()[i].As<Annotation>()) {
      if (a->direction() == trace::KernelParam::INOUT) launch_->AddInOutRoot(id);
      if (a->direction() != trace::KernelParam::IN) out_params_[p.name] = ref;
    }
  }
  program_.AddRecord(begin);
  launch_auto_scope_ = fn->auto_scope();
  launch_env_ = env.get();
  if (fn->auto_scope()) launch_->BeginScope(trace::ScopeBegin::AUTO);
  auto result = RunBody(*fn, env);
  launch_env_ = nullptr;
  out_params_.clear();
  if (!result.ok()) {
    launch_.reset();
    return result.status();
  }
  if (fn->auto_scope()) launch_->EndScope();
  for (auto& r : launch_->records()) program_.AddRecord(r);
  trace::StreamRecord end;
  end.mutable_launch_end();
  program_.AddRecord(end);
  launch_.reset();
  // The call's value is not used: CPython holds the script's tensors.
  return Value::None();
}

absl::StatusOr<Value> Interpreter::CallIncore(const std::shared_ptr<FunctionValue>& fn,
                                              const CallArgs& args, TaskOptions options,
                                              Value* task_id) {
  const Stmt& def = *fn->def();
  if (!options.split && fn->split()) options.split = fn->split();
  // pl.no_dep(t) arguments: pass t, and mark its slot NO_DEP.
  CallArgs unwrapped = args;
  auto unwrap = [&](Value& v, SourceLocation loc) {
    if (auto* nd = v.As<NoDepMarker>()) {
      options.no_dep.push_back(nd->tensor());
      options.no_dep_names.push_back(nd->tensor()->name());
      options.no_dep_loc = loc;
      v = Value::Obj(nd->tensor());
    }
  };
  for (size_t i = 0; i < unwrapped.positional.size(); ++i) {
    unwrap(unwrapped.positional[i], args.ArgLoc(i));
  }
  for (size_t k = 0; k < unwrapped.keywords.size(); ++k) {
    unwrap(unwrapped.keywords[k].second, args.keyword_locs[k]);
  }
  if (!options.no_dep.empty() && in_kernel()) {
    return Error(options.no_dep_loc,
                 "pl.no_dep(t) marks an argument of a task; inside a pl.at / pl.spmd body use "
                 "no_dep_args=[t] on the scope instead");
  }
  PTOC_ASSIGN_OR_RETURN(env, BindParams(*fn, unwrapped));
  PTOC_RETURN_IF_ERROR(CheckDynamicDims(this, *fn, *env, unwrapped));
  auto bind = [&](bool as_task) -> absl::Status {
    for (size_t i = 0; i < def.params.size(); ++i) {
      const Param& p = def.params[i];
      const Value v = *env->Lookup(p.name);
      auto* a = fn->annotations()[i].As<Annotation>();
      if (auto ref = v.AsShared<TensorRef>()) {
        const auto direction = a ? a->direction() : trace::KernelParam::IN;
        const uint32_t param = kernel_->UseTensor(ref, false, direction != trace::KernelParam::IN);
        kernel_->DeclareTensorDirection(param, direction);
        continue;
      }
      if (a && a->kind() == Annotation::Kind::kScalar && as_task) {
        if (!v.is_number()) {
          return Error(args.ArgLoc(i),
                       absl::StrCat("parameter '", p.name,
                                    "' is pl.Scalar; pass an int or float, got ", v.TypeName()));
        }
        env->Set(p.name, kernel_->AddScalarParam(p.name, a->dtype(), v));
      }
    }
    return absl::OkStatus();
  };
  if (in_kernel()) {
    // Inside pl.at / pl.spmd: the call is the scope's kernel body.
    kernel_->NoteKernelCall();
    PTOC_RETURN_IF_ERROR(bind(false));
    return RunBody(*fn, env);
  }
  Value result;
  // The kernel's own return value (if any) is what the call evaluates to;
  // the TaskId of a plain incore call is not observable (fire-and-forget).
  auto tid = TraceTask(def.name, options, args.loc, [&]() -> absl::Status {
    PTOC_RETURN_IF_ERROR(bind(true));
    PTOC_ASSIGN_OR_RETURN(r, RunBody(*fn, env));
    result = r;
    return absl::OkStatus();
  });
  if (!tid.ok()) return tid.status();
  if (task_id) *task_id = *tid;
  return result;
}

absl::StatusOr<std::vector<uint32_t>> Interpreter::ResolveDeps(const std::vector<Value>& deps,
                                                               SourceLocation loc) const {
  std::vector<uint32_t> out;
  std::set<int> seen;
  auto add = [&](const TaskIdValue* t) -> absl::Status {
    if (!t || !t->valid()) return absl::OkStatus();  // invalid TaskIds add no edge
    if (t->launch() != launch_->serial()) {
      return Error(loc,
                   "this TaskId belongs to an earlier launch; deps= can only name tasks "
                   "of the same @pl.jit call");
    }
    if (seen.insert(t->index()).second) out.push_back(t->index());
    return absl::OkStatus();
  };
  for (const Value& d : deps) {
    if (d.is_none()) continue;
    if (auto* t = d.As<TaskIdValue>()) {
      // A scalar TaskId dies with the scope that produced it (pypto@e2d0f78a
      // docs/en/user/tasks/01-scopes.md); arrays
      // (and their slots) are carried out of it.
      if (t->valid() && !t->from_array() && t->launch() == launch_->serial() &&
          !launch_->task_id_usable(t->scope())) {
        std::string name = launch_->BoundName(t->index());
        if (name.empty()) name = absl::StrCat("<task ", t->index(), ">");
        return Error(loc,
                     absl::StrCat("Task dependency deps=[", name,
                                  "] cannot be honored: its TaskId is produced inside a scope that "
                                  "has already closed at this point, so the ordering edge would be "
                                  "lost. pl.range / pl.parallel loop bodies and if/else branches "
                                  "each open their own scope; keep the TaskId in a "
                                  "pl.array.create(N, pl.TASK_ID) array created before that scope "
                                  "and depend on the array (or its slot) instead"));
      }
      PTOC_RETURN_IF_ERROR(add(t));
    } else if (auto* arr = d.As<TaskIdArray>()) {
      for (const auto& slot : arr->slots()) PTOC_RETURN_IF_ERROR(add(slot.get()));
    } else {
      return Error(loc, absl::StrCat("deps= entries must be a TaskId, a TASK_ID array, an array "
                                     "element (arr[i]) or None; got ",
                                     d.TypeName()));
    }
  }
  return out;
}

absl::StatusOr<int> Interpreter::EmitDummy(const std::vector<Value>& deps, SourceLocation loc) {
  PTOC_ASSIGN_OR_RETURN(resolved, ResolveDeps(deps, loc));
  // A dep-carrying dummy whose deps are all invalid is not submitted.
  if (!deps.empty() && resolved.empty()) return -1;
  trace::Dummy dummy;
  dummy.set_name(absl::StrCat(launch_->name(), "_dummy", task_sites_++));
  for (uint32_t d : resolved) dummy.add_deps(d);
  dummy.set_origin(Origin(loc));
  return launch_->AddDummy(std::move(dummy));
}

absl::StatusOr<Value> Interpreter::TraceTask(const std::string& default_name,
                                             const TaskOptions& options, SourceLocation loc,
                                             const std::function<absl::Status()>& body) {
  const std::string name = !options.name_hint.empty() ? options.name_hint
                           : (default_name == "at" || default_name == "spmd")
                               ? absl::StrCat(launch_->name(), "_", default_name, task_sites_)
                               : default_name;
  ++task_sites_;
  KernelBuilder builder(name);
  if (options.split) builder.set_split(*options.split);
  if (options.slot_num) builder.set_slot_num(*options.slot_num);
  kernel_ = &builder;
  // pl.yield_ inside the body cannot reach a loop around the task.
  carry_frames_.push_back({0, /*task_barrier=*/true});
  absl::Status status = body();
  carry_frames_.pop_back();
  kernel_ = nullptr;
  PTOC_RETURN_IF_ERROR(status);
  PTOC_ASSIGN_OR_RETURN(kernel, builder.Finish(Origin(loc)));
  warnings_.insert(warnings_.end(), builder.warnings().begin(), builder.warnings().end());
  const trace::CoreType core_type = kernel.core_type();
  const int kid = program_.AddKernel(std::move(kernel));

  trace::Submit submit;
  submit.set_name(name);
  switch (core_type) {
    case trace::AIC:
      submit.add_kernel_ids(kid), submit.add_kernel_ids(-1), submit.add_kernel_ids(-1);
      break;
    case trace::MIX:
      submit.add_kernel_ids(kid), submit.add_kernel_ids(kid), submit.add_kernel_ids(kid);
      break;
    default:
      submit.add_kernel_ids(-1), submit.add_kernel_ids(kid), submit.add_kernel_ids(-1);
      break;
  }
  if (options.spmd) {
    if (auto* avail = options.core_num.As<AvailableCount>()) {
      submit.set_block_symbol(avail->symbol());
    } else {
      submit.set_block_num(options.core_num.i());
    }
  } else {
    submit.set_block_num(1);
  }
  submit.set_sync_start(options.sync_start);
  // Arguments follow the kernel's parameter order.
  const trace::KernelProgram& program = program_.kernel(kid).program();
  std::vector<trace::Arg> args(program.params_size());
  std::vector<uint32_t> written_roots;
  for (const auto& use : builder.tensors()) {
    trace::TensorArg* t = args[use.param].mutable_tensor();
    t->set_tensor_id(use.ref->tensor_id());
    if (!use.ref->is_whole()) {
      for (int64_t o : use.ref->offsets()) t->add_offsets(o);
      for (int64_t s : use.ref->shape()) t->add_shape(s);
    }
    bool no_dep = false;
    for (const auto& nd : options.no_dep) no_dep |= nd->tensor_id() == use.ref->tensor_id();
    const auto param_direction = program.params(use.param).direction();
    // A value leaving the task is a fresh runtime-allocated output: later
    // tasks reach this task by creator retention.
    t->set_direction(
        builder.IsIntermediate(use.ref->tensor_id())
            ? trace::OUTPUT
            : launch_->CallSiteDirection(param_direction, use.ref->tensor_id(), no_dep));
    if (param_direction != trace::KernelParam::IN) written_roots.push_back(use.ref->tensor_id());
  }
  for (const auto& scalar : builder.scalars()) {
    trace::ScalarArg* s = args[scalar.param].mutable_scalar();
    if (scalar.value.is_float()) {
      s->set_f(scalar.value.f());
    } else {
      s->set_i(scalar.value.i());
    }
  }
  for (auto& a : args) *submit.add_args() = std::move(a);
  PTOC_ASSIGN_OR_RETURN(deps,
                        ResolveDeps(options.deps, options.deps_loc.line ? options.deps_loc : loc));
  for (uint32_t d : deps) submit.add_deps(d);
  if (options.predicate) *submit.mutable_predicate() = *options.predicate;
  submit.set_allow_early_resolve(options.allow_early_resolve);
  submit.set_origin(Origin(loc));
  for (const auto& verifier : verifiers_) {
    const TaskSite site{options, submit,           program_.kernel(kid),
                        loc,     launch_->depth(), launch_->in_manual_scope(),
                        builder};
    PTOC_RETURN_IF_ERROR(verifier->Check(*this, site));
  }
  const int index = launch_->AddSubmit(std::move(submit));
  launch_->NoteWrites(written_roots);
  launch_->NoteTaskWrites(index, written_roots);
  return Value::Obj(
      std::make_shared<TaskIdValue>(launch_->serial(), index, launch_->current_scope()));
}

absl::StatusOr<std::shared_ptr<Tile>> Interpreter::AsTile(const Value& v, SourceLocation loc) {
  if (auto tile = v.AsShared<Tile>()) {
    if (!in_kernel() || tile->kernel() != kernel_->serial()) {
      return Error(loc,
                   "this tile was computed in another task body; a value passes from one task "
                   "to the next through GM, which ptoc arranges when the producing pl.at binds "
                   "it to a name that is read later (here it was held some other way, e.g. in "
                   "a list); store it into a tensor with pl.store and load it in this task");
    }
    return tile;
  }
  if (auto view = v.AsShared<DeviceTensorView>()) {
    // A window at device offsets: load it there.
    PTOC_ASSIGN_OR_RETURN(tile, EmitLoad(this, view->base(), view->offsets(), view->shape(),
                                         trace::MEM_SPACE_UNSPECIFIED, loc, nullptr, loc));
    kernel_->MarkTensorLevel(*tile);
    return tile;
  }
  if (auto ref = v.AsShared<TensorRef>()) {
    if (!in_kernel()) return Error(loc, "tensor ops are only valid inside a task body");
    // Tensor-level op: load the whole view (upstream's ConvertTensorToTileOps).
    const uint32_t param = kernel_->UseTensor(ref, true, false);
    auto tile = kernel_->NewTile(ref->shape(), ref->dtype(), trace::MEM_SPACE_UNSPECIFIED);
    trace::Op* op = kernel_->Emit(trace::Op::LOAD, Origin(loc));
    op->set_dst(tile->index());
    op->set_param(param);
    for (size_t d = 0; d < ref->shape().size(); ++d) op->add_offsets()->set_constant(0);
    kernel_->MarkTensorLevel(*tile);
    return tile;
  }
  return Error(loc, absl::StrCat("expected a tile or a tensor, got ", v.TypeName()));
}

void Interpreter::Warn(SourceLocation loc, absl::string_view message) {
  std::string text(Error(loc, message).message());
  const size_t pos = text.find(": error: ");
  if (pos != std::string::npos) text.replace(pos, 9, ": warning: ");
  warnings_.push_back(std::move(text));
}

absl::StatusOr<trace::TraceText> CompileModule(
    const SourceFile& source, const Module& module, std::vector<std::string>* warnings,
    const CompileOptions& options, const std::function<void(Interpreter&)>& setup,
    const std::function<absl::Status(Interpreter&, trace::TraceText*)>& finish) {
  Interpreter interp(source, MakeTileExecutorReference());
  if (options.timing_only) interp.set_timing_only();
  interp.set_max_statements(options.max_statements);
  for (auto& verifier : StandardVerifiers()) interp.AddVerifier(std::move(verifier));
  if (setup) setup(interp);
  absl::Status status = interp.Run(module);
  if (warnings) *warnings = interp.warnings();
  PTOC_RETURN_IF_ERROR(status);
  trace::TraceText text = interp.Finish();
  if (options.timing_only) {
    text.mutable_header()->set_timing_only(true);
    // Only the values that decide device control stay (Tensor.control).
    for (auto& t : *text.mutable_header()->mutable_tensors()) {
      if (!t.control()) t.clear_init();
    }
  }
  if (finish) PTOC_RETURN_IF_ERROR(finish(interp, &text));
  return text;
}

}  // namespace pto::ptoc
