// Loop-carried values: a name rebound inside a loop, and the explicit
// `for i, (acc,) in pl.range(n, init_values=(x,))` + `pl.yield_` form, as
// PyPTO defines them (upstream hw-native-sys/pypto
// docs/en/user/language/02-control-flow.md). An orchestration loop runs on
// the host, so its carries are Python values passed from one iteration to
// the next. A device loop's body is traced once into an Op.LOOP, so each
// carried tile gets one register of its own (Op.Loop.Carry) that the loop
// refreshes from the body's result at the end of every iteration.
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/interpreter.h"
#include "frontend/name_analysis.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

// Python identity for what a rebinding can change: scalars by value, objects
// and sequences by reference.
bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNone:
      return true;
    case ValueKind::kBool:
    case ValueKind::kInt:
      return a.i() == b.i();
    case ValueKind::kFloat:
      return a.f() == b.f();
    case ValueKind::kStr:
      return a.s() == b.s();
    case ValueKind::kTuple:
    case ValueKind::kList:
      return &a.items() == &b.items();
    case ValueKind::kObject:
      return a.obj() == b.obj();
  }
  return false;
}

std::string Describe(const Value& v) {
  if (auto* t = v.As<Tile>()) {
    return absl::StrCat("a ", ShapeString(t->shape()), " ", DTypeName(t->dtype()), " tile");
  }
  if (auto* r = v.As<TensorRef>()) return absl::StrCat("tensor '", r->name(), "'");
  if (v.is_number()) return absl::StrCat("the ", v.TypeName(), " ", v.Repr());
  return absl::StrCat("a value of type '", v.TypeName(), "'");
}

// One value a device loop carries. `tile` is null for a tensor threaded
// through the loop (its stores are side effects; the name stays the tensor).
struct DeviceCarry {
  std::string name;
  std::shared_ptr<Tile> tile;
  std::optional<uint32_t> init;
  Value init_value;
  bool is_iter_arg = false;  // of init_values=
  size_t position = 0;       // its index there
};

}  // namespace

absl::StatusOr<Interpreter::LoopTargets> Interpreter::ReadLoopTargets(const Stmt& stmt,
                                                                      const LoopSpec& spec) const {
  const Expr& target = *stmt.targets[0];
  LoopTargets out;
  out.var = &target;
  if (!spec.init_values()) return out;
  const size_t count = spec.init_values()->size();
  // The forms and messages of upstream's parser
  // (python/pypto/language/parser/ast_parser.py, parse_for_loop).
  if (target.kind != ExprKind::kTuple || target.elts.size() != 2) {
    return Error(target.loc,
                 "for loop target must be a tuple when init_values is provided: write "
                 "'for i, (acc,) in pl.range(n, init_values=(init,))' to name the iter_args");
  }
  if (target.elts[0]->kind != ExprKind::kName) {
    return Error(target.elts[0]->loc, "the loop variable must be a simple name");
  }
  out.var = target.elts[0].get();
  const Expr& iter_args = *target.elts[1];
  if (iter_args.kind != ExprKind::kTuple) {
    return Error(iter_args.loc,
                 "iter_args must be a tuple: wrap the iteration variables in parentheses, e.g. "
                 "(acc,) or (acc_max, acc_sum)");
  }
  if (iter_args.elts.size() != count) {
    return Error(iter_args.loc, absl::StrCat("mismatch: ", iter_args.elts.size(), " iter_args but ",
                                             count, " init_values; provide exactly ", count,
                                             " iteration variable(s) to match init_values"));
  }
  for (const auto& e : iter_args.elts) {
    if (e->kind != ExprKind::kName) return Error(e->loc, "an iter_arg must be a simple name");
    out.iter_args.push_back(e->name);
  }
  if (const Stmt* bare = BareYield(stmt.body)) {
    return Error(bare->loc,
                 "a loop with init_values requires an assignment-form pl.yield_(...): the "
                 "left-hand side names the loop's result after it. Write "
                 "'acc_next = pl.yield_(updated)' and use 'acc_next' after the loop");
  }
  return out;
}

absl::StatusOr<Value> Interpreter::Yield(const CallArgs& args) {
  const Stmt* assignment = yield_assignment_;
  yield_assignment_ = nullptr;
  if (!args.keywords.empty()) {
    return Error(args.keyword_locs[0],
                 "pl.yield_ takes the yielded values as positional arguments");
  }
  if (!carry_frames_.empty() && carry_frames_.back().branch) return BranchYield(args);
  if (carry_frames_.empty() || carry_frames_.back().task_barrier) {
    return Error(args.loc,
                 "pl.yield_ outside a loop: it names the values a pl.range / pl.parallel loop "
                 "with init_values= carries into its next iteration, or an if's arm results");
  }
  CarryFrame& frame = carry_frames_.back();
  if (frame.arity == 0) {
    return Error(args.loc,
                 "pl.yield_ in a loop without init_values=: name the carried values with "
                 "'for i, (acc,) in pl.range(n, init_values=(init,))', or simply rebind the name "
                 "in the body (acc = ...), which carries it");
  }
  if (frame.yielded) {
    return Error(
        args.loc,
        absl::StrCat("pl.yield_ runs twice in one iteration (first at line ", frame.yield_loc.line,
                     "); yield the carried values once, at the end of the body"));
  }
  if (args.positional.size() != frame.arity) {
    return Error(args.loc, absl::StrCat("pl.yield_ gives ", args.positional.size(),
                                        " value(s) but the loop carries ", frame.arity,
                                        " (its init_values); yield one value per iter_arg"));
  }
  frame.yielded = args.positional;
  frame.yield_loc = args.loc;
  frame.yield_stmt = assignment;
  return args.positional.size() == 1 ? args.positional[0] : Value::Tuple(args.positional);
}

absl::Status Interpreter::BindIterResults(const Stmt* yield_stmt,
                                          const std::vector<std::string>& iter_args,
                                          const std::vector<Value>& results,
                                          const std::shared_ptr<Env>& env) {
  if (yield_stmt) {
    const Value out = results.size() == 1 ? results[0] : Value::Tuple(results);
    for (const auto& t : yield_stmt->targets) {
      PTOC_RETURN_IF_ERROR(Assign(*t, YieldedFor(*t, out), env));
    }
    return absl::OkStatus();
  }
  for (size_t k = 0; k < iter_args.size(); ++k) {
    env->Set(iter_args[k], results[k]);
    env->Set(absl::StrCat(iter_args[k], "_out"), results[k]);
  }
  return absl::OkStatus();
}

absl::StatusOr<Interpreter::CarryFrame> Interpreter::RunClones(const Stmt& stmt,
                                                               const LoopTargets& targets,
                                                               const Value& var, int64_t clones,
                                                               int64_t clone_step,
                                                               const std::shared_ptr<Env>& env) {
  CarryFrame frame;
  // Copies of a pl.pipeline body run concurrently: the planner keeps their
  // tiles in buffers of their own.
  const int32_t pipeline =
      clones > 1 ? kernel_->BeginPipeline(static_cast<int32_t>(clones), Origin(stmt.loc)) : -1;
  for (int64_t k = 0; k < clones; ++k) {
    // The names a copy rebinds flow into the next copy through `env`; the
    // explicit iter_args take what the previous copy yielded.
    if (k > 0 && frame.yielded) {
      for (size_t j = 0; j < targets.iter_args.size(); ++j) {
        env->Set(targets.iter_args[j], (*frame.yielded)[j]);
      }
    }
    Value clone_var = var;
    if (k > 0) {
      PTOC_ASSIGN_OR_RETURN(base, ToIntExpr(var));
      trace::IntExpr offset;
      offset.set_constant(k * clone_step);
      clone_var = IntBinary(trace::IntExpr::ADD, base, offset);
    }
    PTOC_RETURN_IF_ERROR(Assign(*targets.var, clone_var, env));
    carry_frames_.push_back({targets.iter_args.size()});
    if (pipeline >= 0) kernel_->BeginPipelineStage(pipeline, static_cast<int32_t>(k));
    auto flow = ExecBlock(stmt.body, env, BlockKind::kRepeated);
    if (pipeline >= 0) kernel_->EndPipelineStage();
    frame = std::move(carry_frames_.back());
    carry_frames_.pop_back();
    if (!flow.ok()) return flow.status();
    if (*flow != Flow::kNormal) {
      return Error(stmt.loc, "return/break/continue cannot leave a device loop");
    }
  }
  return frame;
}

absl::StatusOr<Interpreter::Flow> Interpreter::RunDeviceLoop(const Stmt& stmt, const LoopSpec& spec,
                                                             const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(start, ToIntExpr(spec.start()));
  PTOC_ASSIGN_OR_RETURN(stop, ToIntExpr(spec.stop()));
  PTOC_ASSIGN_OR_RETURN(step, ToIntExpr(spec.step()));
  DeviceLoopShape shape;
  shape.start = start;
  shape.stop = stop;
  shape.step = step;
  PTOC_RETURN_IF_ERROR(TraceDeviceLoop(stmt, spec, shape, env, nullptr));
  return Flow::kNormal;
}

absl::Status Interpreter::TraceDeviceLoop(const Stmt& stmt, const LoopSpec& spec,
                                          const DeviceLoopShape& shape,
                                          const std::shared_ptr<Env>& env,
                                          std::vector<Value>* results) {
  PTOC_ASSIGN_OR_RETURN(targets, ReadLoopTargets(stmt, spec));
  KernelBuilder& k = *kernel_;
  const uint32_t tiles_before = k.tile_count();

  // The names the body binds, as PyPTO's parser sees them; the loop's own
  // names (its variable, iter_args, the yield's targets) are not rebindings.
  std::set<std::string> assigned, own;
  CollectAssignedNames(stmt.body, &assigned);
  if (targets.var->kind == ExprKind::kName) own.insert(targets.var->name);
  own.insert(targets.iter_args.begin(), targets.iter_args.end());
  const Stmt* yield_stmt = YieldAssignment(stmt.body);
  if (yield_stmt) {
    for (const auto& t : yield_stmt->targets) CollectTargetNames(*t, &own);
  }
  // What the body's names hold on entry. Names the body assigns are locals
  // of the running function (Python's rule), so an outer binding does not
  // count; nor does a tile of an earlier task, a stale binding nothing here
  // can read.
  std::map<std::string, Value> before;
  for (const std::string& name : assigned) {
    auto it = env->vars().find(name);
    if (it == env->vars().end()) continue;
    if (auto* tile = it->second.As<Tile>(); tile && tile->kernel() != k.serial()) continue;
    before[name] = it->second;
  }

  std::vector<DeviceCarry> carries;
  if (spec.init_values()) {
    for (size_t j = 0; j < targets.iter_args.size(); ++j) {
      const Value& init = (*spec.init_values())[j];
      DeviceCarry c{targets.iter_args[j], nullptr, std::nullopt, init, true, j};
      if (init.As<Tile>()) {
        PTOC_ASSIGN_OR_RETURN(tile, AsTile(init, spec.init_values_loc()));
        c.tile = k.NewTileLike(*tile, c.name);
        c.init = tile->index();
      } else if (!init.As<TensorRef>()) {
        return Error(spec.init_values_loc(),
                     absl::StrCat("init_values[", j, "] of a device loop is ", Describe(init),
                                  ": ptoc carries tiles (and tensors threaded through stores) "
                                  "across device loop iterations; a device-side scalar carry is "
                                  "not supported yet, so compute the value from the loop "
                                  "variable"));
      }
      carries.push_back(std::move(c));
    }
  }
  // A tile the body rebinds needs a carry when the body reads the previous
  // iteration's value, or when code after the loop reads the last one (which
  // is the value from before the loop if it runs no iteration).
  for (const std::string& name : assigned) {
    if (own.count(name) || !before.count(name)) continue;
    auto tile = before[name].AsShared<Tile>();
    if (!tile) continue;
    if (FirstUse(stmt.body, 0, name) != NameUse::kRead && !MayReadLater(name)) continue;
    carries.push_back({name, k.NewTileLike(*tile, name), tile->index(), before[name], false, 0});
  }
  for (const DeviceCarry& c : carries) {
    env->Set(c.name, c.tile ? Value::Obj(c.tile) : c.init_value);
  }

  Value var = k.BeginLoop(shape.start, shape.stop, shape.step, Origin(stmt.loc));
  auto last = RunClones(stmt, targets, var, shape.clones, shape.clone_step, env);
  if (!last.ok()) {
    k.EndLoop();
    return last.status();
  }
  CarryFrame frame = *std::move(last);

  // What each carry takes at the end of an iteration.
  std::set<std::string> carried;
  for (const DeviceCarry& c : carries) {
    carried.insert(c.name);
    const bool yielded = c.is_iter_arg && frame.yielded;
    const Value next = yielded ? (*frame.yielded)[c.position] : *env->Lookup(c.name);
    const SourceLocation loc = yielded ? frame.yield_loc : k.AssignedAt(c.name).value_or(stmt.loc);
    const auto type_change = [&](const std::string& what) {
      k.EndLoop();
      return Error(loc, absl::StrCat("the value carried as '", c.name, "' changes type: it enters ",
                                     "the loop as ", Describe(c.init_value), " but ", what,
                                     "; a carried value keeps one type across iterations, so "
                                     "give the new value its own name"));
    };
    if (!c.tile) {
      auto* in = c.init_value.As<TensorRef>();
      auto* out = next.As<TensorRef>();
      if (!out || out->tensor_id() != in->tensor_id()) {
        return type_change(absl::StrCat("the loop body makes it ", Describe(next)));
      }
      continue;
    }
    auto tile = next.AsShared<Tile>();
    if (!tile || tile->kernel() != k.serial() || tile->shape() != c.tile->shape() ||
        tile->dtype() != c.tile->dtype()) {
      return type_change(absl::StrCat("the loop body makes it ", Describe(next)));
    }
    k.AddCarry(c.tile->index(), c.init, tile->index(), c.name);
  }
  // A tile first defined in the loop is read after it as the last
  // iteration's value: a carry without an initial value.
  std::vector<std::pair<std::string, std::shared_ptr<Tile>>> promoted;
  for (const std::string& name : assigned) {
    if (own.count(name) || carried.count(name)) continue;
    const Value* now = env->Lookup(name);
    auto it = before.find(name);
    if (it == before.end()) {
      auto tile = now ? now->AsShared<Tile>() : nullptr;
      if (tile && tile->kernel() == k.serial() && tile->index() >= tiles_before &&
          MayReadLater(name)) {
        auto carry = k.NewTileLike(*tile, name);
        k.AddCarry(carry->index(), std::nullopt, tile->index(), name);
        promoted.emplace_back(name, carry);
      }
      continue;
    }
    if (now == nullptr || SameValue(it->second, *now)) continue;
    const SourceLocation loc = k.AssignedAt(name).value_or(stmt.loc);
    if (it->second.As<Tile>()) continue;  // a tile neither the body nor later code reads
    if (now->As<Tile>()) {
      k.EndLoop();
      return Error(loc, absl::StrCat("the value carried as '", name, "' changes type: it enters ",
                                     "the loop as ", Describe(it->second),
                                     " but the loop body makes it ", Describe(*now),
                                     "; a carried value keeps one type across iterations, so "
                                     "give the tile its own name"));
    }
    if (FirstUse(stmt.body, 0, name) == NameUse::kRead) {
      k.EndLoop();
      return Error(
          loc, absl::StrCat("'", name,
                            "' is read in this device loop before the body rebinds it, so its "
                            "value would be carried from one iteration to the next; ptoc traces "
                            "a device loop body once and carries only tiles, so compute it from "
                            "the loop variable (e.g. off = base + k * step) or keep it in a tile"));
    }
  }
  k.EndLoop();

  // After the loop each carried name holds the last iteration's value.
  std::vector<Value> iter_results;
  for (const DeviceCarry& c : carries) {
    const Value out = c.tile ? Value::Obj(c.tile) : c.init_value;
    if (c.is_iter_arg) {
      iter_results.push_back(out);
    } else {
      env->Set(c.name, out);
    }
  }
  if (spec.init_values()) {
    PTOC_RETURN_IF_ERROR(BindIterResults(yield_stmt, targets.iter_args, iter_results, env));
  }
  for (const auto& [name, tile] : promoted) env->Set(name, Value::Obj(tile));
  if (results) *results = std::move(iter_results);
  return absl::OkStatus();
}

}  // namespace pto::ptoc
