// The Python builtins the subset needs: range, len, min, max, abs, int,
// float, bool, str, list, tuple, enumerate, zip, sum, print, isinstance-free.
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {

void AddPythonBuiltins(Interpreter* interp, Env* env) {
  Interpreter* I = interp;
  auto add = [env](const std::string& name, BuiltinFunction::Fn fn) {
    env->Set(name, Value::Obj(std::make_shared<BuiltinFunction>(name, std::move(fn))));
  };
  add("range", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    const auto& p = args.positional;
    if (p.empty() || p.size() > 3 || !args.keywords.empty()) {
      return I->Error(args.loc, "range() takes 1 to 3 integer arguments");
    }
    for (size_t i = 0; i < p.size(); ++i) {
      if (!p[i].is_integral() && !p[i].As<SymInt>()) {
        return I->Error(args.ArgLoc(i),
                        absl::StrCat("range() arguments must be integers, got ", p[i].TypeName()));
      }
    }
    Value start = p.size() >= 2 ? p[0] : Value::Int(0);
    Value stop = p.size() >= 2 ? p[1] : p[0];
    Value step = p.size() == 3 ? p[2] : Value::Int(1);
    return Value::Obj(std::make_shared<LoopSpec>(LoopSpec::Kind::kPyRange, start, stop, step));
  });
  add("len", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1) return I->Error(args.loc, "len() takes one argument");
    const Value& v = args.positional[0];
    if (v.is_sequence()) return Value::Int(v.items().size());
    if (v.is_str()) return Value::Int(v.s().size());
    if (auto* a = v.As<TaskIdArray>()) return Value::Int(a->slots().size());
    if (auto* d = v.As<DictValue>()) return Value::Int(d->entries().size());
    PTOC_ASSIGN_OR_RETURN(items, I->Iterate(v, args.loc));
    return Value::Int(items.size());
  });
  auto minmax = [I](bool is_max) {
    return [I, is_max](const CallArgs& args) -> absl::StatusOr<Value> {
      std::vector<Value> items = args.positional;
      if (items.size() == 1) {
        PTOC_ASSIGN_OR_RETURN(it, I->Iterate(items[0], args.loc));
        items = it;
      }
      if (items.empty()) return I->Error(args.loc, "min()/max() of an empty sequence");
      Value best = items[0];
      for (size_t i = 1; i < items.size(); ++i) {
        if (!items[i].is_number() || !best.is_number()) {
          return I->Error(args.loc, "min()/max() need numbers");
        }
        if (is_max ? items[i].f() > best.f() : items[i].f() < best.f()) best = items[i];
      }
      return best;
    };
  };
  add("min", minmax(false));
  add("max", minmax(true));
  add("abs", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1 || !args.positional[0].is_number()) {
      return I->Error(args.loc, "abs() takes one number");
    }
    const Value& v = args.positional[0];
    return v.is_float() ? Value::Float(std::fabs(v.f())) : Value::Int(std::llabs(v.i()));
  });
  add("int", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1) return I->Error(args.loc, "int() takes one argument");
    Value v = args.positional[0];
    if (auto* el = v.As<ElementRef>()) {
      PTOC_ASSIGN_OR_RETURN(read, ReadElementRef(I, *el, args.loc));
      v = read;
    }
    if (v.is_number()) return Value::Int(static_cast<int64_t>(v.f()));
    int64_t parsed = 0;
    if (v.is_str() && absl::SimpleAtoi(v.s(), &parsed)) return Value::Int(parsed);
    return I->Error(args.loc, absl::StrCat("int() of ", v.TypeName()));
  });
  add("float", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1) return I->Error(args.loc, "float() takes one argument");
    Value v = args.positional[0];
    if (auto* el = v.As<ElementRef>()) {
      PTOC_ASSIGN_OR_RETURN(read, ReadElementRef(I, *el, args.loc));
      v = read;
    }
    if (v.is_number()) return Value::Float(v.f());
    return I->Error(args.loc, absl::StrCat("float() of ", v.TypeName()));
  });
  add("bool", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1) return I->Error(args.loc, "bool() takes one argument");
    PTOC_ASSIGN_OR_RETURN(t, I->Truthy(args.positional[0], args.loc));
    return Value::Bool(t);
  });
  add("str", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1) return I->Error(args.loc, "str() takes one argument");
    const Value& v = args.positional[0];
    if (v.is_str()) return v;
    std::optional<std::string> text = v.ReprWithin(kMaxStringLength);
    if (!text) {
      return I->Error(
          args.loc,
          absl::StrCat("str() of this value would nest sequences more than ", kMaxDataNesting,
                       " levels deep (or one holds itself) or make "
                       "more than ",
                       kMaxStringLength,
                       " characters; ptoc evaluates at compile time within those "
                       "bounds"));
    }
    return Value::Str(*std::move(text));
  });
  add("list", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.empty()) return Value::List({});
    PTOC_ASSIGN_OR_RETURN(items, I->Iterate(args.positional[0], args.loc));
    return Value::List(items);
  });
  add("tuple", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.empty()) return Value::Tuple({});
    PTOC_ASSIGN_OR_RETURN(items, I->Iterate(args.positional[0], args.loc));
    return Value::Tuple(items);
  });
  add("enumerate", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.empty()) return I->Error(args.loc, "enumerate() needs an iterable");
    PTOC_ASSIGN_OR_RETURN(items, I->Iterate(args.positional[0], args.loc));
    int64_t start = args.positional.size() > 1 ? args.positional[1].i() : 0;
    std::vector<Value> out;
    for (const Value& v : items) out.push_back(Value::Tuple({Value::Int(start++), v}));
    return Value::List(out);
  });
  add("zip", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    std::vector<std::vector<Value>> seqs;
    size_t n = SIZE_MAX;
    for (const Value& v : args.positional) {
      PTOC_ASSIGN_OR_RETURN(items, I->Iterate(v, args.loc));
      n = std::min(n, items.size());
      seqs.push_back(items);
    }
    std::vector<Value> out;
    for (size_t i = 0; !seqs.empty() && i < n; ++i) {
      std::vector<Value> row;
      for (const auto& s : seqs) row.push_back(s[i]);
      out.push_back(Value::Tuple(row));
    }
    return Value::List(out);
  });
  add("sum", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.empty()) return I->Error(args.loc, "sum() needs an iterable");
    PTOC_ASSIGN_OR_RETURN(items, I->Iterate(args.positional[0], args.loc));
    Value total = args.positional.size() > 1 ? args.positional[1] : Value::Int(0);
    for (const Value& v : items) {
      PTOC_ASSIGN_OR_RETURN(t, I->Binary("+", total, v, args.loc));
      total = t;
    }
    return total;
  });
  // print() in a kernel's orchestration talks to the script's user, whom
  // ptoc does not address: it evaluates the arguments and prints nothing.
  add("print", [](const CallArgs&) -> absl::StatusOr<Value> { return Value::None(); });
}

}  // namespace pto::ptoc
