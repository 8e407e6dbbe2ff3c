#include "models/core/tile_executor.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "common/stop_request.h"
#include "models/core/op_cost.h"
#include "models/core/tile_codec.h"
#include "models/core/tile_predicates.h"

namespace pto {
namespace {

absl::Status InstanceLimitError(const std::string& label) {
  return absl::ResourceExhaustedError(
      absl::StrCat(label, ": the block has executed ", TileExecutor::kMaxOpInstancesPerBlock,
                   " op instances; check the loop bounds (runaway loop?) or split the kernel"));
}

using trace::Op;

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string KernelPrefix(const CompiledKernel& kernel) {
  return absl::StrCat("kernel '", kernel.name, "'");
}

absl::Status WithLabel(const CompiledOp& op, absl::string_view what, const absl::Status& cause) {
  return absl::Status(cause.code(), absl::StrCat(op.label, ": ", what, cause.message()));
}

std::string ViewShapeString(const TensorBinding& v) {
  return absl::StrCat("[", absl::StrJoin(absl::MakeConstSpan(v.shape, v.rank), ", "), "]");
}

// c = op(a) @ op(b), or c += op(a) @ op(b) when `accumulate`.
template <typename T>
void MatmulTyped(const T* a, int64_t a_rows, int64_t a_cols, bool a_trans, const T* b,
                 int64_t b_rows, int64_t b_cols, bool b_trans, T* c, int64_t m, int64_t n,
                 bool accumulate) {
  Eigen::Map<const RowMajorMatrix<T>> A(a, a_rows, a_cols);
  Eigen::Map<const RowMajorMatrix<T>> B(b, b_rows, b_cols);
  Eigen::Map<RowMajorMatrix<T>> C(c, m, n);
  const auto product = [&](const auto& lhs, const auto& rhs) {
    if (accumulate) {
      C.noalias() += lhs * rhs;
    } else {
      C.noalias() = lhs * rhs;
    }
  };
  if (!a_trans && !b_trans) {
    product(A, B);
  } else if (a_trans && !b_trans) {
    product(A.transpose(), B);
  } else if (!a_trans && b_trans) {
    product(A, B.transpose());
  } else {
    product(A.transpose(), B.transpose());
  }
}

template <typename S, typename D>
void CastValues(const S* src, D* dst, int64_t count, trace::DType to, trace::Op::CastMode mode) {
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = static_cast<D>(CastElement(static_cast<double>(src[i]), to, mode));
  }
}

// d = a OP rhs for ADD..MIN: rhs an Eigen array of a's length or a scalar.
template <typename Out, typename In, typename Rhs>
void ApplyBinary(trace::Op::Kind kind, const In& a, const Rhs& rhs, Out& d) {
  switch (kind) {
    case Op::ADD:
      d = a + rhs;
      break;
    case Op::SUB:
      d = a - rhs;
      break;
    case Op::MUL:
      d = a * rhs;
      break;
    case Op::DIV:
      d = a / rhs;
      break;
    case Op::MAX:
      d = a.max(rhs);
      break;
    case Op::FMOD:  // C's fmod: the remainder takes the dividend's sign
      if constexpr (std::is_arithmetic_v<Rhs>) {
        d = a.unaryExpr([rhs](auto x) { return std::fmod(x, rhs); });
      } else {
        d = a.binaryExpr(rhs, [](auto x, auto y) { return std::fmod(x, y); });
      }
      break;
    default:
      d = a.min(rhs);
      break;
  }
}

// One element of a partial op (TPARTADD ...) where both operands are valid.
template <typename T>
T PartialElement(trace::Op::Kind kind, T a, T b) {
  switch (kind) {
    case Op::ADD:
      return a + b;
    case Op::MUL:
      return a * b;
    case Op::MAX:
      return std::max(a, b);
    default:
      return std::min(a, b);
  }
}

}  // namespace

TileExecutor::TileExecutor(const ChipConfig& config) : config_(config) {}

template <>
float* TileExecutor::Values<float>(int32_t tile) {
  return tiles_[tile].f.data();
}
template <>
double* TileExecutor::Values<double>(int32_t tile) {
  return tiles_[tile].d.data();
}

absl::Status TileExecutor::Execute(const CompiledKernel& kernel, const BlockContext& block,
                                   absl::Span<const BoundArg> args, bool functional, GmPort* gm,
                                   ExecutionProfile* profile, CoreSyncHooks* hooks) {
  profile->Clear();
  paused_ = false;
  at_transfer_ = false;
  resuming_transfer_ = false;
  if (kernel.is_cost_summary) {
    const int64_t blocks = std::max<int64_t>(1, block.block_num);
    const CostSummaryTiming t = CostSummaryTime(kernel.cost, kernel.core_type, blocks, config_);
    if (!(t.total_ns() <= kMaxCostSummaryNs)) {
      return absl::InvalidArgumentError(absl::StrCat(
          KernelPrefix(kernel), ": its cost summary takes ", t.total_ns(),
          " ns per block on this chip; expected at most ", kMaxCostSummaryNs,
          " ns (1000 s): check cube_flops, vector_elements, bytes_in/bytes_out and fixed_cycles"));
    }
    // This block's share of the call's work; the last block takes the
    // remainders, and so does the last phase.
    const bool last_block = block.block_idx + 1 == blocks;
    auto share = [&](int64_t total) { return total / blocks + (last_block ? total % blocks : 0); };
    const int64_t in = share(static_cast<int64_t>(kernel.cost.bytes_in()));
    const int64_t out = share(static_cast<int64_t>(kernel.cost.bytes_out()));
    const int64_t elements = share(static_cast<int64_t>(kernel.cost.vector_elements()));
    for (int64_t p = 0; p < t.phases; ++p) {
      const bool last = p + 1 == t.phases;
      OpRecord r;
      r.op_index = static_cast<uint32_t>(p);
      r.engine = t.engine;
      r.cost_ns = stop_at_transfers_ ? t.compute_phase_ns : t.phase_ns;
      r.elements = elements / t.phases + (last ? elements % t.phases : 0);
      r.gm_bytes_read = in / t.phases + (last ? in % t.phases : 0);
      r.gm_bytes_written = out / t.phases + (last ? out % t.phases : 0);
      profile->Add(r);
    }
    return absl::OkStatus();
  }
  if (functional && gm == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(KernelPrefix(kernel),
                     ": functional execution needs a GmPort; pass one or run timing-only"));
  }
  if (absl::Status s = Prepare(kernel, args, functional); !s.ok()) return s;
  if (!functional && gm != nullptr &&
      staging_.size() < static_cast<size_t>(kernel.max_tile_bytes)) {
    staging_.resize(static_cast<size_t>(kernel.max_tile_bytes));
  }
  kernel_ = &kernel;
  op_costs_now_ = &OpCosts(kernel);
  block_ = block;
  args_ = args;
  functional_ = functional;
  gm_ = gm;
  profile_ = profile;
  hooks_ = hooks;
  pc_ = 0;
  frames_.clear();
  unrecorded_copies_ = 0;
  return RunProgram();
}

absl::Status TileExecutor::Resume() {
  if (!paused_ && !at_transfer_) {
    return absl::FailedPreconditionError("TileExecutor::Resume: the block is not paused");
  }
  resuming_transfer_ = at_transfer_;
  paused_ = false;
  at_transfer_ = false;
  return RunProgram();
}

absl::Status TileExecutor::PauseAt(const CompiledOp& op, int32_t pc, const IntEnv& env) {
  syncall_ = SyncallRequest{};
  syncall_.op_index = pc;
  syncall_.mode = op.sync_mode == trace::Op::SOFT ? trace::Op::SOFT : trace::Op::HARD;
  syncall_.core_type = op.sync_core_type;
  if (syncall_.mode == trace::Op::SOFT) {
    absl::StatusOr<int64_t> used = op.stop.Evaluate(env);
    if (!used.ok()) return WithLabel(op, "used_cores: ", used.status());
    if (*used < 1) {
      return absl::InvalidArgumentError(absl::StrCat(op.label, ": used_cores evaluated to ", *used,
                                                     "; a soft syncall needs at least 1"));
    }
    syncall_.used_cores = *used;
    syncall_.workspace_addr = args_[op.param].tensor.gm_addr;
  }
  paused_ = true;
  return absl::OkStatus();
}

absl::Status TileExecutor::StopAtTransfer(const CompiledOp& op, int32_t pc) {
  transfer_runs_ = GmRuns{};
  if (op.kind != trace::Op::FENCE) {
    const CompiledKernel& kernel = *kernel_;
    const bool write = op.kind == trace::Op::STORE;
    absl::StatusOr<const CompiledTile*> moved = TransferTile(op, BlockEnv());
    if (!moved.ok()) return moved.status();
    const CompiledTile& tile = **moved;
    Window w;
    if (absl::Status s = ResolveWindow(kernel, op, tile, args_, block_, &w); !s.ok()) return s;
    const uint64_t esize = DTypeSize(tile.dtype);
    if (w.col_stride == 1) {
      transfer_runs_ = GmRuns{w.addr, static_cast<uint64_t>(tile.cols) * esize, tile.rows,
                              static_cast<uint64_t>(w.row_stride) * esize};
    } else if (w.row_stride == 1 || tile.rows == 1) {
      // A transposed window: its columns are the contiguous runs.
      transfer_runs_ = GmRuns{w.addr, static_cast<uint64_t>(tile.rows) * esize, tile.cols,
                              static_cast<uint64_t>(w.col_stride) * esize};
    } else {
      // Neither way contiguous: its elements, spaced as one of its rows.
      transfer_runs_ =
          GmRuns{w.addr, esize, tile.rows * tile.cols, static_cast<uint64_t>(w.col_stride) * esize};
    }
    transfer_direction_ = write ? GmDirection::kWrite : GmDirection::kRead;
  }
  pc_ = pc;
  at_transfer_ = true;
  return absl::OkStatus();
}

const std::vector<double>& TileExecutor::OpCosts(const CompiledKernel& kernel) {
  std::vector<double>* costs = &scratch_costs_;
  if (kernel.uid != 0) {
    auto [it, inserted] = op_costs_.try_emplace(kernel.uid);
    costs = &it->second;
    if (!inserted) return *costs;
  }
  costs->resize(kernel.ops.size());
  for (size_t i = 0; i < kernel.ops.size(); ++i) {
    (*costs)[i] = OpCostNs(kernel.ops[i], kernel, config_);
  }
  return *costs;
}

absl::Status TileExecutor::Prepare(const CompiledKernel& kernel, absl::Span<const BoundArg> args,
                                   bool functional) {
  if (args.size() != kernel.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat(KernelPrefix(kernel), " takes ",
                                                   kernel.params.size(), " arguments but ",
                                                   args.size(), " were bound"));
  }
  param_ints_.assign(args.size(), 0);
  param_floats_.assign(args.size(), 0.0);
  for (size_t i = 0; i < args.size(); ++i) {
    const CompiledParam& p = kernel.params[i];
    const BoundArg& a = args[i];
    // Built only when reporting an error: no strings on the hot path.
    const auto what = [&] {
      return absl::StrCat(KernelPrefix(kernel), " argument ", i, " ('", p.name, "')");
    };
    if (p.kind == trace::KernelParam::TENSOR) {
      if (a.kind != BoundArg::Kind::kTensor) {
        return absl::InvalidArgumentError(
            absl::StrCat(what(), " is a TENSOR parameter but a scalar was bound"));
      }
      const TensorBinding& t = a.tensor;
      if (t.rank < 1 || t.rank > kMaxViewRank) {
        return absl::InvalidArgumentError(absl::StrCat(what(), " is bound to a view of rank ",
                                                       t.rank, "; expected 1..", kMaxViewRank));
      }
      if (p.dtype != trace::DTYPE_UNSPECIFIED && t.dtype != p.dtype) {
        return absl::InvalidArgumentError(absl::StrCat(what(), " is ", DTypeName(p.dtype),
                                                       " but is bound to a ", DTypeName(t.dtype),
                                                       " tensor view"));
      }
      for (int d = 0; d < t.rank; ++d) {
        if (t.shape[d] < 0 || t.strides[d] < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(what(), " is bound to a view with negative shape or stride in dim ", d));
        }
      }
      continue;
    }
    if (a.kind == BoundArg::Kind::kTensor) {
      return absl::InvalidArgumentError(
          absl::StrCat(what(), " is a SCALAR parameter but a tensor view was bound"));
    }
    if (a.kind == BoundArg::Kind::kFloat) {
      if (!IsFloat(p.dtype) && p.dtype != trace::DTYPE_UNSPECIFIED) {
        return absl::InvalidArgumentError(absl::StrCat(what(), " is ", DTypeName(p.dtype),
                                                       " but the float ", a.f,
                                                       " was bound; bind an integer"));
      }
      param_floats_[i] = a.f;
      param_ints_[i] = static_cast<int64_t>(a.f);
    } else {
      param_ints_[i] = a.i;
      param_floats_[i] = static_cast<double>(a.i);
    }
  }
  loop_values_.assign(kernel.loop_var_count, 0);
  scalar_regs_.assign(kernel.scalar_count, 0);
  if (kernel.uses_valid_shapes) {
    valid_.resize(kernel.tiles.size());
    for (size_t i = 0; i < kernel.tiles.size(); ++i) {
      valid_[i] = {kernel.tiles[i].rows, kernel.tiles[i].cols};
    }
  }
  if (functional) {
    if (tiles_.size() < kernel.tiles.size()) tiles_.resize(kernel.tiles.size());
    for (size_t i = 0; i < kernel.tiles.size(); ++i) {
      const CompiledTile& t = kernel.tiles[i];
      if (ComputesInFloat(t.dtype)) {
        tiles_[i].f.resize(static_cast<size_t>(t.elements()));
      } else {
        tiles_[i].d.resize(static_cast<size_t>(t.elements()));
      }
    }
    if (staging_.size() < static_cast<size_t>(kernel.max_tile_bytes)) {
      staging_.resize(static_cast<size_t>(kernel.max_tile_bytes));
    }
  }
  return absl::OkStatus();
}

absl::Status TileExecutor::RunProgram() {
  const CompiledKernel& kernel = *kernel_;
  const std::vector<double>& op_costs = *op_costs_now_;
  const BlockContext& block = block_;
  const absl::Span<const BoundArg> args = args_;
  const bool functional = functional_;
  GmPort* gm = gm_;
  ExecutionProfile* profile = profile_;
  const IntEnv env = BlockEnv();
  const int32_t end = static_cast<int32_t>(kernel.ops.size());
  int32_t pc = pc_;
  // A kernel may spin long in zero simulated time (loops of loops that
  // record nothing): poll for a stop request every few thousand steps.
  constexpr uint32_t kStopPollSteps = 4096;
  uint32_t steps = 0;
  while (true) {
    if (++steps % kStopPollSteps == 0 && StopRequested()) {
      return absl::CancelledError(
          absl::StrCat(KernelPrefix(kernel), ": stopped while the kernel ran"));
    }
    // Close loop bodies that just ran to their end: iterate again or leave.
    while (!frames_.empty()) {
      LoopFrame& f = frames_.back();
      const CompiledOp& loop = kernel.ops[f.op];
      if (f.kind != FrameKind::kLoop) {
        const bool then_arm = f.kind == FrameKind::kThen;
        if (pc != (then_arm ? loop.then_end : loop.body_end)) break;
        const int32_t branch_pc = f.op;
        frames_.pop_back();
        if (absl::Status s = CloseArm(loop, branch_pc, then_arm, env); !s.ok()) return s;
        pc = loop.body_end;
        continue;
      }
      if (pc != loop.body_end) break;
      if (!loop.carries.empty()) {
        if (absl::Status s = CopyCarries(loop, f.op, CarryCopy::kNext); !s.ok()) return s;
      }
      int64_t next;
      const bool overflow = __builtin_add_overflow(f.value, f.step, &next);
      if (!overflow && (f.step > 0 ? next < f.stop : next > f.stop)) {
        f.value = next;
        loop_values_[loop.loop_var] = next;
        pc = f.op + 1;
        if (pc == loop.body_end) continue;  // an empty body (only a carrying loop has one)
        break;
      }
      frames_.pop_back();
    }
    if (pc >= end) break;
    const CompiledOp& op = kernel.ops[pc];

    if (op.kind == Op::LOOP) {
      // Entering a loop counts toward the block's instance limit, as a
      // branch does: an outer loop around an empty one still ends.
      if (profile->records.size() + ++unrecorded_copies_ >= kMaxOpInstancesPerBlock) {
        return InstanceLimitError(op.label);
      }
      absl::StatusOr<int64_t> start = op.start.Evaluate(env);
      if (!start.ok()) return WithLabel(op, "loop start: ", start.status());
      absl::StatusOr<int64_t> stop = op.stop.Evaluate(env);
      if (!stop.ok()) return WithLabel(op, "loop stop: ", stop.status());
      absl::StatusOr<int64_t> step = op.step.Evaluate(env);
      if (!step.ok()) return WithLabel(op, "loop step: ", step.status());
      if (*step == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(op.label, ": loop step evaluated to 0; a loop needs a non-zero step"));
      }
      if (!op.carries.empty()) {
        if (absl::Status s = CopyCarries(op, pc, CarryCopy::kInit); !s.ok()) return s;
      }
      const bool runs = *step > 0 ? *start < *stop : *start > *stop;
      // An empty body without carries changes nothing; with carries its
      // iterations still copy (a swap's parity depends on the trip count).
      if (!runs || (op.body_end == pc + 1 && op.carries.empty())) {
        pc = op.body_end;
        continue;
      }
      loop_values_[op.loop_var] = *start;
      frames_.push_back({pc, *start, *stop, *step});
      ++pc;
      continue;
    }

    if (op.kind == Op::IF) {
      // A branch on the scalar unit: no pipe time of its own, but it counts
      // toward the block's instance limit (a loop of empty IFs still ends).
      if (profile->records.size() + ++unrecorded_copies_ >= kMaxOpInstancesPerBlock) {
        return InstanceLimitError(op.label);
      }
      absl::StatusOr<int64_t> cond = op.cond.Evaluate(env);
      if (!cond.ok()) return WithLabel(op, "cond: ", cond.status());
      const bool then_arm = *cond != 0;
      frames_.push_back({pc, 0, 0, 0, then_arm ? FrameKind::kThen : FrameKind::kElse});
      pc = then_arm ? pc + 1 : op.then_end;
      continue;
    }

    if (stop_at_transfers_ &&
        (op.kind == Op::LOAD || op.kind == Op::STORE || op.kind == Op::FENCE)) {
      if (!resuming_transfer_) return StopAtTransfer(op, pc);
      resuming_transfer_ = false;
    }
    OpRecord rec;
    rec.op_index = static_cast<uint32_t>(pc);
    rec.kind = op.kind;
    rec.engine = op.engine;
    rec.elements = op.elements;
    rec.cost_ns = op_costs[pc];
    if (absl::Status s = ResolveSlots(kernel, op, env, &rec); !s.ok()) return s;
    switch (op.kind) {
      case Op::LOAD: {
        Window w;
        const CompiledTile& tile = kernel.tiles[op.dst];
        absl::StatusOr<const CompiledTile*> moved = TransferTile(op, env);
        if (!moved.ok()) return moved.status();
        const CompiledTile& region = **moved;
        const bool part = &region != &tile;
        if (absl::Status s = ResolveWindow(kernel, op, region, args, block, &w); !s.ok()) return s;
        if (gm != nullptr) {
          gm->BeginTransfer();
          if (functional) {
            if (part) {
              LoadPart(tile, op.dst, region, w, gm);
            } else {
              Load(tile, op.dst, w, gm);
            }
          } else {
            Touch(region, w, /*write=*/false, /*atomic=*/false, gm);
          }
          gm->EndTransfer();
        }
        if (part) {
          rec.gm_bytes_read = region.elements() * static_cast<int64_t>(DTypeSize(tile.dtype));
          rec.cost_ns = GmTransferNs(rec.gm_bytes_read, GmPathOf(op, kernel), config_);
        } else {
          rec.gm_bytes_read = op.gm_bytes;
        }
        if (kernel.uses_valid_shapes) valid_[op.dst] = {region.rows, region.cols};
        break;
      }
      case Op::STORE: {
        Window w;
        const CompiledTile& tile = kernel.tiles[op.src0];
        absl::StatusOr<const CompiledTile*> moved = TransferTile(op, env);
        if (!moved.ok()) return moved.status();
        const CompiledTile& region = **moved;
        const bool part = &region != &tile;
        if (absl::Status s = ResolveWindow(kernel, op, region, args, block, &w); !s.ok()) return s;
        if (gm != nullptr) {
          gm->BeginTransfer();
          if (functional) {
            if (part) {
              StorePart(tile, op.src0, region, w, op.atomic_add, gm);
            } else {
              Store(tile, op.src0, w, op.atomic_add, gm);
            }
          } else {
            Touch(region, w, /*write=*/true, op.atomic_add, gm);
          }
          gm->EndTransfer();
        }
        if (!functional && scalar_memory_ != nullptr && region.elements() > 0) {
          // No values in a timing-only run: what it writes is unknown.
          const uint64_t esize = DTypeSize(tile.dtype);
          const uint64_t last = static_cast<uint64_t>((region.rows - 1) * w.row_stride +
                                                      (region.cols - 1) * w.col_stride);
          scalar_memory_->NoteDeviceWrite(w.addr, (last + 1) * esize);
        }
        if (part) {
          rec.gm_bytes_written = region.elements() * static_cast<int64_t>(DTypeSize(tile.dtype));
          rec.cost_ns = GmTransferNs(rec.gm_bytes_written, GmPathOf(op, kernel), config_);
        } else {
          rec.gm_bytes_written = op.gm_bytes;
        }
        break;
      }
      case Op::READ:
        if (absl::Status s = ReadScalar(op, env); !s.ok()) return s;
        break;
      case Op::FILLPAD:
        if (functional) FillPad(kernel, op);
        break;
      case Op::EXTRACT: {
        int64_t at[2];
        if (absl::Status s =
                WindowAt(op, env, kernel.tiles[op.dst], kernel.tiles[op.src0], "takes", "from", at);
            !s.ok()) {
          return s;
        }
        if (functional) Extract(kernel, op, at[0], at[1]);
        break;
      }
      case Op::CACHE_INVALID:
        if (hooks_ != nullptr) {
          if (op.whole_cache) {
            hooks_->CleanInvalidateAll();
          } else {
            hooks_->CleanInvalidateLine(args[op.param].tensor.gm_addr);
          }
        }
        break;
      case Op::FENCE:
        if (hooks_ != nullptr) hooks_->Fence();
        break;
      case Op::MOVE:
        if (functional) CopyTile(kernel, op.dst, op.src0);
        break;
      case Op::MATMUL: {
        // pl.matmul_acc's init_cond: evaluated per instance, in timing runs
        // too, so both kinds of run fail alike.
        bool accumulate = op.accumulate;
        if (op.has_init_cond) {
          absl::StatusOr<int64_t> init = op.init_cond.Evaluate(env);
          if (!init.ok()) return WithLabel(op, "init_cond: ", init.status());
          accumulate = *init == 0;
        }
        if (functional) Compute(kernel, op, accumulate);
        break;
      }
      case Op::ASSEMBLE: {
        int64_t at[2];
        if (absl::Status s =
                WindowAt(op, env, kernel.tiles[op.src1], kernel.tiles[op.dst], "places", "in", at);
            !s.ok()) {
          return s;
        }
        if (functional) Assemble(kernel, op, at[0], at[1]);
        break;
      }
      case Op::TRI:
        if (absl::Status s = Triangle(kernel, op, env); !s.ok()) return s;
        break;
      case Op::SYNCALL:
        // The core arrives at the barrier and resumes after its release.
        if (absl::Status s = PauseAt(op, pc, env); !s.ok()) return s;
        profile->Add(rec);
        pc_ = pc + 1;
        return absl::OkStatus();
      default:
        if (functional) Compute(kernel, op);
        break;
    }
    if (profile->records.size() >= kMaxOpInstancesPerBlock) {
      return InstanceLimitError(op.label);
    }
    if (kernel.uses_valid_shapes && op.kind != Op::LOAD) NoteValid(op);
    profile->Add(rec);
    ++pc;
  }
  return absl::OkStatus();
}

absl::Status TileExecutor::WindowAt(const CompiledOp& op, const IntEnv& env,
                                    const CompiledTile& inner, const CompiledTile& outer,
                                    const char* verb, const char* preposition, int64_t at[2]) {
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<int64_t> o = op.offsets[i].Evaluate(env);
    if (!o.ok()) return WithLabel(op, absl::StrCat("offsets[", i, "]: "), o.status());
    at[i] = *o;
  }
  const int64_t bound[2] = {outer.rows - inner.rows, outer.cols - inner.cols};
  for (int i = 0; i < 2; ++i) {
    if (at[i] < 0 || at[i] > bound[i]) {
      return absl::OutOfRangeError(absl::StrCat(
          op.label, ": ", verb, " '", inner.name, "' [", inner.rows, ", ", inner.cols,
          "] at offsets [", at[0], ", ", at[1], "] ", preposition, " '", outer.name, "' [",
          outer.rows, ", ", outer.cols, "]; offsets[", i, "] must be in [0, ", bound[i], "]"));
    }
  }
  return absl::OkStatus();
}

IntEnv TileExecutor::BlockEnv() const {
  IntEnv env;
  env.block_idx = block_.block_idx;
  env.block_num = block_.block_num;
  env.subblock_idx = block_.subblock_idx;
  env.loop_vars = loop_values_;
  env.scalar_params = param_ints_;
  env.scalar_regs = scalar_regs_;
  return env;
}

absl::Status TileExecutor::CloseArm(const CompiledOp& branch, int32_t pc, bool then_arm,
                                    const IntEnv& env) {
  const CompiledKernel& kernel = *kernel_;
  for (const CompiledPhi& phi : branch.phis) {
    const int32_t value = then_arm ? phi.then_value : phi.else_value;
    if (functional_) CopyTile(kernel, phi.tile, value);
    if (kernel.uses_valid_shapes) valid_[phi.tile] = valid_[value];
  }
  if (!branch.phis.empty() && kernel.core_type == trace::MIX) {
    // A rename on the device: no time, but the MIX pipeline follows it.
    if (profile_->records.size() >= kMaxOpInstancesPerBlock) {
      return InstanceLimitError(branch.label);
    }
    OpRecord rec;
    rec.op_index = static_cast<uint32_t>(pc);
    rec.kind = Op::IF;
    rec.engine = branch.engine;
    rec.carry = then_arm ? CarryCopy::kThen : CarryCopy::kElse;
    profile_->Add(rec);
  }
  // All scalar phis read the registers as the arm left them.
  int64_t values[16];
  const size_t n = branch.scalar_phis.size();
  std::vector<int64_t> many;
  int64_t* out = values;
  if (n > 16) {
    many.resize(n);
    out = many.data();
  }
  for (size_t j = 0; j < n; ++j) {
    const CompiledScalarPhi& phi = branch.scalar_phis[j];
    absl::StatusOr<int64_t> v = (then_arm ? phi.then_expr : phi.else_expr).Evaluate(env);
    if (!v.ok()) return WithLabel(branch, absl::StrCat("scalar_phis[", j, "]: "), v.status());
    out[j] = *v;
  }
  for (size_t j = 0; j < n; ++j) scalar_regs_[branch.scalar_phis[j].reg] = out[j];
  return absl::OkStatus();
}

absl::Status TileExecutor::ReadScalar(const CompiledOp& op, const IntEnv& env) {
  const TensorBinding& v = args_[op.param].tensor;
  const std::string& name = kernel_->params[op.param].name;
  if (IsFloat(v.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(op.label, ": param '", name, "' is bound to a ",
                                                   DTypeName(v.dtype),
                                                   " view; a READ reads an integer tensor"));
  }
  int64_t index[kMaxViewRank];
  const int given = static_cast<int>(op.offsets.size());
  for (int d = 0; d < given; ++d) {
    absl::StatusOr<int64_t> o = op.offsets[d].Evaluate(env);
    if (!o.ok()) return WithLabel(op, absl::StrCat("offsets[", d, "]: "), o.status());
    index[d] = *o;
  }
  int64_t at[kMaxViewRank];
  if (given == v.rank) {
    std::copy(index, index + given, at);
  } else if (given == 1) {
    // One row-major index over the view (pypto's 1-D flat access).
    int64_t count = 1;
    for (int d = 0; d < v.rank; ++d) count *= v.shape[d];
    if (index[0] < 0 || index[0] >= count) {
      return absl::OutOfRangeError(absl::StrCat(op.label, ": flat index ", index[0],
                                                " is outside param '", name, "' (",
                                                ViewShapeString(v), ", ", count, " elements)"));
    }
    int64_t rest = index[0];
    for (int d = v.rank - 1; d >= 0; --d) {
      at[d] = rest % v.shape[d];
      rest /= v.shape[d];
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        op.label, ": has ", given, " indices but param '", name, "' is bound to a rank-", v.rank,
        " view ", ViewShapeString(v), "; give one per dimension, or one flat index"));
  }
  int64_t linear = 0;
  for (int d = 0; d < v.rank; ++d) {
    if (at[d] < 0 || at[d] >= v.shape[d]) {
      return absl::OutOfRangeError(
          absl::StrCat(op.label, ": reads [", absl::StrJoin(absl::MakeConstSpan(at, v.rank), ", "),
                       "] outside param '", name, "' ", ViewShapeString(v), " in dim ", d));
    }
    linear += at[d] * v.strides[d];
  }
  const size_t esize = DTypeSize(v.dtype);
  const uint64_t addr = v.gm_addr + static_cast<uint64_t>(linear) * esize;
  uint8_t bytes[8] = {};
  if (functional_) {
    gm_->Read(addr, bytes, esize);
  } else if (scalar_memory_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(op.label, ": reads param '", name,
                     "' to decide control, but this timing-only run has no tensor contents"));
  } else if (absl::Status s = scalar_memory_->ReadScalar(addr, bytes, esize); !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(op.label, ": reads param '", name, "' to decide control: ", s.message()));
  }
  scalar_regs_[op.scalar_reg] = LoadAsInt64(v.dtype, bytes);
  return absl::OkStatus();
}

absl::StatusOr<const CompiledTile*> TileExecutor::TransferTile(const CompiledOp& op,
                                                               const IntEnv& env) {
  const bool load = op.kind == Op::LOAD;
  const CompiledTile& tile = kernel_->tiles[load ? op.dst : op.src0];
  // The common case copies nothing: the whole tile moves.
  if (load ? op.valid_shape.empty() : !kernel_->uses_valid_shapes) return &tile;
  int64_t extent[2] = {tile.rows, tile.cols};
  if (load) {
    const int first = tile.rank == 1 ? 1 : 0;
    for (size_t i = 0; i < op.valid_shape.size(); ++i) {
      absl::StatusOr<int64_t> e = op.valid_shape[i].Evaluate(env);
      if (!e.ok()) return WithLabel(op, absl::StrCat("valid_shape[", i, "]: "), e.status());
      const int64_t bound = extent[first + i];
      if (*e < 0 || *e > bound) {
        return absl::OutOfRangeError(absl::StrCat(op.label, ": valid_shape[", i, "] is ", *e,
                                                  " but tile '", tile.name, "' has ", bound,
                                                  tile.rank == 2 && i == 0 ? " rows" : " columns",
                                                  "; a valid region lies inside its tile"));
      }
      extent[first + i] = *e;
    }
  } else {
    extent[0] = valid_[op.src0][0];
    extent[1] = valid_[op.src0][1];
  }
  if (extent[0] == tile.rows && extent[1] == tile.cols) return &tile;
  region_tile_ = tile;  // reuses its storage from instance to instance
  region_tile_.rows = extent[0];
  region_tile_.cols = extent[1];
  return &region_tile_;
}

void TileExecutor::LoadPart(const CompiledTile& tile, int32_t tile_index,
                            const CompiledTile& region, const Window& w, GmPort* gm) {
  // The padding reads as NaN (0 in an integer tile) until a FILLPAD: a
  // reduction that forgets to pad fails its check instead of passing by luck.
  const auto load = [&](auto* values, auto* packed) {
    using T = std::remove_pointer_t<decltype(values)>;
    std::fill(values, values + tile.elements(), std::numeric_limits<T>::quiet_NaN());
    if (region.elements() == 0) return;
    LoadTyped(region, packed, w, gm);
    for (int64_t r = 0; r < region.rows; ++r) {
      std::copy(packed + r * region.cols, packed + (r + 1) * region.cols, values + r * tile.cols);
    }
  };
  if (ComputesInFloat(tile.dtype)) {
    region_values_.f.resize(static_cast<size_t>(region.elements()));
    load(Values<float>(tile_index), region_values_.f.data());
  } else {
    region_values_.d.resize(static_cast<size_t>(region.elements()));
    load(Values<double>(tile_index), region_values_.d.data());
    // An integer tile's NaN is 0.
    if (!IsFloat(tile.dtype)) {
      double* v = Values<double>(tile_index);
      for (int64_t i = 0; i < tile.elements(); ++i) {
        if (std::isnan(v[i])) v[i] = 0;
      }
    }
  }
}

void TileExecutor::StorePart(const CompiledTile& tile, int32_t tile_index,
                             const CompiledTile& region, const Window& w, bool atomic, GmPort* gm) {
  if (region.elements() == 0) return;
  const auto store = [&](const auto* values, auto* packed) {
    for (int64_t r = 0; r < region.rows; ++r) {
      std::copy(values + r * tile.cols, values + r * tile.cols + region.cols,
                packed + r * region.cols);
    }
    StoreTyped(region, packed, w, atomic, gm);
  };
  if (ComputesInFloat(tile.dtype)) {
    region_values_.f.resize(static_cast<size_t>(region.elements()));
    store(Values<float>(tile_index), region_values_.f.data());
  } else {
    region_values_.d.resize(static_cast<size_t>(region.elements()));
    store(Values<double>(tile_index), region_values_.d.data());
  }
}

void TileExecutor::FillPad(const CompiledKernel& kernel, const CompiledOp& op) {
  const CompiledTile& tile = kernel.tiles[op.dst];
  const int64_t rows = kernel.uses_valid_shapes ? valid_[op.src0][0] : tile.rows;
  const int64_t cols = kernel.uses_valid_shapes ? valid_[op.src0][1] : tile.cols;
  const double pad = PadValueOf(op.pad, tile.dtype);
  const auto fill = [&](const auto* src, auto* dst) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(src)>>;
    for (int64_t r = 0; r < tile.rows; ++r) {
      for (int64_t c = 0; c < tile.cols; ++c) {
        const int64_t i = r * tile.cols + c;
        dst[i] = r < rows && c < cols ? src[i] : static_cast<T>(pad);
      }
    }
  };
  if (ComputesInFloat(tile.dtype)) {
    fill(Values<float>(op.src0), Values<float>(op.dst));
  } else {
    fill(Values<double>(op.src0), Values<double>(op.dst));
  }
}

namespace {

// TCOLSUM in FP16 / BF16 rounds every partial sum to the tile's format: row
// by row (its 2-operand form), or as a binary tree over adjacent rows when
// a tmp tile is given, an odd row folding into the first (upstream's
// tests/st/runtime/ops/test_col_reduction.py models both against the chip).
template <typename Block, typename T>
void HalfColumnSums(const Block& a, trace::DType dtype, bool tree, T* out) {
  const auto round = [dtype](double x) {
    return static_cast<T>(CastElement(x, dtype, trace::Op::CAST_RINT));
  };
  std::vector<T> buf(static_cast<size_t>(a.rows()));
  for (Eigen::Index c = 0; c < a.cols(); ++c) {
    if (!tree) {
      T acc = a(0, c);
      for (Eigen::Index r = 1; r < a.rows(); ++r) acc = round(acc + a(r, c));
      out[c] = acc;
      continue;
    }
    for (Eigen::Index r = 0; r < a.rows(); ++r) buf[r] = a(r, c);
    for (size_t n = buf.size(); n > 1; n /= 2) {
      const size_t half = n / 2;
      for (size_t i = 0; i < half; ++i) buf[i] = round(buf[2 * i] + buf[2 * i + 1]);
      if (n % 2 == 1) buf[0] = round(buf[0] + buf[n - 1]);
    }
    out[c] = buf[0];
  }
}

}  // namespace

// A reduction covers the source's valid region only, as the PTO ISA's
// TROWSUM / TCOLMAX ... iterate validRow x validCol
// (hw-native-sys/pypto@e2d0f78a tests/st/runtime/ops/test_row_min.py poisons
// the padding and expects it ignored); result lanes outside it read NaN.
template <typename T>
void TileExecutor::Reduce(const CompiledKernel& kernel, const CompiledOp& op) {
  const CompiledTile& at = kernel.tiles[op.src0];
  int64_t rows = at.rows, cols = at.cols;
  if (kernel.uses_valid_shapes) {
    rows = std::min(rows, valid_[op.src0][0]);
    cols = std::min(cols, valid_[op.src0][1]);
  }
  Eigen::Map<const RowMajorMatrix<T>> full(Values<T>(op.src0), at.rows, at.cols);
  const auto a = full.topLeftCorner(rows, cols);
  const bool by_row = op.kind == Op::ROW_SUM || op.kind == Op::ROW_MAX || op.kind == Op::ROW_MIN ||
                      op.kind == Op::ROW_PROD;
  Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> out(Values<T>(op.dst),
                                                      by_row ? at.rows : at.cols);
  out.setConstant(std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                        : T{0});
  if (rows == 0 || cols == 0) return;
  if (by_row) {
    auto head = out.head(rows);
    if (op.kind == Op::ROW_SUM) {
      head = a.rowwise().sum();
    } else if (op.kind == Op::ROW_PROD) {
      head = a.rowwise().prod();
    } else if (op.kind == Op::ROW_MAX) {
      head = a.rowwise().maxCoeff();
    } else {
      head = a.rowwise().minCoeff();
    }
  } else if (op.kind == Op::COL_SUM && (at.dtype == trace::FP16 || at.dtype == trace::BF16)) {
    HalfColumnSums(a, at.dtype, /*tree=*/op.src1 >= 0, Values<T>(op.dst));
  } else {
    auto head = out.head(cols);
    if (op.kind == Op::COL_SUM) {
      head = a.colwise().sum().transpose();
    } else if (op.kind == Op::COL_PROD) {
      head = a.colwise().prod().transpose();
    } else if (op.kind == Op::COL_MAX) {
      head = a.colwise().maxCoeff().transpose();
    } else {
      head = a.colwise().minCoeff().transpose();
    }
  }
}

void TileExecutor::NoteValid(const CompiledOp& op) {
  if (op.dst < 0) return;
  switch (op.kind) {
    // Elementwise results keep their first operand's valid region.
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
    case Op::DIV:
    case Op::MAX:
    case Op::MIN:
    case Op::EXP:
    case Op::NEG:
    case Op::SQRT:
    case Op::RSQRT:
    case Op::RECIP:
    case Op::CAST:
    case Op::MOVE:
    case Op::ABS:
    case Op::LOG:
    case Op::SIN:
    case Op::COS:
    case Op::NOT:
    case Op::LRELU:
    case Op::PRELU:
    case Op::FMOD:
    case Op::EXPDIF:
      valid_[op.dst] = valid_[op.src0];
      if (op.partial) {  // the union: both regions start at the origin
        valid_[op.dst] = {std::max(valid_[op.src0][0], valid_[op.src1][0]),
                          std::max(valid_[op.src0][1], valid_[op.src1][1])};
      }
      return;
    case Op::SELECT:  // the selected tile's
      valid_[op.dst] = valid_[op.src1];
      return;
    case Op::TRI:
      return;  // set by Triangle
    case Op::ROW_SUM:
    case Op::ROW_MAX:
    case Op::ROW_MIN:
    case Op::ROW_PROD:
      valid_[op.dst] = {valid_[op.src0][0], 1};
      return;
    case Op::COL_SUM:
    case Op::COL_MAX:
    case Op::COL_MIN:
    case Op::COL_PROD:
      valid_[op.dst] = {1, valid_[op.src0][1]};
      return;
    default: {
      const CompiledTile& tile = kernel_->tiles[op.dst];
      valid_[op.dst] = {tile.rows, tile.cols};
      return;
    }
  }
}

void TileExecutor::CopyTile(const CompiledKernel& kernel, int32_t dst, int32_t src) {
  if (ComputesInFloat(kernel.tiles[dst].dtype)) {
    std::copy(tiles_[src].f.begin(), tiles_[src].f.end(), tiles_[dst].f.begin());
  } else {
    std::copy(tiles_[src].d.begin(), tiles_[src].d.end(), tiles_[dst].d.begin());
  }
}

absl::Status TileExecutor::CopyCarries(const CompiledOp& loop, int32_t pc, CarryCopy copy) {
  const CompiledKernel& kernel = *kernel_;
  if (copy == CarryCopy::kInit) {
    bool any = false;
    for (const CompiledCarry& c : loop.carries) {
      if (c.init < 0) continue;
      any = true;
      if (functional_) CopyTile(kernel, c.tile, c.init);
    }
    if (!any) return absl::OkStatus();
  } else if (functional_) {
    // All carries take the previous iteration's values: a `next` that is
    // itself carried goes through a temporary first.
    size_t temps = 0;
    for (const CompiledCarry& c : loop.carries) {
      if (!c.next_is_carried) continue;
      if (carry_temps_.size() <= temps) carry_temps_.resize(temps + 1);
      const TileValues& from = tiles_[c.next];
      TileValues& temp = carry_temps_[temps++];
      if (ComputesInFloat(kernel.tiles[c.next].dtype)) {
        temp.f.assign(from.f.begin(), from.f.end());
      } else {
        temp.d.assign(from.d.begin(), from.d.end());
      }
    }
    temps = 0;
    for (const CompiledCarry& c : loop.carries) {
      if (!c.next_is_carried) {
        if (c.next != c.tile) CopyTile(kernel, c.tile, c.next);
        continue;
      }
      const TileValues& temp = carry_temps_[temps++];
      TileValues& to = tiles_[c.tile];
      if (ComputesInFloat(kernel.tiles[c.tile].dtype)) {
        std::copy(temp.f.begin(), temp.f.end(), to.f.begin());
      } else {
        std::copy(temp.d.begin(), temp.d.end(), to.d.begin());
      }
    }
  }
  // A rename on the device: no time, but the MIX pipeline follows it.
  if (profile_->records.size() + unrecorded_copies_ >= kMaxOpInstancesPerBlock) {
    return InstanceLimitError(loop.label);
  }
  if (kernel.core_type != trace::MIX) {
    ++unrecorded_copies_;
    return absl::OkStatus();
  }
  OpRecord rec;
  rec.op_index = static_cast<uint32_t>(pc);
  rec.kind = Op::LOOP;
  rec.engine = loop.engine;
  rec.carry = copy;
  profile_->Add(rec);
  return absl::OkStatus();
}

absl::Status TileExecutor::ResolveSlots(const CompiledKernel& kernel, const CompiledOp& op,
                                        const IntEnv& env, OpRecord* rec) {
  const int32_t operands[4] = {op.dst, op.src0, op.src1, op.src2};
  for (int k = 0; k < 4; ++k) {
    if (operands[k] < 0) continue;
    const CompiledTile& tile = kernel.tiles[operands[k]];
    if (!tile.has_slot) continue;
    absl::StatusOr<int64_t> slot = tile.slot.Evaluate(env);
    if (!slot.ok())
      return WithLabel(op, absl::StrCat("tile '", tile.name, "' slot: "), slot.status());
    if (*slot < 0 || *slot >= tile.slots) {
      return absl::OutOfRangeError(absl::StrCat(
          op.label, ": tile '", tile.name, "' picks slot ", *slot, " of its pl.MemRef allocation, ",
          "which has ", tile.slots, " slots; expected 0 <= slot < ", tile.slots,
          ": check the subscript (e.g. i % ", tile.slots, ")"));
    }
    rec->slot[k] = static_cast<uint32_t>(*slot);
  }
  return absl::OkStatus();
}

absl::Status TileExecutor::ResolveWindow(const CompiledKernel& kernel, const CompiledOp& op,
                                         const CompiledTile& tile, absl::Span<const BoundArg> args,
                                         const BlockContext& block, Window* window) {
  const TensorBinding& v = args[op.param].tensor;
  const std::string& param_name = kernel.params[op.param].name;
  if (v.dtype != tile.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        op.label, ": tile '", tile.name, "' is ", DTypeName(tile.dtype), " but param '", param_name,
        "' is bound to a ", DTypeName(v.dtype), " view; insert a CAST"));
  }
  const int rank = v.rank;
  if (static_cast<int>(op.offsets.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op.label, ": has ", op.offsets.size(), " offsets but param '", param_name,
                     "' is bound to a rank-", rank, " view ", ViewShapeString(v),
                     "; give one offset per view dimension"));
  }
  IntEnv env = BlockEnv();
  env.block_idx = block.block_idx;
  env.block_num = block.block_num;
  env.subblock_idx = block.subblock_idx;
  int64_t off[kMaxViewRank];
  int64_t ext[kMaxViewRank];
  for (int d = 0; d < rank; ++d) {
    absl::StatusOr<int64_t> o = op.offsets[d].Evaluate(env);
    if (!o.ok()) return WithLabel(op, absl::StrCat("offsets[", d, "]: "), o.status());
    off[d] = *o;
    ext[d] = 1;
  }
  ext[rank - 1] = tile.cols;
  if (tile.rank == 2) {
    if (rank >= 2) {
      ext[rank - 2] = tile.rows;
    } else if (tile.rows != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(op.label, ": 2-D tile '", tile.name, "' [", tile.rows, ", ", tile.cols,
                       "] does not fit the rank-1 view of param '", param_name, "'"));
    }
  }
  int64_t linear = 0;
  for (int d = 0; d < rank; ++d) {
    if (off[d] < 0 || off[d] > v.shape[d] - ext[d]) {
      return absl::OutOfRangeError(
          absl::StrCat(op.label, ": tile '", tile.name, "' at offsets [",
                       absl::StrJoin(absl::MakeConstSpan(off, rank), ", "), "] leaves the view ",
                       ViewShapeString(v), " of param '", param_name, "' in dim ", d,
                       " (needs 0 <= ", off[d], " and ", off[d], " + ", ext[d], " <= ", v.shape[d],
                       "); check the offsets or the view shape"));
    }
    linear += off[d] * v.strides[d];
  }
  const int64_t esize = static_cast<int64_t>(DTypeSize(tile.dtype));
  window->view = &v;
  window->addr = v.gm_addr + static_cast<uint64_t>(linear * esize);
  window->row_stride = rank >= 2 ? v.strides[rank - 2] : 0;
  window->col_stride = v.strides[rank - 1];
  return absl::OkStatus();
}

template <typename T>
void TileExecutor::LoadTyped(const CompiledTile& tile, T* dst, const Window& w, GmPort* gm) {
  const int64_t esize = static_cast<int64_t>(DTypeSize(tile.dtype));
  const int64_t cols = tile.cols;
  if (w.col_stride == 1) {
    // Whole rows: one ReadRows for the tile, then one decode.
    const size_t row_bytes = static_cast<size_t>(cols * esize);
    const uint64_t stride = static_cast<uint64_t>(w.row_stride * esize);
    if constexpr (std::is_same_v<T, float>) {
      if (tile.dtype == trace::FP32) {
        gm->ReadRows(w.addr, tile.rows, row_bytes, stride, dst);
        return;
      }
    }
    gm->ReadRows(w.addr, tile.rows, row_bytes, stride, staging_.data());
    DecodeElements<T>(tile.dtype, staging_.data(), dst, tile.rows * cols);
    return;
  }
  for (int64_t r = 0; r < tile.rows; ++r) {
    const uint64_t row_addr = w.addr + static_cast<uint64_t>(r * w.row_stride * esize);
    for (int64_t c = 0; c < cols; ++c) {
      gm->Read(row_addr + static_cast<uint64_t>(c * w.col_stride * esize), staging_.data(),
               static_cast<size_t>(esize));
      DecodeElements<T>(tile.dtype, staging_.data(), dst + r * cols + c, 1);
    }
  }
}

void TileExecutor::Load(const CompiledTile& tile, int32_t tile_index, const Window& w, GmPort* gm) {
  if (ComputesInFloat(tile.dtype)) {
    LoadTyped(tile, Values<float>(tile_index), w, gm);
  } else {
    LoadTyped(tile, Values<double>(tile_index), w, gm);
  }
}

template <typename T>
void TileExecutor::StoreTyped(const CompiledTile& tile, const T* src, const Window& w, bool atomic,
                              GmPort* gm) {
  const int64_t esize = static_cast<int64_t>(DTypeSize(tile.dtype));
  const int64_t cols = tile.cols;
  if (w.col_stride == 1) {
    // Whole rows: one encode for the tile (none for FP32), then the rows.
    const void* bytes = staging_.data();
    bool direct = false;
    if constexpr (std::is_same_v<T, float>) direct = tile.dtype == trace::FP32;
    if (direct) {
      bytes = src;
    } else {
      EncodeElements<T>(tile.dtype, src, staging_.data(), tile.rows * cols);
    }
    const size_t row_bytes = static_cast<size_t>(cols * esize);
    const uint64_t stride = static_cast<uint64_t>(w.row_stride * esize);
    if (!atomic) {
      gm->WriteRows(w.addr, tile.rows, row_bytes, stride, bytes);
      return;
    }
    for (int64_t r = 0; r < tile.rows; ++r) {
      gm->AtomicAdd(w.addr + r * stride, tile.dtype,
                    static_cast<const uint8_t*>(bytes) + r * row_bytes, static_cast<size_t>(cols));
    }
    return;
  }
  for (int64_t r = 0; r < tile.rows; ++r) {
    const uint64_t row_addr = w.addr + static_cast<uint64_t>(r * w.row_stride * esize);
    for (int64_t c = 0; c < cols; ++c) {
      const uint64_t addr = row_addr + static_cast<uint64_t>(c * w.col_stride * esize);
      EncodeElements<T>(tile.dtype, src + r * cols + c, staging_.data(), 1);
      if (atomic) {
        gm->AtomicAdd(addr, tile.dtype, staging_.data(), 1);
      } else {
        gm->Write(addr, staging_.data(), static_cast<size_t>(esize));
      }
    }
  }
}

void TileExecutor::Store(const CompiledTile& tile, int32_t tile_index, const Window& w, bool atomic,
                         GmPort* gm) {
  if (ComputesInFloat(tile.dtype)) {
    StoreTyped(tile, Values<float>(tile_index), w, atomic, gm);
  } else {
    StoreTyped(tile, Values<double>(tile_index), w, atomic, gm);
  }
}

void TileExecutor::Touch(const CompiledTile& tile, const Window& w, bool write, bool atomic,
                         GmPort* gm) {
  const int64_t esize = static_cast<int64_t>(DTypeSize(tile.dtype));
  const bool rows = w.col_stride == 1;
  if (rows && !atomic) {
    // Whole rows: one call for the tile (staging_ holds a tile's bytes), so
    // the port and the hazard detector see one transfer, not its rows.
    const size_t row_bytes = static_cast<size_t>(tile.cols * esize);
    const uint64_t stride = static_cast<uint64_t>(w.row_stride * esize);
    if (write) {
      gm->WriteRows(w.addr, tile.rows, row_bytes, stride, staging_.data());
    } else {
      gm->ReadRows(w.addr, tile.rows, row_bytes, stride, staging_.data());
    }
    return;
  }
  for (int64_t r = 0; r < tile.rows; ++r) {
    const uint64_t row_addr = w.addr + static_cast<uint64_t>(r * w.row_stride * esize);
    const int64_t pieces = rows ? 1 : tile.cols;
    const int64_t count = rows ? tile.cols : 1;
    for (int64_t c = 0; c < pieces; ++c) {
      const uint64_t addr = row_addr + static_cast<uint64_t>(c * w.col_stride * esize);
      const size_t bytes = static_cast<size_t>(count * esize);
      if (!write) {
        gm->Read(addr, staging_.data(), bytes);
      } else if (atomic) {
        gm->AtomicAdd(addr, tile.dtype, staging_.data(), static_cast<size_t>(count));
      } else {
        gm->Write(addr, staging_.data(), bytes);
      }
    }
  }
}

double TileExecutor::ScalarOf(const CompiledOp& op) const {
  return op.scalar_param >= 0 ? param_floats_[op.scalar_param] : op.scalar_literal;
}

void TileExecutor::Compute(const CompiledKernel& kernel, const CompiledOp& op, bool accumulate) {
  if (op.kind == Op::CAST) {
    Cast(kernel, op);
  } else if (op.kind == Op::CMP) {
    PackMask(kernel, op);
  } else if (ComputesInFloat(kernel.tiles[op.dst].dtype)) {
    ComputeTyped<float>(kernel, op, accumulate);
  } else {
    ComputeTyped<double>(kernel, op, accumulate);
  }
}

template <typename T>
void TileExecutor::ComputeTyped(const CompiledKernel& kernel, const CompiledOp& op,
                                bool accumulate) {
  const CompiledTile& dt = kernel.tiles[op.dst];
  const int64_t n = dt.elements();
  ArrayMap<T> d(Values<T>(op.dst), n);
  switch (op.kind) {
    case Op::ADD:
    case Op::SUB:
    case Op::MUL:
    case Op::DIV:
    case Op::MAX:
    case Op::MIN:
    case Op::FMOD: {
      ConstArrayMap<T> a(Values<T>(op.src0), n);
      if (op.partial && kernel.uses_valid_shapes) {
        Partial<T>(kernel, op);
      } else if (op.broadcast != Op::BROADCAST_NONE) {
        // One operand value per row (ROW) or column (COL): the op row by
        // row, against the row's value or the whole row vector.
        const CompiledTile& at = kernel.tiles[op.src0];
        const T* v = Values<T>(op.src1);
        for (int64_t r = 0; r < at.rows; ++r) {
          ConstArrayMap<T> a_row(Values<T>(op.src0) + r * at.cols, at.cols);
          ArrayMap<T> d_row(Values<T>(op.dst) + r * at.cols, at.cols);
          if (op.broadcast == Op::ROW) {
            ApplyBinary(op.kind, a_row, v[r], d_row);
          } else {
            ApplyBinary(op.kind, a_row, ConstArrayMap<T>(v, at.cols), d_row);
          }
        }
      } else if (op.src1 >= 0) {
        ApplyBinary(op.kind, a, ConstArrayMap<T>(Values<T>(op.src1), n), d);
      } else {
        ApplyBinary(op.kind, a, static_cast<T>(ScalarOf(op)), d);
      }
      break;
    }
    case Op::EXP:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).exp();
      break;
    case Op::SQRT:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).sqrt();
      break;
    case Op::RSQRT:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).rsqrt();
      break;
    case Op::RECIP:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).inverse();
      break;
    case Op::NEG:
      d = -ConstArrayMap<T>(Values<T>(op.src0), n);
      break;
    case Op::ABS:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).abs();
      break;
    case Op::LOG:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).log();
      break;
    case Op::SIN:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).sin();
      break;
    case Op::COS:
      d = ConstArrayMap<T>(Values<T>(op.src0), n).cos();
      break;
    case Op::NOT: {
      // ~x is -x - 1 in two's complement; an unsigned x flips to max - x.
      const trace::DType dtype = kernel.tiles[op.src0].dtype;
      const T top = IsSignedInt(dtype) ? T{-1} : static_cast<T>(PadValueOf(Op::PAD_MAX, dtype));
      d = top - ConstArrayMap<T>(Values<T>(op.src0), n);
      break;
    }
    case Op::LRELU: {
      ConstArrayMap<T> a(Values<T>(op.src0), n);
      d = (a > T{0}).select(a, a * static_cast<T>(ScalarOf(op)));
      break;
    }
    case Op::PRELU: {
      ConstArrayMap<T> a(Values<T>(op.src0), n);
      d = (a > T{0}).select(a, a * ConstArrayMap<T>(Values<T>(op.src1), n));
      break;
    }
    case Op::EXPDIF: {
      const CompiledTile& at = kernel.tiles[op.src0];
      const T* v = Values<T>(op.src1);
      for (int64_t r = 0; r < at.rows; ++r) {
        ConstArrayMap<T> a_row(Values<T>(op.src0) + r * at.cols, at.cols);
        ArrayMap<T> d_row(Values<T>(op.dst) + r * at.cols, at.cols);
        if (op.broadcast == Op::ROW) {
          d_row = (a_row - v[r]).exp();
        } else {
          d_row = (a_row - ConstArrayMap<T>(v, at.cols)).exp();
        }
      }
      break;
    }
    case Op::SELECT: {
      const CompiledTile& mt = kernel.tiles[op.src0];
      const MaskShape mask{mt.dtype, mt.rows, mt.cols};
      const double* bits = Values<double>(op.src0);
      const T* a = Values<T>(op.src1);
      const T* b = op.src2 >= 0 ? Values<T>(op.src2) : nullptr;
      const T otherwise = static_cast<T>(WrapScalar(dt.dtype, ScalarOf(op)));
      T* out = Values<T>(op.dst);
      for (int64_t r = 0; r < dt.rows; ++r) {
        for (int64_t c = 0; c < dt.cols; ++c) {
          const int64_t i = r * dt.cols + c;
          out[i] = MaskBit(bits, mask, r, c) ? a[i] : (b != nullptr ? b[i] : otherwise);
        }
      }
      break;
    }
    case Op::ROW_SUM:
    case Op::ROW_MAX:
    case Op::ROW_MIN:
    case Op::ROW_PROD:
    case Op::COL_SUM:
    case Op::COL_MAX:
    case Op::COL_MIN:
    case Op::COL_PROD:
      Reduce<T>(kernel, op);
      break;
    case Op::EXPAND: {
      const T* v = Values<T>(op.src0);
      for (int64_t r = 0; r < dt.rows; ++r) {
        ArrayMap<T> d_row(Values<T>(op.dst) + r * dt.cols, dt.cols);
        if (op.broadcast == Op::ROW) {
          d_row.setConstant(v[r]);
        } else {
          d_row = ConstArrayMap<T>(v, dt.cols);
        }
      }
      break;
    }
    case Op::CONCAT: {
      const CompiledTile& at = kernel.tiles[op.src0];
      const CompiledTile& bt = kernel.tiles[op.src1];
      Eigen::Map<RowMajorMatrix<T>> out(Values<T>(op.dst), dt.rows, dt.cols);
      out.leftCols(at.cols) =
          Eigen::Map<const RowMajorMatrix<T>>(Values<T>(op.src0), at.rows, at.cols);
      out.rightCols(bt.cols) =
          Eigen::Map<const RowMajorMatrix<T>>(Values<T>(op.src1), bt.rows, bt.cols);
      break;
    }
    case Op::RESHAPE:  // the same elements in the same order
      d = ConstArrayMap<T>(Values<T>(op.src0), n);
      break;
    case Op::TRANSPOSE_VIEW: {
      const CompiledTile& at = kernel.tiles[op.src0];
      Eigen::Map<RowMajorMatrix<T>>(Values<T>(op.dst), dt.rows, dt.cols) =
          Eigen::Map<const RowMajorMatrix<T>>(Values<T>(op.src0), at.rows, at.cols).transpose();
      break;
    }
    case Op::FULL:
      d.setConstant(static_cast<T>(ScalarOf(op)));
      break;
    case Op::CREATE:  // undefined contents: a poison that a check shows
      d.setConstant(std::numeric_limits<T>::quiet_NaN());
      break;
    case Op::MATMUL: {
      const CompiledTile& at = kernel.tiles[op.src0];
      const CompiledTile& bt = kernel.tiles[op.src1];
      if (accumulate && op.src2 != op.dst) CopyTile(kernel, op.dst, op.src2);
      MatmulTyped<T>(Values<T>(op.src0), at.rows, at.cols, op.a_trans, Values<T>(op.src1), bt.rows,
                     bt.cols, op.b_trans, Values<T>(op.dst), op.m, op.n, accumulate);
      break;
    }
    default:
      return;
  }
  if (dt.dtype != trace::FP32) RoundToDType<T>(dt.dtype, Values<T>(op.dst), n);
}

template <typename T>
void TileExecutor::Partial(const CompiledKernel& kernel, const CompiledOp& op) {
  const CompiledTile& dt = kernel.tiles[op.dst];
  const std::array<int64_t, 2> va = valid_[op.src0], vb = valid_[op.src1];
  const T* a = Values<T>(op.src0);
  const T* b = Values<T>(op.src1);
  T* out = Values<T>(op.dst);
  for (int64_t r = 0; r < dt.rows; ++r) {
    for (int64_t c = 0; c < dt.cols; ++c) {
      const int64_t i = r * dt.cols + c;
      const bool in_a = r < va[0] && c < va[1];
      const bool in_b = r < vb[0] && c < vb[1];
      if (in_a && in_b) {
        out[i] = PartialElement(op.kind, a[i], b[i]);
      } else if (in_a || in_b) {
        out[i] = in_a ? a[i] : b[i];
      } else {
        out[i] = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T{0};
      }
    }
  }
}

void TileExecutor::PackMask(const CompiledKernel& kernel, const CompiledOp& op) {
  const CompiledTile& at = kernel.tiles[op.src0];
  const CompiledTile& mt = kernel.tiles[op.dst];
  const MaskShape mask{mt.dtype, mt.rows, mt.cols};
  const double scalar = op.has_scalar ? ScalarOf(op) : 0;
  if (ComputesInFloat(at.dtype)) {
    PackCompare<float>(op.compare, Values<float>(op.src0),
                       op.src1 >= 0 ? Values<float>(op.src1) : nullptr, scalar, at.rows, at.cols,
                       mask, Values<double>(op.dst));
  } else {
    PackCompare<double>(op.compare, Values<double>(op.src0),
                        op.src1 >= 0 ? Values<double>(op.src1) : nullptr, scalar, at.rows, at.cols,
                        mask, Values<double>(op.dst));
  }
}

absl::Status TileExecutor::Triangle(const CompiledKernel& kernel, const CompiledOp& op,
                                    const IntEnv& env) {
  const CompiledTile& dt = kernel.tiles[op.dst];
  absl::StatusOr<int64_t> diagonal = op.diagonal.Evaluate(env);
  if (!diagonal.ok()) return WithLabel(op, "diagonal: ", diagonal.status());
  int64_t extent[2] = {dt.rows, dt.cols};
  const int first = dt.rank == 1 ? 1 : 0;
  for (size_t i = 0; i < op.valid_shape.size(); ++i) {
    absl::StatusOr<int64_t> e = op.valid_shape[i].Evaluate(env);
    if (!e.ok()) return WithLabel(op, absl::StrCat("valid_shape[", i, "]: "), e.status());
    if (*e < 0 || *e > extent[first + i]) {
      return absl::OutOfRangeError(absl::StrCat(op.label, ": valid_shape[", i, "] is ", *e,
                                                " but tile '", dt.name, "' has ", extent[first + i],
                                                "; a valid region lies inside its tile"));
    }
    extent[first + i] = *e;
  }
  if (kernel.uses_valid_shapes) valid_[op.dst] = {extent[0], extent[1]};
  if (!functional_) return absl::OkStatus();
  if (ComputesInFloat(dt.dtype)) {
    FillTriangle(*diagonal, op.upper, extent[0], extent[1], dt.cols, Values<float>(op.dst));
  } else {
    FillTriangle(*diagonal, op.upper, extent[0], extent[1], dt.cols, Values<double>(op.dst));
  }
  return absl::OkStatus();
}

void TileExecutor::Cast(const CompiledKernel& kernel, const CompiledOp& op) {
  const CompiledTile& st = kernel.tiles[op.src0];
  const CompiledTile& dt = kernel.tiles[op.dst];
  const int64_t n = dt.elements();
  const bool src_float = ComputesInFloat(st.dtype);
  const bool dst_float = ComputesInFloat(dt.dtype);
  if (op.src0 == op.dst) return;  // same tile, same dtype: nothing to convert
  if (src_float && dst_float) {
    CastValues(Values<float>(op.src0), Values<float>(op.dst), n, dt.dtype, op.cast_mode);
  } else if (src_float) {
    CastValues(Values<float>(op.src0), Values<double>(op.dst), n, dt.dtype, op.cast_mode);
  } else if (dst_float) {
    CastValues(Values<double>(op.src0), Values<float>(op.dst), n, dt.dtype, op.cast_mode);
  } else {
    CastValues(Values<double>(op.src0), Values<double>(op.dst), n, dt.dtype, op.cast_mode);
  }
}

void TileExecutor::Extract(const CompiledKernel& kernel, const CompiledOp& op, int64_t row,
                           int64_t col) {
  const CompiledTile& source = kernel.tiles[op.src0];
  const CompiledTile& dt = kernel.tiles[op.dst];
  if (ComputesInFloat(dt.dtype)) {
    Eigen::Map<RowMajorMatrix<float>>(Values<float>(op.dst), dt.rows, dt.cols) =
        Eigen::Map<const RowMajorMatrix<float>>(Values<float>(op.src0), source.rows, source.cols)
            .block(row, col, dt.rows, dt.cols);
  } else {
    Eigen::Map<RowMajorMatrix<double>>(Values<double>(op.dst), dt.rows, dt.cols) =
        Eigen::Map<const RowMajorMatrix<double>>(Values<double>(op.src0), source.rows, source.cols)
            .block(row, col, dt.rows, dt.cols);
  }
}

void TileExecutor::Assemble(const CompiledKernel& kernel, const CompiledOp& op, int64_t row,
                            int64_t col) {
  const CompiledTile& source = kernel.tiles[op.src1];
  if (op.dst != op.src0) CopyTile(kernel, op.dst, op.src0);
  const CompiledTile& dt = kernel.tiles[op.dst];
  // The accumulator may narrow on its way out (FP32 -> BF16): round like
  // the FIXPIPE, to nearest even.
  const bool narrows = source.dtype != dt.dtype;
  if (ComputesInFloat(dt.dtype)) {
    Eigen::Map<RowMajorMatrix<float>> out(Values<float>(op.dst), dt.rows, dt.cols);
    out.block(row, col, source.rows, source.cols) =
        Eigen::Map<const RowMajorMatrix<float>>(Values<float>(op.src1), source.rows, source.cols);
    if (narrows) {
      for (int64_t r = 0; r < source.rows; ++r) {
        RoundToDType<float>(dt.dtype, Values<float>(op.dst) + (row + r) * dt.cols + col,
                            source.cols);
      }
    }
  } else {
    Eigen::Map<RowMajorMatrix<double>> out(Values<double>(op.dst), dt.rows, dt.cols);
    out.block(row, col, source.rows, source.cols) =
        Eigen::Map<const RowMajorMatrix<double>>(Values<double>(op.src1), source.rows, source.cols);
  }
}

}  // namespace pto
