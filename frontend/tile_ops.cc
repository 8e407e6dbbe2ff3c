#include "frontend/tile_ops.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "frontend/pl_values.h"
#include "frontend/status_macros.h"
#include "frontend/verifiers.h"
#include "models/core/kernel_program.h"

namespace pto::ptoc {

namespace {

absl::Status RequireKernel(Interpreter* interp, SourceLocation loc, const char* what) {
  if (interp->in_kernel()) return absl::OkStatus();
  return interp->Error(loc, absl::StrCat(what,
                                         " is a tile op; it must be inside a task body "
                                         "(with pl.at(...), pl.spmd, or a "
                                         "@pl.jit.incore kernel)"));
}

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
  return std::make_pair(m, n);
}

}  // namespace

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

absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(Interpreter* interp,
                                               const std::shared_ptr<TensorRef>& ref,
                                               const std::vector<Value>& offsets,
                                               const std::vector<int64_t>& shape,
                                               trace::MemSpace space, SourceLocation loc) {
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
  for (size_t d = 0; d < offsets.size(); ++d) {
    auto e = ToIntExpr(offsets[d]);
    if (!e.ok()) return interp->Error(loc, absl::StrCat("offset ", d, ": ", e.status().message()));
    if (e->kind_case() == trace::IntExpr::kConstant &&
        (e->constant() < 0 || e->constant() + shape[d] > ref->shape()[d])) {
      return interp->Error(loc, absl::StrCat("pl.load reads [", e->constant(), ", ",
                                             e->constant() + shape[d], ") of dim ", d, " of '",
                                             ref->name(), "', which has ", ref->shape()[d]));
    }
    *op->add_offsets() = *e;
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
  const uint32_t param = k->UseTensor(ref, false, true);
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
    op.add_srcs(tb->index());
  }
  auto dst = k->NewTile(ta->shape(), ta->dtype(), trace::VEC);
  trace::Op* emitted = k->Emit(kind, interp->Origin(loc));
  op.set_kind(kind);
  op.set_dst(dst->index());
  op.set_origin(emitted->origin());
  *emitted = op;
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileUnary(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "this op"));
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_RETURN_IF_ERROR(RequireVectorOperand(interp, *ta, loc));
  KernelBuilder* k = interp->kernel();
  std::vector<int64_t> shape = ta->shape();
  if (kind == trace::Op::ROW_SUM || kind == trace::Op::ROW_MAX) {
    if (shape.size() != 2) return interp->Error(loc, "row reductions need a 2-D tile");
    shape[1] = 1;
  }
  auto dst = k->NewTile(shape, ta->dtype(), trace::VEC);
  trace::Op* op = k->Emit(kind, interp->Origin(loc));
  op->set_dst(dst->index());
  op->add_srcs(ta->index());
  return Value::Obj(dst);
}

absl::StatusOr<Value> TileMatmul(Interpreter* interp, const Value& a, const Value& b,
                                 trace::DType out_dtype, bool a_trans, bool b_trans,
                                 SourceLocation loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.matmul"));
  PTOC_ASSIGN_OR_RETURN(ta, interp->AsTile(a, loc));
  PTOC_ASSIGN_OR_RETURN(tb, interp->AsTile(b, loc));
  PTOC_ASSIGN_OR_RETURN(mn, MatmulShape(interp, *ta, *tb, a_trans, b_trans, "pl.matmul", loc));
  const auto [m, n] = mn;
  KernelBuilder* k = interp->kernel();
  auto dst = k->NewTile({m, n}, out_dtype, trace::ACC);
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
  if (k->space(*tacc) != trace::ACC) {
    return interp->Error(loc, absl::StrCat("pl.matmul_acc accumulates into Acc (L0C), a pl.matmul "
                                           "or pl.matmul_acc result or a pl.tile.create(..., "
                                           "target_memory=pl.Mem.Acc), but the accumulator is in ",
                                           PlSpaceName(k->space(*tacc))));
  }
  PTOC_ASSIGN_OR_RETURN(mn, MatmulShape(interp, *ta, *tb, a_trans, b_trans, "pl.matmul_acc", loc));
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

absl::StatusOr<Value> TileCreate(Interpreter* interp, const std::vector<int64_t>& shape,
                                 trace::DType dtype, trace::MemSpace space, SourceLocation loc,
                                 SourceLocation shape_loc) {
  PTOC_RETURN_IF_ERROR(RequireKernel(interp, loc, "pl.tile.create"));
  // Tiles are rank 1 or 2: leading unit dims fold away, as in pl.load.
  std::vector<int64_t> tile_shape = shape;
  while (tile_shape.size() > 2 && tile_shape.front() == 1) tile_shape.erase(tile_shape.begin());
  const bool positive =
      std::all_of(tile_shape.begin(), tile_shape.end(), [](int64_t d) { return d > 0; });
  if (tile_shape.empty() || tile_shape.size() > 2 || !positive) {
    return interp->Error(shape_loc, absl::StrCat("pl.tile.create shape must be 1 or 2 positive "
                                                 "integers (leading 1s may precede them), got [",
                                                 absl::StrJoin(shape, ", "), "]"));
  }
  // Its shape is the author's alone (a load's is bounded by its tensor's):
  // the tile must fit its space, checked before any product can overflow.
  const uint64_t budget = SpaceBudgetBytes(space);
  uint64_t bytes = DTypeSize(dtype);
  for (int64_t d : tile_shape) {
    bytes = static_cast<uint64_t>(d) > budget ? budget + 1 : bytes * static_cast<uint64_t>(d);
  }
  if (bytes > budget) {
    return interp->Error(shape_loc,
                         absl::StrCat("pl.tile.create: a [", absl::StrJoin(tile_shape, ", "), "] ",
                                      trace::DType_Name(dtype), " tile does not fit the ", budget,
                                      " bytes of ", PlSpaceName(space), "; use a smaller tile"));
  }
  KernelBuilder* k = interp->kernel();
  auto tile = k->NewTile(tile_shape, dtype, space);
  trace::Op* op = k->Emit(trace::Op::CREATE, interp->Origin(loc));
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

absl::StatusOr<Value> TileArithmetic(Interpreter* interp, const std::string& op, const Value& a,
                                     const Value& b, SourceLocation loc) {
  if (op == "@") return TileMatmul(interp, a, b, trace::FP32, false, false, loc);
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
