// Runtime scalars, valid shapes and dynamic dimensions, as
// hw-native-sys/pypto@e2d0f78a python/pypto/language/op/{unified_ops,
// tensor_ops,tile_ops}.py define them: pl.read / pl.tensor.read (a tensor
// element: in a kernel a READ op, a device integer each block reads at run
// time; in the orchestration the value itself, as the host reads it),
// pl.tensor.dim, pl.dynamic, pl.PadValue and pl.tile.fillpad.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/arg_reader.h"
#include "frontend/interpreter.h"
#include "frontend/kernel_builder.h"
#include "frontend/pl_args.h"
#include "frontend/status_macros.h"
#include "frontend/tile_ops.h"

namespace pto::ptoc {
namespace {

// pl.read's offset: one index per dim, or (pypto's 1-D flat access) one
// row-major index; ints or device ints.
absl::StatusOr<std::vector<Value>> ReadIndices(Interpreter* I, const TensorRef& ref,
                                               const Value& offset, SourceLocation loc,
                                               const std::string& fn) {
  std::vector<Value> indices;
  if (offset.is_sequence()) {
    indices = offset.items();
  } else {
    indices.push_back(offset);
  }
  const size_t rank = ref.shape().size();
  if (indices.size() != rank && indices.size() != 1) {
    return I->Error(loc, absl::StrCat(fn, " of a rank-", rank, " tensor takes ", rank,
                                      " indices (or one flat index), got ", indices.size()));
  }
  int64_t count = 1;
  for (int64_t d : ref.shape()) count *= d;
  for (size_t d = 0; d < indices.size(); ++d) {
    const Value& v = indices[d];
    if (!v.is_integral() && v.As<SymInt>() == nullptr) {
      return I->Error(loc,
                      absl::StrCat(fn, " index ", d, " must be an integer, got ", v.TypeName()));
    }
    if (!v.is_integral()) continue;
    const int64_t bound = indices.size() == rank ? ref.shape()[d] : count;
    if (v.i() < 0 || v.i() >= bound) {
      return I->Error(loc, absl::StrCat(fn, " index ", d, " is ", v.i(), " but '", ref.name(),
                                        "' has ", bound, indices.size() == rank ? "" : " elements",
                                        indices.size() == rank ? absl::StrCat(" in dim ", d) : "",
                                        "; expected 0..", bound - 1));
    }
  }
  return indices;
}

absl::StatusOr<Value> Read(Interpreter* I, const CallArgs& args, const std::string& fn,
                           const char* source_name, const char* offset_name) {
  ArgReader r(I, args, fn, {source_name, offset_name});
  PTOC_RETURN_IF_ERROR(r.Check());
  PTOC_RETURN_IF_ERROR(r.Require(2));
  if (r.Get(0)->As<Tile>() != nullptr) {
    return I->Error(r.Loc(0), absl::StrCat(fn,
                                           " of a tile (an on-chip element) is not supported "
                                           "yet; read the tensor the tile came from"));
  }
  auto ref = r.Get(0)->AsShared<TensorRef>();
  if (!ref) return r.Wrong(0, "a tensor");
  PTOC_ASSIGN_OR_RETURN(indices, ReadIndices(I, *ref, *r.Get(1), r.Loc(1), fn));
  if (!I->in_kernel()) {
    if (!I->in_launch()) {
      return I->Error(args.loc, absl::StrCat(fn,
                                             " reads a device tensor: call it inside a "
                                             "@pl.jit function or a kernel"));
    }
    // The orchestration reads the element as the host does: its value now.
    std::vector<int64_t> at(ref->shape().size(), 0);
    if (indices.size() == at.size()) {
      for (size_t d = 0; d < at.size(); ++d) {
        if (!indices[d].is_integral()) {
          return I->Error(r.Loc(1), "an orchestration read takes host integers as indices");
        }
        at[d] = indices[d].i();
      }
    } else {
      if (!indices[0].is_integral()) {
        return I->Error(r.Loc(1), "an orchestration read takes host integers as indices");
      }
      int64_t rest = indices[0].i();
      for (size_t d = at.size(); d-- > 0;) {
        at[d] = rest % ref->shape()[d];
        rest /= ref->shape()[d];
      }
    }
    for (size_t d = 0; d < at.size(); ++d) at[d] += ref->offsets()[d];
    return I->ReadDeviceElement(ref->tensor_id(), at, args.loc);
  }
  if (IsFloat(ref->dtype())) {
    return I->Error(r.Loc(0), absl::StrCat(fn, " of '", ref->name(), "' (", DTypeName(ref->dtype()),
                                           ") in a kernel: ptoc's device scalars are integers "
                                           "(offsets, loop bounds, branch conditions); read an "
                                           "integer tensor"));
  }
  PTOC_RETURN_IF_ERROR(I->CheckControlSource(ref->tensor_id(), args.loc));
  KernelBuilder* k = I->kernel();
  const uint32_t param = k->UseTensor(ref, /*read=*/true, /*write=*/false);
  std::vector<trace::IntExpr> offsets;
  for (const Value& v : indices) {
    PTOC_ASSIGN_OR_RETURN(e, ToIntExpr(v));
    offsets.push_back(std::move(e));
  }
  I->program().MarkControl(ref->tensor_id());
  return k->EmitRead(param, offsets, I->Origin(args.loc));
}

// A dimension named by pl.dynamic("M"): bound per call to the size the
// argument has (CheckDynamicDims).
class DynamicDim : public Object {
 public:
  explicit DynamicDim(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "pl.dynamic"; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

}  // namespace

const std::string* DynamicDimName(const Value& v) {
  auto* d = v.As<DynamicDim>();
  return d ? &d->name() : nullptr;
}

absl::Status CheckDynamicDims(Interpreter* I, const FunctionValue& fn, const Env& env,
                              const CallArgs& args) {
  struct Bound {
    int64_t size;
    std::string param;
    size_t dim;
  };
  std::map<std::string, Bound> bound;
  const Stmt& def = *fn.def();
  for (size_t i = 0; i < def.params.size() && i < fn.annotations().size(); ++i) {
    auto* a = fn.annotations()[i].As<Annotation>();
    if (a == nullptr || a->shape().empty()) continue;
    const Value* v = env.Lookup(def.params[i].name);
    if (v == nullptr) continue;
    const std::vector<int64_t>* shape = nullptr;
    if (auto* ref = v->As<TensorRef>()) shape = &ref->shape();
    if (auto* host = v->As<HostTensor>()) shape = &host->shape();
    if (shape == nullptr) continue;
    bool dynamic = false;
    for (const Value& d : a->shape()) dynamic |= DynamicDimName(d) != nullptr;
    if (!dynamic) continue;  // a static shape is documentation (upstream checks it)
    // At the annotation that names the dims: the call line is ptoc's rewrite.
    const Param& p = def.params[i];
    const SourceLocation loc = p.annotation                 ? p.annotation->loc
                               : i < args.positional.size() ? args.ArgLoc(i)
                                                            : args.loc;
    const std::string& param = def.params[i].name;
    if (a->shape().size() != shape->size()) {
      return I->Error(loc, absl::StrCat("argument '", param, "' has rank ", shape->size(),
                                        " but its annotation names ", a->shape().size(), " dims"));
    }
    for (size_t d = 0; d < shape->size(); ++d) {
      const Value& want = a->shape()[d];
      const int64_t have = (*shape)[d];
      if (const std::string* name = DynamicDimName(want)) {
        auto [it, fresh] = bound.try_emplace(*name, Bound{have, param, d});
        if (!fresh && it->second.size != have) {
          // Upstream binds each argument's own shape and runs such a call
          // (hw-native-sys/pypto@e2d0f78a tests/st/runtime/control_flow/
          // test_dyn_orch_shape.py passes a flat [M] and an [M, N] under one M).
          I->Warn(loc,
                  absl::StrCat("pl.dynamic dimension '", *name, "' is ", have, " here (argument '",
                               param, "', dim ", d, ") but ", it->second.size, " in argument '",
                               it->second.param, "' (dim ", it->second.dim,
                               "); each argument keeps its own shape, but the annotations "
                               "say these dims are one size"));
        }
      } else if (want.is_integral() && want.i() != have) {
        return I->Error(loc, absl::StrCat("argument '", param, "' has ", have, " in dim ", d,
                                          " but its annotation says ", want.i()));
      }
    }
  }
  return absl::OkStatus();
}

void TakeUnsignedAnnotations(const FunctionValue& fn, const Env& env) {
  const Stmt& def = *fn.def();
  for (size_t i = 0; i < def.params.size() && i < fn.annotations().size(); ++i) {
    auto* a = fn.annotations()[i].As<Annotation>();
    if (a == nullptr || !IsUnsignedInt(a->dtype())) continue;
    const Value* v = env.Lookup(def.params[i].name);
    auto* host = v == nullptr ? nullptr : v->As<HostTensor>();
    if (host == nullptr || !IsSignedInt(host->dtype()) ||
        DTypeSize(host->dtype()) != DTypeSize(a->dtype())) {
      continue;
    }
    host->Reinterpret(a->dtype());
  }
}

void AddScalarOps(Interpreter* interp, Namespace* pl, Namespace* tensor, Namespace* tile) {
  Interpreter* I = interp;
  pl->AddFunction("read",
                  [I](const CallArgs& args) { return Read(I, args, "pl.read", "src", "offset"); });
  tensor->AddFunction("read", [I](const CallArgs& args) {
    return Read(I, args, "pl.tensor.read", "tensor", "indices");
  });
  tensor->AddFunction("dim", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tensor.dim", {"tensor", "axis"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    auto ref = r.Get(0)->AsShared<TensorRef>();
    if (!ref) return r.Wrong(0, "a tensor");
    if (!r.Get(1)->is_integral()) return r.Wrong(1, "an int");
    const int64_t rank = static_cast<int64_t>(ref->shape().size());
    int64_t axis = r.Get(1)->i();
    if (axis < -rank || axis >= rank) {
      return I->Error(r.Loc(1), absl::StrCat("pl.tensor.dim axis ", axis,
                                             " is out of range for a "
                                             "rank-",
                                             rank, " tensor; expected ", -rank, "..", rank - 1));
    }
    if (axis < 0) axis += rank;
    return Value::Int(ref->shape()[static_cast<size_t>(axis)]);
  });
  pl->AddFunction("dynamic", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.dynamic", {"name"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(1));
    if (!r.Get(0)->is_str()) return r.Wrong(0, "a str");
    return Value::Obj(std::make_shared<DynamicDim>(r.Get(0)->s()));
  });
  auto fillpad = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.fillpad", {"tile", "pad_value"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(1));
    // PadValue.zero / max / min, or the sugars 0, math.inf, -math.inf.
    trace::Op::PadValue pad = trace::Op::PAD_ZERO;
    if (r.Has(1)) {
      const Value& v = *r.Get(1);
      if (IsEnum(v, "pl.PadValue", nullptr)) {
        const int64_t code = v.As<EnumValue>()->value();
        if (code == 0) {
          return I->Error(r.Loc(1),
                          "pl.PadValue.null means no padding; pl.tile.fillpad takes zero, max "
                          "or min");
        }
        pad = static_cast<trace::Op::PadValue>(code);
      } else if (v.is_number() && v.f() == 0) {
        pad = trace::Op::PAD_ZERO;
      } else if (v.is_float() && std::isinf(v.f())) {
        pad = v.f() > 0 ? trace::Op::PAD_MAX : trace::Op::PAD_MIN;
      } else {
        return I->Error(r.Loc(1),
                        absl::StrCat("pad_value ", v.Repr(),
                                     " is not a padding mode: the hardware pads with zero, the "
                                     "dtype's max or its min (pl.PadValue.zero / max / min, or "
                                     "0, math.inf, -math.inf)"));
      }
    }
    return TileFillPad(I, *r.Get(0), pad, args.loc);
  };
  tile->AddFunction("fillpad", fillpad);
  pl->AddFunction("fillpad", fillpad);
}

}  // namespace pto::ptoc
