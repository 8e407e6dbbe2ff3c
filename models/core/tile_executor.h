#ifndef PTO_MODELS_CORE_TILE_EXECUTOR_H_
#define PTO_MODELS_CORE_TILE_EXECUTOR_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "models/base/chip_config.h"
#include "models/core/execution_profile.h"
#include "models/core/int_expr.h"
#include "models/core/kernel_program.h"
#include "models/gm/gm_port.h"
#include "models/gm/gm_request.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Which block of an SPMD launch runs, as the kernel's IntExprs see it.
struct BlockContext {
  int64_t block_idx = 0;
  int64_t block_num = 1;
  int64_t subblock_idx = 0;
};

// A tensor argument as the core sees it: the view's first element and its
// geometry inside the root tensor.
struct TensorBinding {
  uint64_t gm_addr = 0;  // byte address of the view's element [0, ..., 0]
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
  int rank = 0;  // 1..kMaxViewRank
  int64_t shape[kMaxViewRank] = {};
  int64_t strides[kMaxViewRank] = {};  // elements, in the root tensor
  // The task argument's: what the kernel does with the view (a cost-summary
  // kernel's bytes come from and go to its arguments by it), and the bytes
  // it spans, from its first element to its last.
  trace::ArgDirection direction = trace::ARG_DIRECTION_UNSPECIFIED;
  uint64_t footprint_bytes = 0;
};

// One bound kernel argument: a tensor view or a scalar.
struct BoundArg {
  enum class Kind : uint8_t { kTensor, kInt, kFloat };
  Kind kind = Kind::kInt;
  TensorBinding tensor;
  int64_t i = 0;
  double f = 0;

  static BoundArg Tensor(const TensorBinding& t) {
    BoundArg a;
    a.kind = Kind::kTensor;
    a.tensor = t;
    return a;
  }
  static BoundArg Int(int64_t v) {
    BoundArg a;
    a.kind = Kind::kInt;
    a.i = v;
    return a;
  }
  static BoundArg Float(double v) {
    BoundArg a;
    a.kind = Kind::kFloat;
    a.f = v;
    return a;
  }
};

// What the executor asks of its core at the ops whose effects are the
// core's: data-cache maintenance and the fence (SYNCALL pauses instead).
class CoreSyncHooks {
 public:
  virtual ~CoreSyncHooks() = default;
  // CACHE_INVALID over the whole data cache, or the region overload: the
  // line holding `addr` (the view's base) only.
  virtual void CleanInvalidateAll() = 0;
  virtual void CleanInvalidateLine(uint64_t addr) = 0;
  // FENCE: wait until outstanding write-backs have landed.
  virtual void Fence() = 0;
};

// The SYNCALL a paused block waits at.
struct SyncallRequest {
  int32_t op_index = -1;
  trace::Op::SyncMode mode = trace::Op::HARD;
  trace::CoreType core_type = trace::AIV;
  int64_t used_cores = 0;       // SOFT: participants
  uint64_t workspace_addr = 0;  // SOFT: the counter's GM address
};

// Runs a CompiledKernel for one block: functionally (tile values through
// GmPort, math in float/double with rounding to each tile's dtype) and/or for
// timing (every executed op instance is recorded with its cost from
// op_cost.h). Not thread-safe; one executor per core. Buffers persist between
// calls, so steady-state execution of the same kernels allocates nothing
// (beyond what Eigen's matrix product may use internally).
class TileExecutor {
 public:
  // A block that executes more op instances than this fails (a runaway device
  // loop would otherwise hang the simulation and exhaust memory).
  static constexpr size_t kMaxOpInstancesPerBlock = size_t{1} << 20;
  // A cost-summary block longer than this (1000 s) is refused: the trace's
  // numbers are wrong, and picosecond time would overflow not far beyond.
  static constexpr double kMaxCostSummaryNs = 1e12;

  explicit TileExecutor(const ChipConfig& config);

  // `functional` = false is timing-only: no math and no data, but the same
  // offsets, bounds checks, loop trip counts and costs. `gm` may be null
  // then; when given, it sees the same accesses as a functional run (with
  // junk bytes), so a timed port charges timing-only runs the same. Errors (argument mismatches,
  // out-of-bounds windows, IntExpr division by zero, zero loop steps) name the kernel, op index,
  // kind and origin. `profile` is cleared first.
  //
  // Loop carries are copied (functional runs only) at loop entry and at each
  // iteration's end, in no simulated time; every such copy adds a zero-cost
  // LOOP record (OpRecord::carry) in both kinds of run.
  //
  // A SYNCALL pauses the block: Execute returns OK with paused() true and
  // syncall() describing the barrier; the loop state is kept, and Resume()
  // continues after the SYNCALL once the barrier released. The kernel, args,
  // port, hooks and profile must stay alive until the block ends. `hooks`
  // may be null (maintenance ops and fences are then no-ops).
  absl::Status Execute(const CompiledKernel& kernel, const BlockContext& block,
                       absl::Span<const BoundArg> args, bool functional, GmPort* gm,
                       ExecutionProfile* profile, CoreSyncHooks* hooks = nullptr);
  absl::Status Resume();
  bool paused() const { return paused_; }
  const SyncallRequest& syncall() const { return syncall_; }

  // With `on`, the block also stops before each GM transfer and each FENCE
  // (LOAD, STORE and FENCE ops): Execute or Resume returns OK with
  // at_transfer() true and transfer_op() its op index, having run nothing of
  // it; Resume() runs it and goes on to the next stop. A core that times
  // transfers on shared bandwidth issues each one at its own simulated time
  // this way, when the shares it will get are known. A cost-summary
  // kernel's records then carry its compute time only
  // (CostSummaryTiming::compute_phase_ns): the core moves its bytes. Off by
  // default.
  void set_stop_at_transfers(bool on) { stop_at_transfers_ = on; }
  bool at_transfer() const { return at_transfer_; }
  int32_t transfer_op() const { return at_transfer_ ? pc_ : -1; }
  // At a LOAD or STORE stop: the GM bytes the op will move (its window's
  // rows, or its columns for a transposed window; a window contiguous
  // neither way counts its elements as rows one column stride apart, the
  // right bytes at approximate addresses) and whether it writes. Zero rows
  // at a FENCE.
  const GmRuns& transfer_runs() const { return transfer_runs_; }
  GmDirection transfer_direction() const { return transfer_direction_; }

  const ChipConfig& config() const { return config_; }
  // Timing-only runs read READ values here (null: a READ is an error).
  void set_scalar_memory(const ScalarMemory* memory) { scalar_memory_ = memory; }

 private:
  // A tile's values: `f` for float-computed dtypes, `d` for the rest.
  struct TileValues {
    std::vector<float> f;
    std::vector<double> d;
  };
  // An open LOOP iteration, or an IF arm being run.
  enum class FrameKind : uint8_t { kLoop, kThen, kElse };
  struct LoopFrame {
    int32_t op;  // the LOOP or IF op
    int64_t value;
    int64_t stop;
    int64_t step;
    FrameKind kind = FrameKind::kLoop;
  };
  // A tile-shaped window of a bound view, resolved for one op instance.
  struct Window {
    const TensorBinding* view;
    uint64_t addr;       // first element
    int64_t row_stride;  // elements between tile rows
    int64_t col_stride;  // elements between tile columns
  };

  absl::Status Prepare(const CompiledKernel& kernel, absl::Span<const BoundArg> args,
                       bool functional);
  const std::vector<double>& OpCosts(const CompiledKernel& kernel);
  // Runs from pc_ until the end or the next SYNCALL.
  absl::Status RunProgram();
  absl::Status PauseAt(const CompiledOp& op, int32_t pc, const IntEnv& env);
  // Stops before the LOAD, STORE or FENCE at `pc`, noting what it moves.
  absl::Status StopAtTransfer(const CompiledOp& op, int32_t pc);
  // OpRecord::slot for the op's runtime-slot tiles, range-checked.
  static absl::Status ResolveSlots(const CompiledKernel& kernel, const CompiledOp& op,
                                   const IntEnv& env, OpRecord* rec);
  absl::Status ResolveWindow(const CompiledKernel& kernel, const CompiledOp& op,
                             const CompiledTile& tile, absl::Span<const BoundArg> args,
                             const BlockContext& block, Window* window);
  void Load(const CompiledTile& tile, int32_t tile_index, const Window& w, GmPort* gm);
  // Timing-only with a port: the same accesses as Load/Store, junk bytes.
  void Touch(const CompiledTile& tile, const Window& w, bool write, bool atomic, GmPort* gm);
  void Store(const CompiledTile& tile, int32_t tile_index, const Window& w, bool atomic,
             GmPort* gm);
  // The carries of `loop` (at `pc`) take their init or next values; timing-
  // only runs copy no data. In a MIX kernel a zero-cost LOOP record notes
  // the copy for the MIX pipeline, which follows tiles across engines; other
  // kernels need no record (their ops run in order on one engine), so the
  // copies only count toward the block's instance limit.
  absl::Status CopyCarries(const CompiledOp& loop, int32_t pc, CarryCopy copy);
  // What the running block's IntExprs read.
  IntEnv BlockEnv() const;
  // ASSEMBLE / EXTRACT: the (row, col) where `inner` lies in `outer` for this
  // instance, range-checked; errors read "<verb> 'inner' ... <preposition>
  // 'outer' ...".
  static absl::Status WindowAt(const CompiledOp& op, const IntEnv& env, const CompiledTile& inner,
                               const CompiledTile& outer, const char* verb, const char* preposition,
                               int64_t at[2]);
  // An IF arm ran to its end: its phis take the arm's values (a rename, no
  // time) and the scalar phis their expressions.
  // `pc` is the IF's index; a MIX kernel records its phis' rename.
  absl::Status CloseArm(const CompiledOp& branch, int32_t pc, bool then_arm, const IntEnv& env);
  // READ: the element's value into its scalar register.
  absl::Status ReadScalar(const CompiledOp& op, const IntEnv& env);
  // The tile a LOAD or STORE instance moves: its own, or region_tile_
  // narrowed to the part that is valid (a LOAD's valid_shape, a STORE's
  // source's valid region).
  absl::StatusOr<const CompiledTile*> TransferTile(const CompiledOp& op, const IntEnv& env);
  // A LOAD or STORE of part of a tile: through a packed copy of the region.
  void LoadPart(const CompiledTile& tile, int32_t tile_index, const CompiledTile& region,
                const Window& w, GmPort* gm);
  void StorePart(const CompiledTile& tile, int32_t tile_index, const CompiledTile& region,
                 const Window& w, bool atomic, GmPort* gm);
  void FillPad(const CompiledKernel& kernel, const CompiledOp& op);
  // An op's result's valid region (kernels with valid shapes only).
  void NoteValid(const CompiledOp& op);
  void CopyTile(const CompiledKernel& kernel, int32_t dst, int32_t src);
  // `accumulate`: an accumulating MATMUL adds onto its srcs[2] (its
  // init_cond, evaluated by the caller, was zero).
  void Compute(const CompiledKernel& kernel, const CompiledOp& op, bool accumulate = false);
  template <typename T>
  void ComputeTyped(const CompiledKernel& kernel, const CompiledOp& op, bool accumulate);
  void Cast(const CompiledKernel& kernel, const CompiledOp& op);
  // ASSEMBLE: dst <- srcs[0] with srcs[1] at (row, col), in bounds.
  void Assemble(const CompiledKernel& kernel, const CompiledOp& op, int64_t row, int64_t col);
  // EXTRACT: dst <- srcs[0]'s window at (row, col), in bounds.
  void Extract(const CompiledKernel& kernel, const CompiledOp& op, int64_t row, int64_t col);
  double ScalarOf(const CompiledOp& op) const;
  // ADD, MUL, MAX, MIN with `partial`: over the union of the valid regions.
  template <typename T>
  void Partial(const CompiledKernel& kernel, const CompiledOp& op);
  // CMP: srcs[0] against srcs[1] or the scalar, packed into dst.
  void PackMask(const CompiledKernel& kernel, const CompiledOp& op);
  // TRI: the triangle over its valid region; the rest keeps its contents.
  absl::Status Triangle(const CompiledKernel& kernel, const CompiledOp& op, const IntEnv& env);
  // ROW_* / COL_*: the reduction of srcs[0]'s valid region.
  template <typename T>
  void Reduce(const CompiledKernel& kernel, const CompiledOp& op);
  template <typename T>
  T* Values(int32_t tile);
  template <typename T>
  void LoadTyped(const CompiledTile& tile, T* dst, const Window& w, GmPort* gm);
  template <typename T>
  void StoreTyped(const CompiledTile& tile, const T* src, const Window& w, bool atomic, GmPort* gm);

  ChipConfig config_;
  std::vector<TileValues> tiles_;
  std::vector<uint8_t> staging_;         // one tile row (or one element) of GM bytes
  std::vector<TileValues> carry_temps_;  // a swap's previous values
  // Ops of this block that count toward the instance limit without a record:
  // carry copies, branches, loop entries.
  size_t unrecorded_copies_ = 0;
  // Op costs per kernel (by CompiledKernel::uid) under config_; computed once.
  absl::flat_hash_map<uint64_t, std::vector<double>> op_costs_;
  std::vector<double> scratch_costs_;  // for kernels with uid 0
  std::vector<int64_t> loop_values_;
  std::vector<int64_t> param_ints_;
  std::vector<double> param_floats_;
  std::vector<LoopFrame> frames_;
  std::vector<int64_t> scalar_regs_;
  // Per tile, its valid (rows, cols), tracked when the kernel has valid
  // shapes (CompiledKernel::uses_valid_shapes).
  std::vector<std::array<int64_t, 2>> valid_;
  TileValues region_values_;  // a partial LOAD / STORE's packed region
  CompiledTile region_tile_;  // TransferTile's narrowed tile
  const ScalarMemory* scalar_memory_ = nullptr;
  // The running block, kept across a SYNCALL pause.
  const CompiledKernel* kernel_ = nullptr;
  const std::vector<double>* op_costs_now_ = nullptr;
  BlockContext block_;
  absl::Span<const BoundArg> args_;
  bool functional_ = false;
  GmPort* gm_ = nullptr;
  ExecutionProfile* profile_ = nullptr;
  CoreSyncHooks* hooks_ = nullptr;
  int32_t pc_ = 0;
  bool paused_ = false;
  bool stop_at_transfers_ = false;
  bool at_transfer_ = false;
  bool resuming_transfer_ = false;  // the op at pc_ is the transfer stopped at
  GmRuns transfer_runs_;
  GmDirection transfer_direction_ = GmDirection::kRead;
  SyncallRequest syncall_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_TILE_EXECUTOR_H_
