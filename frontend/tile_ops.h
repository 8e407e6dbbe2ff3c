#ifndef PTO_FRONTEND_TILE_OPS_H_
#define PTO_FRONTEND_TILE_OPS_H_

#include <initializer_list>
#include <memory>
#include <optional>
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
// A located error outside a task body; `what` names the op.
absl::Status RequireKernel(Interpreter* interp, SourceLocation loc, const char* what);
// A vector-engine operand: a tile in Vec or not yet placed (a tensor in a
// task body is loaded whole, the tensor level).
absl::StatusOr<std::shared_ptr<Tile>> VectorTile(Interpreter* interp, const Value& v,
                                                 SourceLocation loc);
// Emits `kind` writing `dst` from `srcs`, located at `loc`.
trace::Op* EmitWithSources(Interpreter* interp, trace::Op::Kind kind, const Tile& dst,
                           std::initializer_list<const Tile*> srcs, SourceLocation loc);
// dst is tensor-level when an operand is (a tensor, a window, or such a tile).
void InheritTensorLevel(Interpreter* interp, const Tile& dst,
                        std::initializer_list<const Value*> operands);

// `space`: target_memory= (Vec or Mat), or MEM_SPACE_UNSPECIFIED for op
// affinity (KernelBuilder::Finish).
absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(
    Interpreter* interp, const std::shared_ptr<TensorRef>& ref, const std::vector<Value>& offsets,
    const std::vector<int64_t>& shape, trace::MemSpace space, SourceLocation loc,
    const std::vector<Value>* valid_shape = nullptr, SourceLocation valid_loc = {});
absl::Status EmitStore(Interpreter* interp, const std::shared_ptr<Tile>& tile,
                       const std::vector<Value>& offsets, const std::shared_ptr<TensorRef>& ref,
                       bool atomic_add, SourceLocation loc);
// dst = a OP b where b is a tile or a scalar (literal or scalar parameter).
absl::StatusOr<Value> TileElementwise(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                      const Value& b, SourceLocation loc);
absl::StatusOr<Value> TileUnary(Interpreter* interp, trace::Op::Kind kind, const Value& a,
                                SourceLocation loc);
// pl.matmul: an Acc tile of FP32 (INT32 for INT8 inputs). A tile-level call
// (`tensor_level` false) takes out_dtype only when it is that dtype, as
// upstream; the tensor level takes any float result dtype.
absl::StatusOr<Value> TileMatmul(Interpreter* interp, const Value& a, const Value& b,
                                 std::optional<trace::DType> out_dtype, bool tensor_level,
                                 bool a_trans, bool b_trans, SourceLocation loc,
                                 SourceLocation out_loc);
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
// Reductions (pypto@e2d0f78a python/pypto/language/op/tile_ops.py):
// ROW_SUM/ROW_MAX/ROW_MIN give [rows, 1], COL_SUM/COL_MAX/COL_MIN [1, cols].
// `tmp` (may be null) is the scratch tile: required by the row forms (the
// caller checks), optional for COL_SUM, refused by COL_MAX/COL_MIN.
absl::StatusOr<Value> TileReduce(Interpreter* interp, trace::Op::Kind kind, const Value& x,
                                 const Value* tmp, const std::string& name, SourceLocation loc);
// pl.row_expand_add and the like: dst = tile OP vec, vec a [rows, 1] (ROW)
// or [1, cols] (COL) tile; kind EXPAND is pl.row_expand / pl.col_expand,
// vec spread over tile's shape (tile only gives the shape).
absl::StatusOr<Value> TileBroadcast(Interpreter* interp, trace::Op::Kind kind,
                                    trace::Op::Broadcast broadcast, const Value& tile,
                                    const Value& vec, const std::string& name, SourceLocation loc);
// pl.tile.full(shape, dtype, value): a Vec tile filled with value (FULL).
absl::StatusOr<Value> TileFull(Interpreter* interp, const std::vector<int64_t>& shape,
                               trace::DType dtype, const Value& value, SourceLocation loc,
                               SourceLocation shape_loc);
// pl.concat(a, b): columns side by side.
// pl.slice of a tile: the [shape] window at `offsets` (ints or device
// integers), a new tile in the source's space (EXTRACT).
absl::StatusOr<Value> TileExtract(Interpreter* interp, const Value& tile,
                                  const std::vector<int64_t>& shape,
                                  const std::vector<Value>& offsets, SourceLocation loc);
// pl.tile.fillpad: the tile with its padding (outside its valid region) set.
absl::StatusOr<Value> TileFillPad(Interpreter* interp, const Value& tile, trace::Op::PadValue pad,
                                  SourceLocation loc);
absl::StatusOr<Value> TileConcat(Interpreter* interp, const Value& a, const Value& b,
                                 SourceLocation loc);
// pl.tile.assemble(target, source, offset): target with source written at
// offset; Vec into Vec, Mat into Mat or an Acc result into Mat.
absl::StatusOr<Value> TileAssemble(Interpreter* interp, const Value& target, const Value& source,
                                   const std::vector<Value>& offset, SourceLocation loc,
                                   SourceLocation offset_loc);
// pl.reshape(tile, shape) and pl.tile.transpose_view(tile): views of the
// same buffer (no instruction).
absl::StatusOr<Value> TileReshape(Interpreter* interp, const Value& tile,
                                  const std::vector<int64_t>& shape, SourceLocation loc,
                                  SourceLocation shape_loc);
absl::StatusOr<Value> TileTransposeView(Interpreter* interp, const Value& tile, SourceLocation loc);
// pl.cast(tile, dtype, mode=): CAST with its rounding mode.
absl::StatusOr<Value> TileCast(Interpreter* interp, const Value& tile, trace::DType dtype,
                               trace::Op::CastMode mode, SourceLocation loc);
// Python operators on tiles: + - * / @.
absl::StatusOr<Value> TileArithmetic(Interpreter* interp, const std::string& op, const Value& a,
                                     const Value& b, SourceLocation loc);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TILE_OPS_H_
