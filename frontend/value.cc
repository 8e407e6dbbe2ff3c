#include "frontend/value.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace pto::ptoc {

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = ValueKind::kBool;
  v.b_ = b;
  return v;
}
Value Value::Int(int64_t i) {
  Value v;
  v.kind_ = ValueKind::kInt;
  v.i_ = i;
  return v;
}
Value Value::Float(double f) {
  Value v;
  v.kind_ = ValueKind::kFloat;
  v.f_ = f;
  return v;
}
Value Value::Str(std::string s) {
  Value v;
  v.kind_ = ValueKind::kStr;
  v.s_ = std::move(s);
  return v;
}
Value Value::Tuple(std::vector<Value> items) {
  Value v;
  v.kind_ = ValueKind::kTuple;
  v.items_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}
Value Value::List(std::vector<Value> items) {
  Value v;
  v.kind_ = ValueKind::kList;
  v.items_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}
Value Value::Obj(std::shared_ptr<Object> obj) {
  Value v;
  v.kind_ = ValueKind::kObject;
  v.obj_ = std::move(obj);
  return v;
}

std::string Value::TypeName() const {
  switch (kind_) {
    case ValueKind::kNone:
      return "NoneType";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kStr:
      return "str";
    case ValueKind::kTuple:
      return "tuple";
    case ValueKind::kList:
      return "list";
    case ValueKind::kObject:
      return obj_->TypeName();
  }
  return "?";
}

Value::~Value() {
  if (items_ == nullptr || items_.use_count() != 1) return;
  // Inside a release, a list whose last reference goes is queued instead
  // of destroyed (and its items with it); the outermost release empties
  // the queue one list at a time, so the stack stays flat however deep.
  thread_local int releasing = 0;
  thread_local std::vector<std::shared_ptr<std::vector<Value>>> queued;
  if (releasing > 0) {
    queued.push_back(std::move(items_));
    return;
  }
  ++releasing;
  items_.reset();
  while (!queued.empty()) {
    std::shared_ptr<std::vector<Value>> next = std::move(queued.back());
    queued.pop_back();
    next.reset();
  }
  --releasing;
}

bool Value::AppendRepr(size_t max_chars, int depth, std::string* out) const {
  switch (kind_) {
    case ValueKind::kNone:
      out->append("None");
      break;
    case ValueKind::kBool:
      out->append(b_ ? "True" : "False");
      break;
    case ValueKind::kInt:
      absl::StrAppend(out, i_);
      break;
    case ValueKind::kFloat:
      absl::StrAppendFormat(out, "%g", f_);
      break;
    case ValueKind::kStr:
      absl::StrAppend(out, "'", s_, "'");
      break;
    case ValueKind::kTuple:
    case ValueKind::kList: {
      if (depth >= kMaxDataNesting) return false;
      const bool tuple = kind_ == ValueKind::kTuple;
      out->append(tuple ? "(" : "[");
      for (size_t k = 0; k < items_->size(); ++k) {
        if (k > 0) out->append(", ");
        if (!(*items_)[k].AppendRepr(max_chars, depth + 1, out)) return false;
      }
      out->append(tuple && items_->size() == 1 ? ",)" : tuple ? ")" : "]");
      break;
    }
    case ValueKind::kObject:
      absl::StrAppend(out, "<", obj_->TypeName(), ">");
      break;
  }
  return out->size() <= max_chars;
}

std::optional<std::string> Value::ReprWithin(size_t max_chars) const {
  std::string out;
  if (!AppendRepr(max_chars, 0, &out)) return std::nullopt;
  return out;
}

std::string Value::Repr() const {
  // For messages: a value too long or too deep to show whole is cut short.
  constexpr size_t kMaxMessageChars = 4096;
  std::string out;
  if (!AppendRepr(kMaxMessageChars, 0, &out)) {
    out.resize(std::min(out.size(), kMaxMessageChars));
    out.append("...");
  }
  return out;
}

const Value* CallArgs::Keyword(const std::string& name) const {
  for (const auto& [k, v] : keywords) {
    if (k == name) return &v;
  }
  return nullptr;
}

SourceLocation CallArgs::KeywordLoc(const std::string& name) const {
  for (size_t i = 0; i < keywords.size(); ++i) {
    if (keywords[i].first == name && i < keyword_locs.size()) return keyword_locs[i];
  }
  return loc;
}

bool CallArgs::KeywordIsLiteral(const std::string& name) const {
  for (size_t i = 0; i < keywords.size(); ++i) {
    if (keywords[i].first == name) return i >= keyword_literal.size() || keyword_literal[i];
  }
  return true;
}

void Namespace::AddFunction(const std::string& attr, BuiltinFunction::Fn fn) {
  Set(attr,
      Value::Obj(std::make_shared<BuiltinFunction>(absl::StrCat(name_, ".", attr), std::move(fn))));
}

}  // namespace pto::ptoc
