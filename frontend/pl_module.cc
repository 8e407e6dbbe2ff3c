// The `pl` module: decorators, annotations, dtypes and enums, task scopes,
// loops, tensors and TaskId arrays, tile ops and pl.system.
#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/arg_reader.h"
#include "frontend/device_views.h"
#include "frontend/interpreter.h"
#include "frontend/memref.h"
#include "frontend/pl_args.h"
#include "frontend/status_macros.h"
#include "frontend/tile_ops.h"

namespace pto::ptoc {

namespace {

Value MakeEnum(Namespace* ns, const std::string& enum_name,
               std::vector<std::pair<std::string, int64_t>> members) {
  auto e = std::make_shared<Namespace>(enum_name);
  for (const auto& [name, value] : members) {
    e->Set(name, Value::Obj(std::make_shared<EnumValue>(enum_name, name, value)));
  }
  return Value::Obj(e);
}

Value Annot(Annotation::Kind kind, const std::string& spelling, bool wrapper = false,
            trace::KernelParam::Direction direction = trace::KernelParam::IN) {
  auto a = std::make_shared<Annotation>(kind, spelling);
  a->set_wrapper(wrapper);
  a->set_direction(direction);
  return Value::Obj(a);
}

// Fills optimizations= entries into `options`.
absl::Status ReadOptimizations(Interpreter* interp, const Value& v, SourceLocation loc,
                               TaskOptions* options) {
  PTOC_ASSIGN_OR_RETURN(items, ValueList(interp, v, loc, "optimizations="));
  for (const Value& item : items) {
    auto* opt = item.As<Optimization>();
    if (!opt) {
      return interp->Error(loc, absl::StrCat("optimizations= entries must be pl.split(...) or "
                                             "pl.cross_core_slot(...), got ",
                                             item.TypeName()));
    }
    if (opt->split) options->split = opt->split;
    if (opt->slot_num) options->slot_num = opt->slot_num;
  }
  return absl::OkStatus();
}

// pl.pipeline's stage=F (hw-native-sys/pypto@e2d0f78a
// docs/en/dev/passes/28-lower_pipeline_loops.md): required there, a positive
// integer literal, since it decides how the body is replicated at compile time.
absl::StatusOr<int64_t> ReadStage(Interpreter* interp, const CallArgs& args) {
  const Value* stage = args.Keyword("stage");
  if (!stage) {
    return interp->Error(args.loc,
                         "pl.pipeline() requires stage=F, the number of body copies per "
                         "iteration (a positive integer literal), e.g. pl.pipeline(n, stage=2)");
  }
  const SourceLocation loc = args.KeywordLoc("stage");
  if (stage->is_int() && stage->i() < 1) {
    return interp->Error(loc,
                         absl::StrCat("pl.pipeline() stage must be >= 1, got ", stage->i(),
                                      "; stage=1 is an ordinary loop, stage=2 double-buffers"));
  }
  if (!stage->is_int() || !args.KeywordIsLiteral("stage")) {
    const std::string got = stage->is_int() ? absl::StrCat("an expression (worth ", stage->i(), ")")
                                            : stage->TypeName();
    return interp->Error(
        loc, absl::StrCat("pl.pipeline() stage must be a compile-time integer literal, got ", got,
                          "; the body is replicated when the kernel is compiled, so write the "
                          "depth in the call, e.g. stage=2"));
  }
  return stage->i();
}

// pl.pipeline's step: the main loop strides stage * step and each copy of the
// body offsets the loop variable by a multiple of it, so it must be known now.
absl::Status CheckPipelineStep(Interpreter* interp, const CallArgs& args, const Value& start,
                               const Value& stop, const Value& step) {
  const SourceLocation loc = args.positional.size() == 3 ? args.ArgLoc(2) : args.loc;
  if (!step.is_int()) {
    return interp->Error(loc, absl::StrCat("pl.pipeline() step must be a compile-time integer, "
                                           "got ",
                                           step.TypeName(),
                                           ": the main loop strides stage * step, so write the "
                                           "step as a number"));
  }
  if (step.i() == 0) return interp->Error(loc, "pl.pipeline() step must not be zero");
  if (step.i() < 0 && !(start.is_integral() && stop.is_integral())) {
    return interp->Error(
        loc, absl::StrCat("pl.pipeline() with bounds known only on the device needs a step > 0, "
                          "got ",
                          step.i(), "; a negative step needs compile-time start and stop"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> MakeLoop(Interpreter* interp, LoopSpec::Kind kind, const CallArgs& args,
                               const char* name) {
  const Value* init_values = nullptr;
  SourceLocation init_values_loc;
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto& [key, value] = args.keywords[k];
    if (key == "init_values" && kind == LoopSpec::Kind::kUnroll) {
      // Unrolled iterations are copies of the body: nothing is carried
      // (upstream python/pypto/language/parser/ast_parser.py).
      return interp->Error(args.keyword_locs[k],
                           "pl.unroll() cannot be combined with init_values: unrolled loops carry "
                           "no state; use pl.range() to carry state across iterations");
    }
    if (key == "init_values") {
      if (!value.is_sequence()) {
        return interp->Error(args.keyword_locs[k],
                             absl::StrCat(name, "() init_values must be a list or tuple, got ",
                                          value.TypeName(), "; write init_values=(x,)"));
      }
      init_values = &value;
      init_values_loc = args.keyword_locs[k];
      continue;
    }
    if (key == "stage" && kind != LoopSpec::Kind::kPipeline) {
      return interp->Error(args.keyword_locs[k],
                           absl::StrCat("stage= is only accepted on pl.pipeline(), not ", name,
                                        "(): write pl.pipeline(..., stage=F) to replicate the "
                                        "body F times per iteration"));
    }
    if (key != "stage") {
      return interp->Error(args.keyword_locs[k],
                           absl::StrCat(name, "() keyword '", key, "' is not supported by ptoc"));
    }
  }
  const auto& p = args.positional;
  if (p.empty() || p.size() > 3) {
    return interp->Error(args.loc, absl::StrCat(name, "() takes 1 to 3 arguments"));
  }
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p[i].is_integral() && !p[i].As<SymInt>()) {
      return interp->Error(args.ArgLoc(i),
                           absl::StrCat(name, "() bounds must be integers, got ", p[i].TypeName()));
    }
  }
  if (kind == LoopSpec::Kind::kUnroll) {
    for (size_t i = 0; i < p.size(); ++i) {
      if (!p[i].is_integral()) {
        return interp->Error(args.ArgLoc(i), "pl.unroll bounds must be literals");
      }
    }
  }
  Value start = p.size() >= 2 ? p[0] : Value::Int(0);
  Value stop = p.size() >= 2 ? p[1] : p[0];
  Value step = p.size() == 3 ? p[2] : Value::Int(1);
  auto spec = std::make_shared<LoopSpec>(kind, start, stop, step);
  if (kind == LoopSpec::Kind::kPipeline) {
    PTOC_ASSIGN_OR_RETURN(stages, ReadStage(interp, args));
    // stage=1 is an ordinary loop: nothing is replicated, so any step works.
    if (stages > 1) PTOC_RETURN_IF_ERROR(CheckPipelineStep(interp, args, start, stop, step));
    spec->set_stages(stages);
  }
  if (init_values) spec->set_init_values(init_values->items(), init_values_loc);
  return Value::Obj(spec);
}

absl::Status RequireOrchestration(Interpreter* interp, SourceLocation loc, const char* what) {
  if (interp->in_launch() && !interp->in_kernel()) return absl::OkStatus();
  return interp->Error(loc, absl::StrCat(what,
                                         " is only valid in the orchestration body of a "
                                         "@pl.jit function (outside task bodies)"));
}

trace::CoreType CoreTypeOf(const Value& v) {
  if (auto* e = v.As<EnumValue>()) {
    if (e->member() == "AIV") return trace::AIV;
    if (e->member() == "AIC") return trace::AIC;
    if (e->member() == "MIX") return trace::MIX;
  }
  if (v.is_str()) {
    if (v.s() == "aiv_only") return trace::AIV;
    if (v.s() == "aic_only") return trace::AIC;
    if (v.s() == "mix") return trace::MIX;
  }
  return trace::CORE_TYPE_UNSPECIFIED;
}

void AddDTypes(Namespace* ns) {
  const std::vector<std::pair<const char*, trace::DType>> dtypes = {
      {"FP32", trace::FP32},     {"FP16", trace::FP16},     {"BF16", trace::BF16},
      {"INT8", trace::INT8},     {"INT16", trace::INT16},   {"INT32", trace::INT32},
      {"INT64", trace::INT64},   {"UINT8", trace::UINT8},   {"UINT16", trace::UINT16},
      {"UINT32", trace::UINT32}, {"UINT64", trace::UINT64}, {"BOOL", trace::BOOL},
      {"INDEX", trace::INT64}};
  for (const auto& [name, dtype] : dtypes) {
    ns->Set(name, Value::Obj(std::make_shared<DTypeValue>(dtype, name)));
  }
  ns->Set("TASK_ID", Value::Obj(std::make_shared<DTypeValue>(trace::DTYPE_UNSPECIFIED, "TASK_ID",
                                                             /*task_id=*/true)));
}

}  // namespace

absl::Status ReadDeps(Interpreter* interp, const Value& v, SourceLocation loc,
                      TaskOptions* options) {
  if (!v.is_sequence()) {
    return interp->Error(loc, "deps= must be a list / tuple / comprehension of TaskId values");
  }
  bool whole = false, slot = false;
  for (const Value& d : v.items()) {
    if (d.As<TaskIdArray>()) {
      whole = true;
    } else if (d.As<TaskIdValue>()) {
      slot = true;
    } else if (!d.is_none()) {
      return interp->Error(loc, absl::StrCat("deps= entries must be a TaskId variable, a "
                                             "TASK_ID array element (e.g. arr[i]), or None — "
                                             "got ",
                                             d.TypeName()));
    }
  }
  if (whole && slot) {
    return interp->Error(loc, "deps= cannot mix a whole TASK_ID array with per-element entries");
  }
  options->deps = v.items();
  options->deps_loc = loc;
  return absl::OkStatus();
}

absl::Status ReadPredicate(Interpreter* interp, const Value& v, SourceLocation loc,
                           TaskOptions* options) {
  const std::string m = options->method;
  if (v.is_none()) {
    return interp->Error(loc, absl::StrCat("'", m,
                                           "' predicate must be a single comparison (==, !=, >, "
                                           "<, >=, <=); got None (to dispatch unconditionally, "
                                           "omit predicate= entirely)"));
  }
  auto* p = v.As<PredicateValue>();
  if (!p) {
    return interp->Error(loc, absl::StrCat("'", m,
                                           "' predicate must be a single comparison (==, !=, >, "
                                           "<, >=, <=); got ",
                                           v.TypeName()));
  }
  const trace::DType dtype = interp->program().tensor(p->predicate().tensor_id()).dtype();
  if (!IsSignedInt(dtype)) {
    return interp->Error(loc, absl::StrCat("predicate operand must be a signed "
                                           "8/16/32/64-bit integer tensor, got ",
                                           DTypeName(dtype),
                                           ". The runtime sign-extends the value it reads, "
                                           "so an unsigned operand can compare as negative "
                                           "and silently invert the dispatch decision"));
  }
  options->predicate = p->predicate();
  options->predicate_loc = loc;
  return absl::OkStatus();
}

absl::StatusOr<Value> AnnotationSubscript(Interpreter* interp, const Annotation& a,
                                          const Value& index, SourceLocation loc) {
  if (a.is_wrapper()) {
    auto* inner = index.As<Annotation>();
    if (!inner || inner->kind() != Annotation::Kind::kTensor) {
      return interp->Error(loc, absl::StrCat(a.spelling(), "[...] wraps a tensor type, e.g. ",
                                             a.spelling(), "[pl.Tensor]"));
    }
    auto out = std::make_shared<Annotation>(*inner);
    out->set_direction(a.direction());
    return Value::Obj(out);
  }
  auto out = std::make_shared<Annotation>(a);
  if (a.kind() == Annotation::Kind::kScalar) {
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(interp, index, loc));
    out->set_dtype(dtype);
  } else if (a.kind() == Annotation::Kind::kTensor || a.kind() == Annotation::Kind::kTile) {
    // pl.Tensor[[r, c], pl.FP32]: shape and dtype are documentation here; a
    // tile's pl.Mem.X places or checks its value (ApplyTileAnnotation).
    if (index.is_tuple() && index.items().size() >= 2) {
      if (auto* d = index.items()[1].As<DTypeValue>()) out->set_dtype(d->dtype());
      if (index.items()[0].is_sequence()) out->set_shape(index.items()[0].items());
    }
    if (a.kind() == Annotation::Kind::kTile && index.is_tuple()) {
      for (const Value& item : index.items()) {
        if (IsEnum(item, "pl.MemorySpace", nullptr)) {
          out->set_space(static_cast<trace::MemSpace>(item.As<EnumValue>()->value()));
        }
        if (item.As<MemRefDecl>() || item.As<MemRefSlot>()) {
          if (!out->memref().is_none()) {
            return interp->Error(loc, "a pl.Tile annotation can name at most one pl.MemRef");
          }
          out->set_memref(item);
        }
      }
      if (!out->memref().is_none() && out->space() == trace::MEM_SPACE_UNSPECIFIED) {
        return interp->Error(loc,
                             "a pl.Tile annotation with a pl.MemRef must also name its memory "
                             "space, e.g. pl.Tile[[64, 64], pl.FP32, buf[0], pl.Mem.Vec]");
      }
    }
  }
  return Value::Obj(out);
}

namespace {

// A device tensor of the launch (pl.create_tensor, pl.full), allocated here.
absl::StatusOr<Value> CreateTensor(Interpreter* I, const std::vector<int64_t>& shape,
                                   trace::DType dtype, bool manual, const trace::TensorInit& init,
                                   SourceLocation loc, SourceLocation shape_loc, const char* what) {
  PTOC_RETURN_IF_ERROR(I->CheckGmShape(shape, absl::StrCat("the tensor of ", what), shape_loc));
  const std::string name = absl::StrCat(I->launch()->name(), "_tensor", I->launch()->task_count());
  const uint32_t id =
      I->program().NewDeviceTensor(name, dtype, shape, manual, init, I->Origin(loc));
  trace::Alloc alloc;
  alloc.add_tensor_ids(id);
  alloc.set_origin(I->Origin(loc));
  I->launch()->AddAlloc(alloc);
  return Value::Obj(std::make_shared<TensorRef>(id, name, dtype, shape));
}

}  // namespace

std::shared_ptr<Namespace> MakePlModule(Interpreter* interp) {
  auto pl = std::make_shared<Namespace>("pl");
  Interpreter* I = interp;

  pl->Set("jit", Value::Obj(std::make_shared<Decorator>(FunctionKind::kJit)));
  pl->Set("Tensor", Annot(Annotation::Kind::kTensor, "pl.Tensor"));
  pl->Set("Out", Annot(Annotation::Kind::kTensor, "pl.Out", true, trace::KernelParam::OUT));
  pl->Set("InOut", Annot(Annotation::Kind::kTensor, "pl.InOut", true, trace::KernelParam::INOUT));
  pl->Set("Scalar", Annot(Annotation::Kind::kScalar, "pl.Scalar"));
  pl->Set("Tile", Annot(Annotation::Kind::kTile, "pl.Tile"));
  pl->Set("TaskId", Annot(Annotation::Kind::kTaskId, "pl.TaskId"));
  pl->Set("Array", Annot(Annotation::Kind::kArray, "pl.Array"));
  AddDTypes(pl.get());
  pl->Set("Level", MakeEnum(pl.get(), "pl.Level",
                            {{"AIV", 0},
                             {"AIC", 1},
                             {"CORE_GROUP", 2},
                             {"CHIP_DIE", 3},
                             {"CHIP", 4},
                             {"HOST", 5},
                             {"CLUSTER_0", 6},
                             {"CLUSTER_1", 7},
                             {"CLUSTER_2", 8},
                             {"GLOBAL", 9}}));
  pl->Set("SplitMode",
          MakeEnum(pl.get(), "pl.SplitMode", {{"NONE", 0}, {"UP_DOWN", 1}, {"LEFT_RIGHT", 2}}));
  pl->Set("SyncAllMode", MakeEnum(pl.get(), "pl.SyncAllMode", {{"HARD", 1}, {"SOFT", 2}}));
  pl->Set("KernelType", MakeEnum(pl.get(), "pl.KernelType", {{"AIV", 2}, {"AIC", 1}, {"MIX", 3}}));
  pl->Set("AtomicType", MakeEnum(pl.get(), "pl.AtomicType", {{"NONE", 0}, {"Add", 1}}));
  // pl.Mem is upstream's alias of pl.MemorySpace (pypto@e2d0f78a
  // python/pypto/language/__init__.py); both name the same members.
  for (const char* spelling : {"MemorySpace", "Mem"}) {
    auto spaces = std::make_shared<Namespace>(absl::StrCat("pl.", spelling));
    for (const auto& [name, space] :
         std::vector<std::pair<const char*, trace::MemSpace>>{{"Vec", trace::VEC},
                                                              {"Mat", trace::MAT},
                                                              {"Left", trace::LEFT},
                                                              {"Right", trace::RIGHT},
                                                              {"Acc", trace::ACC},
                                                              {"Bias", trace::BIAS}}) {
      spaces->Set(name, Value::Obj(std::make_shared<EnumValue>("pl.MemorySpace", name, space)));
    }
    spaces->set_missing_hint(
        "the memory spaces are Vec (UB), Mat (L1), Left (L0A), Right (L0B), Acc (L0C) and Bias "
        "(BT)");
    pl->Set(spelling, Value::Obj(spaces));
  }

  // ---- task scopes
  pl->AddFunction("at", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.at",
                {"level", "role", "optimizations", "deps", "no_dep_args", "dumps",
                 "allow_early_resolve", "name_hint", "windowize"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0)) return r.Missing(0);
    if (!IsEnum(*r.Get(0), "pl.Level", "CORE_GROUP")) {
      return I->Error(r.Loc(0),
                      "ptoc supports pl.at(level=pl.Level.CORE_GROUP) only (one "
                      "task per scope); other levels belong to the distributed stack");
    }
    if (r.Has(1)) return I->Error(r.Loc(1), "role= is rejected with CORE_GROUP");
    TaskOptions options;
    if (r.Has(2)) PTOC_RETURN_IF_ERROR(ReadOptimizations(I, *r.Get(2), r.Loc(2), &options));
    if (r.Has(3)) PTOC_RETURN_IF_ERROR(ReadDeps(I, *r.Get(3), r.Loc(3), &options));
    if (r.Has(4)) {
      if (!r.Get(4)->is_list()) {
        return I->Error(r.Loc(4), "pl.at(no_dep_args=...) must be a list literal of tensor names");
      }
      options.no_dep_loc = r.Loc(4);
      for (const Value& t : r.Get(4)->items()) {
        auto ref = t.AsShared<TensorRef>();
        if (!ref) {
          return I->Error(r.Loc(4), absl::StrCat("pl.at(no_dep_args=...) entry is not a tensor "
                                                 "(got type ",
                                                 t.TypeName(), ")"));
        }
        for (const auto& seen : options.no_dep) {
          if (seen->tensor_id() == ref->tensor_id() && seen->is_whole() == ref->is_whole()) {
            return I->Error(r.Loc(4), absl::StrCat("pl.at(no_dep_args=...) lists '", ref->name(),
                                                   "' more than once; list each tensor once"));
          }
        }
        options.no_dep.push_back(ref);
        options.no_dep_names.push_back(ref->name());
      }
    }
    if (r.Has(6) && !args.KeywordIsLiteral("allow_early_resolve")) {
      return I->Error(r.Loc(6),
                      "pl.at() allow_early_resolve must be a boolean literal (True/False); the "
                      "flag is read from the source, so write True or False in the call");
    }
    PTOC_ASSIGN_OR_RETURN(aer, BoolArg(I, r, 6,
                                       "pl.at() allow_early_resolve must be a boolean "
                                       "literal (True/False)"));
    options.allow_early_resolve = aer;
    if (r.Has(7)) {
      if (!r.Get(7)->is_str()) return r.Wrong(7, "a string");
      options.name_hint = r.Get(7)->s();
    }
    return Value::Obj(std::make_shared<TaskScopeSpec>(options));
  });

  pl->AddFunction("spmd", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.spmd",
                {"core_num", "sync_start", "name_hint", "optimizations", "deps",
                 "allow_early_resolve", "predicate"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0)) {
      return I->Error(args.loc, "pl.spmd() requires core_num (first positional argument)");
    }
    TaskOptions options;
    options.spmd = true;
    const Value& n = *r.Get(0);
    if (n.is_integral()) {
      if (n.i() <= 0) {
        return I->Error(r.Loc(0), absl::StrCat("core_num must be a positive integer, got ", n.i()));
      }
    } else if (!n.As<AvailableCount>()) {
      return I->Error(r.Loc(0),
                      absl::StrCat("core_num must be an integer expression, got ", n.TypeName()));
    }
    options.core_num = n;
    PTOC_ASSIGN_OR_RETURN(sync, BoolArg(I, r, 1, "sync_start must be True or False"));
    options.sync_start = sync;
    if (r.Has(2)) {
      if (!r.Get(2)->is_str()) return r.Wrong(2, "a string");
      options.name_hint = r.Get(2)->s();
    }
    if (r.Has(3)) PTOC_RETURN_IF_ERROR(ReadOptimizations(I, *r.Get(3), r.Loc(3), &options));
    if (r.Has(4)) PTOC_RETURN_IF_ERROR(ReadDeps(I, *r.Get(4), r.Loc(4), &options));
    options.method = "pl.spmd()";
    if (r.Has(5) && !args.KeywordIsLiteral("allow_early_resolve")) {
      return I->Error(r.Loc(5),
                      "pl.spmd() allow_early_resolve must be a boolean literal (True/False); "
                      "the flag is read from the source, so write True or False in the call");
    }
    PTOC_ASSIGN_OR_RETURN(aer, BoolArg(I, r, 5,
                                       "pl.spmd() allow_early_resolve must be a "
                                       "boolean literal (True/False)"));
    options.allow_early_resolve = aer;
    if (r.Get(6)) PTOC_RETURN_IF_ERROR(ReadPredicate(I, *r.Get(6), r.Loc(6), &options));
    return Value::Obj(std::make_shared<TaskScopeSpec>(options));
  });

  pl->AddFunction("manual_scope", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (!args.positional.empty() || !args.keywords.empty()) {
      return I->Error(args.loc, "pl.manual_scope() does not accept arguments");
    }
    return Value::Obj(std::make_shared<ManualScopeSpec>());
  });
  pl->Set("ScopeMode", MakeEnum(pl.get(), "pl.ScopeMode", {{"AUTO", 0}, {"MANUAL", 1}}));
  pl->AddFunction("scope", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.scope", {"mode"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (r.Has(0) && !IsEnum(*r.Get(0), "pl.ScopeMode", nullptr)) {
      return r.Wrong(0, "pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL");
    }
    const bool manual = r.Has(0) && IsEnum(*r.Get(0), "pl.ScopeMode", "MANUAL");
    return Value::Obj(std::make_shared<ManualScopeSpec>(manual));
  });
  pl->AddFunction("no_dep", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.no_dep", {"tensor"});
    PTOC_RETURN_IF_ERROR(r.Check());
    auto ref = r.Has(0) ? r.Get(0)->AsShared<TensorRef>() : nullptr;
    if (!ref) {
      return I->Error(args.loc,
                      "pl.no_dep(t) wraps one tensor argument of a kernel call, e.g. "
                      "self.k(pl.no_dep(out)) or k(pl.no_dep(out))");
    }
    return Value::Obj(std::make_shared<NoDepMarker>(ref));
  });

  // ---- loops
  pl->AddFunction("range", [I](const CallArgs& args) {
    return MakeLoop(I, LoopSpec::Kind::kRange, args, "pl.range");
  });
  pl->AddFunction("parallel", [I](const CallArgs& args) {
    return MakeLoop(I, LoopSpec::Kind::kParallel, args, "pl.parallel");
  });
  pl->AddFunction("pipeline", [I](const CallArgs& args) {
    return MakeLoop(I, LoopSpec::Kind::kPipeline, args, "pl.pipeline");
  });
  pl->AddFunction("yield_", [I](const CallArgs& args) { return I->Yield(args); });
  pl->AddFunction("unroll", [I](const CallArgs& args) {
    return MakeLoop(I, LoopSpec::Kind::kUnroll, args, "pl.unroll");
  });

  // ---- optimizations
  pl->AddFunction("split", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.split", {"mode"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0) || !IsEnum(*r.Get(0), "pl.SplitMode", nullptr)) {
      return I->Error(args.loc, "pl.split(mode) needs a pl.SplitMode");
    }
    auto opt = std::make_shared<Optimization>();
    opt->split = static_cast<trace::SplitMode>(r.Get(0)->As<EnumValue>()->value());
    return Value::Obj(opt);
  });
  pl->AddFunction("cross_core_slot", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.cross_core_slot", {"slot_num"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0) || !r.Get(0)->is_int() || r.Get(0)->i() <= 0) {
      return I->Error(args.loc, absl::StrCat("pl.cross_core_slot slot_num must be a positive "
                                             "integer, got ",
                                             r.Has(0) ? r.Get(0)->Repr() : "nothing"));
    }
    auto opt = std::make_shared<Optimization>();
    opt->slot_num = static_cast<uint32_t>(r.Get(0)->i());
    return Value::Obj(opt);
  });

  // ---- tensors and TaskId arrays (orchestration)
  auto create_tensor = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.create_tensor", {"shape", "dtype", "manual_dep", "init_value"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (I->in_kernel()) {
      // In a task body a tensor is the task's own buffer: upstream lowers it
      // to a tile (ConvertTensorToTileOps, hw-native-sys/pypto@e2d0f78a
      // docs/en/dev/passes), so it lives in Vec and never reaches GM.
      PTOC_RETURN_IF_ERROR(r.Require(2));
      PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(0), r.Loc(0), "shape"));
      PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
      if (r.Has(3)) {
        if (!r.Get(3)->is_number()) return r.Wrong(3, "a number");
        return TileFull(I, shape, dtype, *r.Get(3), args.loc, r.Loc(0));
      }
      PTOC_ASSIGN_OR_RETURN(
          created, TileCreate(I, shape, dtype, trace::MEM_SPACE_UNSPECIFIED, args.loc, r.Loc(0)));
      I->kernel()->MarkPlacedByUse(*created.As<Tile>());
      return created;
    }
    PTOC_RETURN_IF_ERROR(RequireOrchestration(I, args.loc, "pl.create_tensor"));
    PTOC_RETURN_IF_ERROR(r.Require(2));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(0), r.Loc(0), "shape"));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    PTOC_ASSIGN_OR_RETURN(manual, BoolArg(I, r, 2, "manual_dep must be True or False"));
    trace::TensorInit init;
    if (r.Has(3)) {
      if (!r.Get(3)->is_number()) return r.Wrong(3, "a number");
      init.mutable_fill()->set_value(r.Get(3)->f());
    }
    return CreateTensor(I, shape, dtype, manual, init, args.loc, r.Loc(0), "pl.create_tensor");
  };
  // pl.full (pypto@e2d0f78a python/pypto/language/op/tensor_ops.py full): a
  // tensor filled with `value`; the tile op is pl.tile.full.
  auto full = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.full", {"shape", "dtype", "value"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(0), r.Loc(0), "shape"));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    // In a task body the filled tensor is a Vec tile, as upstream lowers it.
    if (I->in_kernel()) return TileFull(I, shape, dtype, *r.Get(2), args.loc, r.Loc(0));
    PTOC_RETURN_IF_ERROR(RequireOrchestration(I, args.loc, "pl.full"));
    if (!r.Get(2)->is_number()) return r.Wrong(2, "a number");
    trace::TensorInit init;
    init.mutable_fill()->set_value(r.Get(2)->f());
    return CreateTensor(I, shape, dtype, /*manual=*/false, init, args.loc, r.Loc(0), "pl.full");
  };
  pl->AddFunction("create_tensor", create_tensor);
  pl->AddFunction("full", full);

  auto array = std::make_shared<Namespace>("pl.array");
  array->AddFunction("create", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.array.create", {"size", "dtype"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0) || !r.Get(0)->is_int() || r.Get(0)->i() <= 0) {
      return I->Error(args.loc, "pl.array.create(N, dtype) needs a compile-time positive N");
    }
    auto* d = r.Has(1) ? r.Get(1)->As<DTypeValue>() : nullptr;
    if (!d || !d->is_task_id()) {
      return I->Error(args.loc, "ptoc supports pl.array.create(N, pl.TASK_ID) arrays only");
    }
    return Value::Obj(std::make_shared<TaskIdArray>(r.Get(0)->i()));
  });
  // pl.array.update_element(arr, i, tid) (array_ops.py): the array with slot
  // i set; the write is the one `arr[i] = tid` makes (carried out of a
  // pl.parallel body), so the array it returns is `arr` itself.
  array->AddFunction("update_element", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.array.update_element", {"array", "index", "value"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    auto* arr = r.Get(0)->As<TaskIdArray>();
    if (!arr) return r.Wrong(0, "a pl.array of TaskIds");
    if (!r.Get(1)->is_integral() || r.Get(1)->i() < 0 ||
        r.Get(1)->i() >= static_cast<int64_t>(arr->slots().size())) {
      return r.Wrong(1, absl::StrCat("an index in [0, ", arr->slots().size(), ")"));
    }
    PTOC_RETURN_IF_ERROR(I->SetTaskIdSlot(*r.Get(0), r.Get(1)->i(), *r.Get(2), r.Loc(2)));
    return *r.Get(0);
  });
  pl->Set("array", Value::Obj(array));

  pl->AddFunction("slice", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.slice", {"tensor", "shape", "offsets", "valid_shape"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    if (r.Get(0)->As<Tile>() != nullptr) {
      // A tile's window (upstream's tile.slice, TEXTRACT): offsets may be
      // device integers.
      if (r.Has(3)) {
        return I->Error(r.Loc(3),
                        "pl.slice of a tile with valid_shape= is not supported yet; "
                        "slice the tensor, or load with valid_shape=");
      }
      PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(1), r.Loc(1), "pl.slice shape"));
      PTOC_ASSIGN_OR_RETURN(offsets, ValueList(I, *r.Get(2), r.Loc(2), "pl.slice offsets"));
      return TileExtract(I, *r.Get(0), shape, offsets, args.loc);
    }
    auto ref = r.Get(0)->AsShared<TensorRef>();
    if (!ref && !r.Get(0)->As<DeviceTensorView>()) return r.Wrong(0, "a tensor");
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(1), r.Loc(1), "pl.slice shape"));
    PTOC_ASSIGN_OR_RETURN(at, ValueList(I, *r.Get(2), r.Loc(2), "pl.slice offsets"));
    if (!ref || !absl::c_all_of(at, [](const Value& v) { return v.is_integral(); })) {
      // A window at device offsets, inside a task body.
      if (r.Has(3)) {
        return I->Error(r.Loc(3),
                        "pl.slice(valid_shape=) of a window at device offsets is not "
                        "supported; load the window with valid_shape=");
      }
      return WindowOf(I, *r.Get(0), at, shape, args.loc);
    }
    PTOC_ASSIGN_OR_RETURN(offsets, IntList(I, *r.Get(2), r.Loc(2), "pl.slice offsets"));
    if (shape.size() != ref->shape().size() || offsets.size() != ref->shape().size()) {
      return I->Error(args.loc, absl::StrCat("pl.slice of a rank-", ref->shape().size(),
                                             " tensor needs that many shape and offset entries"));
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if (offsets[d] < 0 || shape[d] <= 0 || offsets[d] + shape[d] > ref->shape()[d]) {
        return I->Error(
            args.loc, absl::StrCat("pl.slice dim ", d, " covers [", offsets[d], ", ",
                                   offsets[d] + shape[d], ") of a dim of size ", ref->shape()[d]));
      }
    }
    if (r.Has(3)) {
      // The view's valid region: its readers load with valid_shape= of their
      // own; here it is checked against the slice.
      PTOC_ASSIGN_OR_RETURN(valid, ValueList(I, *r.Get(3), r.Loc(3), "pl.slice valid_shape"));
      if (valid.size() != shape.size()) {
        return I->Error(r.Loc(3), absl::StrCat("pl.slice valid_shape has ", valid.size(),
                                               " entries for a rank-", shape.size(), " slice"));
      }
      for (size_t d = 0; d < valid.size(); ++d) {
        if (!valid[d].is_integral()) continue;
        if (valid[d].i() < 0 || valid[d].i() > shape[d]) {
          return I->Error(r.Loc(3), absl::StrCat("pl.slice valid_shape[", d, "] is ", valid[d].i(),
                                                 " but the slice is ", shape[d],
                                                 " long there; the valid region lies inside it"));
        }
      }
    }
    return Value::Obj(ref->View(offsets, shape));
  });

  // pl.const(value, dtype) (dsl_api.py): a typed constant; the value itself.
  pl->AddFunction("const", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.const", {"value", "dtype"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    if (!r.Get(0)->is_number()) return r.Wrong(0, "an int or float");
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    if (IsFloat(dtype)) return Value::Float(r.Get(0)->f());
    if (r.Get(0)->is_float()) return r.Wrong(0, "an int for an integer dtype");
    return *r.Get(0);
  });
  // pl.dump_tag(t) (tensor_ops.py): marks t for the runtime's selective
  // tensor dump; no scheduling effect, and pto_sim dumps no tensors.
  pl->AddFunction("dump_tag", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.dump_tag", {"tensor"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0) || !r.Get(0)->As<TensorRef>()) return r.Wrong(0, "a tensor");
    return *r.Get(0);
  });
  AddTileOps(I, pl.get());
  // pl.tensor.X: the ops upstream also has at the tensor level
  // (tensor_ops.py); in a task body a tensor operand is loaded whole, as
  // pl.X does. The tile-only ops (relu, maximums, move, ...) are not here.
  auto tensor = std::make_shared<Namespace>("pl.tensor");
  for (const char* name : {"create_tensor",
                           "full",
                           "slice",
                           "add",
                           "sub",
                           "mul",
                           "div",
                           "maximum",
                           "minimum",
                           "adds",
                           "subs",
                           "muls",
                           "divs",
                           "exp",
                           "neg",
                           "sqrt",
                           "rsqrt",
                           "recip",
                           "abs",
                           "log",
                           "sin",
                           "cos",
                           "not_",
                           "fmod",
                           "fmods",
                           "cmp",
                           "part_add",
                           "part_mul",
                           "part_max",
                           "part_min",
                           "row_prod",
                           "col_prod",
                           "row_expand_expdif",
                           "col_expand_expdif",
                           "row_sum",
                           "row_max",
                           "row_min",
                           "col_sum",
                           "col_max",
                           "col_min",
                           "row_expand",
                           "row_expand_add",
                           "row_expand_sub",
                           "row_expand_mul",
                           "row_expand_div",
                           "row_expand_max",
                           "row_expand_min",
                           "col_expand",
                           "col_expand_add",
                           "col_expand_sub",
                           "col_expand_mul",
                           "col_expand_div",
                           "col_expand_max",
                           "col_expand_min",
                           "matmul",
                           "matmul_acc",
                           "cast",
                           "concat",
                           "assemble",
                           "reshape"}) {
    tensor->Set(name, *pl->Get(name));
  }
  tensor->Set("create", *pl->Get("create_tensor"));
  pl->Set("tensor", Value::Obj(tensor));
  AddScalarOps(I, pl.get(), tensor.get(), pl->Get("tile")->As<Namespace>());
  // pl.tile.slice: a tile's window, as pl.slice of a tile.
  pl->Get("tile")->As<Namespace>()->Set("slice", *pl->Get("slice"));
  tensor->Set("dump_tag", *pl->Get("dump_tag"));
  // pl.PadValue: what pl.tile.fillpad writes (Op.PadValue's codes; null is
  // "no padding").
  pl->Set("PadValue",
          MakeEnum(pl.get(), "pl.PadValue", {{"null", 0}, {"zero", 1}, {"max", 2}, {"min", 3}}));
  pl->Set("TensorLayout", MakeEnum(pl.get(), "pl.TensorLayout", {{"ND", 0}, {"DN", 1}, {"NZ", 2}}));
  // pl.TensorView(...) in a parameter annotation: the view's layout and valid
  // shape, documentation for ptoc (a kernel loads with its own valid_shape=).
  pl->AddFunction("TensorView",
                  [](const CallArgs&) -> absl::StatusOr<Value> { return Value::None(); });

  // ---- pl.system
  auto system = std::make_shared<Namespace>("pl.system");
  system->AddFunction("syncall", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.system.syncall", {"core_type", "mode", "gm_workspace", "used_cores"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!I->in_kernel()) return I->Error(args.loc, "syncall is only valid inside a task body");
    trace::Op::SyncMode mode = trace::Op::HARD;
    if (r.Has(1)) {
      const Value& m = *r.Get(1);
      if (IsEnum(m, "pl.SyncAllMode", "SOFT") || (m.is_str() && m.s() == "soft")) {
        mode = trace::Op::SOFT;
      } else if (!IsEnum(m, "pl.SyncAllMode", "HARD") && !(m.is_str() && m.s() == "hard")) {
        return I->Error(r.Loc(1),
                        absl::StrCat("syncall mode must be 'hard' or 'soft', got ", m.Repr()));
      }
    }
    trace::CoreType core = trace::MIX;
    if (r.Has(0)) {
      core = CoreTypeOf(*r.Get(0));
      if (core == trace::CORE_TYPE_UNSPECIFIED) {
        return I->Error(r.Loc(0), "syncall core_type must be pl.KernelType.AIV/AIC/MIX");
      }
    }
    trace::Op* op = I->kernel()->Emit(trace::Op::SYNCALL, I->Origin(args.loc));
    op->mutable_sync()->set_mode(mode);
    op->mutable_sync()->set_core_type(core);
    if (mode == trace::Op::HARD) {
      if (r.Has(2) || r.Has(3)) {
        return I->Error(args.loc,
                        "syncall(mode='hard') takes no gm_workspace/used_cores; pass "
                        "mode='soft' to use the GM-polling barrier");
      }
      return Value::None();
    }
    if (!r.Has(2)) {
      return I->Error(args.loc,
                      "soft syncall requires gm_workspace (a shared, zero-initialized "
                      "GM INT32 tensor)");
    }
    auto ws = r.Get(2)->AsShared<TensorRef>();
    if (!ws) return r.Wrong(2, "a tensor");
    int64_t elements = 1;
    for (int64_t d : ws->shape()) elements *= d;
    if (ws->dtype() != trace::INT32 || elements < 16) {
      return I->Error(r.Loc(2),
                      absl::StrCat("soft syncall gm_workspace must be an INT32 tensor of at least "
                                   "16 elements (64 B: an exclusive, zero-initialized cache "
                                   "line for the arrival counter), but '",
                                   ws->name(), "' is ", DTypeName(ws->dtype()), " with ", elements,
                                   " element(s); create it with pl.create_tensor([16], pl.INT32, "
                                   "init_value=0) or pass a torch.zeros(16, dtype=torch.int32)"));
    }
    if (!r.Has(3)) {
      return I->Error(args.loc,
                      "soft syncall requires explicit used_cores; pass 0 only when the "
                      "device launch configuration matches the runtime's logical grid");
    }
    if (r.Get(3)->is_integral() && (r.Get(3)->i() < 0 || r.Get(3)->i() > 2147483647)) {
      return I->Error(r.Loc(3),
                      absl::StrCat("soft syncall used_cores must be in the INT32 range "
                                   "[0, 2147483647], got ",
                                   r.Get(3)->i(), "; pass the number of participating cores"));
    }
    PTOC_ASSIGN_OR_RETURN(used, ToIntExpr(*r.Get(3)));
    // Re-fetch: UseTensor may add a param but never moves emitted ops.
    const uint32_t param = I->kernel()->UseTensor(ws, true, true);
    op->mutable_sync()->set_workspace_param(param);
    *op->mutable_sync()->mutable_used_cores() = used;
    return Value::None();
  });
  system->AddFunction("fence", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (!I->in_kernel()) return I->Error(args.loc, "fence is only valid inside a task body");
    I->kernel()->Emit(trace::Op::FENCE, I->Origin(args.loc));
    return Value::None();
  });
  system->AddFunction("cacheinvalid", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.system.cacheinvalid", {"tensor", "shapes", "offsets"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!I->in_kernel()) {
      return I->Error(args.loc, "cacheinvalid is only valid inside a task body");
    }
    if (!r.Has(0)) {
      I->kernel()->Emit(trace::Op::CACHE_INVALID, I->Origin(args.loc))->set_whole_cache(true);
      return Value::None();
    }
    auto ref = r.Get(0)->AsShared<TensorRef>();
    if (!ref) return r.Wrong(0, "a tensor");
    std::vector<Value> offsets(ref->shape().size(), Value::Int(0));
    if (r.Has(2)) {
      PTOC_ASSIGN_OR_RETURN(o, ValueList(I, *r.Get(2), r.Loc(2), "offsets"));
      offsets = o;
    }
    const uint32_t param = I->kernel()->UseTensor(ref, true, false);
    trace::Op* op = I->kernel()->Emit(trace::Op::CACHE_INVALID, I->Origin(args.loc));
    op->set_param(param);
    for (const Value& v : offsets) {
      PTOC_ASSIGN_OR_RETURN(e, ToIntExpr(v));
      *op->add_offsets() = e;
    }
    return Value::None();
  });
  system->AddFunction("task_dummy", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (!args.positional.empty()) {
      return I->Error(args.loc, "pl.system.task_dummy must not use positional arguments");
    }
    const Value* deps = args.Keyword("deps");
    for (const auto& [name, v] : args.keywords) {
      if (name != "deps") {
        return I->Error(
            args.KeywordLoc(name),
            absl::StrCat("pl.system.task_dummy does not accept keyword argument '", name, "'"));
      }
    }
    if (!deps) return I->Error(args.loc, "pl.system.task_dummy requires keyword argument 'deps'");
    PTOC_RETURN_IF_ERROR(RequireOrchestration(I, args.loc, "pl.system.task_dummy"));
    TaskOptions options;
    PTOC_RETURN_IF_ERROR(ReadDeps(I, *deps, args.KeywordLoc("deps"), &options));
    PTOC_ASSIGN_OR_RETURN(index, I->EmitDummy(options.deps, args.loc));
    return Value::Obj(std::make_shared<TaskIdValue>(index < 0 ? -1 : I->launch()->serial(), index,
                                                    I->launch()->current_scope()));
  });
  system->AddFunction("available_aiv_count", [](const CallArgs&) -> absl::StatusOr<Value> {
    return Value::Obj(std::make_shared<AvailableCount>(trace::AVAILABLE_AIV));
  });
  system->AddFunction("available_cluster_count", [](const CallArgs&) -> absl::StatusOr<Value> {
    return Value::Obj(std::make_shared<AvailableCount>(trace::AVAILABLE_CLUSTER));
  });
  pl->Set("system", Value::Obj(system));
  AddProgramForm(I, pl.get());
  AddMemRef(I, pl.get());
  return pl;
}

}  // namespace pto::ptoc
