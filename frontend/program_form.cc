// The @pl.program form (hw-native-sys/pypto@e2d0f78a docs/en/user/language/01-functions.md,
// docs/en/user/tasks/02-submit.md, python/pypto/language/scope.py): a class whose
// methods are @pl.function(type=...) kernels and orchestrations, `self.k`
// method references, and pl.submit / pl.spmd_submit returning (outputs, TaskId).
#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "frontend/arg_reader.h"
#include "frontend/dict_value.h"
#include "frontend/interpreter.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

// pl.program, before it decorates a class.
class ProgramMarker : public Object {
 public:
  std::string TypeName() const override { return "pl.program"; }
};

absl::StatusOr<Value> Submit(Interpreter* I, const CallArgs& args, bool spmd) {
  const char* what = spmd ? "pl.spmd_submit" : "pl.submit";
  auto* method = args.positional.empty() ? nullptr : args.positional[0].As<BoundMethod>();
  if (!method || method->function()->kind() != FunctionKind::kIncore) {
    return I->Error(args.loc, absl::StrCat(what,
                                           "(...) first argument must be a `self.<kernel>` "
                                           "method reference to a @pl.function(type=InCore/"
                                           "AIC/AIV) kernel"));
  }
  if (!I->in_launch() || I->in_kernel()) {
    return I->Error(args.loc, absl::StrCat(what,
                                           "(...) is only valid in the orchestration body of a "
                                           "@pl.program's Orchestration function"));
  }
  const std::string kernel = method->function()->def()->name;
  TaskOptions options;
  options.method = kernel;
  options.spmd = spmd;
  options.core_num = Value::Int(1);
  CallArgs kernel_args;
  kernel_args.loc = args.loc;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    kernel_args.positional.push_back(args.positional[i]);
    kernel_args.positional_locs.push_back(args.ArgLoc(i));
    kernel_args.positional_names.push_back(
        i < args.positional_names.size() ? args.positional_names[i] : "");
  }
  bool has_core_num = false;
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto& [name, v] = args.keywords[k];
    const SourceLocation loc = args.keyword_locs[k];
    if (name == "deps") {
      PTOC_RETURN_IF_ERROR(ReadDeps(I, v, loc, &options));
    } else if (name == "predicate") {
      PTOC_RETURN_IF_ERROR(ReadPredicate(I, v, loc, &options));
    } else if (name == "allow_early_resolve") {
      if (!v.is_bool() || !args.KeywordIsLiteral(name)) {
        return I->Error(loc, absl::StrCat(what,
                                          "() allow_early_resolve must be a boolean literal "
                                          "(True/False)"));
      }
      options.allow_early_resolve = v.b();
    } else if (name == "dumps") {
      // Tensor dump marks: no scheduling effect.
    } else if (spmd && name == "core_num") {
      if (v.is_integral()) {
        if (v.i() <= 0) {
          return I->Error(loc, absl::StrCat("core_num must be a positive integer, got ", v.i()));
        }
      } else if (!v.As<AvailableCount>()) {
        return I->Error(loc,
                        absl::StrCat("core_num must be an integer expression, got ", v.TypeName()));
      }
      options.core_num = v;
      has_core_num = true;
    } else if (spmd && name == "sync_start") {
      if (!v.is_bool()) return I->Error(loc, "sync_start must be True or False");
      options.sync_start = v.b();
    } else if (spmd && name == "name_hint") {
      if (v.is_str()) options.name_hint = v.s();
    } else {
      kernel_args.keywords.emplace_back(name, v);
      kernel_args.keyword_locs.push_back(loc);
    }
  }
  if (spmd && !has_core_num) {
    return I->Error(args.loc, absl::StrCat("pl.spmd_submit(self.", kernel,
                                           ", ...) requires the core_num keyword argument"));
  }
  Value tid;
  PTOC_ASSIGN_OR_RETURN(
      result, I->CallIncore(method->function(), method->WithSelf(kernel_args), options, &tid));
  return Value::Tuple({result, tid});
}

// attrs={"split": pl.SplitMode.X}: the split of the function's tasks.
absl::Status ReadFunctionAttrs(Interpreter* I, const Value& attrs, SourceLocation loc,
                               Decorator* decorator) {
  auto* dict = attrs.As<DictValue>();
  if (!dict) {
    return I->Error(loc, absl::StrCat("pl.function attrs= must be a dict, e.g. "
                                      "attrs={\"split\": pl.SplitMode.UP_DOWN}; got ",
                                      attrs.TypeName()));
  }
  for (const auto& [key, value] : dict->entries()) {
    if (!key.is_str()) return I->Error(loc, "pl.function attrs= keys must be strings");
    if (key.s() == "split") {
      auto* mode = value.As<EnumValue>();
      if (!mode || mode->enum_name() != "pl.SplitMode") {
        return I->Error(loc, "pl.function attrs[\"split\"] must be a pl.SplitMode");
      }
      decorator->set_split(static_cast<trace::SplitMode>(mode->value()));
    } else {
      return I->Error(loc, absl::StrCat("pl.function attrs key '", key.s(),
                                        "' is not supported by ptoc; supported: split"));
    }
  }
  return absl::OkStatus();
}

// @pl.function(type=AIC/AIV, external_source="k.cpp", <cost>): a hand-written
// kernel pto_sim cannot run, known by the cost summary @pl.jit.extern takes.
absl::StatusOr<Value> ExternalSourceDecorator(Interpreter* I, const CallArgs& args,
                                              const std::string& type, SourceLocation source_loc,
                                              const CallArgs& cost) {
  if (type != "AIC" && type != "AIV") {
    return I->Error(source_loc,
                    "pl.function(external_source=...) is only valid with "
                    "type=pl.FunctionType.AIC or AIV (the kernel's core)");
  }
  if (cost.keywords.empty()) {
    return I->Error(source_loc,
                    "pl.function(external_source=...) needs a cost summary: pto_sim cannot run "
                    "the C++ kernel, so give its work as @pl.jit.extern does, e.g. "
                    "vector_elements=..., bytes_in=..., bytes_out=... or fixed_cycles=... "
                    "(docs/ptoc.md, External kernels)");
  }
  CallArgs spec_args = cost;
  spec_args.loc = args.loc;
  // ReadExternSpec reads the member's name only.
  spec_args.keywords.emplace_back(
      "core_type", Value::Obj(std::make_shared<EnumValue>("pl.KernelType", type, 0)));
  spec_args.keyword_locs.push_back(source_loc);
  PTOC_ASSIGN_OR_RETURN(spec, I->ReadExternSpec(spec_args));
  auto decorator = std::make_shared<Decorator>(FunctionKind::kExtern);
  decorator->set_extern_spec(std::make_shared<const ExternSpec>(std::move(spec)));
  return Value::Obj(decorator);
}

// pl.function: bare (an Opaque function) or with options.
absl::StatusOr<Value> FunctionDecorator(Interpreter* I, const CallArgs& args) {
  if (args.positional.size() == 1 && args.keywords.empty()) {
    if (auto fn = args.positional[0].AsShared<FunctionValue>()) {
      fn->set_kind(FunctionKind::kOpaque);
      return Value::Obj(fn);
    }
  }
  static const char* const kCostKeys[] = {"block_num",     "cube_flops", "vector_elements",
                                          "bytes_in",      "bytes_out",  "fixed_cycles",
                                          "barrier_phases"};
  CallArgs options = args, cost;
  options.keywords.clear(), options.keyword_locs.clear(), options.keyword_literal.clear();
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const bool is_cost = absl::c_linear_search(kCostKeys, args.keywords[k].first);
    CallArgs& into = is_cost ? cost : options;
    into.keywords.push_back(args.keywords[k]);
    into.keyword_locs.push_back(args.keyword_locs[k]);
  }
  ArgReader r(I, options, "pl.function",
              {"type", "auto_scope", "level", "strict_ssa", "role", "attrs", "external_source"});
  PTOC_RETURN_IF_ERROR(r.Check());
  std::string m = "Opaque";
  if (r.Has(0)) {
    auto* type = r.Get(0)->As<EnumValue>();
    if (!type || type->enum_name() != "pl.FunctionType") {
      return r.Wrong(0,
                     "pl.FunctionType.Orchestration / InCore / AIC / AIV / Group / Inline / "
                     "Opaque");
    }
    m = type->member();
  }
  if (r.Has(6)) return ExternalSourceDecorator(I, args, m, r.Loc(6), cost);
  if (!cost.keywords.empty()) {
    return I->Error(cost.keyword_locs[0],
                    absl::StrCat("pl.function() takes '", cost.keywords[0].first,
                                 "' only with external_source= (a kernel known by its cost)"));
  }
  const FunctionKind kind = m == "Orchestration" ? FunctionKind::kJit
                            : m == "Inline"      ? FunctionKind::kInline
                            : m == "Opaque"      ? FunctionKind::kOpaque
                                                 : FunctionKind::kIncore;
  bool auto_scope = true;
  if (r.Has(1)) {
    if (!r.Get(1)->is_bool()) return r.Wrong(1, "True or False");
    auto_scope = r.Get(1)->b();
  }
  auto decorator = std::make_shared<Decorator>(kind, auto_scope);
  if (r.Has(3)) {
    if (!r.Get(3)->is_bool()) return r.Wrong(3, "True or False");
    decorator->set_strict_ssa(r.Get(3)->b());
  }
  if (r.Has(5)) PTOC_RETURN_IF_ERROR(ReadFunctionAttrs(I, *r.Get(5), r.Loc(5), decorator.get()));
  return Value::Obj(decorator);
}

}  // namespace

absl::Status Interpreter::ExecClassDef(const Stmt& stmt, const std::shared_ptr<Env>& env) {
  bool program = false;
  for (const auto& d : stmt.decorators) {
    PTOC_ASSIGN_OR_RETURN(v, Eval(*d, env));
    program |= v.As<ProgramMarker>() != nullptr;
  }
  if (!program || stmt.decorators.size() != 1) {
    return Error(stmt.loc,
                 "a 'class' must be a @pl.program class (the program form); write @pl.program "
                 "above it");
  }
  auto class_env = std::make_shared<Env>(env);
  PTOC_ASSIGN_OR_RETURN(flow, ExecBlock(stmt.body, class_env));
  if (flow != Flow::kNormal) return Error(stmt.loc, "a class body cannot return or break");
  auto ns = std::make_shared<Namespace>(stmt.name);
  const Value self = Value::Obj(ns);
  for (const auto& [name, v] : class_env->vars()) {
    if (auto fn = v.AsShared<FunctionValue>()) {
      const auto& params = fn->def()->params;
      if (params.empty() || params[0].name != "self") {
        return Error(fn->def()->loc, absl::StrCat("method '", name,
                                                  "' of a @pl.program class must take 'self' "
                                                  "first"));
      }
      ns->Set(name, Value::Obj(std::make_shared<BoundMethod>(fn, self)));
    } else {
      ns->Set(name, v);
    }
  }
  env->Set(stmt.name, self);
  return absl::OkStatus();
}

void AddProgramForm(Interpreter* I, Namespace* pl) {
  pl->Set("program", Value::Obj(std::make_shared<ProgramMarker>()));
  pl->Set("FunctionType", [] {
    auto e = std::make_shared<Namespace>("pl.FunctionType");
    int64_t n = 0;
    for (const char* m : {"Orchestration", "InCore", "AIC", "AIV", "Group", "Inline", "Opaque"}) {
      e->Set(m, Value::Obj(std::make_shared<EnumValue>("pl.FunctionType", m, n++)));
    }
    return Value::Obj(e);
  }());
  pl->AddFunction("function", [I](const CallArgs& args) { return FunctionDecorator(I, args); });
  pl->AddFunction("submit", [I](const CallArgs& args) { return Submit(I, args, /*spmd=*/false); });
  pl->AddFunction("spmd_submit",
                  [I](const CallArgs& args) { return Submit(I, args, /*spmd=*/true); });
}

}  // namespace pto::ptoc
