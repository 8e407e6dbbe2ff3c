#include "frontend/tile_ops.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "frontend/pl_values.h"
#include "frontend/status_macros.h"
#include "frontend/verifiers.h"
#include "models/core/kernel_program.h"

namespace pto::ptoc {

namespace {

// The shape after pl.load's and pl.tile.create's rule: rank 1 or 2, leading
// unit dims folded away; empty when that leaves no valid tile shape.
std::vector<int64_t> TileShapeOf(const std::vector<int64_t>& shape) {
  std::vector<int64_t> tile_shape = shape;
  while (tile_shape.size() > 2 && tile_shape.front() == 1) tile_shape.erase(tile_shape.begin());
  const bool positive =
      std::all_of(tile_shape.begin(), tile_shape.end(), [](int64_t d) { return d > 0; });
  if (tile_shape.empty() || tile_shape.size() > 2 || !positive) return {};
  return tile_shape;
}

int64_t Rows(const Tile& t) { return t.shape().size() == 2 ? t.shape()[0] : 1; }
int64_t Cols(const Tile& t) { return t.shape().back(); }

// The [m, n] of op(a) @ op(b), or a located error; `what` names the op.
absl::StatusOr<std::pair<int64_t, int64_t>> MatmulShape(Interpreter* interp, const Tile& a,
                                                        const Tile& b, bool a_trans, bool b_trans,
                                                        const char* what, SourceLocation loc) {
  if (a.shape().size() != 2 || b.shape().size() != 2) {
    return interp->Error(loc, absl::StrCat(what, " needs 2-D operands"));
  }
  const int64_t m = a_trans ? a.shape()[1] : a.shape()[0];
  const int64_t ka = a_trans ? a.shape()[0] : a.shape()[1];
  const int64_t kb = b_trans ? b.shape()[1] : b.shape()[0];
  const int64_t n = b_trans ? b.shape()[0] : b.shape()[1];
  if (ka != kb) {
    return interp->Error(loc, absl::StrCat(what, " inner dimensions differ: ",
                                           ShapeString(a.shape()), " @ ", ShapeString(b.shape())));
  }
  // The explicit form names the operand buffers; each has its side.
  const trace::MemSpace sa = interp->kernel()->space(a), sb = interp->kernel()->space(b);
  if (sa == trace::RIGHT || sa == trace::BIAS || sb == trace::LEFT || sb == trace::BIAS) {
    return interp->Error(loc, absl::StrCat(what, " reads its lhs from ", PlSpaceName(sa),
                                           " and its rhs from ", PlSpaceName(sb),
                                           "; the lhs lives in Left (L0A) and the rhs in Right "
                                           "(L0B)"));
  }
  // The cube's operand rule (pto_sim's validator applies it too): one input
  // dtype, a float or INT8.
  if (a.dtype() != b.dtype()) {
    return interp->Error(loc, absl::StrCat(what, " operands are ", DTypeName(a.dtype()), " and ",
                                           DTypeName(b.dtype()),
                                           "; the cube takes one input dtype: pl.cast one "
                                           "of them first (e.g. pl.cast(rhs, pl.",
                                           DTypeName(a.dtype()), "))"));
  }
  const trace::DType in = a.dtype();
  if (in != trace::FP16 && in != trace::BF16 && in != trace::FP32 && in != trace::INT8 &&
      in != trace::UINT8) {
    return interp->Error(loc, absl::StrCat(what, " operands are ", DTypeName(in),
                                           ", not a cube input; pl.cast them to FP16, BF16, "
                                           "FP32 or INT8"));
  }
  return std::make_pair(m, n);
}

}  // namespace

absl::Status RequireKernel(Interpreter* interp, SourceLocation loc, const char* what) {
  if (interp->in_kernel()) return absl::OkStatus();
  return interp->Error(loc, absl::StrCat(what,
                                         " is a tile op; it must be inside a task body "
                                         "(with pl.at(...), pl.spmd, or a "
                                         "@pl.jit.incore kernel)"));
}

// An accumulator (Acc) crosses to the vector core implicitly, as it always
// has in ptoc; a load not yet placed is Vec or Mat.
absl::Status RequireVectorOperand(Interpreter* interp, const Tile& tile, SourceLocation loc) {
  const trace::MemSpace space = interp->kernel()->space(tile);
  if (!IsCubeSpace(space) || space == trace::ACC) return absl::OkStatus();
  return interp->Error(loc,
                       absl::StrCat("a vector op reads a ", ShapeString(tile.shape()), " ",
                                    DTypeName(tile.dtype()), " tile in ", PlSpaceName(space),
                                    ", a cube buffer; vector ops read Vec (UB) tiles: load it with "
                                    "target_memory=pl.Mem.Vec or pl.move it to pl.Mem.Vec"));
}

absl::StatusOr<trace::MemSpace> MemSpaceOf(Interpreter* interp, const Value& v, SourceLocation loc,
                                           const char* what) {
  auto* e = v.As<EnumValue>();
  if (!e || e->enum_name() != "pl.MemorySpace") {
    return interp->Error(loc, absl::StrCat(what,
                                           " must be a pl.MemorySpace (or pl.Mem) member "
                                           "such as pl.Mem.Vec, got ",
                                           v.TypeName()));
  }
  return static_cast<trace::MemSpace>(e->value());
}

absl::Status ApplyTileAnnotation(Interpreter* interp, const Tile& tile, trace::MemSpace space,
                                 SourceLocation loc) {
  KernelBuilder* k = interp->kernel();
  const trace::MemSpace current = k->space(tile);
  if (current == space) return absl::OkStatus();
  if (current == trace::MEM_SPACE_UNSPECIFIED && (space == trace::VEC || space == trace::MAT)) {
    k->set_space(tile, space);  // a load: the annotation places it
    return absl::OkStatus();
  }
  return interp->Error(
      loc, absl::StrCat("the annotation says ", PlSpaceName(space), " but the value is ",
                        current == trace::MEM_SPACE_UNSPECIFIED
                            ? std::string("a pl.load, which fills Vec (UB) or Mat (L1)")
                            : absl::StrCat("in ", PlSpaceName(current)),
                        "; pl.move the tile to change its memory space"));
}

// dst is tensor-level when an operand is (a tensor, a window, or such a tile).
void InheritTensorLevel(Interpreter* interp, const Tile& dst,
                        std::initializer_list<const Value*> operands) {
  KernelBuilder* k = interp->kernel();
  for (const Value* v : operands) {
    const Tile* t = v->As<Tile>();
    if (v->As<TensorRef>() || v->As<DeviceTensorView>() || (t && k->tensor_level(*t))) {
      k->MarkTensorLevel(dst);
      return;
    }
  }
}

absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(
    Interpreter* interp, const std::shared_ptr<TensorRef>& ref, const std::vector<Value>& offsets,
    const std::vector<int64_t>& shape, trace::MemSpace space, SourceLocation loc,
    const std::vector<Value>* valid_shape, SourceLocation valid_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.load"));
  if (offsets.size() != ref->shape().size() || shape.size() != ref->shape().size()) {
    return interp->Error(loc, absl::StrCat("pl.load of a rank-", ref->shape().size(),
                                           " tensor needs ", ref->shape().size(), " offsets and ",
                                           ref->shape().size(), " shape entries"));
  }
  KernelBuilder* k = interp->kernel();
  const uint32_t param = k->UseTensor(ref, true, false);
  // Tiles are rank 1 or 2: leading unit dims of a higher-rank load fold away.
  std::vector<int64_t> tile_shape = shape;
  while (tile_shape.size() > 2 && tile_shape.front() == 1) tile_shape.erase(tile_shape.begin());
  auto tile = k->NewTile(tile_shape, ref->dtype(), space);
  trace::Op* op = k->Emit(trace::Op::LOAD, interp->Origin(loc));
  op->set_dst(tile->index());
  op->set_param(param);
  // Only the valid extent is read (pypto@e2d0f78a python/pypto/language/op/
  // tile_ops.py load): a tile may be larger than what exists of the source.
  std::vector<int64_t> read_extent = shape;
  if (valid_shape != nullptr) {
    if (valid_shape->size() != shape.size()) {
      return interp->Error(valid_loc, absl::StrCat("valid_shape has ", valid_shape->size(),
                                                   " entries but the load's shape has ",
                                                   shape.size(), "; give one per dimension"));
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if ((*valid_shape)[d].is_integral()) {
        read_extent[d] = std::min<int64_t>(shape[d], (*valid_shape)[d].i());
      }
    }
  }
  for (size_t d = 0; d < offsets.size(); ++d) {
    auto e = ToIntExpr(offsets[d]);
    if (!e.ok()) return interp->Error(loc, absl::StrCat("offset ", d, ": ", e.status().message()));
    if (e->kind_case() == trace::IntExpr::kConstant &&
        (e->constant() < 0 || e->constant() + read_extent[d] > ref->shape()[d])) {
      return interp->Error(
          loc, absl::StrCat("pl.load reads [", e->constant(), ", ", e->constant() + read_extent[d],
                            ") of dim ", d, " of '", ref->name(), "', which has ", ref->shape()[d],
                            valid_shape == nullptr ? "; pl.load(..., clamp=True) cuts the read at "
                                                     "the edge"
                                                   : ""));
    }
    *op->add_offsets() = *e;
  }
  if (valid_shape != nullptr) {
    // pl.load(valid_shape=): one extent per tile dim (a higher-rank load's
    // folded unit dims take theirs too), each at most the tile's.
    std::vector<Value> extents = *valid_shape;
    extents.erase(extents.begin(),
                  extents.begin() + static_cast<std::ptrdiff_t>(shape.size() - tile_shape.size()));
    for (size_t d = 0; d < extents.size(); ++d) {
      auto e = ToIntExpr(extents[d]);
      if (!e.ok()) {
        return interp->Error(valid_loc,
                             absl::StrCat("valid_shape[", d, "]: ", e.status().message()));
      }
      if (e->kind_case() == trace::IntExpr::kConstant &&
          (e->constant() < 0 || e->constant() > tile_shape[d])) {
        return interp->Error(valid_loc, absl::StrCat("valid_shape[", d, "] is ", e->constant(),
                                                     " but the tile is ", ShapeString(tile_shape),
                                                     "; the valid region lies inside the tile (0..",
                                                     tile_shape[d], ")"));
      }
      *op->add_valid_shape() = *e;
    }
  }
  return tile;
}

absl::Status EmitStore(Interpreter* interp, const std::shared_ptr<Tile>& tile,
                       const std::vector<Value>& offsets, const std::shared_ptr<TensorRef>& ref,
                       bool atomic_add, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.store"));
  if (offsets.size() != ref->shape().size()) {
    return interp->Error(loc, absl::StrCat("pl.store into a rank-", ref->shape().size(),
                                           " tensor needs ", ref->shape().size(), " offsets"));
  }
  KernelBuilder* k = interp->kernel();
  const trace::MemSpace space = k->space(*tile);
  if (space == trace::LEFT || space == trace::RIGHT || space == trace::BIAS) {
    return interp->Error(loc, absl::StrCat("pl.store writes GM from Vec, Mat or Acc, but the tile "
                                           "is in ",
                                           PlSpaceName(space),
                                           ", a matmul operand buffer; store the tile it was "
                                           "moved from"));
  }
  // PyPTO's rule (and the device's DMA): a store writes the tile's bytes as
  // they are, so the tile's dtype is the tensor's.
  if (tile->dtype() != ref->dtype()) {
    return interp->Error(
        loc, absl::StrCat("the stored tile is ", DTypeName(tile->dtype()), " but tensor '",
                          ref->name(), "' is ", DTypeName(ref->dtype()),
                          "; a store does not convert: pl.cast(tile, pl.", DTypeName(ref->dtype()),
                          ") first, or make the tensor ", DTypeName(tile->dtype())));
  }
  // An atomic add reads what is there: the task depends on its writers.
  const uint32_t param = k->UseTensor(ref, /*read=*/atomic_add, /*write=*/true);
  trace::Op* op = k->Emit(trace::Op::STORE, interp->Origin(loc));
  op->add_srcs(tile->index());
  op->set_param(param);
  op->set_atomic_add(atomic_add);
  const size_t skip = offsets.size() - tile->shape().size();
  for (size_t d = 0; d < offsets.size(); ++d) {
    auto e = ToIntExpr(offsets[d]);
    if (!e.ok()) return interp->Error(loc, absl::StrCat("offset ", d, ": ", e.status().message()));
    const int64_t extent = d < skip ? 1 : tile->shape()[d - skip];
    if (e->kind_case() == trace::IntExpr::kConstant &&
        (e->constant() < 0 || e->constant() + extent > ref->shape()[d])) {
      return interp->Error(loc, absl::StrCat("pl.store writes [", e->constant(), ", ",
                                             e->constant() + extent, ") of dim ", d, " of '",
                                             ref->name(), "', which has ", ref->shape()[d]));
    }
    *op->add_offsets() = *e;
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> TileElementwise(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                      const Value& b, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "this op"));
  KernelBuilder* k = interp->kernel();
  // A scalar on the left of a commutative op swaps sides (once: two scalars
  // have no tile, which AsTile reports).
  const auto is_scalar = [](const Value& v) { return v.is_number() || v.As<SymInt>() != nullptr; };
  if (is_scalar(a) && !is_scalar(b) &&
      (kind == trace::Op::ADD || kind == trace::Op::MUL || kind == trace::Op::MAX ||
       kind == trace::Op::MIN)) {
    return TileElementwise(interp, kind, b, a, loc);
  }
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_RETURN_IF_ERROR(RequireVectorOperand(interp, *ta, loc));
  trace::Op op;
  op.add_srcs(ta->index());
  if (b.is_number()) {
    op.mutable_scalar()->set_literal(b.f());
  } else if (auto* sym = b.As<SymInt>()) {
    if (sym->expr().kind_case() != trace::IntExpr::kScalarParam) {
      return interp->Error(loc,
                           "a tile op's scalar operand must be a literal or a pl.Scalar "
                           "parameter");
    }
    op.mutable_scalar()->set_scalar_param(sym->expr().scalar_param());
  } else {
    PTOC_ASSIGN_OR_RETURN(tb, interp->AsTile(b, loc));
    PTOC_RETURN_IF_ERROR(RequireVectorOperand(interp, *tb, loc));
    if (tb->shape() != ta->shape()) {
      return interp->Error(loc, absl::StrCat("tile shapes differ: ", ShapeString(ta->shape()),
                                             " and ", ShapeString(tb->shape())));
    }
    // PyPTO's rule, and the vector unit's: both operands one dtype.
    if (tb->dtype() != ta->dtype()) {
      return interp->Error(
          loc, absl::StrCat("operand dtypes differ: ", DTypeName(ta->dtype()), " and ",
                            DTypeName(tb->dtype()),
                            "; an elementwise op does not convert: pl.cast one of them first "
                            "(e.g. pl.cast(rhs, pl.",
                            DTypeName(ta->dtype()), "))"));
    }
    op.add_srcs(tb->index());
  }
  auto dst = k->NewTile(ta->shape(), ta->dtype(), trace::VEC);
  trace::Op* emitted = k->Emit(kind, interp->Origin(loc));
  op.set_kind(kind);
  op.set_dst(dst->index());
  op.set_origin(emitted->origin());
  *emitted = op;
  InheritTensorLevel(interp, *dst, {&a, &b});
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileUnary(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "this op"));
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_RETURN_IF_ERROR(RequireVectorOperand(interp, *ta, loc));
  // The transcendental ops are float-only on the vector unit.
  const bool float_only = kind == trace::Op::EXP || kind == trace::Op::SQRT ||
                          kind == trace::Op::RSQRT || kind == trace::Op::RECIP ||
                          kind == trace::Op::LOG || kind == trace::Op::SIN ||
                          kind == trace::Op::COS;
  if (float_only && !IsFloat(ta->dtype())) {
    return interp->Error(
        loc, absl::StrCat("pl.", absl::AsciiStrToLower(trace::Op::Kind_Name(kind)),
                          " takes a float tile (FP32, FP16 or BF16), got a ",
                          DTypeName(ta->dtype()), " tile; pl.cast it to pl.FP32 first"));
  }
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile(ta->shape(), ta->dtype(), trace::VEC);
  trace::Op* op = k->Emit(kind, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(ta->index());
  InheritTensorLevel(interp, *dst, {&a});
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileMatmul(Interpreter* interp, const Value& a, const Value& b,
                                 std::optional<trace::DType> out_dtype, bool tensor_level,
                                 bool a_trans, bool b_trans, SourceLocation loc,
                                 SourceLocation out_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.matmul"));
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_ASSIGN_OR_RETURN(tb, interp->AsTile(b, loc));
  PTOC_ASSIGN_OR_RETURN(mn, MatmulShape(interp, *ta, *tb, a_trans, b_trans, "pl.matmul", loc));
  const auto [m, n] = mn;
  // The cube accumulates INT8 into INT32 and floats into FP32.
  const bool int8 = ta->dtype() == trace::INT8 || ta->dtype() == trace::UINT8;
  const trace::DType deduced = int8 ? trace::INT32 : trace::FP32;
  if (out_dtype && *out_dtype != deduced && !tensor_level) {
    return interp->Error(
        out_loc, absl::StrCat("pl.matmul: out_dtype=", DTypeName(*out_dtype),
                              " is not supported for Tile operands — the Cube accumulator fixes "
                              "the result dtype, deduced as ",
                              DTypeName(deduced),
                              " here. Convert the result explicitly with pl.cast(result, "
                              "<dtype>), or let pl.tile.store narrow it on the way to GM."));
  }
  // Upstream's AutoTileMatmul pass splits a tensor-level matmul whose result
  // outgrows L0C into L0-sized tiles; ptoc loads a tensor operand whole.
  const uint64_t acc_bytes = static_cast<uint64_t>(m) * static_cast<uint64_t>(n) * 4;
  if (tensor_level && acc_bytes > SpaceBudgetBytes(trace::ACC)) {
    return interp->Error(
        loc, absl::StrCat("pl.matmul of tensors: the [", m, ", ", n, "] result needs ", acc_bytes,
                          " bytes of Acc (L0C), over its ", SpaceBudgetBytes(trace::ACC),
                          "; upstream's AutoTileMatmul pass splits such a tensor-level matmul "
                          "into L0-sized tiles, which ptoc does not do: loop over the result's "
                          "row and column blocks with pl.load, pl.matmul and pl.store"));
  }
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile({m, n}, out_dtype.value_or(deduced), trace::ACC);
  trace::Op* op = k->Emit(trace::Op::MATMUL, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(ta->index());
  op->add_srcs(tb->index());
  op->set_a_trans(a_trans);
  op->set_b_trans(b_trans);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileMatmulAcc(Interpreter* interp, const Value& acc, const Value& a,
                                    const Value& b, bool a_trans, bool b_trans,
                                    const Value* init_cond, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.matmul_acc"));
  PTOC_ASSIGN_OR_RETURN(tacc, interp->AsTile(acc, loc));
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_ASSIGN_OR_RETURN(tb, interp->AsTile(b, loc));
  KernelBuilder* k = interp->kernel();
  if (k->space(*tacc) == trace::MEM_SPACE_UNSPECIFIED && k->placed_by_use(*tacc)) {
    k->PlaceByUse(*tacc, trace::ACC);
  }
  if (k->space(*tacc) != trace::ACC) {
    return interp->Error(loc, absl::StrCat("pl.matmul_acc accumulates into Acc (L0C), a pl.matmul "
                                           "or pl.matmul_acc result or a pl.tile.create(..., "
                                           "target_memory=pl.Mem.Acc), but the accumulator is in ",
                                           PlSpaceName(k->space(*tacc))));
  }
  PTOC_ASSIGN_OR_RETURN(mn, MatmulShape(interp, *ta, *tb, a_trans, b_trans, "pl.matmul_acc", loc));
  // The accumulator holds what the cube produces: INT32 for INT8 inputs,
  // a float for float inputs.
  const bool int8_in = ta->dtype() == trace::INT8 || ta->dtype() == trace::UINT8;
  const trace::DType acc_dtype = tacc->dtype();
  const bool fits =
      int8_in ? acc_dtype == trace::INT32
              : acc_dtype == trace::FP32 || acc_dtype == trace::FP16 || acc_dtype == trace::BF16;
  if (!fits) {
    return interp->Error(loc, absl::StrCat("pl.matmul_acc: the accumulator is ",
                                           DTypeName(acc_dtype), " but ", DTypeName(ta->dtype()),
                                           " operands accumulate into ", int8_in ? "INT32" : "FP32",
                                           "; create it as pl.", int8_in ? "INT32" : "FP32"));
  }
  const std::vector<int64_t> product = {mn.first, mn.second};
  if (tacc->shape() != product) {
    return interp->Error(
        loc, absl::StrCat("pl.matmul_acc: the accumulator is ", ShapeString(tacc->shape()),
                          " but lhs @ rhs (", ShapeString(ta->shape()), " @ ",
                          ShapeString(tb->shape()), ") is ", ShapeString(product)));
  }
  // init_cond (pypto@e2d0f78a docs/en/dev/ir/05-operators.md): true overwrites
  // the accumulator with lhs @ rhs. A literal picks the form now; a device
  // predicate is evaluated per instance.
  bool accumulate = true;
  std::optional<trace::IntExpr> predicate;
  if (init_cond && init_cond->is_integral()) {
    accumulate = init_cond->i() == 0;
  } else if (init_cond && init_cond->As<SymInt>()) {
    predicate = init_cond->As<SymInt>()->expr();
  } else if (init_cond && !init_cond->is_none()) {
    return interp->Error(loc, absl::StrCat("pl.matmul_acc init_cond must be a bool or a device "
                                           "comparison such as (k == 0), got ",
                                           init_cond->TypeName()));
  }
  auto dst = k->NewTile(product, tacc->dtype(), trace::ACC);
  trace::Op* op = k->Emit(trace::Op::MATMUL, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(ta->index());
  op->add_srcs(tb->index());
  op->set_a_trans(a_trans);
  op->set_b_trans(b_trans);
  if (accumulate) {
    op->add_srcs(tacc->index());
    op->set_accumulate(true);
    if (predicate) *op->mutable_init_cond() = *predicate;
  }
  return Value::Obj(dst);
}

namespace {

// A new tile of the author's shape for `what` (pl.tile.create, pl.tile.full):
// rank 1 or 2 after leading 1s, fitting its space.
absl::StatusOr<std::shared_ptr<Tile>> NewAuthoredTile(Interpreter* interp,
                                                      const std::vector<int64_t>& shape,
                                                      trace::DType dtype, trace::MemSpace space,
                                                      const char* what, SourceLocation shape_loc) {
  const std::vector<int64_t> tile_shape = TileShapeOf(shape);
  if (tile_shape.empty()) {
    return interp->Error(shape_loc, absl::StrCat(what,
                                                 " shape must be 1 or 2 positive "
                                                 "integers (leading 1s may precede them), got [",
                                                 absl::StrJoin(shape, ", "), "]"));
  }
  // Its shape is the author's alone (a load's is bounded by its tensor's):
  // the tile must fit its space, checked before any product can overflow.
  // A tile its first use places (MEM_SPACE_UNSPECIFIED) is bounded as Vec's.
  const uint64_t budget =
      SpaceBudgetBytes(space == trace::MEM_SPACE_UNSPECIFIED ? trace::VEC : space);
  uint64_t bytes = DTypeSize(dtype);
  for (int64_t d : tile_shape) {
    bytes = static_cast<uint64_t>(d) > budget ? budget + 1 : bytes * static_cast<uint64_t>(d);
  }
  if (bytes > budget) {
    return interp->Error(shape_loc,
                         absl::StrCat(what, ": a [", absl::StrJoin(tile_shape, ", "), "] ",
                                      trace::DType_Name(dtype), " tile does not fit the ", budget,
                                      " bytes of ", PlSpaceName(space), "; use a smaller tile"));
  }
  return interp->kernel()->NewTile(tile_shape, dtype, space);
}

}  // namespace

absl::StatusOr<Value> TileCreate(Interpreter* interp, const std::vector<int64_t>& shape,
                                 trace::DType dtype, trace::MemSpace space, SourceLocation loc,
                                 SourceLocation shape_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.create"));
  PTOC_ASSIGN_OR_RETURN(tile,
                        NewAuthoredTile(interp, shape, dtype, space, "pl.tile.create", shape_loc));
  trace::Op* op = interp->kernel()->Emit(trace::Op::CREATE, interp->Origin(loc));
  op->set_dst(tile->index());
  return Value::Obj(tile);
}

absl::StatusOr<Value> TileMove(Interpreter* interp, const Value& tile, const Value& target,
                               SourceLocation loc, SourceLocation target_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.move"));
  PTOC_ASSIGN_OR_RETURN(src, interp->AsTile(tile, loc));
  PTOC_ASSIGN_OR_RETURN(to, MemSpaceOf(interp, target, target_loc, "pl.move target_memory"));
  KernelBuilder* k = interp->kernel();
  // A load without target_memory= is in Vec, upstream's default.
  if (k->space(*src) == trace::MEM_SPACE_UNSPECIFIED) k->set_space(*src, trace::VEC);
  const trace::MemSpace from = k->space(*src);
  if (MoveRouteOf(from, to) == MoveRoute::kNone) {
    return interp->Error(
        target_loc,
        absl::StrCat("pl.move from ", PlSpaceName(from), " to ", PlSpaceName(to),
                     from == to ? ": the tile is already there" : " is not a move",
                     "; a tile moves Mat -> Left, Right or Bias, Acc -> Mat, and between the "
                     "cores Acc or Mat -> Vec, Vec -> Mat, Left or Right"));
  }
  auto dst = k->NewTile(src->shape(), src->dtype(), to);
  trace::Op* op = k->Emit(trace::Op::MOVE, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(src->index());
  return Value::Obj(dst);
}

absl::StatusOr<std::shared_ptr<Tile>> VectorTile(Interpreter* interp, const Value& v,
                                                 SourceLocation loc) {
  PTOC_ASSIGN_OR_RETURN(tile, interp->AsTile(v, loc));
  PTOC_RETURN_IF_ERROR(RequireVectorOperand(interp, *tile, loc));
  return tile;
}

trace::Op* EmitWithSources(Interpreter* interp, trace::Op::Kind kind, const Tile& dst,
                           std::initializer_list<const Tile*> srcs, SourceLocation loc) {
  trace::Op* op = interp->kernel()->Emit(kind, interp->Origin(loc));
  op->set_dst(dst.index());
  for (const Tile* s : srcs) op->add_srcs(s->index());
  return op;
}

namespace {

// A view is its source's buffer, which a runtime pl.MemRef slot would move
// from op to op.
absl::Status RequireFixedBuffer(Interpreter* interp, const Tile& source, const char* what,
                                SourceLocation loc) {
  if (!interp->kernel()->decl(source).has_slot()) return absl::OkStatus();
  return interp->Error(loc, absl::StrCat(what,
                                         " views a pl.MemRef tile whose slot is picked at run "
                                         "time; a view is its source's buffer, so view a tile "
                                         "with a literal slot (buf[0]) or none"));
}

}  // namespace

absl::StatusOr<Value> TileReduce(Interpreter* interp, trace::Op::Kind kind, const Value& x,
                                 const Value* tmp, const std::string& name, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, name.c_str()));
  PTOC_ASSIGN_OR_RETURN(t, VectorTile(interp, x, loc));
  if (t->shape().size() != 2) {
    return interp->Error(loc,
                         absl::StrCat(name, " reduces a 2-D tile, got ", ShapeString(t->shape())));
  }
  const bool row = kind == trace::Op::ROW_SUM || kind == trace::Op::ROW_MAX ||
                   kind == trace::Op::ROW_MIN || kind == trace::Op::ROW_PROD;
  std::shared_ptr<Tile> scratch;
  if (tmp != nullptr && !tmp->is_none()) {
    PTOC_ASSIGN_OR_RETURN(s, VectorTile(interp, *tmp, loc));
    // pypto's requirement: the input's dtype and rank, no dim smaller (the
    // row forms); the input's shape and dtype (col_sum's tree path).
    const bool fits = s->dtype() == t->dtype() && s->shape().size() == 2 &&
                      (row ? s->shape()[0] >= t->shape()[0] && s->shape()[1] >= t->shape()[1]
                           : s->shape() == t->shape());
    if (!fits) {
      return interp->Error(
          loc, absl::StrCat(name, ": tmp_tile is ", DTypeName(s->dtype()), " ",
                            ShapeString(s->shape()), " for a ", DTypeName(t->dtype()), " ",
                            ShapeString(t->shape()), " input; it needs ",
                            row ? "the same dtype and rank as the input, and every dimension at "
                                  "least as large as the corresponding input dimension"
                                : "the input's shape and dtype"));
    }
    if (s->index() == t->index()) {
      return interp->Error(loc, absl::StrCat(name,
                                             ": tmp_tile is the input itself; give the "
                                             "scratch a tile of its own, e.g. "
                                             "pl.create_tile(...)"));
    }
    scratch = s;
  }
  KernelBuilder* k = interp->kernel();
  const std::vector<int64_t> shape =
      row ? std::vector<int64_t>{t->shape()[0], 1} : std::vector<int64_t>{1, t->shape()[1]};
  auto dst = k->NewTile(shape, t->dtype(), trace::VEC);
  trace::Op* op = EmitWithSources(interp, kind, *dst, {t.get()}, loc);
  if (scratch) op->add_srcs(scratch->index());
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileBroadcast(Interpreter* interp, trace::Op::Kind kind,
                                    trace::Op::Broadcast broadcast, const Value& tile,
                                    const Value& vec, const std::string& name, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, name.c_str()));
  const bool row = broadcast == trace::Op::ROW;
  PTOC_ASSIGN_OR_RETURN(t, VectorTile(interp, tile, loc));
  PTOC_ASSIGN_OR_RETURN(v, VectorTile(interp, vec, loc));
  const std::vector<int64_t> want =
      row ? std::vector<int64_t>{Rows(*t), 1} : std::vector<int64_t>{1, Cols(*t)};
  const bool fits = row ? v->shape() == want
                        : (v->shape() == want || v->shape() == std::vector<int64_t>{Cols(*t)});
  if (t->shape().size() != 2 || !fits) {
    return interp->Error(
        loc, absl::StrCat(name, ": ", row ? "row_vec" : "col_vec", " is ", ShapeString(v->shape()),
                          " but the tile is ", ShapeString(t->shape()), "; ",
                          row ? "a row broadcast takes one value per row, "
                              : "a column broadcast takes one value per column, ",
                          ShapeString(want)));
  }
  if (v->dtype() != t->dtype()) {
    return interp->Error(
        loc, absl::StrCat(name, ": the tile is ", DTypeName(t->dtype()), " but the vector is ",
                          DTypeName(v->dtype()), "; pl.cast one of them"));
  }
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile(t->shape(), t->dtype(), trace::VEC);
  trace::Op* op = kind == trace::Op::EXPAND
                      ? EmitWithSources(interp, kind, *dst, {v.get()}, loc)
                      : EmitWithSources(interp, kind, *dst, {t.get(), v.get()}, loc);
  op->set_broadcast(broadcast);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileFull(Interpreter* interp, const std::vector<int64_t>& shape,
                               trace::DType dtype, const Value& value, SourceLocation loc,
                               SourceLocation shape_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.full"));
  trace::ScalarOperand scalar;
  if (value.is_number()) {
    scalar.set_literal(value.f());
  } else if (auto* sym = value.As<SymInt>();
             sym != nullptr && sym->expr().kind_case() == trace::IntExpr::kScalarParam) {
    scalar.set_scalar_param(sym->expr().scalar_param());
  } else {
    return interp->Error(loc, absl::StrCat("pl.tile.full value must be a number or a pl.Scalar "
                                           "parameter, got ",
                                           value.TypeName()));
  }
  PTOC_ASSIGN_OR_RETURN(
      tile, NewAuthoredTile(interp, shape, dtype, trace::VEC, "pl.tile.full", shape_loc));
  trace::Op* op = interp->kernel()->Emit(trace::Op::FULL, interp->Origin(loc));
  op->set_dst(tile->index());
  *op->mutable_scalar() = scalar;
  return Value::Obj(tile);
}

absl::StatusOr<Value> TileExtract(Interpreter* interp, const Value& tile,
                                  const std::vector<int64_t>& shape,
                                  const std::vector<Value>& offsets, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.slice of a tile"));
  PTOC_ASSIGN_OR_RETURN(t, interp->AsTile(tile, loc));
  KernelBuilder* k = interp->kernel();
  const trace::MemSpace space = k->space(*t);
  if (space != trace::VEC && space != trace::MAT && space != trace::MEM_SPACE_UNSPECIFIED) {
    return interp->Error(loc, absl::StrCat("pl.slice takes a window of a Vec or Mat tile, not of ",
                                           PlSpaceName(space), "; move it first"));
  }
  const size_t rank = t->shape().size();
  if (shape.size() != rank || offsets.size() != rank) {
    return interp->Error(loc, absl::StrCat("pl.slice of a rank-", rank,
                                           " tile needs that many shape and offset entries"));
  }
  std::vector<trace::IntExpr> at(2);
  at[0].set_constant(0);
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] < 1 || shape[d] > t->shape()[d]) {
      return interp->Error(loc, absl::StrCat("pl.slice shape ", ShapeString(shape),
                                             " does not fit "
                                             "the ",
                                             ShapeString(t->shape()), " tile"));
    }
    auto e = ToIntExpr(offsets[d]);
    if (!e.ok()) return interp->Error(loc, absl::StrCat("offset ", d, ": ", e.status().message()));
    if (e->kind_case() == trace::IntExpr::kConstant &&
        (e->constant() < 0 || e->constant() + shape[d] > t->shape()[d])) {
      return interp->Error(
          loc, absl::StrCat("pl.slice takes [", e->constant(), ", ", e->constant() + shape[d],
                            ") of dim ", d, " of a tile of ", t->shape()[d]));
    }
    at[rank == 1 ? 1 : d] = *std::move(e);
  }
  auto dst = k->NewTile(shape, t->dtype(), space);
  trace::Op* op = k->Emit(trace::Op::EXTRACT, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(t->index());
  for (const trace::IntExpr& e : at) *op->add_offsets() = e;
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileFillPad(Interpreter* interp, const Value& tile, trace::Op::PadValue pad,
                                  SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.fillpad"));
  PTOC_ASSIGN_OR_RETURN(t, VectorTile(interp, tile, loc));
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile(t->shape(), t->dtype(), trace::VEC);
  trace::Op* op = k->Emit(trace::Op::FILLPAD, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(t->index());
  op->set_pad(pad);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileConcat(Interpreter* interp, const Value& a, const Value& b,
                                 SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.concat"));
  PTOC_ASSIGN_OR_RETURN(ta, VectorTile(interp, a, loc));
  PTOC_ASSIGN_OR_RETURN(tb, VectorTile(interp, b, loc));
  if (Rows(*ta) != Rows(*tb) || ta->shape().size() != tb->shape().size()) {
    return interp->Error(loc,
                         absl::StrCat("pl.concat joins columns of tiles with equal rows, got ",
                                      ShapeString(ta->shape()), " and ", ShapeString(tb->shape())));
  }
  if (ta->dtype() != tb->dtype()) {
    return interp->Error(loc,
                         absl::StrCat("pl.concat: the tiles are ", DTypeName(ta->dtype()), " and ",
                                      DTypeName(tb->dtype()), "; pl.cast one of them"));
  }
  std::vector<int64_t> shape = ta->shape();
  shape.back() = Cols(*ta) + Cols(*tb);
  auto dst = interp->kernel()->NewTile(shape, ta->dtype(), trace::VEC);
  EmitWithSources(interp, trace::Op::CONCAT, *dst, {ta.get(), tb.get()}, loc);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileAssemble(Interpreter* interp, const Value& target, const Value& source,
                                   const std::vector<Value>& offset, SourceLocation loc,
                                   SourceLocation offset_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.assemble"));
  PTOC_ASSIGN_OR_RETURN(tt, interp->AsTile(target, loc));
  PTOC_ASSIGN_OR_RETURN(ts, interp->AsTile(source, loc));
  KernelBuilder* k = interp->kernel();
  if (k->space(*tt) == trace::MEM_SPACE_UNSPECIFIED) k->set_space(*tt, trace::VEC);
  if (k->space(*ts) == trace::MEM_SPACE_UNSPECIFIED) k->set_space(*ts, trace::VEC);
  const trace::MemSpace to = k->space(*tt), from = k->space(*ts);
  const bool route =
      from == to ? to == trace::VEC || to == trace::MAT : from == trace::ACC && to == trace::MAT;
  if (!route) {
    return interp->Error(
        loc, absl::StrCat("pl.tile.assemble writes a ", PlSpaceName(from), " tile into a ",
                          PlSpaceName(to),
                          " tile; it goes Vec -> Vec, Mat -> Mat or Acc -> Mat (a matmul result "
                          "into L1)"));
  }
  if (tt->shape().size() != 2 || ts->shape().size() != 2) {
    return interp->Error(loc, "pl.tile.assemble takes 2-D tiles");
  }
  const bool narrowing = from == trace::ACC && IsFloat(ts->dtype()) && IsFloat(tt->dtype());
  if (ts->dtype() != tt->dtype() && !narrowing) {
    return interp->Error(
        loc, absl::StrCat("pl.tile.assemble: the source is ", DTypeName(ts->dtype()),
                          " but the target is ", DTypeName(tt->dtype()), "; pl.cast the source"));
  }
  if (offset.size() != 2) {
    return interp->Error(offset_loc, absl::StrCat("pl.tile.assemble offset takes 2 entries (row, "
                                                  "column), got ",
                                                  offset.size()));
  }
  std::vector<trace::IntExpr> at;
  for (size_t d = 0; d < 2; ++d) {
    auto e = ToIntExpr(offset[d]);
    if (!e.ok()) {
      return interp->Error(offset_loc, absl::StrCat("offset ", d, ": ", e.status().message()));
    }
    const int64_t room = tt->shape()[d] - ts->shape()[d];
    if (room < 0 || (e->kind_case() == trace::IntExpr::kConstant &&
                     (e->constant() < 0 || e->constant() > room))) {
      return interp->Error(
          offset_loc,
          absl::StrCat(
              "pl.tile.assemble places a ", ShapeString(ts->shape()), " tile at offset ", d, " = ",
              e->kind_case() == trace::IntExpr::kConstant ? absl::StrCat(e->constant())
                                                          : std::string("(a device value)"),
              " of a ", ShapeString(tt->shape()), " target; it must lie inside it"));
    }
    at.push_back(*e);
  }
  auto dst = k->NewTile(tt->shape(), tt->dtype(), to);
  trace::Op* op = EmitWithSources(interp, trace::Op::ASSEMBLE, *dst, {tt.get(), ts.get()}, loc);
  for (trace::IntExpr& e : at) *op->add_offsets() = std::move(e);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileReshape(Interpreter* interp, const Value& tile,
                                  const std::vector<int64_t>& shape, SourceLocation loc,
                                  SourceLocation shape_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.reshape"));
  PTOC_ASSIGN_OR_RETURN(t, interp->AsTile(tile, loc));
  PTOC_RETURN_IF_ERROR(RequireFixedBuffer(interp, *t, "pl.reshape", loc));
  const std::vector<int64_t> tile_shape = TileShapeOf(shape);
  if (tile_shape.empty()) {
    return interp->Error(shape_loc, absl::StrCat("pl.reshape shape must be 1 or 2 positive "
                                                 "integers (leading 1s may precede them), got [",
                                                 absl::StrJoin(shape, ", "), "]"));
  }
  int64_t before = 1, after = 1;
  for (int64_t d : t->shape()) before *= d;
  for (int64_t d : tile_shape) after *= d;
  if (before != after) {
    return interp->Error(
        shape_loc, absl::StrCat("pl.reshape: cannot reshape a ", ShapeString(t->shape()), " tile (",
                                before, " elements) to [", absl::StrJoin(shape, ", "), "] (", after,
                                " elements); a reshape keeps the element count"));
  }
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile(tile_shape, t->dtype(), k->space(*t));
  EmitWithSources(interp, trace::Op::RESHAPE, *dst, {t.get()}, loc);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileTransposeView(Interpreter* interp, const Value& tile,
                                        SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.transpose_view"));
  PTOC_ASSIGN_OR_RETURN(t, interp->AsTile(tile, loc));
  PTOC_RETURN_IF_ERROR(RequireFixedBuffer(interp, *t, "pl.tile.transpose_view", loc));
  if (t->shape().size() != 2) {
    return interp->Error(loc, absl::StrCat("pl.tile.transpose_view needs a 2-D tile, got ",
                                           ShapeString(t->shape())));
  }
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile({t->shape()[1], t->shape()[0]}, t->dtype(), k->space(*t));
  EmitWithSources(interp, trace::Op::TRANSPOSE_VIEW, *dst, {t.get()}, loc);
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileCast(Interpreter* interp, const Value& tile, trace::DType dtype,
                               trace::Op::CastMode mode, SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.cast"));
  PTOC_ASSIGN_OR_RETURN(src, VectorTile(interp, tile, loc));
  auto dst = interp->kernel()->NewTile(src->shape(), dtype, trace::VEC);
  trace::Op* op = EmitWithSources(interp, trace::Op::CAST, *dst, {src.get()}, loc);
  if (mode != trace::Op::CAST_ROUND) op->set_cast_mode(mode);
  InheritTensorLevel(interp, *dst, {&tile});
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileArithmetic(Interpreter* interp, const std::string& op, const Value& a,
                                     const Value& b, SourceLocation loc) {
  if (op == "@") return TileMatmul(interp, a, b, std::nullopt, false, false, false, loc, loc);
  if (op == "+") return TileElementwise(interp, trace::Op::ADD, a, b, loc);
  if (op == "*") return TileElementwise(interp, trace::Op::MUL, a, b, loc);
  if (op == "-") {
    if (a.is_number()) {  // s - t = -t + s
      PTOC_ASSIGN_OR_RETURN(neg, TileUnary(interp, trace::Op::NEG, b, loc));
      return TileElementwise(interp, trace::Op::ADD, neg, a, loc);
    }
    return TileElementwise(interp, trace::Op::SUB, a, b, loc);
  }
  if (op == "/") {
    if (a.is_number()) {
      return interp->Error(loc, "scalar / tile is not supported; use pl.recip and pl.mul");
    }
    return TileElementwise(interp, trace::Op::DIV, a, b, loc);
  }
  return interp->Error(loc, absl::StrCat("operator ", op, " is not supported on tiles"));
}

}  // namespace pto::ptoc
