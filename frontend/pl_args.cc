#include "frontend/pl_args.h"

#include "absl/strings/str_cat.h"

namespace pto::ptoc {

absl::StatusOr<std::vector<int64_t>> IntList(Interpreter* interp, const Value& v,
                                             SourceLocation loc, const char* what) {
  if (!v.is_sequence()) {
    return interp->Error(loc,
                         absl::StrCat(what, " must be a list of integers, got ", v.TypeName()));
  }
  std::vector<int64_t> out;
  for (const Value& item : v.items()) {
    if (!item.is_integral()) {
      return interp->Error(
          loc, absl::StrCat(what, " must be compile-time integers, got ", item.TypeName()));
    }
    out.push_back(item.i());
  }
  return out;
}

absl::StatusOr<std::vector<Value>> ValueList(Interpreter* interp, const Value& v,
                                             SourceLocation loc, const char* what) {
  if (!v.is_sequence()) {
    return interp->Error(loc, absl::StrCat(what, " must be a list, got ", v.TypeName()));
  }
  return v.items();
}

absl::StatusOr<trace::DType> DTypeOf(Interpreter* interp, const Value& v, SourceLocation loc) {
  auto* d = v.As<DTypeValue>();
  if (!d || d->is_task_id()) {
    return interp->Error(loc, absl::StrCat("expected a dtype such as pl.FP32, got ", v.TypeName()));
  }
  return d->dtype();
}

bool IsEnum(const Value& v, const char* enum_name, const char* member) {
  auto* e = v.As<EnumValue>();
  return e && e->enum_name() == enum_name && (!member || e->member() == member);
}

absl::StatusOr<bool> BoolArg(Interpreter* interp, const ArgReader& r, size_t i,
                             const char* message) {
  if (!r.Has(i)) return false;
  if (!r.Get(i)->is_bool()) return interp->Error(r.Loc(i), message);
  return r.Get(i)->b();
}

}  // namespace pto::ptoc
