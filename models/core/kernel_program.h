#ifndef PTO_MODELS_CORE_KERNEL_PROGRAM_H_
#define PTO_MODELS_CORE_KERNEL_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/core/int_expr.h"
#include "proto/task_stream.pb.h"

namespace pto {

enum class EngineKind : uint8_t { kCube, kVector };
const char* EngineName(EngineKind engine);

inline constexpr int kMaxViewRank = 5;
// KernelProgram.buffer_count's bound: the pipes keep state per buffer.
inline constexpr uint32_t kMaxKernelBuffers = uint32_t{1} << 20;

// The AIC's buffers (MAT, LEFT, RIGHT, ACC, BIAS); VEC is the AIV's.
bool IsCubeSpace(trace::MemSpace space);

// What an Op.MOVE from one memory space to another is, after PyPTO's memory
// graph and its cube/vector boundary moves (hw-native-sys/pypto@e2d0f78a
// src/backend/common/soc.cpp, docs/en/dev/passes/21-expand_mixed_kernel.md):
// kCube stays on the AIC (MAT -> LEFT, RIGHT, BIAS; ACC -> MAT), kToVector
// and kToCube cross between the cores of a MIX cluster (ACC, MAT -> VEC;
// VEC -> MAT, LEFT, RIGHT); kNone is no move.
enum class MoveRoute : uint8_t { kNone, kCube, kToVector, kToCube };
MoveRoute MoveRouteOf(trace::MemSpace from, trace::MemSpace to);

// A TileDecl with its 2-D geometry precomputed. Rank-1 tiles are one row.
struct CompiledTile {
  std::string name;
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
  trace::MemSpace space = trace::MEM_SPACE_UNSPECIFIED;
  int rank = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  // A pl.MemRef tile (TileDecl.slots, .slot): `slots` > 0 slots of one
  // allocation; with `has_slot` the slot is picked at run time, and the tile
  // lives in CompiledKernel::tile_buffers[tile] + slot.
  uint32_t slots = 0;
  bool has_slot = false;
  CompiledIntExpr slot;
  int64_t elements() const { return rows * cols; }
};

// A loop-carried tile (trace::Op::Loop::Carry): `tile` takes `init` at loop
// entry and `next` at every iteration's end.
struct CompiledCarry {
  int32_t tile = -1;
  int32_t init = -1;  // -1: none (the value is first defined in the body)
  int32_t next = -1;
  // `next` is a carried tile of the same loop: the copies go through a
  // temporary so that all carries take the previous iteration's values.
  bool next_is_carried = false;
};

// A tile an IF's arms rebind (trace::Op::Branch::Phi): after the arm taken,
// `tile` holds that arm's value. One buffer, so the choice costs nothing.
struct CompiledPhi {
  int32_t tile = -1;
  int32_t then_value = -1;
  int32_t else_value = -1;
};

// A scalar register an IF's arms set (trace::Op::Branch::ScalarPhi).
struct CompiledScalarPhi {
  int32_t reg = -1;
  CompiledIntExpr then_expr, else_expr;
};

// One op in program pre-order; a LOOP's body follows it up to `body_end`, an
// IF's then arm up to `then_end` and its else arm from there to `body_end`.
struct CompiledOp {
  trace::Op::Kind kind = trace::Op::KIND_UNSPECIFIED;
  EngineKind engine = EngineKind::kVector;
  int32_t dst = -1;   // tile index, -1 if none
  int32_t src0 = -1;  // tile indices, -1 if none
  int32_t src1 = -1;
  int32_t src2 = -1;  // an accumulating MATMUL's accumulator
  // Tile-scalar forms and FULL: a literal, or a scalar param when >= 0.
  bool has_scalar = false;
  double scalar_literal = 0;
  int32_t scalar_param = -1;
  // LOAD / STORE / CACHE_INVALID.
  int32_t param = -1;
  std::vector<CompiledIntExpr> offsets;
  bool atomic_add = false;
  bool whole_cache = false;
  // SYNCALL: HARD (FFTS) or SOFT (GM counter), its participants' core type
  // and, for SOFT, the INT32 workspace param (`param`) and the participant
  // count (`stop` holds the used_cores expression).
  trace::Op::SyncMode sync_mode = trace::Op::SYNC_MODE_UNSPECIFIED;
  trace::CoreType sync_core_type = trace::CORE_TYPE_UNSPECIFIED;
  // MATMUL: dst[m, n] = op(a)[m, k] @ op(b)[k, n]; accumulating, plus
  // srcs[2] unless `init_cond` (when set) evaluates nonzero.
  bool a_trans = false;
  bool b_trans = false;
  int64_t m = 0, n = 0, k = 0;
  bool accumulate = false;
  bool has_init_cond = false;
  CompiledIntExpr init_cond;
  // ADD..MIN and EXPAND: how srcs[1] (EXPAND: srcs[0]) spans dst, a row
  // vector [rows, 1] (ROW) or a column vector [1, cols] (COL).
  trace::Op::Broadcast broadcast = trace::Op::BROADCAST_NONE;
  // CAST: the rounding (CAST_MODE_UNSPECIFIED is stored as CAST_ROUND).
  trace::Op::CastMode cast_mode = trace::Op::CAST_ROUND;
  // LOOP: for var in range(start, stop, step) over ops (index+1 .. body_end-1).
  uint32_t loop_var = 0;
  CompiledIntExpr start, stop, step;
  int32_t body_end = 0;
  std::vector<CompiledCarry> carries;  // copied all at once, at no cost
  // IF: nonzero `cond` runs the then arm; the phis take the arm's values.
  CompiledIntExpr cond;
  int32_t then_end = 0;
  std::vector<CompiledPhi> phis;
  std::vector<CompiledScalarPhi> scalar_phis;
  // READ: the scalar register it sets (the element at `offsets` of `param`:
  // one index per view dim, or one row-major index).
  int32_t scalar_reg = -1;
  // LOAD, TRI: its valid region (rows, cols), when pl.load(valid_shape=) or
  // pl.tile.tri(valid_shape=) gave one; empty = the whole tile.
  std::vector<CompiledIntExpr> valid_shape;
  // FILLPAD: what the padding becomes.
  trace::Op::PadValue pad = trace::Op::PAD_ZERO;
  // CMP: the comparison.
  trace::Op::Compare compare = trace::Op::COMPARE_UNSPECIFIED;
  // ADD, MUL, MAX, MIN: the TPART* form over the union of valid regions.
  bool partial = false;
  // TRI: ones where (upper ? c >= r + diagonal : c <= r + diagonal), over
  // `valid_shape` (empty = the whole tile).
  CompiledIntExpr diagonal;
  bool upper = false;
  // Elements the op processes (tile elements; the input's for reductions;
  // m*n for MATMUL; the source's for ASSEMBLE) and the GM bytes a LOAD/STORE
  // moves. ASSEMBLE's `offsets` place srcs[1] in dst (row, column).
  int64_t elements = 0;
  int64_t gm_bytes = 0;
  // "kernel 'k' op 3 (ADD, file.py:12)", the prefix of every runtime error.
  std::string label;
};

struct CompiledParam {
  std::string name;
  trace::KernelParam::Kind kind = trace::KernelParam::KIND_UNSPECIFIED;
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
};

// A validated kernel, ready for TileExecutor. Kernels with a CostSummary body
// have no ops; `cost` describes them.
struct CompiledKernel {
  // Unique per CompileKernel call (copies share it), so executors can cache
  // per-kernel data such as op costs; 0 = never cache.
  uint64_t uid = 0;
  uint32_t id = 0;
  std::string name;
  std::string origin;
  trace::CoreType core_type = trace::CORE_TYPE_UNSPECIFIED;
  bool is_cost_summary = false;
  trace::CostSummary cost;
  std::vector<CompiledParam> params;
  std::vector<CompiledTile> tiles;
  std::vector<CompiledOp> ops;     // pre-order, LOOP bodies inline
  uint32_t loop_var_count = 0;     // 1 + the highest loop var index used
  uint32_t scalar_count = 0;       // KernelProgram.scalar_count
  bool uses_valid_shapes = false;  // some LOAD has a valid_shape
  int64_t max_tile_bytes = 0;      // largest tile, for staging buffers
  trace::SplitMode split = trace::SPLIT_NONE;
  uint32_t slot_num = 2;
  // The on-chip buffer each tile lives in (per tile index): its
  // TileDecl.buffer (its own, the tile index, when the kernel has no
  // buffer_count), except that a loop carry is one buffer
  // (trace::Op::Loop::Carry) shared by the carried tile, its init and its
  // next -- unless next is another carried tile (a swap: two buffers that
  // trade roles). A tile with a runtime slot adds the slot per executed op
  // (OpRecord::slot). The core's pipes order ops by these buffers.
  std::vector<uint32_t> tile_buffers;
  // Buffer ids range over 0..buffer_count-1 (KernelProgram.buffer_count, or
  // the tile count when that is 0); ids from buffer_count on are free for
  // the pipes' own buffers (the L0 slots).
  uint32_t buffer_count = 0;
};

// Validates `kernel` and flattens it for execution. Checks: tile shapes (rank
// 1..2, positive dims, a sized dtype), every tile index in range and written
// before it is read (in program order), op operand counts, shapes and dtypes
// per op kind, LOAD/STORE params are TENSOR params of the tile's dtype with
// 1..5 offsets, scalars and IntExprs reference valid params and enclosing loop
// vars, loop vars unique, and loop carries: tile, init and next of one shape,
// dtype and space; the carried tile written by no op and carried by one loop
// once; init written before the loop, next by the end of its body; a carried
// tile with init readable from the loop op on, one without only after the
// loop; a MOVE between a MoveRouteOf pair (a crossing in MIX kernels only) of
// one shape and dtype; an accumulating MATMUL's accumulator of the result's
// shape and dtype; a tile's runtime slot (TileDecl.slot) over the loop vars
// enclosing every op that uses it, and no runtime-slot tile in a carry.
// Errors name the kernel, the op index (pre-order, counting LOOP bodies
// inline), its kind and origin, what was expected and what to do.
// Since version 8: row reductions' optional scratch (srcs[1]: same dtype and
// rank, no dim smaller), column reductions ([1, cols] results; COL_SUM's
// optional scratch of the input's shape), broadcasts (Op.broadcast on ADD..MIN
// and EXPAND: a [rows, 1] or [1, cols] operand of the result's dtype), CONCAT
// (equal rows and dtype, columns adding up), ASSEMBLE (the source inside the
// target at in-range constant offsets; Vec -> Vec, Mat -> Mat, Acc -> Mat),
// RESHAPE (equal element count) and TRANSPOSE_VIEW (2-D, swapped) keep dtype
// and space, and no op sets a field its kind does not read (broadcast,
// cast_mode).
// Also assigns CompiledKernel::tile_buffers: a RESHAPE or TRANSPOSE_VIEW
// result is its source's buffer (a view of the same bytes).
absl::StatusOr<CompiledKernel> CompileKernel(const trace::Kernel& kernel);

}  // namespace pto

#endif  // PTO_MODELS_CORE_KERNEL_PROGRAM_H_
