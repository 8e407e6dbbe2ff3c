// The `torch` harness subset: host tensors computed at compile time, and
// torch.testing.assert_close turned into a Check record.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/close.h"
#include "common/dtype.h"
#include "common/tensor_fill.h"
#include "frontend/arg_reader.h"
#include "frontend/interpreter.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {

namespace {

// Shape from `torch.zeros(2, 3)` or `torch.zeros((2, 3))` / `[2, 3]`.
absl::StatusOr<std::vector<int64_t>> ShapeArgs(Interpreter* I, const CallArgs& args, size_t first,
                                               size_t count) {
  std::vector<Value> dims;
  if (count == 1 && args.positional[first].is_sequence()) {
    dims = args.positional[first].items();
  } else {
    dims.assign(args.positional.begin() + first, args.positional.begin() + first + count);
  }
  std::vector<int64_t> shape;
  for (const Value& d : dims) {
    if (!d.is_integral() || d.i() < 0) {
      return I->Error(args.loc, absl::StrCat("tensor dimensions must be non-negative integers, "
                                             "got ",
                                             d.Repr()));
    }
    shape.push_back(d.i());
  }
  // Host tensors live in ptoc's memory (as doubles) and in the stream;
  // shape-only ones (--timing-only) hold no values and have no limit.
  if (I->timing_only()) return shape;
  constexpr int64_t kMaxElements = int64_t{1} << 28;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > kMaxElements / d) {
      return I->Error(args.loc,
                      absl::StrCat("tensor of shape ", ShapeString(shape),
                                   " is too large for ptoc (limit ", kMaxElements, " elements)"));
    }
    n *= d;
  }
  return shape;
}

absl::StatusOr<trace::DType> DTypeKeyword(Interpreter* I, const CallArgs& args,
                                          trace::DType fallback) {
  const Value* d = args.Keyword("dtype");
  if (!d || d->is_none()) return fallback;
  auto* dt = d->As<DTypeValue>();
  if (!dt || dt->is_task_id()) {
    return I->Error(args.KeywordLoc("dtype"),
                    "dtype= must be a torch dtype such as "
                    "torch.float32");
  }
  return dt->dtype();
}

absl::Status OnlyKeywords(Interpreter* I, const CallArgs& args, const char* fn,
                          std::vector<std::string> allowed) {
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    bool ok = false;
    for (const auto& a : allowed) ok |= a == args.keywords[k].first;
    if (!ok) {
      return I->Error(args.keyword_locs[k], absl::StrCat(fn, "() keyword '", args.keywords[k].first,
                                                         "' is not supported by ptoc"));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<HostTensor> Filled(Interpreter* I, const std::vector<int64_t>& shape,
                                   trace::DType dtype, double value) {
  auto t = I->NewHostTensor(shape, dtype);
  if (!t->shape_only()) t->Assign(std::vector<double>(t->numel(), value));
  trace::TensorInit init;
  if (value == 0.0) {
    init.set_zeros(true);
  } else {
    init.mutable_fill()->set_value(RoundToDType(dtype, value));
  }
  t->set_provenance(init);
  return t;
}

// device= of a tensor factory: the CPU (the default), or "meta" (a shape
// without contents, as every tensor is under --timing-only). CPython runs
// such launches timing-only; ptoc needs --timing-only for them.
absl::Status DeviceKeyword(Interpreter* I, const CallArgs& args, const char* fn) {
  const Value* device = args.Keyword("device");
  if (!device) return absl::OkStatus();
  if (!device->is_str() || (device->s() != "cpu" && device->s() != "meta")) {
    return I->Error(args.KeywordLoc("device"),
                    absl::StrCat(fn,
                                 "(device=...) must be \"cpu\" or \"meta\" (a shape without "
                                 "contents), got ",
                                 device->Repr()));
  }
  if (device->s() == "meta" && !I->timing_only()) {
    return I->Error(args.KeywordLoc("device"),
                    absl::StrCat(fn,
                                 "(device=\"meta\") makes a tensor without contents; "
                                 "compile with ptoc --timing-only"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<HostTensor>> TensorArg(Interpreter* I, const CallArgs& args,
                                                      size_t i, const char* fn) {
  if (i >= args.positional.size()) {
    return I->Error(args.loc, absl::StrCat(fn, "() needs a tensor argument"));
  }
  auto t = args.positional[i].AsShared<HostTensor>();
  if (!t) {
    return I->Error(args.ArgLoc(i),
                    absl::StrCat(fn, "() expects a tensor, got ", args.positional[i].TypeName()));
  }
  PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.ArgLoc(i)));
  return t;
}

}  // namespace

std::shared_ptr<Namespace> MakeTorchModule(Interpreter* interp) {
  Interpreter* I = interp;
  auto torch = std::make_shared<Namespace>("torch");
  const std::vector<std::pair<const char*, trace::DType>> dtypes = {
      {"float32", trace::FP32}, {"float", trace::FP32},    {"float16", trace::FP16},
      {"half", trace::FP16},    {"bfloat16", trace::BF16}, {"int32", trace::INT32},
      {"int", trace::INT32},    {"int64", trace::INT64},   {"long", trace::INT64},
      {"int16", trace::INT16},  {"int8", trace::INT8},     {"uint8", trace::UINT8},
      {"bool", trace::BOOL}};
  for (const auto& [name, dtype] : dtypes) {
    torch->Set(name, Value::Obj(std::make_shared<DTypeValue>(dtype, absl::StrCat("torch.", name))));
  }

  torch->AddFunction("device", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1 || !args.positional[0].is_str()) {
      return I->Error(args.loc, "torch.device(name) needs one string, e.g. torch.device(\"meta\")");
    }
    return args.positional[0];
  });
  torch->AddFunction("manual_seed", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    if (args.positional.size() != 1 || !args.positional[0].is_integral()) {
      return I->Error(args.loc, "torch.manual_seed(seed) needs one integer");
    }
    I->SetManualSeed(static_cast<uint64_t>(args.positional[0].i()));
    return Value::None();
  });
  torch->AddFunction("randn", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, "torch.randn", {"dtype", "device"}));
    PTOC_RETURN_IF_ERROR(DeviceKeyword(I, args, "torch.randn"));
    if (args.positional.empty()) return I->Error(args.loc, "torch.randn needs a shape");
    PTOC_ASSIGN_OR_RETURN(shape, ShapeArgs(I, args, 0, args.positional.size()));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeKeyword(I, args, trace::FP32));
    if (!IsFloat(dtype)) return I->Error(args.loc, "torch.randn needs a float dtype");
    // Values come from the same generator pto_sim uses for RANDN, so the
    // tensor travels as (seed) instead of bytes.
    const uint64_t seed = I->NextRandomSeed();
    auto t = I->NewHostTensor(shape, dtype);
    if (!t->shape_only()) {
      RandomStream random(seed);
      std::vector<double> values(t->numel());
      for (double& v : values) v = random.NextNormal();
      t->Assign(values);
    }
    trace::TensorInit init;
    init.mutable_generator()->set_kind(trace::TensorInit::Generator::RANDN);
    init.mutable_generator()->set_seed(seed);
    t->set_provenance(init);
    return Value::Obj(t);
  });
  for (const auto& [name, fill] :
       std::vector<std::pair<const char*, double>>{{"zeros", 0.0}, {"ones", 1.0}}) {
    const std::string fn = absl::StrCat("torch.", name);
    const double value = fill;
    torch->AddFunction(name, [I, fn, value](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, fn.c_str(), {"dtype", "device"}));
      PTOC_RETURN_IF_ERROR(DeviceKeyword(I, args, fn.c_str()));
      if (args.positional.empty()) return I->Error(args.loc, absl::StrCat(fn, " needs a shape"));
      PTOC_ASSIGN_OR_RETURN(shape, ShapeArgs(I, args, 0, args.positional.size()));
      PTOC_ASSIGN_OR_RETURN(dtype, DTypeKeyword(I, args, trace::FP32));
      return Value::Obj(Filled(I, shape, dtype, value));
    });
  }
  torch->AddFunction("full", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, "torch.full", {"dtype", "device"}));
    PTOC_RETURN_IF_ERROR(DeviceKeyword(I, args, "torch.full"));
    if (args.positional.size() != 2 || !args.positional[1].is_number()) {
      return I->Error(args.loc, "torch.full(shape, value, dtype=...) needs a shape and a number");
    }
    PTOC_ASSIGN_OR_RETURN(shape, ShapeArgs(I, args, 0, 1));
    PTOC_ASSIGN_OR_RETURN(
        dtype, DTypeKeyword(I, args, args.positional[1].is_float() ? trace::FP32 : trace::INT64));
    return Value::Obj(Filled(I, shape, dtype, args.positional[1].f()));
  });
  torch->AddFunction("arange", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, "torch.arange", {"dtype", "device"}));
    PTOC_RETURN_IF_ERROR(DeviceKeyword(I, args, "torch.arange"));
    const auto& p = args.positional;
    if (p.empty() || p.size() > 3) return I->Error(args.loc, "torch.arange takes 1 to 3 numbers");
    for (const Value& v : p) {
      if (!v.is_number()) return I->Error(args.loc, "torch.arange bounds must be numbers");
    }
    const double start = p.size() >= 2 ? p[0].f() : 0.0;
    const double stop = p.size() >= 2 ? p[1].f() : p[0].f();
    const double step = p.size() == 3 ? p[2].f() : 1.0;
    if (step == 0) return I->Error(args.loc, "torch.arange step must not be zero");
    bool any_float = false;
    for (const Value& v : p) any_float |= v.is_float();
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeKeyword(I, args, any_float ? trace::FP32 : trace::INT64));
    const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop - start) / step)));
    auto t = I->NewHostTensor({n}, dtype);
    if (!t->shape_only()) {
      std::vector<double> values(n);
      for (int64_t i = 0; i < n; ++i) values[i] = start + i * step;
      t->Assign(values);
    }
    trace::TensorInit init;
    init.mutable_generator()->set_kind(trace::TensorInit::Generator::ARANGE);
    init.mutable_generator()->set_start(start);
    init.mutable_generator()->set_step(step);
    t->set_provenance(init);
    return Value::Obj(t);
  });
  torch->AddFunction("exp", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_ASSIGN_OR_RETURN(t, TensorArg(I, args, 0, "torch.exp"));
    return I->Derived(HostUnary(*t, [](double x) { return std::exp(x); }), {t.get()});
  });
  torch->AddFunction("matmul", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_ASSIGN_OR_RETURN(a, TensorArg(I, args, 0, "torch.matmul"));
    PTOC_ASSIGN_OR_RETURN(b, TensorArg(I, args, 1, "torch.matmul"));
    auto r = HostMatmul(*a, *b);
    if (!r.ok()) return I->Error(args.loc, r.status().message());
    return Value::Obj(*r);
  });
  torch->AddFunction("cat", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, "torch.cat", {"dim"}));
    if (args.positional.empty() || !args.positional[0].is_sequence()) {
      return I->Error(args.loc, "torch.cat needs a list of tensors");
    }
    std::vector<std::shared_ptr<HostTensor>> parts;
    for (const Value& v : args.positional[0].items()) {
      auto t = v.AsShared<HostTensor>();
      if (!t) return I->Error(args.loc, "torch.cat needs a list of tensors");
      PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.loc));
      parts.push_back(t);
    }
    int64_t dim = 0;
    if (args.positional.size() > 1) dim = args.positional[1].i();
    if (const Value* d = args.Keyword("dim")) dim = d->i();
    auto r = HostCat(parts, dim);
    if (!r.ok()) return I->Error(args.loc, r.status().message());
    return Value::Obj(*r);
  });
  torch->AddFunction("roll", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_RETURN_IF_ERROR(OnlyKeywords(I, args, "torch.roll", {"shifts", "dims"}));
    PTOC_ASSIGN_OR_RETURN(t, TensorArg(I, args, 0, "torch.roll"));
    const Value* shifts = args.positional.size() > 1 ? &args.positional[1] : args.Keyword("shifts");
    const Value* dims = args.positional.size() > 2 ? &args.positional[2] : args.Keyword("dims");
    if (!shifts || !shifts->is_integral()) {
      return I->Error(args.loc, "torch.roll needs an integer shifts");
    }
    std::optional<int64_t> dim;
    if (dims && !dims->is_none()) {
      if (!dims->is_integral()) return I->Error(args.loc, "ptoc's torch.roll takes one dim");
      dim = dims->i();
    }
    auto r = HostRoll(*t, shifts->i(), dim);
    if (!r.ok()) return I->Error(args.loc, r.status().message());
    return Value::Obj(*r);
  });
  torch->AddFunction("where", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    PTOC_ASSIGN_OR_RETURN(c, TensorArg(I, args, 0, "torch.where"));
    PTOC_ASSIGN_OR_RETURN(a, TensorArg(I, args, 1, "torch.where"));
    PTOC_ASSIGN_OR_RETURN(b, TensorArg(I, args, 2, "torch.where"));
    auto r = HostWhere(*c, *a, *b);
    if (!r.ok()) return I->Error(args.loc, r.status().message());
    return Value::Obj(*r);
  });

  auto testing = std::make_shared<Namespace>("torch.testing");
  testing->AddFunction("assert_close", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "torch.testing.assert_close",
                {"actual", "expected", "rtol", "atol", "check_dtype", "msg", "equal_nan"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0)) return r.Missing(0);
    if (!r.Has(1)) return r.Missing(1);
    auto actual = r.Get(0)->AsShared<HostTensor>();
    auto expected = r.Get(1)->AsShared<HostTensor>();
    if (!actual) return r.Wrong(0, "a tensor");
    if (!expected) return r.Wrong(1, "a tensor");
    if (I->timing_only()) return Value::None();  // no checks without contents
    PTOC_RETURN_IF_ERROR(I->RequireKnown(*expected, r.Loc(1)));
    if (actual->shape() != expected->shape()) {
      return I->Error(args.loc,
                      absl::StrCat("assert_close: shapes differ: ", ShapeString(actual->shape()),
                                   " vs ", ShapeString(expected->shape())));
    }
    // torch's defaults for float32.
    double rtol = 1.3e-6, atol = 1e-5;
    if (r.Has(2)) rtol = r.Get(2)->f();
    if (r.Has(3)) atol = r.Get(3)->f();
    bool equal_nan = false;
    if (r.Has(6)) {
      if (!r.Get(6)->is_bool()) return r.Wrong(6, "True or False");
      equal_nan = r.Get(6)->b();
    }
    auto converted = HostCast(*expected, actual->dtype());
    // Only tensors that a launch used exist in GM and can be checked by pto_sim.
    const std::optional<uint32_t> id = I->program().FindTensorForHost(actual.get());
    if (!id && actual->device_derived()) {
      return I->Error(r.Loc(0),
                      "the 'actual' of assert_close is computed on the host from a "
                      "device tensor (a slice or an expression), so pto_sim could not "
                      "check it; compare the whole tensor the launch wrote, e.g. "
                      "assert_close(out, expected_full)");
    }
    if (actual->known()) {
      // Compared now, by pto_sim's rule (common/close.h), against ptoc's
      // sequential reference for device tensors. For those a mismatch is a
      // warning, not an error: a trace may deliberately show a race that only
      // the simulator's concurrency exposes. For host-only tensors it is the
      // whole check.
      const CloseTolerance tolerance{rtol, atol, equal_nan};
      CloseStats stats;
      for (int64_t i = 0; i < actual->numel(); ++i) {
        stats.Add(actual->values()[i], converted->values()[i], tolerance);
      }
      if (!stats.passed()) {
        const std::string found = DescribeMismatches(stats, actual->shape(), "");
        if (!id) {
          return I->Error(args.loc, absl::StrCat("assert_close failed at compile time: ", found));
        }
        I->Warn(args.loc, absl::StrCat("the sequential reference disagrees with the expected "
                                       "values: ",
                                       found, "; the check is emitted anyway"));
      }
    }
    if (!id) return Value::None();
    trace::Check check;
    check.set_tensor_id(*id);
    if (expected->provenance() && expected->dtype() == actual->dtype()) {
      *check.mutable_expected() = *expected->provenance();
    } else {
      check.mutable_expected()->set_data(converted->Bytes(actual->dtype()));
    }
    check.set_rtol(rtol);
    check.set_atol(atol);
    check.set_equal_nan(equal_nan);
    std::string line = I->Origin(args.loc);
    check.set_name(absl::StrCat("assert_close(",
                                args.positional_names.empty() || args.positional_names[0].empty()
                                    ? std::string("actual")
                                    : args.positional_names[0],
                                ")"));
    check.set_origin(line);
    I->AddCheck(std::move(check));
    return Value::None();
  });
  torch->Set("testing", Value::Obj(testing));
  return torch;
}

absl::StatusOr<Value> HostTensorAttribute(Interpreter* I, const std::shared_ptr<HostTensor>& t,
                                          const std::string& name, SourceLocation loc) {
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : t->shape()) dims.push_back(Value::Int(d));
    return Value::Tuple(dims);
  }
  if (name == "dtype") {
    return Value::Obj(std::make_shared<DTypeValue>(t->dtype(), DTypeName(t->dtype())));
  }
  auto method = [&](std::function<absl::StatusOr<Value>(const CallArgs&)> fn) {
    return Value::Obj(std::make_shared<BuiltinFunction>(absl::StrCat("Tensor.", name), fn));
  };
  if (name == "float" || name == "half" || name == "bfloat16" || name == "int") {
    const trace::DType dtype = name == "float"  ? trace::FP32
                               : name == "half" ? trace::FP16
                               : name == "int"  ? trace::INT32
                                                : trace::BF16;
    return method([I, t, dtype](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.loc));
      return I->Derived(HostCast(*t, dtype), {t.get()});
    });
  }
  if (name == "to") {
    return method([I, t](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.loc));
      const Value* d = args.positional.empty() ? args.Keyword("dtype") : &args.positional[0];
      auto* dt = d ? d->As<DTypeValue>() : nullptr;
      if (!dt) return I->Error(args.loc, "ptoc supports tensor.to(dtype) only");
      return I->Derived(HostCast(*t, dt->dtype()), {t.get()});
    });
  }
  if (name == "clone" || name == "contiguous") {
    return method([I, t](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.loc));
      return I->Derived(HostCast(*t, t->dtype()), {t.get()});
    });
  }
  if (name == "exp") {
    return method([I, t](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(I->RequireKnown(*t, args.loc));
      return Value::Obj(HostUnary(*t, [](double x) { return std::exp(x); }));
    });
  }
  if (name == "numel") {
    return method([t](const CallArgs&) -> absl::StatusOr<Value> { return Value::Int(t->numel()); });
  }
  if (name == "item") {
    return method([I, t](const CallArgs& args) -> absl::StatusOr<Value> {
      PTOC_RETURN_IF_ERROR(I->RequireValues(*t, args.loc));
      if (t->numel() != 1) return I->Error(args.loc, "item() needs a one-element tensor");
      return IsFloat(t->dtype()) ? Value::Float(t->values()[0])
                                 : Value::Int(static_cast<int64_t>(t->values()[0]));
    });
  }
  return I->Error(loc, absl::StrCat("torch.Tensor.", name, " is not supported by ptoc"));
}

}  // namespace pto::ptoc
