// Device-side `if`: a branch on a device integer (the block index, a loop
// variable, a scalar parameter, a value read with pl.read) inside a kernel
// becomes an Op.IF whose arms each block chooses between at run time. The
// names an arm rebinds follow PyPTO's SSA conversion
// (hw-native-sys/pypto@e2d0f78a docs/en/dev/passes/04-convert_to_ssa.md): a
// name either arm rebinds and later code reads is a phi, the prior value
// flowing along the path that left it alone; an explicit `x = pl.yield_(...)`
// names the arm's results and must appear in both arms with one arity.
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/interpreter.h"
#include "frontend/name_analysis.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

// The `pl.yield_(...)` an arm ends with: its top-level call (assigned or
// bare), if any.
const Stmt* ArmYield(const Block& arm) {
  for (const auto& s : arm) {
    if ((s->kind == StmtKind::kAssign || s->kind == StmtKind::kExpr) && s->value &&
        IsYieldCall(*s->value)) {
      return s.get();
    }
  }
  return nullptr;
}

size_t YieldArity(const Stmt& yield) { return yield.value->elts.size() - 1; }

bool SameScalar(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number() && a.kind() == b.kind()) {
    return a.is_float() ? a.f() == b.f() : a.i() == b.i();
  }
  return a.is_object() && b.is_object() && a.obj() == b.obj();
}

std::string DescribeValue(const Value& v) {
  if (auto* t = v.As<Tile>()) {
    return absl::StrCat("a ", ShapeString(t->shape()), " ", DTypeName(t->dtype()), " tile");
  }
  if (auto* r = v.As<TensorRef>()) return absl::StrCat("tensor '", r->name(), "'");
  if (v.As<SymInt>()) return "a device integer";
  if (v.is_number()) return absl::StrCat("the ", v.TypeName(), " ", v.Repr());
  return absl::StrCat("a value of type '", v.TypeName(), "'");
}

}  // namespace

absl::Status Interpreter::CheckArmYields(const Stmt& stmt) const {
  const Stmt* then_yield = ArmYield(stmt.body);
  const Stmt* else_yield = ArmYield(stmt.orelse);
  if (then_yield == nullptr && else_yield == nullptr) return absl::OkStatus();
  if (then_yield == nullptr || else_yield == nullptr) {
    const Stmt* only = then_yield ? then_yield : else_yield;
    return Error(only->loc,
                 absl::StrCat("pl.yield_ in the ", then_yield ? "then" : "else",
                              " arm of an if needs one in the ", then_yield ? "else" : "then",
                              " arm too: an if's yields name its results, one value per arm "
                              "(pypto's SSA form)"));
  }
  if (YieldArity(*then_yield) != YieldArity(*else_yield)) {
    return Error(
        else_yield->loc,
        absl::StrCat("this arm yields ", YieldArity(*else_yield),
                     " value(s) but the then arm (line ", then_yield->loc.line, ") yields ",
                     YieldArity(*then_yield), "; both arms of an if yield as many"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Interpreter::BranchYield(const CallArgs& args) {
  yield_assignment_ = nullptr;
  if (!args.keywords.empty()) {
    return Error(args.keyword_locs[0],
                 "pl.yield_ takes the yielded values as positional arguments");
  }
  return args.positional.size() == 1 ? args.positional[0] : Value::Tuple(args.positional);
}

absl::StatusOr<Interpreter::Flow> Interpreter::RunArm(const Block& arm,
                                                      const std::shared_ptr<Env>& env) {
  CarryFrame frame;
  frame.branch = true;
  carry_frames_.push_back(std::move(frame));
  auto flow = ExecBlock(arm, env);
  carry_frames_.pop_back();
  return flow;
}

absl::StatusOr<Interpreter::Flow> Interpreter::RunDeviceIf(const Stmt& stmt,
                                                           const trace::IntExpr& cond,
                                                           const std::shared_ptr<Env>& env) {
  KernelBuilder& k = *kernel_;
  std::set<std::string> assigned;
  CollectAssignedNames(stmt.body, &assigned);
  CollectAssignedNames(stmt.orelse, &assigned);
  std::map<std::string, Value> before;
  for (const std::string& name : assigned) {
    if (const Value* v = env->Lookup(name)) before[name] = *v;
  }
  // Runs one arm and takes what it left in the names, then puts the names
  // back as they were for the other arm.
  const auto run_arm = [&](const Block& arm, std::map<std::string, Value>* after) -> absl::Status {
    auto flow = RunArm(arm, env);
    if (flow.ok() && *flow != Flow::kNormal) {
      return Error(stmt.loc,
                   "return/break/continue cannot leave a device-side if: each block runs one "
                   "arm to its end (compute the value in both arms instead)");
    }
    PTOC_RETURN_IF_ERROR(flow.status());
    for (const std::string& name : assigned) {
      if (const Value* v = env->Lookup(name)) (*after)[name] = *v;
      auto it = before.find(name);
      if (it != before.end()) {
        env->Set(name, it->second);
      } else {
        env->Erase(name);
      }
    }
    return absl::OkStatus();
  };
  k.BeginIf(cond, Origin(stmt.loc));
  std::map<std::string, Value> then_values, else_values;
  absl::Status status = run_arm(stmt.body, &then_values);
  if (status.ok()) {
    k.BeginElse();
    status = run_arm(stmt.orelse, &else_values);
  }
  if (status.ok()) status = BindPhis(stmt, assigned, then_values, else_values, env);
  k.EndIf();
  PTOC_RETURN_IF_ERROR(status);
  return Flow::kNormal;
}

absl::Status Interpreter::BindPhis(const Stmt& stmt, const std::set<std::string>& names,
                                   const std::map<std::string, Value>& then_values,
                                   const std::map<std::string, Value>& else_values,
                                   const std::shared_ptr<Env>& env) {
  KernelBuilder& k = *kernel_;
  for (const std::string& name : names) {
    auto t = then_values.find(name);
    auto e = else_values.find(name);
    const bool read_later = MayReadLater(name);
    if (t == then_values.end() || e == else_values.end()) {
      if (read_later) {
        return Error(stmt.loc,
                     absl::StrCat("'", name, "' is bound only in the ",
                                  t == then_values.end() ? "else" : "then",
                                  " arm of this device-side if, and read after it: bind it in "
                                  "both arms (or before the if), so that every block has a "
                                  "value whichever arm it takes"));
      }
      continue;
    }
    const Value& a = t->second;
    const Value& b = e->second;
    if (SameScalar(a, b)) {
      env->Set(name, a);
      continue;
    }
    auto* ta = a.As<TensorRef>();
    auto* tb = b.As<TensorRef>();
    if (ta && tb && ta->tensor_id() == tb->tensor_id() && ta->offsets() == tb->offsets() &&
        ta->shape() == tb->shape()) {
      env->Set(name, a);  // a tensor threaded through both arms' stores
      continue;
    }
    if (!read_later) continue;  // nothing reads the merged value
    const auto mismatch = [&](const std::string& why) {
      return Error(stmt.loc,
                   absl::StrCat("'", name, "' is ", DescribeValue(a), " after the then arm but ",
                                DescribeValue(b), " after the else arm", why));
    };
    auto tile_a = a.AsShared<Tile>();
    auto tile_b = b.AsShared<Tile>();
    if (tile_a || tile_b) {
      if (!tile_a || !tile_b || tile_a->kernel() != k.serial() || tile_b->kernel() != k.serial()) {
        return mismatch("; a name merged after a device-side if keeps one kind of value");
      }
      if (tile_a->shape() != tile_b->shape() || tile_a->dtype() != tile_b->dtype()) {
        return mismatch(
            "; a tile merged after a device-side if keeps one shape and dtype in both arms");
      }
      auto phi = k.NewTileLike(*tile_a, name);
      k.AddPhi(phi->index(), tile_a->index(), tile_b->index(), name);
      env->Set(name, Value::Obj(phi));
      continue;
    }
    auto ea = ToIntExpr(a);
    auto eb = ToIntExpr(b);
    if (!ea.ok() || !eb.ok()) {
      return mismatch(
          "; ptoc merges tiles and integers after a device-side if (a float or other value "
          "must be the same in both arms)");
    }
    env->Set(name, k.AddScalarPhi(*std::move(ea), *std::move(eb), name));
  }
  return absl::OkStatus();
}

}  // namespace pto::ptoc
