// pl's version-10 vector ops (task stream version 10): abs, log, sin, cos,
// not_, lrelu, prelu, fmod(s), cmp(s), sel(s), row_prod / col_prod, tri, the
// partial ops and the exp-diff broadcasts, with the argument names and
// defaults of hw-native-sys/pypto@e2d0f78a python/pypto/language/op/
// tile_ops.py (pl.tile.X) and unified_ops.py (pl.X, which also takes tensors
// in a task body).
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

bool IsScalarOperand(const Value& v) { return v.is_number() || v.As<SymInt>() != nullptr; }

bool IsTensor(const Value& v) {
  return v.As<TensorRef>() != nullptr || v.As<DeviceTensorView>() != nullptr;
}

// The columns of the UINT8 mask pl.tile.cmp infers for `cols` operand
// columns: a bit each, rounded up to the 32-byte block (upstream's tests
// annotate [rows, 32] for 16 columns).
int64_t MaskColumns(int64_t cols) { return ((cols + 7) / 8 + 31) / 32 * 32; }

absl::StatusOr<std::shared_ptr<Tile>> NewMask(Interpreter* I, const Tile& operand) {
  const int64_t rows = operand.shape().size() == 2 ? operand.shape()[0] : 1;
  return I->kernel()->NewTile({rows, MaskColumns(operand.shape().back())}, trace::UINT8,
                              trace::VEC);
}

absl::Status SetScalar(Interpreter* I, trace::Op* op, const Value& v, SourceLocation loc) {
  if (v.is_number()) {
    op->mutable_scalar()->set_literal(v.f());
    return absl::OkStatus();
  }
  const SymInt* sym = v.As<SymInt>();
  if (sym != nullptr && sym->expr().kind_case() == trace::IntExpr::kScalarParam) {
    op->mutable_scalar()->set_scalar_param(sym->expr().scalar_param());
    return absl::OkStatus();
  }
  return I->Error(loc, "a tile op's scalar operand must be a literal or a pl.Scalar parameter");
}

absl::StatusOr<trace::Op::Compare> CompareOf(Interpreter* I, const ArgReader& r, size_t i,
                                             const std::string& fn) {
  if (!r.Has(i)) return trace::Op::CMP_EQ;  // upstream's default, 0 = eq
  const Value& v = *r.Get(i);
  if (!v.is_int() || v.is_bool() || v.i() < 0 || v.i() > 5) {
    return I->Error(r.Loc(i), absl::StrCat(fn,
                                           "() argument 'cmp_type' must be 0..5 (EQ=0, NE=1, "
                                           "LT=2, LE=3, GT=4, GE=5), got ",
                                           v.Repr()));
  }
  return static_cast<trace::Op::Compare>(v.i() + 1);
}

// CMP of `lhs` against a tile or scalar `rhs`; the mask tile.
absl::StatusOr<std::shared_ptr<Tile>> EmitCompare(Interpreter* I, const Value& lhs,
                                                  const Value& rhs, trace::Op::Compare compare,
                                                  const std::string& fn, SourceLocation loc) {
  PTOC_ASSIGN_OR_RETURN(a, VectorTile(I, lhs, loc));
  PTOC_ASSIGN_OR_RETURN(mask, NewMask(I, *a));
  trace::Op* op = nullptr;
  if (IsScalarOperand(rhs)) {
    op = EmitWithSources(I, trace::Op::CMP, *mask, {a.get()}, loc);
    PTOC_RETURN_IF_ERROR(SetScalar(I, op, rhs, loc));
  } else {
    PTOC_ASSIGN_OR_RETURN(b, VectorTile(I, rhs, loc));
    if (b->shape() != a->shape() || b->dtype() != a->dtype()) {
      return I->Error(
          loc, absl::StrCat(fn, ": the operands are ", DTypeName(a->dtype()), " ",
                            ShapeString(a->shape()), " and ", DTypeName(b->dtype()), " ",
                            ShapeString(b->shape()), "; compare tiles of one shape and dtype"));
    }
    op = EmitWithSources(I, trace::Op::CMP, *mask, {a.get(), b.get()}, loc);
  }
  op->set_compare(compare);
  return mask;
}

// A mask operand of sel / sels: an integer tile with a bit for each column.
absl::Status CheckMask(Interpreter* I, const Tile& mask, const Tile& values, const std::string& fn,
                       SourceLocation loc) {
  const int64_t rows = values.shape().size() == 2 ? values.shape()[0] : 1;
  const int64_t mask_rows = mask.shape().size() == 2 ? mask.shape()[0] : 1;
  const int64_t need = (values.shape().back() + 7) / 8;
  const int64_t bytes = mask.shape().back() * static_cast<int64_t>(DTypeSize(mask.dtype()));
  if (IsFloat(mask.dtype()) || mask_rows != rows || bytes < need) {
    return I->Error(
        loc, absl::StrCat(fn, ": the mask is ", DTypeName(mask.dtype()), " ",
                          ShapeString(mask.shape()), "; selecting ", ShapeString(values.shape()),
                          " takes an integer mask of ", rows, " rows of at least ", need,
                          " bytes (one bit a column), as pl.tile.cmp writes"));
  }
  return absl::OkStatus();
}

// SELECT: mask ? a : (b | scalar), with TSEL's scratch. Every operand is
// resolved (a tensor loaded) before the op is emitted.
absl::StatusOr<Value> EmitSelect(Interpreter* I, const Value& mask_value, const Value& a_value,
                                 const Value* b_value, const Value* scalar, const Value* tmp,
                                 const std::string& fn, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(I, loc, fn.c_str()));
  PTOC_ASSIGN_OR_RETURN(mask, VectorTile(I, mask_value, loc));
  PTOC_ASSIGN_OR_RETURN(a, VectorTile(I, a_value, loc));
  PTOC_RETURN_IF_ERROR(CheckMask(I, *mask, *a, fn, loc));
  std::shared_ptr<Tile> b, scratch;
  if (b_value != nullptr) {
    PTOC_ASSIGN_OR_RETURN(t, VectorTile(I, *b_value, loc));
    if (t->shape() != a->shape() || t->dtype() != a->dtype()) {
      return I->Error(
          loc, absl::StrCat(fn, ": lhs is ", DTypeName(a->dtype()), " ", ShapeString(a->shape()),
                            " but rhs is ", DTypeName(t->dtype()), " ", ShapeString(t->shape()),
                            "; select between tiles of one shape and dtype"));
    }
    b = t;
  }
  if (tmp != nullptr) {
    PTOC_ASSIGN_OR_RETURN(t, VectorTile(I, *tmp, loc));
    scratch = t;
  }
  auto dst = I->kernel()->NewTile(a->shape(), a->dtype(), trace::VEC);
  trace::Op* op = EmitWithSources(I, trace::Op::SELECT, *dst, {mask.get(), a.get()}, loc);
  if (b) {
    op->add_srcs(b->index());
  } else {
    PTOC_RETURN_IF_ERROR(SetScalar(I, op, *scalar, loc));
  }
  if (scratch) op->add_srcs(scratch->index());
  InheritTensorLevel(I, *dst, {&a_value});
  return Value::Obj(dst);
}

}  // namespace

void AddTileMathOps(Interpreter* interp, Namespace* pl, Namespace* tile) {
  Interpreter* I = interp;
  // ---- one-input ops; log's high_precision picks the device's algorithm,
  // not the exact result pto_sim computes.
  const std::pair<const char*, trace::Op::Kind> unary[] = {{"abs", trace::Op::ABS},
                                                           {"log", trace::Op::LOG},
                                                           {"sin", trace::Op::SIN},
                                                           {"cos", trace::Op::COS},
                                                           {"not_", trace::Op::NOT}};
  for (const auto& [name, kind] : unary) {
    const std::string fn = absl::StrCat("pl.", name);
    const trace::Op::Kind k = kind;
    AddBoth(I, pl, tile, name, 1, [I, fn, k](const CallArgs& args) -> absl::StatusOr<Value> {
      std::vector<std::string> params = {"input"};
      if (k == trace::Op::LOG) params.push_back("high_precision");
      ArgReader r(I, args, fn, params);
      PTOC_RETURN_IF_ERROR(r.Check());
      if (!r.Has(0)) return r.Missing(0);
      if (params.size() == 2 && r.Has(1) && !r.Get(1)->is_bool()) {
        return r.Wrong(1, "True or False");
      }
      PTOC_RETURN_IF_ERROR(RequireKernel(I, args.loc, fn.c_str()));
      PTOC_ASSIGN_OR_RETURN(t, I->AsTile(*r.Get(0), r.Loc(0)));
      const trace::DType dtype = t->dtype();
      if ((k == trace::Op::SIN || k == trace::Op::COS) && dtype != trace::FP32) {
        return I->Error(r.Loc(0), absl::StrCat(fn, " takes an FP32 tile, got ", DTypeName(dtype),
                                               "; non-FP32 inputs are rejected rather than "
                                               "promoted: pl.cast(tile, pl.FP32) first"));
      }
      if (k == trace::Op::NOT && IsFloat(dtype)) {
        return I->Error(r.Loc(0), absl::StrCat(fn, " is bitwise and takes an integer tile, got ",
                                               DTypeName(dtype)));
      }
      if (k == trace::Op::ABS && IsUnsignedInt(dtype)) {
        return I->Error(r.Loc(0), absl::StrCat(fn, " takes a float or signed integer tile, got ",
                                               DTypeName(dtype), " (already its own abs)"));
      }
      return TileUnary(I, k, *r.Get(0), args.loc);
    });
  }

  // ---- a scalar slope, a slope tile
  tile->AddFunction("lrelu", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.lrelu", {"tile", "slope"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    if (IsTensor(*r.Get(0))) return r.Wrong(0, "a Tile (pl.load the tensor first)");
    if (!IsScalarOperand(*r.Get(1))) return r.Wrong(1, "a scalar (int, float or pl.Scalar)");
    return TileElementwise(I, trace::Op::LRELU, *r.Get(0), *r.Get(1), args.loc);
  });
  tile->AddFunction("prelu", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.prelu", {"tile", "slope", "tmp"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    PTOC_RETURN_IF_ERROR(RequireKernel(I, args.loc, "pl.tile.prelu"));
    PTOC_ASSIGN_OR_RETURN(x, VectorTile(I, *r.Get(0), r.Loc(0)));
    PTOC_ASSIGN_OR_RETURN(slope, VectorTile(I, *r.Get(1), r.Loc(1)));
    PTOC_ASSIGN_OR_RETURN(tmp, VectorTile(I, *r.Get(2), r.Loc(2)));
    if (slope->shape() != x->shape() || slope->dtype() != x->dtype()) {
      return I->Error(
          r.Loc(1),
          absl::StrCat("pl.tile.prelu: the slope is ", DTypeName(slope->dtype()), " ",
                       ShapeString(slope->shape()), " but the tile is ", DTypeName(x->dtype()), " ",
                       ShapeString(x->shape()), "; give a slope per element"));
    }
    if (!IsFloat(x->dtype())) return r.Wrong(0, "a float tile");
    auto dst = I->kernel()->NewTile(x->shape(), x->dtype(), trace::VEC);
    EmitWithSources(I, trace::Op::PRELU, *dst, {x.get(), slope.get(), tmp.get()}, args.loc);
    return Value::Obj(dst);
  });

  // ---- fmod: a tile or a scalar divisor; fmods: a scalar
  for (const bool scalar_only : {false, true}) {
    const char* name = scalar_only ? "fmods" : "fmod";
    const std::string fn = absl::StrCat("pl.", name);
    AddBoth(I, pl, tile, name, 2,
            [I, fn, scalar_only](const CallArgs& args) -> absl::StatusOr<Value> {
              ArgReader r(I, args, fn, {"lhs", "rhs"});
              PTOC_RETURN_IF_ERROR(r.Check());
              PTOC_RETURN_IF_ERROR(r.Require(2));
              if (scalar_only && !IsScalarOperand(*r.Get(1))) {
                return r.Wrong(1, "a scalar (int, float or pl.Scalar); for two tiles use pl.fmod");
              }
              if (IsScalarOperand(*r.Get(0))) return r.Wrong(0, "a tile");
              return TileElementwise(I, trace::Op::FMOD, *r.Get(0), *r.Get(1), args.loc);
            });
  }

  // ---- partial ops (TPARTADD ...): over the union of the valid regions
  const std::pair<const char*, trace::Op::Kind> partial[] = {{"part_add", trace::Op::ADD},
                                                             {"part_mul", trace::Op::MUL},
                                                             {"part_max", trace::Op::MAX},
                                                             {"part_min", trace::Op::MIN}};
  for (const auto& [name, kind] : partial) {
    const std::string fn = absl::StrCat("pl.", name);
    const trace::Op::Kind k = kind;
    AddBoth(I, pl, tile, name, 2, [I, fn, k](const CallArgs& args) -> absl::StatusOr<Value> {
      ArgReader r(I, args, fn, {"src0", "src1"});
      PTOC_RETURN_IF_ERROR(r.Check());
      PTOC_RETURN_IF_ERROR(r.Require(2));
      for (size_t i = 0; i < 2; ++i) {
        if (IsScalarOperand(*r.Get(i))) return r.Wrong(i, "a tile");
      }
      PTOC_ASSIGN_OR_RETURN(v, TileElementwise(I, k, *r.Get(0), *r.Get(1), args.loc));
      I->kernel()->last_emitted()->set_partial(true);
      return v;
    });
  }

  // ---- compares and selects
  auto cmp = [I](const std::string& fn, bool scalar_only) {
    return [I, fn, scalar_only](const CallArgs& args) -> absl::StatusOr<Value> {
      ArgReader r(I, args, fn, {"lhs", "rhs", "cmp_type"});
      PTOC_RETURN_IF_ERROR(r.Check());
      PTOC_RETURN_IF_ERROR(r.Require(2));
      PTOC_RETURN_IF_ERROR(RequireKernel(I, args.loc, fn.c_str()));
      if (scalar_only && !IsScalarOperand(*r.Get(1))) {
        return r.Wrong(1, "a scalar (int, float or pl.Scalar); for two tiles use pl.tile.cmp");
      }
      PTOC_ASSIGN_OR_RETURN(compare, CompareOf(I, r, 2, fn));
      const bool tensor = IsTensor(*r.Get(0));
      PTOC_ASSIGN_OR_RETURN(a, VectorTile(I, *r.Get(0), r.Loc(0)));
      const Value a_value = Value::Obj(a);
      PTOC_ASSIGN_OR_RETURN(mask, EmitCompare(I, a_value, *r.Get(1), compare, fn, args.loc));
      if (!tensor) return Value::Obj(mask);
      // The tensor level: 1 where true, 0 elsewhere, in lhs's dtype
      // (upstream lowers it to tile.cmp + tile.full + tile.sel).
      PTOC_ASSIGN_OR_RETURN(
          ones, TileFull(I, a->shape(), a->dtype(), Value::Float(1), args.loc, args.loc));
      PTOC_ASSIGN_OR_RETURN(
          zeros, TileFull(I, a->shape(), a->dtype(), Value::Float(0), args.loc, args.loc));
      return EmitSelect(I, Value::Obj(mask), ones, &zeros, nullptr, nullptr, fn, args.loc);
    };
  };
  AddBoth(I, pl, tile, "cmp", 2, cmp("pl.cmp", false));
  tile->AddFunction("cmps", cmp("pl.tile.cmps", true));
  tile->AddFunction("sel", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.sel", {"mask", "lhs", "rhs", "tmp"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(4));
    return EmitSelect(I, *r.Get(0), *r.Get(1), r.Get(2), nullptr, r.Get(3), "pl.tile.sel",
                      args.loc);
  });
  tile->AddFunction("sels", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.sels", {"mask", "src", "tmp", "scalar"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(4));
    if (!IsScalarOperand(*r.Get(3))) return r.Wrong(3, "a scalar (int, float or pl.Scalar)");
    return EmitSelect(I, *r.Get(0), *r.Get(1), nullptr, r.Get(3), r.Get(2), "pl.tile.sels",
                      args.loc);
  });

  // ---- pl.tile.tri: a triangular 0/1 tile
  tile->AddFunction("tri", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.tri", {"diagonal", "shape", "valid_shape", "dtype", "upper"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    PTOC_RETURN_IF_ERROR(RequireKernel(I, args.loc, "pl.tile.tri"));
    if (!r.Get(0)->is_integral() && r.Get(0)->As<SymInt>() == nullptr) {
      return r.Wrong(0, "an int or an integer pl.Scalar");
    }
    PTOC_ASSIGN_OR_RETURN(diagonal, ToIntExpr(*r.Get(0)));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(1), r.Loc(1), "pl.tile.tri shape"));
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0) {
      return r.Wrong(1, "a 2-D shape of positive extents");
    }
    trace::DType dtype = trace::INT32;
    if (r.Has(3)) {
      PTOC_ASSIGN_OR_RETURN(d, DTypeOf(I, *r.Get(3), r.Loc(3)));
      dtype = d;
    }
    bool upper = false;
    if (r.Has(4)) {
      if (!r.Get(4)->is_bool()) return r.Wrong(4, "True or False");
      upper = r.Get(4)->b();
    }
    auto dst = I->kernel()->NewTile(shape, dtype, trace::VEC);
    trace::Op* op = I->kernel()->Emit(trace::Op::TRI, I->Origin(args.loc));
    op->set_dst(dst->index());
    *op->mutable_diagonal() = diagonal;
    op->set_upper(upper);
    if (r.Has(2)) {
      PTOC_ASSIGN_OR_RETURN(valid, ValueList(I, *r.Get(2), r.Loc(2), "valid_shape"));
      if (valid.size() != 2) return r.Wrong(2, "two extents, one per dim");
      for (size_t i = 0; i < 2; ++i) {
        PTOC_ASSIGN_OR_RETURN(e, ToIntExpr(valid[i]));
        if (e.kind_case() == trace::IntExpr::kConstant &&
            (e.constant() < 0 || e.constant() > shape[i])) {
          return r.Wrong(2, absl::StrCat("inside the shape ", ShapeString(shape)));
        }
        *I->kernel()->last_emitted()->add_valid_shape() = e;
      }
    }
    return Value::Obj(dst);
  });
}

}  // namespace pto::ptoc
