#include "frontend/device_views.h"

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontend/kernel_builder.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

// `e` * `scale` added to a linear form: constants, sums, differences and
// products by a constant; anything else is an opaque term.
struct LinearForm {
  std::map<std::string, int64_t> terms;  // a term's serialized IntExpr -> its coefficient
  int64_t constant = 0;
};

void AddLinear(const trace::IntExpr& e, int64_t scale, LinearForm* form) {
  if (e.kind_case() == trace::IntExpr::kConstant) {
    form->constant += scale * e.constant();
    return;
  }
  if (e.kind_case() == trace::IntExpr::kBinary) {
    const trace::IntExpr::Binary& b = e.binary();
    switch (b.op()) {
      case trace::IntExpr::ADD:
      case trace::IntExpr::SUB:
        AddLinear(b.lhs(), scale, form);
        AddLinear(b.rhs(), b.op() == trace::IntExpr::ADD ? scale : -scale, form);
        return;
      case trace::IntExpr::MUL:
        if (b.rhs().kind_case() == trace::IntExpr::kConstant) {
          AddLinear(b.lhs(), scale * b.rhs().constant(), form);
          return;
        }
        if (b.lhs().kind_case() == trace::IntExpr::kConstant) {
          AddLinear(b.rhs(), scale * b.lhs().constant(), form);
          return;
        }
        break;
      default:
        break;
    }
  }
  form->terms[e.SerializeAsString()] += scale;
}

}  // namespace

absl::StatusOr<int64_t> StaticExtent(const Value& start, const Value& stop) {
  PTOC_ASSIGN_OR_RETURN(lo, ToIntExpr(start));
  PTOC_ASSIGN_OR_RETURN(hi, ToIntExpr(stop));
  // stop - start as a linear form: i + n - i, (k + 1) * c - k * c.
  LinearForm extent;
  AddLinear(hi, 1, &extent);
  AddLinear(lo, -1, &extent);
  const bool constant = std::all_of(extent.terms.begin(), extent.terms.end(),
                                    [](const auto& term) { return term.second == 0; });
  if (constant) return extent.constant;
  return absl::InvalidArgumentError(
      "a window's extent must be a compile-time integer: write the bounds as x[i:i + n]");
}

absl::StatusOr<std::vector<Value>> AddOffsets(const std::vector<Value>& a,
                                              const std::vector<Value>& b) {
  std::vector<Value> out;
  for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
    PTOC_ASSIGN_OR_RETURN(x, ToIntExpr(a[d]));
    PTOC_ASSIGN_OR_RETURN(y, ToIntExpr(b[d]));
    out.push_back(IntBinary(trace::IntExpr::ADD, x, y));
  }
  return out;
}

absl::StatusOr<Value> WindowOf(Interpreter* interp, const Value& base,
                               const std::vector<Value>& offsets, const std::vector<int64_t>& shape,
                               SourceLocation loc) {
  std::shared_ptr<TensorRef> ref = base.AsShared<TensorRef>();
  std::vector<Value> absolute = offsets;
  std::vector<int64_t> extent;
  if (auto view = base.AsShared<DeviceTensorView>()) {
    ref = view->base();
    PTOC_ASSIGN_OR_RETURN(sum, AddOffsets(view->offsets(), offsets));
    absolute = std::move(sum);
    extent = view->shape();
  } else if (ref) {
    extent = ref->shape();
  } else {
    return interp->Error(loc, absl::StrCat("expected a tensor, got ", base.TypeName()));
  }
  if (offsets.size() != extent.size() || shape.size() != extent.size()) {
    return interp->Error(loc, absl::StrCat("a window of a rank-", extent.size(),
                                           " tensor needs that many offsets and extents"));
  }
  bool all_static = true;
  for (size_t d = 0; d < extent.size(); ++d) {
    if (shape[d] <= 0 || shape[d] > extent[d]) {
      return interp->Error(loc, absl::StrCat("window dim ", d, " is ", shape[d],
                                             " long, but the tensor has ", extent[d]));
    }
    if (offsets[d].is_integral()) {
      if (offsets[d].i() < 0 || offsets[d].i() + shape[d] > extent[d]) {
        return interp->Error(
            loc, absl::StrCat("window dim ", d, " covers [", offsets[d].i(), ", ",
                              offsets[d].i() + shape[d], ") of a dim of size ", extent[d]));
      }
    } else if (!offsets[d].As<SymInt>()) {
      return interp->Error(loc, absl::StrCat("window offset ", d, " must be an integer, got ",
                                             offsets[d].TypeName()));
    }
    all_static &= absolute[d].is_integral();
  }
  if (all_static) {
    std::vector<int64_t> at;
    for (const Value& v : absolute) at.push_back(v.i());
    return Value::Obj(ref->View(at, shape));
  }
  if (!interp->in_kernel()) {
    return interp->Error(loc, "a window at device offsets exists only inside a task body");
  }
  return Value::Obj(std::make_shared<DeviceTensorView>(ref, std::move(absolute), shape));
}

}  // namespace pto::ptoc
