#include "frontend/tile_ops.h"

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {

namespace {

absl::Status RequireKernel(Interpreter* interp, SourceLocation loc, const char* what) {
  if (interp->in_kernel()) return absl::OkStatus();
  return interp->Error(loc, absl::StrCat(what,
                                         " is a tile op; it must be inside a task body "
                                         "(with pl.at(...), pl.spmd, or a "
                                         "@pl.jit.incore kernel)"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(Interpreter* interp,
                                               const std::shared_ptr<TensorRef>& ref,
                                               const std::vector<Value>& offsets,
                                               const std::vector<int64_t>& shape,
                                               SourceLocation loc) {
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
  auto tile = k->NewTile(tile_shape, ref->dtype(), trace::VEC);
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
  if (ta->shape().size() != 2 || tb->shape().size() != 2) {
    return interp->Error(loc, "pl.matmul needs 2-D operands");
  }
  const int64_t m = a_trans ? ta->shape()[1] : ta->shape()[0];
  const int64_t ka = a_trans ? ta->shape()[0] : ta->shape()[1];
  const int64_t kb = b_trans ? tb->shape()[1] : tb->shape()[0];
  const int64_t n = b_trans ? tb->shape()[0] : tb->shape()[1];
  if (ka != kb) {
    return interp->Error(
        loc, absl::StrCat("pl.matmul inner dimensions differ: ", ShapeString(ta->shape()), " @ ",
                          ShapeString(tb->shape())));
  }
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
