#ifndef PTO_FRONTEND_PL_ARGS_H_
#define PTO_FRONTEND_PL_ARGS_H_

// Readers of the `pl` module's argument kinds, shared by its parts.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/arg_reader.h"
#include "frontend/interpreter.h"

namespace pto::ptoc {

// A list of compile-time integers; `what` names it in errors.
absl::StatusOr<std::vector<int64_t>> IntList(Interpreter* interp, const Value& v,
                                             SourceLocation loc, const char* what);
absl::StatusOr<std::vector<Value>> ValueList(Interpreter* interp, const Value& v,
                                             SourceLocation loc, const char* what);
// A dtype such as pl.FP32 (not pl.TASK_ID).
absl::StatusOr<trace::DType> DTypeOf(Interpreter* interp, const Value& v, SourceLocation loc);
// Whether v is a member of `enum_name` (and `member`, when not null).
bool IsEnum(const Value& v, const char* enum_name, const char* member);
// Argument i as a bool literal, false when absent.
absl::StatusOr<bool> BoolArg(Interpreter* interp, const ArgReader& r, size_t i,
                             const char* message);

// pl's tile ops, as pl.X and pl.tile.X (pl_tile_ops.cc).
void AddTileOps(Interpreter* interp, Namespace* pl);
// The version-10 vector ops (pl_tile_math_ops.cc), into pl and pl.tile.
void AddTileMathOps(Interpreter* interp, Namespace* pl, Namespace* tile);
// Registers `fn` as pl.<name> and, refusing tensor operands among its first
// `operands` positional arguments, as pl.tile.<name>.
void AddBoth(Interpreter* interp, Namespace* pl, Namespace* tile, const std::string& name,
             size_t operands, std::function<absl::StatusOr<Value>(const CallArgs&)> fn);
// pl.read, pl.tensor.read / dim, pl.dynamic, pl.fillpad and pl.tile.fillpad
// (pl_scalars.cc).
void AddScalarOps(Interpreter* interp, Namespace* pl, Namespace* tensor, Namespace* tile);
// The name of a pl.dynamic("M") dimension, or null for any other value.
const std::string* DynamicDimName(const Value& v);
// A call's tensor arguments against their annotations' pl.dynamic dims: each
// name binds to one size per call (a located error names both arguments).
absl::Status CheckDynamicDims(Interpreter* interp, const FunctionValue& fn, const Env& env,
                              const CallArgs& args);
// A host tensor of a signed integer dtype bound to a parameter annotated with
// the unsigned dtype of its width (pl.UINT16, pl.UINT32, pl.UINT64: torch
// has no such dtypes, so scripts pass int16 / int32 / int64 bytes) becomes a
// tensor of the annotated dtype, the same bytes (before the launch binds it).
void TakeUnsignedAnnotations(const FunctionValue& fn, const Env& env);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_PL_ARGS_H_
