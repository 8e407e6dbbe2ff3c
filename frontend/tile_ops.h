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
// pl.load/store, elementwise,
// matmul). Offsets may be compile-time ints or device integers.

absl::StatusOr<std::shared_ptr<Tile>> EmitLoad(Interpreter* interp,
                                               const std::shared_ptr<TensorRef>& ref,
                                               const std::vector<Value>& offsets,
                                               const std::vector<int64_t>& shape,
                                               SourceLocation loc);
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
// Python operators on tiles: + - * / @.
absl::StatusOr<Value> TileArithmetic(Interpreter* interp, const std::string& op, const Value& a,
                                     const Value& b, SourceLocation loc);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TILE_OPS_H_
