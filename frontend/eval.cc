// Expression evaluation of the tracing interpreter.
#include <cmath>
#include <limits>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/device_views.h"
#include "frontend/dict_value.h"
#include "frontend/interpreter.h"
#include "frontend/memref.h"
#include "frontend/status_macros.h"
#include "frontend/subscript.h"
#include "frontend/tile_ops.h"

namespace pto::ptoc {

namespace {

int64_t PyFloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

double PyFloatMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

}  // namespace

absl::StatusOr<Value> Interpreter::Eval(const Expr& e, const std::shared_ptr<Env>& env) {
  switch (e.kind) {
    case ExprKind::kName: {
      const Value* v = env->Lookup(e.name);
      if (!v) return Error(e.loc, absl::StrCat("name '", e.name, "' is not defined"));
      return *v;
    }
    case ExprKind::kInt:
      return Value::Int(e.int_value);
    case ExprKind::kFloat:
      return Value::Float(e.float_value);
    case ExprKind::kString:
      return Value::Str(e.name);
    case ExprKind::kBool:
      return Value::Bool(e.int_value != 0);
    case ExprKind::kNone:
      return Value::None();
    case ExprKind::kTuple:
    case ExprKind::kList: {
      std::vector<Value> items;
      for (const auto& elt : e.elts) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*elt, env));
        items.push_back(v);
      }
      return e.kind == ExprKind::kTuple ? Value::Tuple(items) : Value::List(items);
    }
    case ExprKind::kDict: {
      auto dict = std::make_shared<DictValue>();
      for (size_t k = 0; k < e.elts.size(); ++k) {
        PTOC_ASSIGN_OR_RETURN(key, Eval(*e.elts[k], env));
        if (!key.is_str() && !key.is_number() && !key.is_bool() && !key.As<EnumValue>()) {
          return Error(e.elts[k]->loc, absl::StrCat("a dict key must be a string, number or "
                                                    "enum member, got ",
                                                    key.TypeName()));
        }
        PTOC_ASSIGN_OR_RETURN(value, Eval(*e.extra[k], env));
        dict->Set(key, value, DictKeyEquals());
      }
      return Value::Obj(dict);
    }
    case ExprKind::kListComp:
      return EvalListComp(e, env);
    case ExprKind::kAttribute:
      return EvalAttribute(e, env);
    case ExprKind::kSubscript:
      return EvalSubscript(e, env);
    case ExprKind::kSlice:
      return Error(e.loc, "a slice is only valid inside a subscript");
    case ExprKind::kCall:
      return EvalCall(e, env);
    case ExprKind::kBinary: {
      PTOC_ASSIGN_OR_RETURN(a, Eval(*e.elts[0], env));
      PTOC_ASSIGN_OR_RETURN(b, Eval(*e.elts[1], env));
      return Binary(e.op, a, b, e.loc);
    }
    case ExprKind::kUnary: {
      PTOC_ASSIGN_OR_RETURN(v, Eval(*e.elts[0], env));
      if (e.op == "not") {
        PTOC_ASSIGN_OR_RETURN(t, Truthy(v, e.elts[0]->loc));
        return Value::Bool(!t);
      }
      if (e.op == "+") return v;
      if (e.op == "-") {
        if (v.is_float()) return Value::Float(-v.f());
        if (v.is_integral() || v.As<SymInt>() || v.As<Tile>()) {
          return Binary("*", v, Value::Int(-1), e.loc);
        }
      }
      if (e.op == "~" && v.is_integral()) return Value::Int(~v.i());
      return Error(e.loc,
                   absl::StrCat("bad operand type for unary ", e.op, ": '", v.TypeName(), "'"));
    }
    case ExprKind::kCompare:
      return EvalCompare(e, env);
    case ExprKind::kBoolOp: {
      Value last;
      for (const auto& elt : e.elts) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*elt, env));
        if (v.As<PredicateValue>()) {
          return Error(elt->loc,
                       "a predicate must be a single comparison (==, !=, >, <, >=, "
                       "<=); 'and'/'or' cannot combine predicates");
        }
        PTOC_ASSIGN_OR_RETURN(t, Truthy(v, elt->loc));
        last = v;
        if (e.op == "and" ? !t : t) return v;
      }
      return last;
    }
    case ExprKind::kIfExp: {
      PTOC_ASSIGN_OR_RETURN(test, Eval(*e.elts[1], env));
      PTOC_ASSIGN_OR_RETURN(t, Truthy(test, e.elts[1]->loc));
      return Eval(*e.elts[t ? 0 : 2], env);
    }
  }
  return Error(e.loc, "internal error: unknown expression kind");
}

absl::StatusOr<bool> Interpreter::SequencesEqual(const Value& a, const Value& b,
                                                 SourceLocation loc) {
  // Nested sequences are walked with an explicit stack, not by recursion
  // (a deep one overflowed the C++ stack), and bounded as CPython bounds
  // them; other elements compare through Binary, which does not recurse.
  struct Level {
    const Value* a;
    const Value* b;
    size_t next;
  };
  const auto same_shape = [](const Value& x, const Value& y) {
    return x.kind() == y.kind() && x.items().size() == y.items().size();
  };
  if (!same_shape(a, b)) return false;
  std::vector<Level> stack = {{&a, &b, 0}};
  while (!stack.empty()) {
    Level& top = stack.back();
    if (top.next == top.a->items().size()) {
      stack.pop_back();
      continue;
    }
    const Value& x = top.a->items()[top.next];
    const Value& y = top.b->items()[top.next];
    ++top.next;
    if (x.is_sequence() && y.is_sequence()) {
      if (!same_shape(x, y)) return false;
      if (stack.size() >= static_cast<size_t>(kMaxDataNesting)) {
        return Error(loc, absl::StrCat("RecursionError: comparing sequences nested more than ",
                                       kMaxDataNesting, " levels deep (or one holds itself)"));
      }
      stack.push_back({&x, &y, 0});
      continue;
    }
    PTOC_ASSIGN_OR_RETURN(v, Binary("==", x, y, loc));
    if (!v.is_bool() || !v.b()) return false;
  }
  return true;
}

absl::StatusOr<Value> Interpreter::EvalListComp(const Expr& e, const std::shared_ptr<Env>& env) {
  // Comprehension variables live in their own scope, as in Python 3.
  auto scope = std::make_shared<Env>(env);
  std::vector<Value> out;
  PTOC_RETURN_IF_ERROR(CompLevel(e, 0, scope, &out));
  return Value::List(out);
}

absl::Status Interpreter::CompLevel(const Expr& e, size_t level, const std::shared_ptr<Env>& env,
                                    std::vector<Value>* out) {
  if (level == e.comp_targets.size()) {
    PTOC_ASSIGN_OR_RETURN(v, Eval(*e.elts[0], env));
    out->push_back(v);
    return absl::OkStatus();
  }
  PTOC_ASSIGN_OR_RETURN(iter, Eval(*e.comp_iters[level], env));
  PTOC_ASSIGN_OR_RETURN(items, Iterate(iter, e.comp_iters[level]->loc));
  for (const Value& item : items) {
    // Each step counts as a statement: nested comprehensions multiply.
    if (++statements_run_ > max_statements_) {
      return Error(e.loc, absl::StrCat("the description runs more than ", max_statements_,
                                       " statements and comprehension steps at compile time "
                                       "(nested comprehensions?); ptoc unrolls everything, so "
                                       "keep the work under that"));
    }
    PTOC_RETURN_IF_ERROR(Assign(*e.comp_targets[level], item, env));
    bool keep = true;
    for (const auto& cond : e.comp_conds[level]) {
      PTOC_ASSIGN_OR_RETURN(c, Eval(*cond, env));
      PTOC_ASSIGN_OR_RETURN(t, Truthy(c, cond->loc));
      if (!t) {
        keep = false;
        break;
      }
    }
    if (keep) PTOC_RETURN_IF_ERROR(CompLevel(e, level + 1, env, out));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Interpreter::EvalCall(const Expr& e, const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(callee, Eval(*e.elts[0], env));
  CallArgs args;
  args.loc = e.loc;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    PTOC_ASSIGN_OR_RETURN(v, Eval(*e.elts[i], env));
    args.positional.push_back(v);
    args.positional_locs.push_back(e.elts[i]->loc);
    args.positional_names.push_back(e.elts[i]->kind == ExprKind::kName ? e.elts[i]->name : "");
  }
  for (const Keyword& kw : e.keywords) {
    PTOC_ASSIGN_OR_RETURN(v, Eval(*kw.value, env));
    args.keywords.emplace_back(kw.name, v);
    args.keyword_locs.push_back(kw.loc);
    const ExprKind k = kw.value->kind;
    args.keyword_literal.push_back(k == ExprKind::kInt || k == ExprKind::kFloat ||
                                   k == ExprKind::kString || k == ExprKind::kBool ||
                                   k == ExprKind::kNone);
  }
  const SourceLocation saved = current_loc_;
  current_loc_ = e.loc;
  auto result = CallValue(callee, args);
  current_loc_ = saved;
  return result;
}

absl::StatusOr<Value> Interpreter::EvalAttribute(const Expr& e, const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(base, Eval(*e.elts[0], env));
  if (auto* ns = base.As<Namespace>()) {
    if (const Value* v = ns->Get(e.name)) return *v;
    return Error(
        e.loc, absl::StrCat(ns->name(), ".", e.name, " is not supported by ptoc",
                            ns->missing_hint().empty() ? " (see docs/ptoc.md for the supported API)"
                                                       : absl::StrCat("; ", ns->missing_hint())));
  }
  if (auto* deco = base.As<Decorator>()) {
    if (deco->kind() == FunctionKind::kJit) {
      if (e.name == "incore") return Value::Obj(std::make_shared<Decorator>(FunctionKind::kIncore));
      if (e.name == "inline") return Value::Obj(std::make_shared<Decorator>(FunctionKind::kInline));
      if (e.name == "extern") return Value::Obj(std::make_shared<Decorator>(FunctionKind::kExtern));
      if (e.name == "opaque") return Value::Obj(std::make_shared<Decorator>(FunctionKind::kOpaque));
    }
    return Error(e.loc, absl::StrCat("pl.jit.", e.name,
                                     " is not supported by ptoc; use pl.jit, pl.jit.incore, "
                                     "pl.jit.inline, pl.jit.opaque or pl.jit.extern"));
  }
  if (auto ref = base.AsShared<TensorRef>(); ref && e.name == "bind_dynamic") {
    // x.bind_dynamic(dim, M) (upstream typing/tensor.py): marks a dim dynamic
    // for @pl.jit specialization; ptoc compiles each call with its shapes.
    return Value::Obj(std::make_shared<BuiltinFunction>(
        "bind_dynamic", [this, ref](const CallArgs& args) -> absl::StatusOr<Value> {
          const int64_t rank = static_cast<int64_t>(ref->shape().size());
          if (args.positional.size() != 2 || !args.positional[0].is_integral() ||
              args.positional[0].i() < 0 || args.positional[0].i() >= rank) {
            return Error(args.loc, absl::StrCat("bind_dynamic(dim, var) takes a dim in [0, ", rank,
                                                ") of '", ref->name(), "' and a pl.dynamic"));
          }
          return Value::None();
        }));
  }
  // .shape and .dtype of a tensor, a window at device offsets and a tile.
  const std::vector<int64_t>* shape = nullptr;
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
  if (auto* ref = base.As<TensorRef>()) {
    shape = &ref->shape(), dtype = ref->dtype();
  } else if (auto* view = base.As<DeviceTensorView>()) {
    shape = &view->shape(), dtype = view->base()->dtype();
  } else if (auto* tile = base.As<Tile>()) {
    shape = &tile->shape(), dtype = tile->dtype();
  }
  if (shape != nullptr && e.name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : *shape) dims.push_back(Value::Int(d));
    return Value::Tuple(dims);
  }
  if (shape != nullptr && e.name == "dtype") {
    return Value::Obj(std::make_shared<DTypeValue>(dtype, DTypeName(dtype)));
  }
  if (auto* en = base.As<EnumValue>()) {
    if (e.name == "value") return Value::Int(en->value());
    if (e.name == "name") return Value::Str(en->member());
  }
  if (auto dict = base.AsShared<DictValue>()) {
    if (auto method = DictMethod(dict, e.name)) return *method;
  }
  return Error(e.loc,
               absl::StrCat("'", base.TypeName(), "' has no attribute '", e.name, "' in ptoc"));
}

namespace {

// A slice evaluated from a subscript: bounds as values (None when absent).
class SliceValue : public Object {
 public:
  std::string TypeName() const override { return "slice"; }
  Value lower, upper, step;
};

}  // namespace

// t[a:b, :, c:d] of a tensor: the window pl.slice gives (numpy slice
// bounds, step 1, a slice in every dim given; leading dims may be the only
// ones given). Bounds may be device integers inside a task body, the extent
// then written as i:i + n.
absl::StatusOr<Value> Interpreter::TensorSlice(const Value& base, const std::vector<Value>& parts,
                                               SourceLocation loc) {
  std::vector<int64_t> dims;
  if (auto* view = base.As<DeviceTensorView>()) {
    dims = view->shape();
  } else {
    dims = base.As<TensorRef>()->shape();
  }
  const size_t rank = dims.size();
  if (parts.size() > rank) {
    return Error(loc, absl::StrCat("a rank-", rank, " tensor takes at most ", rank, " slices, got ",
                                   parts.size()));
  }
  std::vector<Value> offsets;
  std::vector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = dims[d];
    Value start = Value::Int(0), stop = Value::Int(dim);
    if (d < parts.size()) {
      auto* s = parts[d].As<SliceValue>();
      if (s == nullptr) {
        return Error(loc, absl::StrCat("slicing a tensor takes a slice in every dim (write "
                                       "i:i + 1 for one row); dim ",
                                       d, " has ", parts[d].TypeName()));
      }
      if (!s->step.is_none() && !(s->step.is_integral() && s->step.i() == 1)) {
        return Error(loc, "a tensor slice takes step 1 (a view is contiguous per dim)");
      }
      for (auto [v, dst] : {std::pair{&s->lower, &start}, std::pair{&s->upper, &stop}}) {
        if (v->is_none()) continue;
        if (v->is_integral()) {
          *dst = Value::Int(v->i() < 0 ? v->i() + dim : v->i());
        } else if (v->As<SymInt>() && in_kernel()) {
          *dst = *v;
        } else {
          return Error(loc, absl::StrCat("tensor slice bounds must be integers (device integers "
                                         "inside a task body), got ",
                                         v->TypeName()));
        }
      }
    }
    auto extent = StaticExtent(start, stop);
    if (!extent.ok()) return Error(loc, extent.status().message());
    if (*extent <= 0) {
      // A negative bound wraps as in Python; one computed from data (a
      // pl.read in the orchestration) usually should not have been negative.
      std::string wrapped;
      const auto* s = d < parts.size() ? parts[d].As<SliceValue>() : nullptr;
      if (s != nullptr && ((s->lower.is_integral() && s->lower.i() < 0) ||
                           (s->upper.is_integral() && s->upper.i() < 0))) {
        wrapped = absl::StrCat(
            ": ", s->lower.is_integral() ? absl::StrCat(s->lower.i()) : std::string(), ":",
            s->upper.is_integral() ? absl::StrCat(s->upper.i()) : std::string(),
            " has a negative bound, which wraps to ", start.is_integral() ? start.i() : 0, ":",
            stop.is_integral() ? stop.i() : dim, " of ", dim,
            " as in Python; a bound computed from data (pl.read) must not be negative");
      }
      return Error(loc,
                   absl::StrCat("slice of dim ", d, " is empty (", *extent, " elements)", wrapped));
    }
    offsets.push_back(start);
    shape.push_back(*extent);
  }
  return WindowOf(this, base, offsets, shape, loc);
}

absl::StatusOr<Value> Interpreter::EvalSubscript(const Expr& e, const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(base, Eval(*e.elts[0], env));
  // Evaluate the index; slices become SliceValue objects.
  std::function<absl::StatusOr<Value>(const Expr&)> eval_index =
      [&](const Expr& x) -> absl::StatusOr<Value> {
    if (x.kind == ExprKind::kSlice) {
      auto s = std::make_shared<SliceValue>();
      if (x.elts[0]) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*x.elts[0], env));
        s->lower = v;
      }
      if (x.elts[1]) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*x.elts[1], env));
        s->upper = v;
      }
      if (x.elts[2]) {
        PTOC_ASSIGN_OR_RETURN(v, Eval(*x.elts[2], env));
        s->step = v;
      }
      return Value::Obj(s);
    }
    if (x.kind == ExprKind::kTuple) {
      std::vector<Value> items;
      for (const auto& elt : x.elts) {
        PTOC_ASSIGN_OR_RETURN(v, eval_index(*elt));
        items.push_back(v);
      }
      return Value::Tuple(items);
    }
    return Eval(x, env);
  };
  PTOC_ASSIGN_OR_RETURN(index, eval_index(*e.elts[1]));
  const SourceLocation loc = e.elts[1]->loc;
  if (auto* dict = base.As<DictValue>()) {
    if (auto v = dict->Find(index, DictKeyEquals())) return *v;
    return Error(loc, absl::StrCat("KeyError: ", index.Repr(), " is not a key of this dict"));
  }

  auto to_index = [&](const Value& idx) -> absl::StatusOr<std::vector<IndexEntry>> {
    std::vector<Value> parts = idx.is_tuple() ? idx.items() : std::vector<Value>{idx};
    std::vector<IndexEntry> out;
    for (const Value& p : parts) {
      IndexEntry ix;
      if (p.is_integral()) {
        ix.index = p.i();
      } else if (auto* s = p.As<SliceValue>()) {
        ix.is_slice = true;
        for (auto [v, dst] : {std::pair{&s->lower, &ix.start}, std::pair{&s->upper, &ix.stop},
                              std::pair{&s->step, &ix.step}}) {
          if (v->is_none()) continue;
          if (!v->is_integral()) {
            return Error(loc, absl::StrCat("slice bounds must be integers, got ", v->TypeName()));
          }
          *dst = v->i();
        }
      } else {
        return Error(loc, absl::StrCat("indices must be integers or slices, got ", p.TypeName()));
      }
      out.push_back(ix);
    }
    return out;
  };

  if (base.is_sequence() || base.is_str()) {
    const int64_t len = base.is_str() ? static_cast<int64_t>(base.s().size()) : base.items().size();
    PTOC_ASSIGN_OR_RETURN(ix, to_index(index));
    if (ix.size() != 1) return Error(loc, "sequences take one index");
    PTOC_ASSIGN_OR_RETURN(r, ResolveIndex({len}, ix));
    if (!ix[0].is_slice) {
      return base.is_str() ? Value::Str(base.s().substr(r.start[0], 1)) : base.items()[r.start[0]];
    }
    std::vector<Value> items;
    for (int64_t k = 0; k < r.count[0]; ++k)
      items.push_back(base.items()[r.start[0] + k * r.step[0]]);
    return base.is_tuple() ? Value::Tuple(items) : Value::List(items);
  }
  if (base.As<DeviceTensorView>()) {
    return TensorSlice(base, index.is_tuple() ? index.items() : std::vector<Value>{index}, loc);
  }
  if (auto ref = base.AsShared<TensorRef>()) {
    std::vector<Value> parts = index.is_tuple() ? index.items() : std::vector<Value>{index};
    if (absl::c_any_of(parts, [](const Value& p) { return p.As<SliceValue>() != nullptr; })) {
      return TensorSlice(base, parts, loc);
    }
    std::vector<int64_t> indices;
    for (const Value& p : parts) {
      if (!p.is_integral()) {
        return Error(loc,
                     "ptoc reads single elements of device tensors (t[i, j] with integer "
                     "indices); use pl.slice for views and pl.load inside a task");
      }
      if (p.i() < 0) {
        return Error(loc, absl::StrCat("predicate index must be non-negative, got ", p.i()));
      }
      indices.push_back(p.i());
    }
    if (indices.size() != ref->shape().size()) {
      return Error(loc, absl::StrCat("needs ", ref->shape().size(),
                                     " index(es) to locate a single element of a rank-",
                                     ref->shape().size(), " tensor, got ", indices.size()));
    }
    for (size_t d = 0; d < indices.size(); ++d) {
      if (indices[d] >= ref->shape()[d]) {
        return Error(loc, absl::StrCat("index ", indices[d], " is out of range for dim ", d,
                                       " of size ", ref->shape()[d]));
      }
    }
    return Value::Obj(std::make_shared<ElementRef>(ref, indices));
  }
  if (auto* arr = base.As<TaskIdArray>()) {
    if (!index.is_integral()) return Error(loc, "TaskId arrays take one integer index");
    const int64_t n = arr->slots().size();
    int64_t i = index.i() < 0 ? index.i() + n : index.i();
    if (i < 0 || i >= n) {
      return Error(loc,
                   absl::StrCat("index ", index.i(), " is out of range for a TaskId array of ", n));
    }
    if (!arr->slots()[i]) return Value::Obj(std::make_shared<TaskIdValue>(-1, -1));
    return Value::Obj(arr->slots()[i]->AsArraySlot());
  }
  if (auto* tile = base.As<Tile>()) {
    // t[:, a:b] of a tile: its window, as pl.slice of a tile (TEXTRACT).
    std::vector<Value> parts = index.is_tuple() ? index.items() : std::vector<Value>{index};
    if (parts.size() != tile->shape().size()) {
      return Error(loc, absl::StrCat("slicing a rank-", tile->shape().size(),
                                     " tile takes a slice per dim, got ", parts.size()));
    }
    std::vector<Value> offsets;
    std::vector<int64_t> shape;
    for (size_t d = 0; d < parts.size(); ++d) {
      auto* s = parts[d].As<SliceValue>();
      if (s == nullptr || !(s->step.is_none() || (s->step.is_integral() && s->step.i() == 1))) {
        return Error(loc, "a tile is sliced with a step-1 slice in every dim (t[:, a:b])");
      }
      const Value start = s->lower.is_none() ? Value::Int(0) : s->lower;
      const Value stop = s->upper.is_none() ? Value::Int(tile->shape()[d]) : s->upper;
      auto extent = StaticExtent(start, stop);
      if (!extent.ok()) return Error(loc, extent.status().message());
      offsets.push_back(start);
      shape.push_back(*extent);
    }
    return TileExtract(this, base, shape, offsets, loc);
  }
  if (auto* a = base.As<Annotation>()) return AnnotationSubscript(this, *a, index, loc);
  if (auto decl = base.AsShared<MemRefDecl>()) return MemRefSubscript(this, decl, index, loc);
  return Error(e.elts[0]->loc, absl::StrCat("'", base.TypeName(), "' is not subscriptable"));
}

absl::Status Interpreter::AssignSubscript(const Expr& target, const Value& value,
                                          const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(base, Eval(*target.elts[0], env));
  const Expr& index_expr = *target.elts[1];
  const SourceLocation loc = index_expr.loc;
  const bool sliced =
      index_expr.kind == ExprKind::kSlice ||
      (index_expr.kind == ExprKind::kTuple && absl::c_any_of(index_expr.elts, [](const ExprPtr& x) {
         return x->kind == ExprKind::kSlice;
       }));
  if (in_kernel() && sliced && (base.As<TensorRef>() || base.As<DeviceTensorView>())) {
    // `out[r:r + 16, :] = tile` in a task body: a store into that window.
    PTOC_ASSIGN_OR_RETURN(window, Eval(target, env));
    PTOC_ASSIGN_OR_RETURN(tile, AsTile(value, target.loc));
    if (auto view = window.AsShared<DeviceTensorView>()) {
      return EmitStore(this, tile, view->offsets(), view->base(), /*atomic_add=*/false, target.loc);
    }
    if (auto ref = window.AsShared<TensorRef>()) {
      return EmitStore(this, tile, std::vector<Value>(ref->shape().size(), Value::Int(0)), ref,
                       /*atomic_add=*/false, target.loc);
    }
  }
  if (base.is_list()) {
    PTOC_ASSIGN_OR_RETURN(index, Eval(index_expr, env));
    if (!index.is_integral()) return Error(loc, "list indices must be integers");
    const int64_t n = base.items().size();
    const int64_t i = index.i() < 0 ? index.i() + n : index.i();
    if (i < 0 || i >= n) return Error(loc, "list assignment index out of range");
    base.items()[i] = value;
    return absl::OkStatus();
  }
  if (auto* arr = base.As<TaskIdArray>()) {
    PTOC_ASSIGN_OR_RETURN(index, Eval(index_expr, env));
    if (!index.is_integral()) return Error(loc, "TaskId arrays take one integer index");
    const int64_t n = arr->slots().size();
    if (index.i() < 0 || index.i() >= n) {
      return Error(loc,
                   absl::StrCat("index ", index.i(), " is out of range for a TaskId array of ", n));
    }
    return SetTaskIdSlot(base, index.i(), value, target.loc);
  }
  // Full and partial slices of tensors: evaluate the index as in a read.
  auto slice_bounds = [&](const Expr& x,
                          int64_t len) -> absl::StatusOr<std::pair<int64_t, int64_t>> {
    // Returns (start, count).
    if (x.kind != ExprKind::kSlice) {
      PTOC_ASSIGN_OR_RETURN(v, Eval(x, env));
      if (!v.is_integral()) return Error(x.loc, "indices must be integers or slices");
      return std::pair<int64_t, int64_t>{v.i(), -1};
    }
    if (x.elts[2]) return Error(x.loc, "slice steps are not supported here");
    int64_t lo = 0, hi = len;
    if (x.elts[0]) {
      PTOC_ASSIGN_OR_RETURN(v, Eval(*x.elts[0], env));
      if (!v.is_integral()) return Error(x.elts[0]->loc, "slice bounds must be integers");
      lo = v.i() < 0 ? v.i() + len : v.i();
    }
    if (x.elts[1]) {
      PTOC_ASSIGN_OR_RETURN(v, Eval(*x.elts[1], env));
      if (!v.is_integral()) return Error(x.elts[1]->loc, "slice bounds must be integers");
      hi = v.i() < 0 ? v.i() + len : std::min(v.i(), len);
    }
    return std::pair<int64_t, int64_t>{lo, std::max<int64_t>(hi - lo, 0)};
  };
  std::vector<const Expr*> parts;
  if (index_expr.kind == ExprKind::kTuple) {
    for (const auto& elt : index_expr.elts) parts.push_back(elt.get());
  } else {
    parts.push_back(&index_expr);
  }
  if (auto ref = base.AsShared<TensorRef>()) {
    if (!in_kernel()) {
      return Error(target.loc,
                   "device tensors can only be written inside a task body "
                   "(pl.at / pl.spmd / @pl.jit.incore)");
    }
    if (parts.size() > ref->shape().size()) return Error(loc, "too many indices");
    std::vector<int64_t> offsets, shape;
    for (size_t d = 0; d < ref->shape().size(); ++d) {
      if (d >= parts.size()) {
        offsets.push_back(0);
        shape.push_back(ref->shape()[d]);
        continue;
      }
      PTOC_ASSIGN_OR_RETURN(b, slice_bounds(*parts[d], ref->shape()[d]));
      offsets.push_back(b.first);
      if (b.second >= 0) shape.push_back(b.second);
    }
    PTOC_ASSIGN_OR_RETURN(tile, AsTile(value, target.loc));
    std::vector<int64_t> region = tile->shape();
    if (region != shape) {
      return Error(target.loc, absl::StrCat("cannot store a ", ShapeString(tile->shape()),
                                            " tile into a ", ShapeString(shape), " region"));
    }
    std::vector<Value> offs;
    for (int64_t o : offsets) offs.push_back(Value::Int(o));
    return EmitStore(this, tile, offs, ref, false, target.loc);
  }
  return Error(target.elts[0]->loc,
               absl::StrCat("'", base.TypeName(), "' does not support item assignment"));
}

absl::StatusOr<Value> Interpreter::EvalCompare(const Expr& e, const std::shared_ptr<Env>& env) {
  PTOC_ASSIGN_OR_RETURN(lhs, Eval(*e.elts[0], env));
  Value result = Value::Bool(true);
  for (size_t k = 0; k < e.ops.size(); ++k) {
    PTOC_ASSIGN_OR_RETURN(rhs, Eval(*e.elts[k + 1], env));
    const std::string& op = e.ops[k];
    // tensor[idx] OP int-literal (either order) is a dispatch predicate.
    auto* el = lhs.As<ElementRef>();
    auto* er = rhs.As<ElementRef>();
    if (el || er) {
      if (e.ops.size() != 1) {
        return Error(e.loc,
                     "a predicate must be a single comparison; chained comparisons are "
                     "not supported");
      }
      const ElementRef* ref = el ? el : er;
      const Value& literal = el ? rhs : lhs;
      if (!literal.is_int()) {
        return Error(e.loc,
                     "a predicate must compare one tensor element (e.g. t[i]) against "
                     "an integer literal; the runtime evaluates a single "
                     "element-vs-constant comparison");
      }
      static const std::map<std::string, std::pair<trace::Predicate::Op, trace::Predicate::Op>>
          kOps = {{"==", {trace::Predicate::EQ, trace::Predicate::EQ}},
                  {"!=", {trace::Predicate::NE, trace::Predicate::NE}},
                  {">", {trace::Predicate::GT, trace::Predicate::LT}},
                  {"<", {trace::Predicate::LT, trace::Predicate::GT}},
                  {">=", {trace::Predicate::GE, trace::Predicate::LE}},
                  {"<=", {trace::Predicate::LE, trace::Predicate::GE}}};
      auto it = kOps.find(op);
      if (it == kOps.end()) {
        return Error(e.loc, absl::StrCat("unsupported comparison '", op, "' in a predicate"));
      }
      trace::Predicate p;
      p.set_tensor_id(ref->tensor()->tensor_id());
      for (size_t d = 0; d < ref->indices().size(); ++d) {
        p.add_indices(ref->indices()[d] + ref->tensor()->offsets()[d]);
      }
      p.set_op(el ? it->second.first : it->second.second);  // literal on the left flips it
      p.set_target(literal.i());
      return Value::Obj(std::make_shared<PredicateValue>(p));
    }
    bool r = false;
    if (op == "is" || op == "is not") {
      bool same = (lhs.is_none() && rhs.is_none()) ||
                  (lhs.is_object() && rhs.is_object() && lhs.obj() == rhs.obj()) ||
                  (lhs.is_bool() && rhs.is_bool() && lhs.b() == rhs.b());
      r = op == "is" ? same : !same;
    } else if (auto* dict = rhs.As<DictValue>(); dict && (op == "in" || op == "not in")) {
      const bool found = dict->Find(lhs, DictKeyEquals()).has_value();
      r = op == "in" ? found : !found;
    } else if (op == "in" || op == "not in") {
      if (!rhs.is_sequence()) {
        return Error(e.loc, absl::StrCat("'in' needs a tuple or list, got ", rhs.TypeName()));
      }
      bool found = false;
      for (const Value& item : rhs.items()) {
        PTOC_ASSIGN_OR_RETURN(eq, Binary("==", lhs, item, e.loc));
        if (eq.As<SymInt>()) {
          return Error(e.loc, "'in' cannot test a device integer; compare it with == instead");
        }
        if (eq.is_bool() && eq.b()) found = true;
      }
      r = op == "in" ? found : !found;
    } else {
      PTOC_ASSIGN_OR_RETURN(v, Binary(op, lhs, rhs, e.loc));
      if (v.As<SymInt>() && e.ops.size() != 1) {
        return Error(e.loc,
                     "a comparison of device integers must be a single comparison; chained "
                     "comparisons are not supported");
      }
      if (!v.is_bool()) return v;  // tensor and device-integer comparisons
      r = v.b();
    }
    if (!r) return Value::Bool(false);
    lhs = rhs;
  }
  return result;
}

absl::StatusOr<Value> Interpreter::Binary(const std::string& op, const Value& a, const Value& b,
                                          SourceLocation loc) {
  if (a.As<ElementRef>() || b.As<ElementRef>()) {
    // t[i, j] in orchestration arithmetic: the element's value (comparisons
    // stay lazy in EvalCompare so that they can serve as predicate=).
    Value x = a, y = b;
    if (auto* el = a.As<ElementRef>()) {
      PTOC_ASSIGN_OR_RETURN(v, ReadElementRef(this, *el, loc));
      x = v;
    }
    if (auto* el = b.As<ElementRef>()) {
      PTOC_ASSIGN_OR_RETURN(v, ReadElementRef(this, *el, loc));
      y = v;
    }
    return Binary(op, x, y, loc);
  }
  // Tiles inside a kernel.
  if (a.As<Tile>() || b.As<Tile>() || (in_kernel() && (a.As<TensorRef>() || b.As<TensorRef>()))) {
    return TileArithmetic(this, op, a, b, loc);
  }
  // Device integers.
  if ((a.As<SymInt>() || b.As<SymInt>()) && (a.is_integral() || a.As<SymInt>()) &&
      (b.is_integral() || b.As<SymInt>())) {
    static const std::map<std::string, trace::IntExpr::BinOp> kOps = {
        {"+", trace::IntExpr::ADD},
        {"-", trace::IntExpr::SUB},
        {"*", trace::IntExpr::MUL},
        {"//", trace::IntExpr::FLOOR_DIV},
        {"%", trace::IntExpr::MOD},
        // Comparisons give a device predicate (pl.matmul_acc's init_cond).
        {"==", trace::IntExpr::EQ},
        {"!=", trace::IntExpr::NE},
        {"<", trace::IntExpr::LT},
        {"<=", trace::IntExpr::LE},
        {">", trace::IntExpr::GT},
        {">=", trace::IntExpr::GE}};
    auto it = kOps.find(op);
    if (it == kOps.end()) {
      return Error(loc, absl::StrCat("operator ", op,
                                     " is not supported on device integers "
                                     "(block index, loop variables); use + - * "
                                     "// % or a comparison"));
    }
    PTOC_ASSIGN_OR_RETURN(x, ToIntExpr(a));
    PTOC_ASSIGN_OR_RETURN(y, ToIntExpr(b));
    return IntBinary(it->second, x, y);
  }
  if (a.is_integral() && b.is_integral()) {
    const int64_t x = a.i(), y = b.i();
    // Python integers are unbounded; ptoc's are 64-bit, so a result that
    // does not fit is an error rather than a silent wrap (undefined in C++).
    auto overflow = [&]() -> absl::Status {
      return Error(loc, absl::StrCat("integer ", x, " ", op, " ", y,
                                     " does not fit in 64 bits; ptoc integers are 64-bit"));
    };
    int64_t r = 0;
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r)) return overflow();
      return Value::Int(r);
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r)) return overflow();
      return Value::Int(r);
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r)) return overflow();
      return Value::Int(r);
    }
    if (op == "/") {
      if (y == 0) return Error(loc, "division by zero");
      return Value::Float(static_cast<double>(x) / y);
    }
    if (op == "//" || op == "%") {
      if (y == 0) return Error(loc, "integer division or modulo by zero");
      if (x == std::numeric_limits<int64_t>::min() && y == -1) return overflow();
      const int64_t q = PyFloorDiv(x, y);
      return Value::Int(op == "//" ? q : x - q * y);
    }
    if (op == "**") {
      if (y < 0) return Value::Float(std::pow(x, y));
      r = 1;
      for (int64_t k = 0; k < y; ++k) {  // stops within 64 steps unless |x| <= 1
        if (__builtin_mul_overflow(r, x, &r)) return overflow();
        if (x == 0 || x == 1 || (x == -1 && k >= 1)) {
          if (x == -1) r = (y % 2 == 0) ? 1 : -1;
          break;
        }
      }
      return Value::Int(r);
    }
    if (op == "&") return Value::Int(x & y);
    if (op == "|") return Value::Int(x | y);
    if (op == "^") return Value::Int(x ^ y);
    if (op == "<<" || op == ">>") {
      if (y < 0) return Error(loc, "negative shift count");
      if (op == ">>") return Value::Int(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
      if (x == 0) return Value::Int(0);
      if (y >= 63 || x > (std::numeric_limits<int64_t>::max() >> y) ||
          x < (std::numeric_limits<int64_t>::min() >> y)) {
        return overflow();
      }
      return Value::Int(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
    }
    if (op == "==") return Value::Bool(x == y);
    if (op == "!=") return Value::Bool(x != y);
    if (op == "<") return Value::Bool(x < y);
    if (op == ">") return Value::Bool(x > y);
    if (op == "<=") return Value::Bool(x <= y);
    if (op == ">=") return Value::Bool(x >= y);
  }
  if (a.is_number() && b.is_number()) {
    const double x = a.f(), y = b.f();
    if (op == "+") return Value::Float(x + y);
    if (op == "-") return Value::Float(x - y);
    if (op == "*") return Value::Float(x * y);
    if (op == "/") {
      if (y == 0) return Error(loc, "float division by zero");
      return Value::Float(x / y);
    }
    if (op == "//") return Value::Float(std::floor(x / y));
    if (op == "%") return Value::Float(PyFloatMod(x, y));
    if (op == "**") return Value::Float(std::pow(x, y));
    if (op == "==") return Value::Bool(x == y);
    if (op == "!=") return Value::Bool(x != y);
    if (op == "<") return Value::Bool(x < y);
    if (op == ">") return Value::Bool(x > y);
    if (op == "<=") return Value::Bool(x <= y);
    if (op == ">=") return Value::Bool(x >= y);
  }
  if (a.is_str() && b.is_str()) {
    if (op == "+") {
      if (a.s().size() + b.s().size() > kMaxStringLength) {
        return Error(
            loc, absl::StrCat("this concatenation makes a string of ", a.s().size() + b.s().size(),
                              " characters; ptoc allows at most ", kMaxStringLength));
      }
      return Value::Str(a.s() + b.s());
    }
    if (op == "==") return Value::Bool(a.s() == b.s());
    if (op == "!=") return Value::Bool(a.s() != b.s());
    if (op == "<") return Value::Bool(a.s() < b.s());
    if (op == ">") return Value::Bool(a.s() > b.s());
  }
  if (a.is_sequence() && b.is_sequence() && a.kind() == b.kind() && op == "+") {
    if (a.items().size() + b.items().size() > kMaxSequenceLength) {
      return Error(loc, absl::StrCat("this concatenation makes a sequence of ",
                                     a.items().size() + b.items().size(),
                                     " items; ptoc allows at most ", kMaxSequenceLength));
    }
    std::vector<Value> items = a.items();
    items.insert(items.end(), b.items().begin(), b.items().end());
    return a.is_tuple() ? Value::Tuple(items) : Value::List(items);
  }
  if (a.is_sequence() && b.is_integral() && op == "*") {
    const uint64_t length = a.items().size() * static_cast<uint64_t>(std::max<int64_t>(b.i(), 0));
    if (b.i() > 0 && (length / static_cast<uint64_t>(b.i()) != a.items().size() ||
                      length > kMaxSequenceLength)) {
      return Error(
          loc, absl::StrCat("this repetition makes a sequence of ", a.items().size(), " x ", b.i(),
                            " items; ptoc allows at most ", kMaxSequenceLength));
    }
    std::vector<Value> items;
    for (int64_t k = 0; k < b.i(); ++k)
      items.insert(items.end(), a.items().begin(), a.items().end());
    return a.is_tuple() ? Value::Tuple(items) : Value::List(items);
  }
  if (op == "==" || op == "!=") {
    bool eq;
    if (a.is_sequence() && b.is_sequence()) {
      PTOC_ASSIGN_OR_RETURN(same, SequencesEqual(a, b, loc));
      eq = same;
    } else if (a.is_object() && b.is_object()) {
      auto* ea = a.As<EnumValue>();
      auto* eb = b.As<EnumValue>();
      auto* da = a.As<DTypeValue>();
      auto* db = b.As<DTypeValue>();
      if (ea && eb) {
        eq = ea->enum_name() == eb->enum_name() && ea->value() == eb->value();
      } else if (da && db) {
        eq = da->dtype() == db->dtype() && da->is_task_id() == db->is_task_id();
      } else {
        eq = a.obj() == b.obj();
      }
    } else {
      eq = a.is_none() && b.is_none();
    }
    return Value::Bool(op == "==" ? eq : !eq);
  }
  return Error(loc, absl::StrCat("unsupported operand types for ", op, ": '", a.TypeName(),
                                 "' and '", b.TypeName(), "'"));
}

absl::StatusOr<bool> Interpreter::Truthy(const Value& v, SourceLocation loc) {
  switch (v.kind()) {
    case ValueKind::kNone:
      return false;
    case ValueKind::kBool:
      return v.b();
    case ValueKind::kInt:
      return v.i() != 0;
    case ValueKind::kFloat:
      return v.f() != 0.0;
    case ValueKind::kStr:
      return !v.s().empty();
    case ValueKind::kTuple:
    case ValueKind::kList:
      return !v.items().empty();
    case ValueKind::kObject:
      break;
  }
  if (v.As<SymInt>()) {
    return Error(loc,
                 "a device integer (block index, device loop variable or scalar parameter) "
                 "cannot decide a compile-time branch; ptoc has no device-side 'if'");
  }
  if (auto* p = v.As<PredicateValue>()) {
    // An orchestration branch on a device value: resolved at compile time.
    const trace::Predicate& pred = p->predicate();
    std::vector<int64_t> indices(pred.indices().begin(), pred.indices().end());
    PTOC_ASSIGN_OR_RETURN(value, ReadDeviceElement(pred.tensor_id(), indices, loc));
    const double x = value.f(), y = static_cast<double>(pred.target());
    switch (pred.op()) {
      case trace::Predicate::EQ:
        return x == y;
      case trace::Predicate::NE:
        return x != y;
      case trace::Predicate::GT:
        return x > y;
      case trace::Predicate::LT:
        return x < y;
      case trace::Predicate::GE:
        return x >= y;
      case trace::Predicate::LE:
        return x <= y;
      default:
        return Error(loc, "internal error: predicate without an operator");
    }
  }
  if (auto* el = v.As<ElementRef>()) {
    PTOC_ASSIGN_OR_RETURN(value, ReadElementRef(this, *el, loc));
    return value.f() != 0.0;
  }
  return true;
}

absl::Status Interpreter::SetTaskIdSlot(const Value& array, int64_t index, const Value& value,
                                        SourceLocation loc) {
  auto* arr = array.As<TaskIdArray>();
  std::shared_ptr<TaskIdValue> slot;
  if (value.is_none()) {
  } else if (auto t = value.AsShared<TaskIdValue>()) {
    slot = t->valid() ? t : nullptr;
  } else {
    return Error(loc, absl::StrCat("a TaskId array holds TaskIds, got ", value.TypeName()));
  }
  // In a pl.parallel body an array from outside is a loop carry: every
  // iteration sees it as it was at loop entry; the writes land at the end.
  if (!parallel_carries_.empty() && arr->serial() < parallel_carries_.back().first_new_array) {
    parallel_carries_.back().writes.push_back({array, index, slot});
  } else {
    arr->slots()[index] = slot;
  }
  return absl::OkStatus();
}

DictValue::KeyEquals Interpreter::DictKeyEquals() const {
  return [](const Value& a, const Value& b) {
    if (a.is_str() || b.is_str()) return a.is_str() && b.is_str() && a.s() == b.s();
    if (a.is_number() && b.is_number()) return a.f() == b.f();
    if (a.is_bool() || b.is_bool()) return a.is_bool() && b.is_bool() && a.b() == b.b();
    auto *x = a.As<EnumValue>(), *y = b.As<EnumValue>();
    return x && y && x->enum_name() == y->enum_name() && x->member() == y->member();
  };
}

std::optional<Value> Interpreter::DictMethod(const std::shared_ptr<DictValue>& dict,
                                             const std::string& name) {
  auto make = [&](BuiltinFunction::Fn fn) {
    return Value::Obj(std::make_shared<BuiltinFunction>(absl::StrCat("dict.", name), fn));
  };
  if (name == "keys")
    return make(
        [dict](const CallArgs&) -> absl::StatusOr<Value> { return Value::List(dict->Keys()); });
  if (name == "values")
    return make(
        [dict](const CallArgs&) -> absl::StatusOr<Value> { return Value::List(dict->Values()); });
  if (name == "items")
    return make(
        [dict](const CallArgs&) -> absl::StatusOr<Value> { return Value::List(dict->Items()); });
  if (name == "get") {
    return make([this, dict](const CallArgs& args) -> absl::StatusOr<Value> {
      if (args.positional.empty() || args.positional.size() > 2) {
        return Error(args.loc, "dict.get(key[, default]) takes one or two arguments");
      }
      if (auto v = dict->Find(args.positional[0], DictKeyEquals())) return *v;
      return args.positional.size() == 2 ? args.positional[1] : Value::None();
    });
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<Value>> Interpreter::Iterate(const Value& v, SourceLocation loc) const {
  if (v.is_sequence()) return v.items();
  if (auto* dict = v.As<DictValue>()) return dict->Keys();
  if (auto* spec = v.As<LoopSpec>()) {
    if (!spec->start().is_integral() || !spec->stop().is_integral() ||
        !spec->step().is_integral()) {
      return Error(loc, "range bounds must be compile-time integers here");
    }
    const int64_t step = spec->step().i();
    if (step == 0) return Error(loc, "range() step must not be zero");
    // Everything is unrolled at compile time: keep loops to a sane size.
    constexpr int64_t kMaxIterations = 1 << 22;
    const int64_t start = spec->start().i(), stop = spec->stop().i();
    const int64_t trips = static_cast<int64_t>(
        std::min<unsigned __int128>(RangeLength(start, stop, step), kMaxIterations + 1));
    if (trips > kMaxIterations) {
      return Error(loc, absl::StrCat("this loop runs more than ", kMaxIterations,
                                     " iterations at compile time; ptoc unrolls loops, so keep "
                                     "it under ",
                                     kMaxIterations));
    }
    std::vector<Value> items;
    for (int64_t k = 0; k < trips; ++k) items.push_back(Value::Int(start + k * step));
    return items;
  }
  if (v.is_str()) {
    std::vector<Value> items;
    for (char c : v.s()) items.push_back(Value::Str(std::string(1, c)));
    return items;
  }
  return Error(loc, absl::StrCat("'", v.TypeName(), "' is not iterable"));
}

}  // namespace pto::ptoc
