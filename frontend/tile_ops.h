#ifndef PTO_FRONTEND_TILE_OPS_H_
#define PTO_FRONTEND_TILE_OPS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/interpreter.h"
#include "frontend/kernel_builder.h"

namespace pto::ptoc {

// Tile ops traced into the current kernel (pypto@e2d0f78a python/pypto/language/op/:
// pl.load/store, elementwise, matmul, matmul_acc, move, tile.create). Offsets may be
// compile-time ints or device integers.

// A pl.MemorySpace (pl.Mem) member's space; `what` names the argument.
absl::StatusOr<trace::MemSpace> MemSpaceOf(Interpreter* interp, const Value& v, SourceLocation loc,
                                           const char* what);
// `t: pl.Tile[..., pl.Mem.X] = value`: places a load's tile, or checks that
// the tile is in X.
absl::Status ApplyTileAnnotation(Interpreter* interp, const Tile& tile, trace::MemSpace space,
                                 SourceLocation loc);

// Vector ops read Vec tiles: a located error for a cube operand buffer.
absl::Status RequireVectorOperand(Interpreter* interp, const Tile& tile, SourceLocation loc);

// `space`: target_memory= (Vec or Mat), or MEM_SPACE_UNSPECIFIED for op
// affinity (KernelBuilder::Finish).
absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(Interpreter* interp,
                                               const std::shared_ptr<TensorRef>& ref,
                                               const std::vector<Value>& offsets,
                                               const std::vector<int64_t>& shape,
                                               trace::MemSpace space, SourceLocation loc);
absl::Status EmitStore(Interpreter* interp, const std::shared_ptr<Tile>& tile,
                       const std::vector<Value>& offsets, const std::shared_ptr<TensorRef>& ref,
                       bool atomic_add, SourceLocation loc);
// dst = a OP b where b is a tile or a scalar (literal or scalar parameter).
absl::StatusOr<Value> TileElementwise(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                      const Value& b, SourceLocation loc);
absl::StatusOr<Value> TileUnary(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                SourceLocation loc);
absl::StatusOr<Value> TileMatmul(Interpreter* interp, const Value& a, const Value& b,
                                 trace::DType out_dtype, bool a_trans, bool b_trans,
                                 SourceLocation loc);
// pl.matmul_acc(acc, lhs, rhs, a_trans=, b_trans=, init_cond=): an
// accumulating MATMUL into a new Acc tile; `init_cond` may be null (always
// accumulate).
absl::StatusOr<Value> TileMatmulAcc(Interpreter* interp, const Value& acc, const Value& a,
                                    const Value& b, bool a_trans, bool b_trans,
                                    const Value* init_cond, SourceLocation loc);
// pl.tile.create(shape, dtype, target_memory=): a CREATE, a new tile of that
// space with no defined contents. `shape_loc` locates the shape argument.
absl::StatusOr<Value> TileCreate(Interpreter* interp, const std::vector<int64_t>& shape,
                                 trace::DType dtype, trace::MemSpace space, SourceLocation loc,
                                 SourceLocation shape_loc);
// pl.move(tile, target_memory=): a MOVE into a new tile of that space.
absl::StatusOr<Value> TileMove(Interpreter* interp, const Value& tile, const Value& target,
                               SourceLocation loc, SourceLocation target_loc);
// Python operators on tiles: + - * / @.
absl::StatusOr<Value> TileArithmetic(Interpreter* interp, const std::string& op, const Value& a,
                                     const Value& b, SourceLocation loc);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TILE_OPS_H_
