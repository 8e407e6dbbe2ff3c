#include "frontend/value.h"

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

std::string Value::Repr() const {
  switch (kind_) {
    case ValueKind::kNone:
      return "None";
    case ValueKind::kBool:
      return b_ ? "True" : "False";
    case ValueKind::kInt:
      return absl::StrCat(i_);
    case ValueKind::kFloat:
      return absl::StrFormat("%g", f_);
    case ValueKind::kStr:
      return absl::StrCat("'", s_, "'");
    case ValueKind::kTuple:
    case ValueKind::kList: {
      std::vector<std::string> parts;
      for (const Value& v : *items_) parts.push_back(v.Repr());
      const bool tuple = kind_ == ValueKind::kTuple;
      return absl::StrCat(tuple ? "(" : "[", absl::StrJoin(parts, ", "),
                          tuple && parts.size() == 1 ? "," : "", tuple ? ")" : "]");
    }
    case ValueKind::kObject:
      return absl::StrCat("<", obj_->TypeName(), ">");
  }
  return "?";
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
