#ifndef PTO_FRONTEND_VALUE_H_
#define PTO_FRONTEND_VALUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/source.h"

namespace pto::ptoc {

// Every non-scalar value of the interpreter (functions, modules, tensors,
// tiles, TaskIds, ...) is an Object; the interpreter checks types with
// dynamic_cast through Value::As<T>().
class Object {
 public:
  virtual ~Object() = default;
  // The type name used in messages ("torch.Tensor", "pl.Tile").
  virtual std::string TypeName() const = 0;
};

// How deep str(), == and repr() follow nested sequences at compile time,
// as CPython's default recursion limit bounds them (RecursionError).
inline constexpr int kMaxDataNesting = 1000;
// The longest string compile-time code may make (concatenation, str()).
inline constexpr size_t kMaxStringLength = size_t{1} << 24;

enum class ValueKind { kNone, kBool, kInt, kFloat, kStr, kTuple, kList, kObject };

// A Python value at compile time. Tuples and lists share their element
// storage like Python references do (a list mutated through one name is seen
// through every other).
class Value {
 public:
  Value() = default;
  // The last reference to a deeply nested list ([[[...]]] a million levels
  // deep, built by `x = [x]` in a loop) is released without recursing once
  // per level, which would overflow the stack (CPython's "trashcan").
  ~Value();
  Value(const Value&) = default;
  Value(Value&&) = default;
  Value& operator=(const Value&) = default;
  Value& operator=(Value&&) = default;
  static Value None() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Float(double f);
  static Value Str(std::string s);
  static Value Tuple(std::vector<Value> items);
  static Value List(std::vector<Value> items);
  static Value Obj(std::shared_ptr<Object> obj);

  ValueKind kind() const { return kind_; }
  bool is_none() const { return kind_ == ValueKind::kNone; }
  bool is_bool() const { return kind_ == ValueKind::kBool; }
  bool is_int() const { return kind_ == ValueKind::kInt; }
  bool is_float() const { return kind_ == ValueKind::kFloat; }
  // int or bool (bool is an int in Python)
  bool is_integral() const { return is_int() || is_bool(); }
  bool is_number() const { return is_integral() || is_float(); }
  bool is_str() const { return kind_ == ValueKind::kStr; }
  bool is_sequence() const { return kind_ == ValueKind::kTuple || kind_ == ValueKind::kList; }
  bool is_tuple() const { return kind_ == ValueKind::kTuple; }
  bool is_list() const { return kind_ == ValueKind::kList; }
  bool is_object() const { return kind_ == ValueKind::kObject; }

  bool b() const { return b_; }
  int64_t i() const { return is_bool() ? (b_ ? 1 : 0) : i_; }
  double f() const { return is_float() ? f_ : static_cast<double>(i()); }
  const std::string& s() const { return s_; }
  std::vector<Value>& items() const { return *items_; }
  const std::shared_ptr<Object>& obj() const { return obj_; }

  template <typename T>
  T* As() const {
    return is_object() ? dynamic_cast<T*>(obj_.get()) : nullptr;
  }
  template <typename T>
  std::shared_ptr<T> AsShared() const {
    return is_object() ? std::dynamic_pointer_cast<T>(obj_) : nullptr;
  }

  std::string TypeName() const;
  // Python repr, for messages: cut short with "..." past 4096 characters
  // or kMaxDataNesting levels of sequences.
  std::string Repr() const;
  // Python repr for str(): nullopt when it would be longer than
  // `max_chars` or nest sequences deeper than kMaxDataNesting (a list that
  // holds itself nests without end). Stops as soon as it knows.
  std::optional<std::string> ReprWithin(size_t max_chars) const;

 private:
  // Appends the repr; false once past `max_chars` or too deep.
  bool AppendRepr(size_t max_chars, int depth, std::string* out) const;

  ValueKind kind_ = ValueKind::kNone;
  bool b_ = false;
  int64_t i_ = 0;
  double f_ = 0.0;
  std::string s_;
  std::shared_ptr<std::vector<Value>> items_;
  std::shared_ptr<Object> obj_;
};

// Arguments of one call, with where each came from for messages.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<SourceLocation> positional_locs;
  // The source name of each positional argument that was a bare name.
  std::vector<std::string> positional_names;
  std::vector<std::pair<std::string, Value>> keywords;
  std::vector<SourceLocation> keyword_locs;
  // Whether each keyword's value was written as a literal (True, 3, None,
  // "s"): some arguments must be literals in PyPTO (allow_early_resolve).
  std::vector<bool> keyword_literal;
  SourceLocation loc;  // the call

  bool KeywordIsLiteral(const std::string& name) const;

  const Value* Keyword(const std::string& name) const;
  SourceLocation KeywordLoc(const std::string& name) const;
  SourceLocation ArgLoc(size_t i) const {
    return i < positional_locs.size() ? positional_locs[i] : loc;
  }
};

// A built-in function; `fn` gets the call's arguments.
class BuiltinFunction : public Object {
 public:
  using Fn = std::function<absl::StatusOr<Value>(const CallArgs&)>;
  BuiltinFunction(std::string name, Fn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string TypeName() const override { return "builtin_function"; }
  const std::string& name() const { return name_; }
  absl::StatusOr<Value> Call(const CallArgs& args) const { return fn_(args); }

 private:
  std::string name_;
  Fn fn_;
};

// A namespace of attributes: a module (`pl`, `torch`) or a sub-namespace
// (`pl.system`, `pl.Level`).
class Namespace : public Object {
 public:
  explicit Namespace(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "module"; }
  const std::string& name() const { return name_; }
  void Set(const std::string& attr, Value v) { attrs_[attr] = std::move(v); }
  const Value* Get(const std::string& attr) const {
    auto it = attrs_.find(attr);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  void AddFunction(const std::string& attr, BuiltinFunction::Fn fn);
  // What the message for a missing attribute offers instead of the docs.
  const std::string& missing_hint() const { return missing_hint_; }
  void set_missing_hint(std::string hint) { missing_hint_ = std::move(hint); }

 private:
  std::string name_;
  std::map<std::string, Value> attrs_;
  std::string missing_hint_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_VALUE_H_
