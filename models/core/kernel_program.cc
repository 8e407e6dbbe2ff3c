#include "models/core/kernel_program.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/dtype.h"

namespace pto {
namespace {

using trace::Op;

// Tiles live on chip (at most 512 KB per buffer on a2a3); this bound only
// protects the simulator from absurd declarations.
constexpr int64_t kMaxTileBytes = 16ll << 20;
constexpr uint32_t kMaxLoopVar = 1024;
constexpr uint32_t kMaxScalarRegs = 1024;

std::string ShapeString(const CompiledTile& t) {
  if (t.rank == 1) return absl::StrCat("[", t.cols, "]");
  return absl::StrCat("[", t.rows, ", ", t.cols, "]");
}

bool IsFloatOnlyUnary(Op::Kind kind) {
  return kind == Op::EXP || kind == Op::SQRT || kind == Op::RSQRT || kind == Op::RECIP ||
         kind == Op::LOG || kind == Op::SIN || kind == Op::COS || kind == Op::LRELU;
}

// Bytes a row of `t` holds: a mask row's capacity in bits is eight times it.
int64_t RowBytes(const CompiledTile& t) {
  return t.cols * static_cast<int64_t>(DTypeSize(t.dtype));
}

std::string SpaceName(trace::MemSpace space) {
  return trace::MemSpace_IsValid(space) ? trace::MemSpace_Name(space) : absl::StrCat(space);
}

class Compiler {
 public:
  Compiler(const trace::Kernel& kernel, CompiledKernel* out) : kernel_(kernel), out_(out) {}

  absl::Status Run() {
    const trace::KernelProgram& program = kernel_.program();
    for (const trace::KernelParam& p : program.params()) {
      out_->params.push_back({p.name(), p.kind(), p.dtype()});
    }
    for (int i = 0; i < program.params_size(); ++i) {
      if (out_->params[i].kind == trace::KernelParam::KIND_UNSPECIFIED) {
        return KernelError(absl::StrCat("param ", i, " ('", out_->params[i].name,
                                        "') has no kind; set TENSOR or SCALAR"));
      }
    }
    for (int i = 0; i < program.tiles_size(); ++i) {
      if (absl::Status s = CompileTile(i, program.tiles(i)); !s.ok()) return s;
    }
    written_.assign(out_->tiles.size(), false);
    writer_op_.assign(out_->tiles.size(), -1);
    carry_loop_.assign(out_->tiles.size(), -1);
    carry_has_init_.assign(out_->tiles.size(), false);
    phi_if_.assign(out_->tiles.size(), -1);
    out_->scalar_count = program.scalar_count();
    if (program.scalar_count() > kMaxScalarRegs) {
      return KernelError(absl::StrCat("scalar_count is ", program.scalar_count(),
                                      "; expected at most ", kMaxScalarRegs));
    }
    if (absl::Status s = CompileOps(program.ops()); !s.ok()) return s;
    out_->split = program.split();
    out_->slot_num = program.slot_num() == 0 ? 2 : program.slot_num();
    return absl::OkStatus();
  }

 private:
  absl::Status KernelError(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", kernel_.name(), "'", kernel_.origin().empty() ? "" : " (",
                     kernel_.origin(), kernel_.origin().empty() ? "" : ")", ": ", what));
  }

  absl::Status OpError(const CompiledOp& op, const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(op.label, ": ", what));
  }

  absl::Status CompileTile(int index, const trace::TileDecl& decl) {
    CompiledTile tile;
    tile.name = decl.name();
    tile.dtype = decl.dtype();
    tile.space = decl.space();
    tile.rank = decl.shape_size();
    const std::string what = absl::StrCat("tile ", index, " ('", decl.name(), "')");
    if (tile.rank < 1 || tile.rank > 2) {
      return KernelError(absl::StrCat(what, " has rank ", tile.rank, "; tiles must be 1-D or 2-D"));
    }
    for (int64_t d : decl.shape()) {
      if (d <= 0) {
        return KernelError(absl::StrCat(what, " has a dimension of ", d,
                                        "; every tile dimension must be positive"));
      }
    }
    if (DTypeSize(tile.dtype) == 0) {
      return KernelError(absl::StrCat(what, " has no dtype; set TileDecl.dtype"));
    }
    tile.rows = tile.rank == 2 ? decl.shape(0) : 1;
    tile.cols = decl.shape(tile.rank - 1);
    if (tile.rows > kMaxTileBytes || tile.cols > kMaxTileBytes ||
        tile.elements() * static_cast<int64_t>(DTypeSize(tile.dtype)) > kMaxTileBytes) {
      return KernelError(absl::StrCat(what, " ", ShapeString(tile),
                                      " exceeds 16 MiB; on-chip buffers hold at most 512 KB"));
    }
    out_->max_tile_bytes = std::max<int64_t>(
        out_->max_tile_bytes, tile.elements() * static_cast<int64_t>(DTypeSize(tile.dtype)));
    // The trace reader names these fields; a kernel built in memory is
    // checked here too, as the buffers index the pipes' state.
    const trace::KernelProgram& program = kernel_.program();
    const uint64_t buffers = program.buffer_count() > 0
                                 ? uint64_t{program.buffer_count()}
                                 : static_cast<uint64_t>(program.tiles_size());
    const uint64_t last = uint64_t{decl.buffer()} + (decl.has_slot() ? decl.slots() : 1);
    if (program.buffer_count() > kMaxKernelBuffers || last > buffers ||
        (decl.has_slot() && decl.slots() == 0) ||
        (program.buffer_count() == 0 && decl.slots() > 0)) {
      return KernelError(absl::StrCat(
          what, " lives in buffer ", decl.buffer(),
          decl.has_slot() ? absl::StrCat(" with ", decl.slots(), " runtime slots") : "",
          "; expected buffer + max(slots, 1) <= ", buffers, " (buffer_count, at most ",
          kMaxKernelBuffers,
          ", set when any tile has slots) and slots > 0 with a "
          "slot"));
    }
    tile.slots = decl.slots();
    if (decl.has_slot()) {
      absl::StatusOr<CompiledIntExpr> slot = CompiledIntExpr::Compile(decl.slot());
      if (!slot.ok()) {
        return KernelError(absl::StrCat(what, " slot: ", slot.status().message()));
      }
      tile.has_slot = true;
      tile.slot = *std::move(slot);
    }
    out_->tiles.push_back(std::move(tile));
    return absl::OkStatus();
  }

  absl::Status CompileOps(const google::protobuf::RepeatedPtrField<Op>& ops) {
    for (const Op& op : ops) {
      if (absl::Status s = CompileOp(op); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  EngineKind KernelEngine() const {
    return kernel_.core_type() == trace::AIC ? EngineKind::kCube : EngineKind::kVector;
  }

  // Tile index checks. `role` is "dst", "srcs[0]" and so on.
  absl::Status CheckTileIndex(const CompiledOp& op, absl::string_view role, uint32_t index) const {
    if (index >= out_->tiles.size()) {
      return OpError(op, absl::StrCat(role, " is tile ", index, " but the kernel declares ",
                                      out_->tiles.size(), " tiles; use an index below that"));
    }
    return absl::OkStatus();
  }

  absl::Status CheckRead(const CompiledOp& op, const char* role, uint32_t index) const {
    if (absl::Status s = CheckTileIndex(op, role, index); !s.ok()) return s;
    if (!written_[index]) {
      std::string hint;
      if (carry_loop_[index] >= 0 && !carry_has_init_[index]) {
        hint = absl::StrCat(" (", out_->ops[carry_loop_[index]].label,
                            " carries it without init, so it holds a value only after that loop: "
                            "give the carry an init to read it in the body)");
      }
      return OpError(
          op, absl::StrCat(role, " reads tile ", index, " ('", out_->tiles[index].name,
                           "') before any op writes it", hint, "; load or compute it first"));
    }
    return absl::OkStatus();
  }

  // A carried tile is the loop's, a phi its IF's: no op writes it.
  absl::Status CheckNotCarried(const CompiledOp& op, uint32_t dst) const {
    if (const int32_t branch = phi_if_[dst]; branch >= 0) {
      return OpError(op, absl::StrCat("dst is tile ", dst, " ('", out_->tiles[dst].name,
                                      "'), a phi of ", out_->ops[branch].label,
                                      "; only its IF writes a phi: write the arm's value to "
                                      "another tile and make that the phi's then/else value"));
    }
    const int32_t loop = carry_loop_[dst];
    if (loop < 0) return absl::OkStatus();
    return OpError(op, absl::StrCat("dst is tile ", dst, " ('", out_->tiles[dst].name, "'), which ",
                                    out_->ops[loop].label,
                                    " carries; only its loop writes a carried tile: write the new "
                                    "value to another tile and make that the carry's next"));
  }

  static std::string CarryName(int j, const Op::Loop::Carry& carry) {
    return absl::StrCat("carries[", j, "]", carry.name().empty() ? "" : " ('", carry.name(),
                        carry.name().empty() ? "" : "')");
  }

  // `role` ("init", "next") of carry `j` must match its carried tile.
  absl::Status CheckCarryTile(const CompiledOp& op, const std::string& carry, const char* role,
                              int32_t index, int32_t tile) const {
    const CompiledTile& t = out_->tiles[tile];
    const CompiledTile& u = out_->tiles[index];
    if (t.rank == u.rank && t.rows == u.rows && t.cols == u.cols && t.dtype == u.dtype &&
        t.space == u.space) {
      return absl::OkStatus();
    }
    const auto describe = [](const CompiledTile& x) {
      return absl::StrCat(DTypeName(x.dtype), " ", ShapeString(x), " in ", SpaceName(x.space));
    };
    return OpError(
        op, absl::StrCat(carry, ".", role, " is tile ", index, " ('", u.name, "') ", describe(u),
                         " but the carried tile ", tile, " ('", t.name, "') is ", describe(t),
                         "; a carry's tile, init and next share shape, dtype and "
                         "memory space"));
  }

  absl::Status CheckSrcCount(const CompiledOp& op, const Op& proto, int expected) const {
    if (proto.srcs_size() != expected) {
      return OpError(op, absl::StrCat("expects ", expected, " source tile",
                                      expected == 1 ? "" : "s", ", got ", proto.srcs_size()));
    }
    return absl::OkStatus();
  }

  // Exactly `count` (1 or 2) source tiles, each written before: srcs[0] and
  // srcs[1] into src0 and src1.
  absl::Status ReadSources(CompiledOp* op, const Op& proto, int count) const {
    if (absl::Status s = CheckSrcCount(*op, proto, count); !s.ok()) return s;
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    if (count < 2) return absl::OkStatus();
    if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
    op->src1 = static_cast<int32_t>(proto.srcs(1));
    return absl::OkStatus();
  }

  absl::Status CompileScalar(CompiledOp* op, const Op& proto) const {
    op->has_scalar = true;
    const trace::ScalarOperand& s = proto.scalar();
    switch (s.kind_case()) {
      case trace::ScalarOperand::kLiteral:
        op->scalar_literal = s.literal();
        return absl::OkStatus();
      case trace::ScalarOperand::kScalarParam:
        if (s.scalar_param() >= out_->params.size() ||
            out_->params[s.scalar_param()].kind != trace::KernelParam::SCALAR) {
          return OpError(*op, absl::StrCat("scalar operand reads param ", s.scalar_param(),
                                           ", which is not a SCALAR parameter of the kernel (",
                                           out_->params.size(), " params)"));
        }
        op->scalar_param = static_cast<int32_t>(s.scalar_param());
        return absl::OkStatus();
      case trace::ScalarOperand::KIND_NOT_SET:
        break;
    }
    return OpError(*op, "scalar operand has neither literal nor scalar_param set");
  }

  absl::StatusOr<CompiledIntExpr> CompileExpr(const CompiledOp& op, const std::string& what,
                                              const trace::IntExpr& expr) const {
    if (absl::Status s = ValidateIntExpr(expr, kernel_.program(), loop_stack_); !s.ok()) {
      return OpError(op, absl::StrCat(what, ": ", s.message()));
    }
    absl::StatusOr<CompiledIntExpr> e = CompiledIntExpr::Compile(expr);
    if (!e.ok()) return OpError(op, absl::StrCat(what, ": ", e.status().message()));
    return e;
  }

  absl::Status CompileTensorAccess(CompiledOp* op, const Op& proto, const CompiledTile& tile) {
    if (proto.param() >= out_->params.size()) {
      return OpError(*op, absl::StrCat("param ", proto.param(), " is out of range; the kernel has ",
                                       out_->params.size(), " params"));
    }
    const CompiledParam& param = out_->params[proto.param()];
    if (param.kind != trace::KernelParam::TENSOR) {
      return OpError(*op, absl::StrCat("param ", proto.param(), " ('", param.name,
                                       "') is not a TENSOR parameter; LOAD/STORE need a tensor"));
    }
    if (param.dtype != trace::DTYPE_UNSPECIFIED && param.dtype != tile.dtype) {
      return OpError(
          *op, absl::StrCat("tile '", tile.name, "' is ", DTypeName(tile.dtype),
                            " but tensor param '", param.name, "' is ", DTypeName(param.dtype),
                            "; GM transfers do not convert, insert a CAST"));
    }
    op->param = static_cast<int32_t>(proto.param());
    if (proto.offsets_size() < 1 || proto.offsets_size() > kMaxViewRank) {
      return OpError(*op, absl::StrCat("has ", proto.offsets_size(),
                                       " offsets; give one per dimension of the tensor view (1..",
                                       kMaxViewRank, ")"));
    }
    for (int i = 0; i < proto.offsets_size(); ++i) {
      absl::StatusOr<CompiledIntExpr> e =
          CompileExpr(*op, absl::StrCat("offsets[", i, "]"), proto.offsets(i));
      if (!e.ok()) return e.status();
      op->offsets.push_back(*std::move(e));
    }
    op->elements = tile.elements();
    op->gm_bytes = tile.elements() * static_cast<int64_t>(DTypeSize(tile.dtype));
    return absl::OkStatus();
  }

  absl::Status CompileElementwise(CompiledOp* op, const Op& proto) {
    const bool tile_tile = proto.srcs_size() == 2;
    if (tile_tile && proto.has_scalar()) {
      return OpError(*op, "has two source tiles and a scalar; give one or the other");
    }
    if (!tile_tile && !(proto.srcs_size() == 1 && proto.has_scalar())) {
      return OpError(*op, absl::StrCat("expects 2 source tiles, or 1 tile and a scalar; got ",
                                       proto.srcs_size(), " tiles and ",
                                       proto.has_scalar() ? "a scalar" : "no scalar"));
    }
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    const CompiledTile& a = out_->tiles[op->src0];
    if (tile_tile) {
      if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
      op->src1 = static_cast<int32_t>(proto.srcs(1));
      const CompiledTile& b = out_->tiles[op->src1];
      if (a.dtype != b.dtype) {
        return OpError(*op, absl::StrCat("operand dtypes ", DTypeName(a.dtype), " and ",
                                         DTypeName(b.dtype), " differ; insert a CAST"));
      }
      if (op->broadcast != Op::BROADCAST_NONE) {
        if (absl::Status s = CheckBroadcastOperand(*op, "srcs[1]", b, a); !s.ok()) return s;
      } else if (a.rows != b.rows || a.cols != b.cols) {
        return OpError(*op, absl::StrCat("operand shapes ", ShapeString(a), " and ", ShapeString(b),
                                         " differ; elementwise ops need equal "
                                         "shapes (or a broadcast: Op.broadcast ROW or COL)"));
      }
    } else {
      if (op->broadcast != Op::BROADCAST_NONE) {
        return OpError(*op,
                       "broadcasts its srcs[1], but has a scalar instead; a broadcast needs "
                       "two source tiles");
      }
      if (absl::Status s = CompileScalar(op, proto); !s.ok()) return s;
    }
    return CheckSameAsDst(*op, a);
  }

  // `vec` spans `full` along op.broadcast: [rows, 1] for ROW, [1, cols] (or
  // rank-1 [cols]) for COL, of full's dtype.
  absl::Status CheckBroadcastOperand(const CompiledOp& op, const char* role,
                                     const CompiledTile& vec, const CompiledTile& full) const {
    if (vec.dtype != full.dtype) {
      return OpError(
          op, absl::StrCat(role, " '", vec.name, "' is ", DTypeName(vec.dtype),
                           " but the tile it spans is ", DTypeName(full.dtype), "; insert a CAST"));
    }
    const bool row = op.broadcast == Op::ROW;
    const bool fits = row ? vec.rank == 2 && vec.rows == full.rows && vec.cols == 1
                          : vec.rows == 1 && vec.cols == full.cols;
    if (!fits) {
      return OpError(
          op, absl::StrCat(
                  role, " '", vec.name, "' is ", ShapeString(vec), "; a ", row ? "ROW" : "COL",
                  " broadcast over ", ShapeString(full), " takes a ",
                  row ? absl::StrCat("[", full.rows, ", 1]") : absl::StrCat("[1, ", full.cols, "]"),
                  " tile"));
    }
    return absl::OkStatus();
  }

  // EXPAND: srcs[0] broadcast to dst's shape.
  absl::Status CompileExpand(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 1); !s.ok()) return s;
    if (op->broadcast == Op::BROADCAST_NONE) {
      return OpError(*op, "has no broadcast; EXPAND spans a row (ROW) or column (COL) vector");
    }
    return CheckBroadcastOperand(*op, "srcs[0]", out_->tiles[op->src0], out_->tiles[op->dst]);
  }

  // A scratch tile (row reductions, COL_SUM): the input's dtype and rank, no
  // dim smaller; `exact` (COL_SUM) wants the input's shape.
  absl::Status CheckScratch(CompiledOp* op, const Op& proto, bool exact) {
    if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
    op->src1 = static_cast<int32_t>(proto.srcs(1));
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& t = out_->tiles[op->src1];
    const bool fits =
        t.dtype == a.dtype && t.rank == a.rank &&
        (exact ? t.rows == a.rows && t.cols == a.cols : t.rows >= a.rows && t.cols >= a.cols);
    if (!fits) {
      return OpError(*op, absl::StrCat("scratch srcs[1] '", t.name, "' is ", DTypeName(t.dtype),
                                       " ", ShapeString(t), " for a ", DTypeName(a.dtype), " ",
                                       ShapeString(a), " input; it needs the input's dtype and ",
                                       exact ? "shape" : "rank and no smaller dimension"));
    }
    if (op->src1 == op->dst || op->src1 == op->src0) {
      return OpError(*op, "the scratch srcs[1] must be a tile of its own, not the input or result");
    }
    return absl::OkStatus();
  }

  absl::Status CompileColReduce(CompiledOp* op, const Op& proto) {
    const int max_srcs = proto.kind() == Op::COL_SUM || proto.kind() == Op::COL_PROD ? 2 : 1;
    if (proto.srcs_size() < 1 || proto.srcs_size() > max_srcs) {
      return OpError(*op,
                     absl::StrCat("expects 1 source tile", max_srcs == 2 ? " (and a scratch)" : "",
                                  ", got ", proto.srcs_size()));
    }
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    if (proto.srcs_size() == 2) {
      if (absl::Status s = CheckScratch(op, proto, /*exact=*/true); !s.ok()) return s;
    }
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& d = out_->tiles[op->dst];
    if (a.dtype != d.dtype) {
      return OpError(*op,
                     absl::StrCat("result tile '", d.name, "' is ", DTypeName(d.dtype),
                                  " but the operand is ", DTypeName(a.dtype), "; insert a CAST"));
    }
    if (d.rows != 1 || d.cols != a.cols) {
      return OpError(*op, absl::StrCat("result tile '", d.name, "' is ", ShapeString(d),
                                       "; a column reduction of ", ShapeString(a), " gives [1, ",
                                       a.cols, "]"));
    }
    op->elements = a.elements();
    return absl::OkStatus();
  }

  // CONCAT: [r, c0] | [r, c1] -> [r, c0 + c1].
  absl::Status CompileConcat(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 2); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& b = out_->tiles[op->src1];
    const CompiledTile& d = out_->tiles[op->dst];
    if (a.dtype != b.dtype || a.dtype != d.dtype) {
      return OpError(*op, absl::StrCat("joins ", DTypeName(a.dtype), " and ", DTypeName(b.dtype),
                                       " into ", DTypeName(d.dtype), "; CONCAT keeps one dtype"));
    }
    if (a.rows != b.rows || d.rows != a.rows || d.cols != a.cols + b.cols) {
      return OpError(
          *op, absl::StrCat("joins ", ShapeString(a), " and ", ShapeString(b), " into '", d.name,
                            "' ", ShapeString(d),
                            "; CONCAT needs equal rows and gives [rows, cols0 + cols1]"));
    }
    return absl::OkStatus();
  }

  // ASSEMBLE: srcs[1] written into a copy of srcs[0] at `offsets`.
  absl::Status CompileAssemble(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 2); !s.ok()) return s;
    const CompiledTile& target = out_->tiles[op->src0];
    const CompiledTile& source = out_->tiles[op->src1];
    const CompiledTile& d = out_->tiles[op->dst];
    if (absl::Status s = CheckSameAsDst(*op, target); !s.ok()) return s;
    if (d.space != target.space) {
      return OpError(*op, absl::StrCat("result '", d.name, "' is in ", SpaceName(d.space),
                                       " but the target is in ", SpaceName(target.space),
                                       "; ASSEMBLE writes into the target's buffer"));
    }
    const bool route = source.space == target.space
                           ? source.space == trace::VEC || source.space == trace::MAT
                           : source.space == trace::ACC && target.space == trace::MAT;
    if (!route) {
      return OpError(*op, absl::StrCat("assembles a ", SpaceName(source.space), " tile into ",
                                       SpaceName(target.space),
                                       "; ASSEMBLE goes VEC -> VEC, MAT -> MAT or ACC -> MAT"));
    }
    // A float accumulator narrows on its way out (FIXPIPE); elsewhere dtypes
    // match.
    const bool narrows =
        source.space == trace::ACC && IsFloat(source.dtype) && IsFloat(target.dtype);
    if (source.dtype != target.dtype && !narrows) {
      return OpError(*op, absl::StrCat("assembles ", DTypeName(source.dtype), " into ",
                                       DTypeName(target.dtype), "; insert a CAST"));
    }
    if (absl::Status s = CompileWindowOffsets(
            op, proto, source, target,
            absl::StrCat("places '", source.name, "' ", ShapeString(source)), "in");
        !s.ok()) {
      return s;
    }
    op->elements = source.elements();
    return absl::OkStatus();
  }

  // ASSEMBLE's and EXTRACT's (row, column) offsets: where `inner` lies in
  // `outer`, checked when constant ("<what> at offsets[1] = 9 <preposition>
  // [32, 16]; ...") and per instance otherwise.
  absl::Status CompileWindowOffsets(CompiledOp* op, const Op& proto, const CompiledTile& inner,
                                    const CompiledTile& outer, const std::string& what,
                                    const char* preposition) {
    if (proto.offsets_size() != 2) {
      return OpError(*op, absl::StrCat("has ", proto.offsets_size(), " offsets; ",
                                       Op::Kind_Name(proto.kind()), " takes 2 (row, column)"));
    }
    const int64_t extent[2] = {inner.rows, inner.cols};
    const int64_t bound[2] = {outer.rows, outer.cols};
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<CompiledIntExpr> e =
          CompileExpr(*op, absl::StrCat("offsets[", i, "]"), proto.offsets(i));
      if (!e.ok()) return e.status();
      if (e->is_constant()) {
        const int64_t at = *e->Evaluate(IntEnv{});
        if (at < 0 || at > bound[i] - extent[i]) {
          return OpError(
              *op, absl::StrCat(what, " at offsets[", i, "] = ", at, " ", preposition, " ",
                                ShapeString(outer),
                                "; it must lie inside: 0 <= offset <= ", bound[i] - extent[i]));
        }
      }
      op->offsets.push_back(*std::move(e));
    }
    return absl::OkStatus();
  }

  // EXTRACT: dst is a window of srcs[0] (same dtype and space, Vec or Mat)
  // at two offsets, each inside when constant (else checked per instance).
  absl::Status CompileExtract(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 1); !s.ok()) return s;
    const CompiledTile& source = out_->tiles[op->src0];
    const CompiledTile& d = out_->tiles[op->dst];
    if (source.dtype != d.dtype || source.space != d.space) {
      return OpError(
          *op, absl::StrCat("extracts a ", DTypeName(d.dtype), " tile in ", SpaceName(d.space),
                            " from a ", DTypeName(source.dtype), " one in ",
                            SpaceName(source.space), "; EXTRACT keeps dtype and memory space"));
    }
    if (source.space != trace::VEC && source.space != trace::MAT) {
      return OpError(*op, absl::StrCat("extracts from ", SpaceName(source.space),
                                       "; EXTRACT reads VEC or MAT tiles"));
    }
    if (d.rows > source.rows || d.cols > source.cols) {
      return OpError(*op, absl::StrCat("extracts ", ShapeString(d), " from ", ShapeString(source),
                                       "; the window lies inside the source"));
    }
    if (absl::Status s = CompileWindowOffsets(op, proto, d, source,
                                              absl::StrCat("extracts ", ShapeString(d)), "from");
        !s.ok()) {
      return s;
    }
    op->elements = d.elements();
    return absl::OkStatus();
  }

  // RESHAPE and TRANSPOSE_VIEW: the same bytes read under another shape.
  absl::Status CompileView(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 1); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& d = out_->tiles[op->dst];
    if (a.dtype != d.dtype || a.space != d.space) {
      return OpError(*op, absl::StrCat("views ", DTypeName(a.dtype), " in ", SpaceName(a.space),
                                       " as ", DTypeName(d.dtype), " in ", SpaceName(d.space),
                                       "; a view keeps dtype and memory space"));
    }
    if (a.has_slot || d.has_slot) {
      return OpError(*op,
                     "views a tile with a runtime slot; a view is its source's buffer, so "
                     "give it a literal slot or none");
    }
    if (proto.kind() == Op::RESHAPE) {
      if (a.elements() != d.elements()) {
        return OpError(*op, absl::StrCat("reshapes ", ShapeString(a), " (", a.elements(),
                                         " elements) to ", ShapeString(d), " (", d.elements(),
                                         "); a reshape keeps the element count"));
      }
    } else if (a.rank != 2 || d.rank != 2 || d.rows != a.cols || d.cols != a.rows) {
      return OpError(*op, absl::StrCat("views ", ShapeString(a), " as ", ShapeString(d),
                                       "; TRANSPOSE_VIEW of a 2-D [r, c] tile is [c, r]"));
    }
    op->elements = 0;  // no instruction
    return absl::OkStatus();
  }

  absl::Status CheckSameAsDst(const CompiledOp& op, const CompiledTile& a) const {
    const CompiledTile& d = out_->tiles[op.dst];
    if (a.dtype != d.dtype) {
      return OpError(op,
                     absl::StrCat("result tile '", d.name, "' is ", DTypeName(d.dtype),
                                  " but the operand is ", DTypeName(a.dtype), "; insert a CAST"));
    }
    if (a.rows != d.rows || a.cols != d.cols) {
      return OpError(
          op, absl::StrCat("result tile '", d.name, "' is ", ShapeString(d), " but the operand is ",
                           ShapeString(a), "; shapes must be equal"));
    }
    return absl::OkStatus();
  }

  absl::Status CompileMatmul(CompiledOp* op, const Op& proto) {
    op->accumulate = proto.accumulate();
    if (absl::Status s = CheckSrcCount(*op, proto, op->accumulate ? 3 : 2); !s.ok()) return s;
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    op->src1 = static_cast<int32_t>(proto.srcs(1));
    op->a_trans = proto.a_trans();
    op->b_trans = proto.b_trans();
    if (op->dst == op->src0 || op->dst == op->src1) {
      return OpError(*op, "MATMUL writes one of its own operands; give the result its own tile");
    }
    if (absl::Status s = CompileAccumulator(op, proto); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& b = out_->tiles[op->src1];
    const CompiledTile& c = out_->tiles[op->dst];
    if (a.rank != 2 || b.rank != 2 || c.rank != 2) {
      return OpError(*op, "MATMUL operands and result must be 2-D tiles");
    }
    if (a.dtype != b.dtype) {
      return OpError(*op, absl::StrCat("operand dtypes ", DTypeName(a.dtype), " and ",
                                       DTypeName(b.dtype), " differ; insert a CAST"));
    }
    const bool float_in =
        a.dtype == trace::FP16 || a.dtype == trace::BF16 || a.dtype == trace::FP32;
    const bool int8_in = a.dtype == trace::INT8 || a.dtype == trace::UINT8;
    if (!float_in && !int8_in) {
      return OpError(*op, absl::StrCat("operand dtype ", DTypeName(a.dtype),
                                       " is not a cube input; use FP16, BF16, FP32 or INT8"));
    }
    const bool float_out =
        c.dtype == trace::FP32 || c.dtype == trace::FP16 || c.dtype == trace::BF16;
    if ((float_in && !float_out) || (int8_in && c.dtype != trace::INT32)) {
      return OpError(*op, absl::StrCat("result dtype ", DTypeName(c.dtype), " does not fit ",
                                       DTypeName(a.dtype), " inputs; use ",
                                       float_in ? "FP32, FP16 or BF16" : "INT32"));
    }
    const int64_t m = op->a_trans ? a.cols : a.rows;
    const int64_t ka = op->a_trans ? a.rows : a.cols;
    const int64_t kb = op->b_trans ? b.cols : b.rows;
    const int64_t n = op->b_trans ? b.rows : b.cols;
    if (ka != kb) {
      return OpError(
          *op, absl::StrCat("inner dimensions differ: a gives k=", ka, " (", ShapeString(a),
                            ", a_trans=", op->a_trans, ") but b gives k=", kb, " (", ShapeString(b),
                            ", b_trans=", op->b_trans, ")"));
    }
    if (c.rows != m || c.cols != n) {
      return OpError(*op, absl::StrCat("result tile '", c.name, "' is ", ShapeString(c),
                                       " but the product is [", m, ", ", n, "]"));
    }
    op->m = m;
    op->n = n;
    op->k = ka;
    op->elements = m * n;
    return absl::OkStatus();
  }

  // An accumulating MATMUL's srcs[2] and init_cond (pl.matmul_acc).
  absl::Status CompileAccumulator(CompiledOp* op, const Op& proto) {
    if (!op->accumulate) {
      if (proto.has_init_cond()) {
        return OpError(*op, "has init_cond but does not accumulate; set accumulate (and srcs[2])");
      }
      return absl::OkStatus();
    }
    if (absl::Status s = CheckRead(*op, "srcs[2]", proto.srcs(2)); !s.ok()) return s;
    op->src2 = static_cast<int32_t>(proto.srcs(2));
    const CompiledTile& acc = out_->tiles[op->src2];
    const CompiledTile& c = out_->tiles[op->dst];
    if (acc.rank != c.rank || acc.rows != c.rows || acc.cols != c.cols || acc.dtype != c.dtype) {
      return OpError(
          *op, absl::StrCat("the accumulator srcs[2] ('", acc.name, "') is ", DTypeName(acc.dtype),
                            " ", ShapeString(acc), " but the result '", c.name, "' is ",
                            DTypeName(c.dtype), " ", ShapeString(c),
                            "; the result accumulates onto it, so they share shape "
                            "and dtype"));
    }
    if (proto.has_init_cond()) {
      absl::StatusOr<CompiledIntExpr> init = CompileExpr(*op, "init_cond", proto.init_cond());
      if (!init.ok()) return init.status();
      op->has_init_cond = true;
      op->init_cond = *std::move(init);
    }
    return absl::OkStatus();
  }

  absl::Status CompileMove(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 1); !s.ok()) return s;
    const CompiledTile& from = out_->tiles[op->src0];
    const CompiledTile& to = out_->tiles[op->dst];
    const MoveRoute route = MoveRouteOf(from.space, to.space);
    const std::string what = absl::StrCat("moves '", from.name, "' from ", SpaceName(from.space),
                                          " to ", SpaceName(to.space));
    if (route == MoveRoute::kNone) {
      return OpError(*op, absl::StrCat(what,
                                       ", which is no move; a MOVE goes MAT -> LEFT, RIGHT or "
                                       "BIAS, ACC -> MAT, or (MIX kernels) ACC or MAT -> VEC and "
                                       "VEC -> MAT, LEFT or RIGHT"));
    }
    if (route != MoveRoute::kCube && kernel_.core_type() != trace::MIX) {
      return OpError(
          *op,
          absl::StrCat(what, ", between the cube and the vector cores, but the kernel is ",
                       trace::CoreType_Name(kernel_.core_type()), "; only a MIX kernel has both"));
    }
    op->engine = IsCubeSpace(to.space) ? EngineKind::kCube : EngineKind::kVector;
    return CheckSameAsDst(*op, from);
  }

  absl::Status CompileRowReduce(CompiledOp* op, const Op& proto) {
    if (proto.srcs_size() < 1 || proto.srcs_size() > 2) {
      return OpError(
          *op, absl::StrCat("expects 1 source tile (and a scratch), got ", proto.srcs_size()));
    }
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    if (proto.srcs_size() == 2) {
      if (absl::Status s = CheckScratch(op, proto, /*exact=*/false); !s.ok()) return s;
    }
    const CompiledTile& a = out_->tiles[op->src0];
    const CompiledTile& d = out_->tiles[op->dst];
    if (a.dtype != d.dtype) {
      return OpError(*op,
                     absl::StrCat("result tile '", d.name, "' is ", DTypeName(d.dtype),
                                  " but the operand is ", DTypeName(a.dtype), "; insert a CAST"));
    }
    const bool column = d.rank == 2 && d.rows == a.rows && d.cols == 1;
    const bool vector = d.rank == 1 && d.cols == a.rows;
    if (!column && !vector) {
      return OpError(
          *op, absl::StrCat("result tile '", d.name, "' is ", ShapeString(d),
                            "; a row reduction of ", ShapeString(a), " gives [", a.rows, ", 1]"));
    }
    op->elements = a.elements();
    return absl::OkStatus();
  }

  absl::Status CompileSync(CompiledOp* op, const Op& proto) {
    const Op::Sync& sync = proto.sync();
    op->sync_mode = sync.mode() == Op::SOFT ? Op::SOFT : Op::HARD;
    op->sync_core_type =
        sync.core_type() == trace::CORE_TYPE_UNSPECIFIED ? trace::AIV : sync.core_type();
    if (op->sync_mode != Op::SOFT) return absl::OkStatus();
    if (sync.workspace_param() >= out_->params.size() ||
        out_->params[sync.workspace_param()].kind != trace::KernelParam::TENSOR) {
      return OpError(*op, absl::StrCat("param ", sync.workspace_param(),
                                       " is not a TENSOR parameter; a SOFT syncall needs its "
                                       "INT32 GM workspace tensor (gm_workspace=)"));
    }
    op->param = static_cast<int32_t>(sync.workspace_param());
    if (!sync.has_used_cores()) {
      return OpError(*op, "a SOFT syncall needs used_cores (the participant count)");
    }
    absl::StatusOr<CompiledIntExpr> used = CompileExpr(*op, "used_cores", sync.used_cores());
    if (!used.ok()) return used.status();
    op->stop = *std::move(used);
    return absl::OkStatus();
  }

  absl::Status CompileLoop(CompiledOp* op, size_t index, const Op& proto) {
    const Op::Loop& loop = proto.loop();
    if (loop.var() >= kMaxLoopVar) {
      return OpError(*op, absl::StrCat("loop var ", loop.var(),
                                       " is too large; number loop vars "
                                       "densely from 0"));
    }
    if (loop.var() < loop_var_used_.size() && loop_var_used_[loop.var()]) {
      return OpError(*op, absl::StrCat("loop var ", loop.var(),
                                       " is already used by another loop; loop vars must be "
                                       "unique within a program"));
    }
    if (loop_var_used_.size() <= loop.var()) loop_var_used_.resize(loop.var() + 1, false);
    loop_var_used_[loop.var()] = true;
    out_->loop_var_count = std::max(out_->loop_var_count, loop.var() + 1);
    op->loop_var = loop.var();
    if (!loop.has_stop()) return OpError(*op, "loop has no stop expression");
    absl::StatusOr<CompiledIntExpr> start =
        loop.has_start() ? CompileExpr(*op, "loop start", loop.start()) : CompiledIntExpr();
    if (!start.ok()) return start.status();
    absl::StatusOr<CompiledIntExpr> stop = CompileExpr(*op, "loop stop", loop.stop());
    if (!stop.ok()) return stop.status();
    absl::StatusOr<CompiledIntExpr> step =
        loop.has_step() ? CompileExpr(*op, "loop step", loop.step()) : CompiledIntExpr::Constant(1);
    if (!step.ok()) return step.status();
    if (step->is_constant() && *step->Evaluate(IntEnv{}) == 0) {
      return OpError(*op, "loop step is 0; use a non-zero step");
    }
    op->start = *std::move(start);
    op->stop = *std::move(stop);
    op->step = *std::move(step);
    return CompileCarries(op, index, loop);
  }

  // What a carry needs before the body: its tiles exist and match, `tile` is
  // the loop's alone, `init` has a value. `tile` counts as written from here
  // on when it has an init (CompileCarriesAfterBody does the rest).
  absl::Status CompileCarries(CompiledOp* op, size_t index, const Op::Loop& loop) {
    for (int j = 0; j < loop.carries_size(); ++j) {
      const Op::Loop::Carry& carry = loop.carries(j);
      const std::string what = CarryName(j, carry);
      if (absl::Status s = CheckTileIndex(*op, what + ".tile", carry.tile()); !s.ok()) return s;
      if (absl::Status s = CheckTileIndex(*op, what + ".next", carry.next()); !s.ok()) return s;
      if (carry.has_init()) {
        if (absl::Status s = CheckTileIndex(*op, what + ".init", carry.init()); !s.ok()) return s;
      }
      const int32_t tile = static_cast<int32_t>(carry.tile());
      const std::string& name = out_->tiles[tile].name;
      for (int i = 0; i < j; ++i) {
        if (loop.carries(i).tile() == carry.tile()) {
          return OpError(
              *op, absl::StrCat(what, " carries tile ", tile, " ('", name, "') like ",
                                CarryName(i, loop.carries(i)), "; list each carried tile once"));
        }
      }
      if (carry_loop_[tile] >= 0) {
        return OpError(
            *op, absl::StrCat(what, " carries tile ", tile, " ('", name, "'), which ",
                              out_->ops[carry_loop_[tile]].label,
                              " already carries; a tile is carried by one loop only: give this "
                              "loop a carried tile of its own (its init may be the other's)"));
      }
      if (writer_op_[tile] >= 0) {
        return OpError(
            *op, absl::StrCat(what, ".tile is tile ", tile, " ('", name, "'), which ",
                              out_->ops[writer_op_[tile]].label,
                              " writes; only its loop writes a carried tile: give the carry a "
                              "tile of its own and make that op's result its init"));
      }
      if (absl::Status s =
              CheckCarryTile(*op, what, "next", static_cast<int32_t>(carry.next()), tile);
          !s.ok()) {
        return s;
      }
      CompiledCarry compiled;
      compiled.tile = tile;
      compiled.next = static_cast<int32_t>(carry.next());
      if (carry.has_init()) {
        if (absl::Status s =
                CheckCarryTile(*op, what, "init", static_cast<int32_t>(carry.init()), tile);
            !s.ok()) {
          return s;
        }
        if (!written_[carry.init()]) {
          return OpError(*op, absl::StrCat(what, ".init reads tile ", carry.init(), " ('",
                                           out_->tiles[carry.init()].name,
                                           "') before any op writes it; compute the initial "
                                           "value before the loop"));
        }
        compiled.init = static_cast<int32_t>(carry.init());
      }
      op->carries.push_back(compiled);
    }
    for (CompiledCarry& c : op->carries) {
      carry_loop_[c.tile] = static_cast<int32_t>(index);
      carry_has_init_[c.tile] = c.init >= 0;
      for (const CompiledCarry& other : op->carries) {
        if (c.next != c.tile && c.next == other.tile) c.next_is_carried = true;
      }
    }
    for (const CompiledCarry& c : op->carries) {
      if (c.init >= 0) written_[c.tile] = true;
    }
    return absl::OkStatus();
  }

  // After the body: every `next` has a value by the end of an iteration, and
  // the carried tiles without init have one after the loop.
  absl::Status CompileCarriesAfterBody(const CompiledOp& op, const Op::Loop& loop) {
    for (int j = 0; j < loop.carries_size(); ++j) {
      const uint32_t next = loop.carries(j).next();
      if (!written_[next]) {
        return OpError(op, absl::StrCat(CarryName(j, loop.carries(j)), ".next is tile ", next,
                                        " ('", out_->tiles[next].name,
                                        "'), which nothing writes before the end of the loop "
                                        "body; write the next value in the body (or before "
                                        "the loop)"));
      }
    }
    for (const CompiledCarry& c : op.carries) written_[c.tile] = true;
    return absl::OkStatus();
  }

  // Op.broadcast and Op.cast_mode: read by their kinds only, never ignored.
  absl::Status CheckFloat(const CompiledOp& op, const CompiledTile& a) const {
    if (IsFloat(a.dtype)) return absl::OkStatus();
    return OpError(op, absl::StrCat("operand dtype ", DTypeName(a.dtype),
                                    " is not a float type; CAST to FP32 first"));
  }

  // The one-input ops; LRELU also takes its slope as the scalar.
  absl::Status CompileUnary(CompiledOp* op, const Op& proto) {
    if (absl::Status s = ReadSources(op, proto, 1); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src0];
    if (IsFloatOnlyUnary(proto.kind())) {
      if (absl::Status s = CheckFloat(*op, a); !s.ok()) return s;
    }
    if ((proto.kind() == Op::SIN || proto.kind() == Op::COS) && a.dtype != trace::FP32) {
      return OpError(*op, absl::StrCat("operand dtype ", DTypeName(a.dtype),
                                       " is not FP32; the vector unit's sine and cosine take "
                                       "FP32, CAST first"));
    }
    if (proto.kind() == Op::NOT && IsFloat(a.dtype)) {
      return OpError(*op, absl::StrCat("operand dtype ", DTypeName(a.dtype),
                                       " is not an integer type; NOT is bitwise"));
    }
    if (proto.kind() == Op::ABS && !IsFloat(a.dtype) && !IsSignedInt(a.dtype)) {
      return OpError(*op, absl::StrCat("operand dtype ", DTypeName(a.dtype),
                                       " is unsigned; ABS takes a float or signed integer tile"));
    }
    if (proto.kind() == Op::LRELU) {
      if (!proto.has_scalar()) return OpError(*op, "has no scalar; LRELU takes its slope as one");
      if (absl::Status s = CompileScalar(op, proto); !s.ok()) return s;
    } else if (proto.has_scalar()) {
      return OpError(*op, "sets a scalar, which a one-input op does not read; clear it");
    }
    return CheckSameAsDst(*op, a);
  }

  // Optional scratch sources past `first`: written before, not the result.
  absl::Status CheckTrailingScratch(const CompiledOp& op, const Op& proto, int first) const {
    for (int i = first; i < proto.srcs_size(); ++i) {
      const std::string role = absl::StrCat("srcs[", i, "]");
      if (absl::Status s = CheckRead(op, role.c_str(), proto.srcs(i)); !s.ok()) return s;
      if (static_cast<int32_t>(proto.srcs(i)) == op.dst) {
        return OpError(
            op, absl::StrCat("the scratch ", role, " must be a tile of its own, not the result"));
      }
    }
    return absl::OkStatus();
  }

  // PRELU: srcs = [x, slope] and an optional scratch.
  absl::Status CompilePrelu(CompiledOp* op, const Op& proto) {
    if (proto.srcs_size() < 2 || proto.srcs_size() > 3) {
      return OpError(
          *op, absl::StrCat("expects 2 source tiles (and a scratch), got ", proto.srcs_size()));
    }
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    op->src1 = static_cast<int32_t>(proto.srcs(1));
    if (absl::Status s = CheckTrailingScratch(*op, proto, 2); !s.ok()) return s;
    if (absl::Status s = CheckFloat(*op, out_->tiles[op->src0]); !s.ok()) return s;
    if (absl::Status s = CheckSameAsDst(*op, out_->tiles[op->src1]); !s.ok()) return s;
    return CheckSameAsDst(*op, out_->tiles[op->src0]);
  }

  // A packed mask (CMP's dst, SELECT's srcs[0]): an integer tile with `rows`
  // rows and a bit for each of `cols` columns.
  absl::Status CheckMask(const CompiledOp& op, const char* role, const CompiledTile& mask,
                         int64_t rows, int64_t cols) const {
    if (IsFloat(mask.dtype)) {
      return OpError(op, absl::StrCat(role, " '", mask.name, "' is ", DTypeName(mask.dtype),
                                      "; a packed mask is an integer tile (UINT8)"));
    }
    const int64_t need = (cols + 7) / 8;
    if (mask.rows != rows || RowBytes(mask) < need) {
      return OpError(op, absl::StrCat(role, " '", mask.name, "' is ", DTypeName(mask.dtype), " ",
                                      ShapeString(mask), "; a mask of ", rows, " rows of ", cols,
                                      " columns needs ", rows, " rows of at least ", need,
                                      " bytes (one bit a column)"));
    }
    return absl::OkStatus();
  }

  absl::Status CompileCompare(CompiledOp* op, const Op& proto) {
    if (op->compare == Op::COMPARE_UNSPECIFIED) {
      return OpError(*op, "has no compare; set CMP_EQ .. CMP_GE");
    }
    const bool tile_tile = proto.srcs_size() == 2;
    if (tile_tile == proto.has_scalar() || proto.srcs_size() < 1 || proto.srcs_size() > 2) {
      return OpError(*op, absl::StrCat("expects 2 source tiles, or 1 tile and a scalar; got ",
                                       proto.srcs_size(), " tiles and ",
                                       proto.has_scalar() ? "a scalar" : "no scalar"));
    }
    if (absl::Status s = ReadSources(op, proto, proto.srcs_size()); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src0];
    if (tile_tile) {
      const CompiledTile& b = out_->tiles[op->src1];
      if (a.dtype != b.dtype || a.rows != b.rows || a.cols != b.cols) {
        return OpError(*op, absl::StrCat("operands are ", DTypeName(a.dtype), " ", ShapeString(a),
                                         " and ", DTypeName(b.dtype), " ", ShapeString(b),
                                         "; CMP compares tiles of one shape and dtype"));
      }
    } else if (absl::Status s = CompileScalar(op, proto); !s.ok()) {
      return s;
    }
    op->elements = a.elements();
    return CheckMask(*op, "result tile", out_->tiles[op->dst], a.rows, a.cols);
  }

  // SELECT: [mask, a, b] or [mask, a] and the scalar, then an optional scratch.
  absl::Status CompileSelect(CompiledOp* op, const Op& proto) {
    const int operands = proto.has_scalar() ? 2 : 3;
    if (proto.srcs_size() < operands || proto.srcs_size() > operands + 1) {
      return OpError(
          *op, absl::StrCat("expects ", operands, " source tiles",
                            proto.has_scalar() ? " (mask, a) and the scalar" : " (mask, a, b)",
                            " and an optional scratch; got ", proto.srcs_size()));
    }
    if (absl::Status s = CheckRead(*op, "srcs[0]", proto.srcs(0)); !s.ok()) return s;
    if (absl::Status s = CheckRead(*op, "srcs[1]", proto.srcs(1)); !s.ok()) return s;
    op->src0 = static_cast<int32_t>(proto.srcs(0));
    op->src1 = static_cast<int32_t>(proto.srcs(1));
    if (operands == 3) {
      if (absl::Status s = CheckRead(*op, "srcs[2]", proto.srcs(2)); !s.ok()) return s;
      op->src2 = static_cast<int32_t>(proto.srcs(2));
      if (absl::Status s = CheckSameAsDst(*op, out_->tiles[op->src2]); !s.ok()) return s;
    } else if (absl::Status s = CompileScalar(op, proto); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckTrailingScratch(*op, proto, operands); !s.ok()) return s;
    const CompiledTile& a = out_->tiles[op->src1];
    if (absl::Status s = CheckSameAsDst(*op, a); !s.ok()) return s;
    return CheckMask(*op, "srcs[0]", out_->tiles[op->src0], a.rows, a.cols);
  }

  absl::Status CompileTri(CompiledOp* op, const Op& proto) {
    if (proto.srcs_size() != 0) return OpError(*op, "TRI takes no source tiles");
    if (!proto.has_diagonal()) return OpError(*op, "has no diagonal; TRI needs one (0: the main)");
    absl::StatusOr<CompiledIntExpr> d = CompileExpr(*op, "diagonal", proto.diagonal());
    if (!d.ok()) return d.status();
    op->diagonal = *std::move(d);
    op->upper = proto.upper();
    return CompileValidShape(op, proto);
  }

  absl::Status CompileModifiers(CompiledOp* op, const Op& proto) const {
    const Op::Kind kind = proto.kind();
    const bool broadcasts = kind == Op::ADD || kind == Op::SUB || kind == Op::MUL ||
                            kind == Op::DIV || kind == Op::MAX || kind == Op::MIN ||
                            kind == Op::EXPAND || kind == Op::EXPDIF;
    if (proto.broadcast() != Op::BROADCAST_NONE) {
      if (!Op::Broadcast_IsValid(proto.broadcast())) {
        return OpError(*op, absl::StrCat("broadcast is ", proto.broadcast(),
                                         "; expected BROADCAST_NONE, ROW or COL"));
      }
      if (!broadcasts) {
        return OpError(*op,
                       "sets broadcast, which only ADD, SUB, MUL, DIV, MAX, MIN, EXPAND and "
                       "EXPDIF read; clear it");
      }
      op->broadcast = proto.broadcast();
    }
    if (proto.cast_mode() != Op::CAST_MODE_UNSPECIFIED) {
      if (!Op::CastMode_IsValid(proto.cast_mode())) {
        return OpError(*op, absl::StrCat("cast_mode is ", proto.cast_mode(),
                                         "; expected CAST_NONE .. CAST_ODD"));
      }
      if (kind != Op::CAST) return OpError(*op, "sets cast_mode, which only CAST reads; clear it");
      op->cast_mode = proto.cast_mode();
    }
    if (proto.has_branch() && kind != Op::IF) {
      return OpError(*op, "sets branch, which only IF reads; clear it");
    }
    if (proto.scalar_reg() != 0 && kind != Op::READ) {
      return OpError(*op, "sets scalar_reg, which only READ reads; clear it");
    }
    if (proto.valid_shape_size() > 0 && kind != Op::LOAD && kind != Op::TRI) {
      return OpError(*op, "sets valid_shape, which only LOAD and TRI read; clear it");
    }
    if (proto.compare() != Op::COMPARE_UNSPECIFIED) {
      if (!Op::Compare_IsValid(proto.compare())) {
        return OpError(*op, absl::StrCat("compare is ", proto.compare(),
                                         "; expected CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT or "
                                         "CMP_GE"));
      }
      if (kind != Op::CMP) return OpError(*op, "sets compare, which only CMP reads; clear it");
      op->compare = proto.compare();
    }
    if (proto.partial()) {
      if (kind != Op::ADD && kind != Op::MUL && kind != Op::MAX && kind != Op::MIN) {
        return OpError(*op, "sets partial, which only ADD, MUL, MAX and MIN read; clear it");
      }
      if (proto.broadcast() != Op::BROADCAST_NONE) {
        return OpError(*op, "sets partial and broadcast; a partial op takes two whole tiles");
      }
      op->partial = true;
    }
    if ((proto.has_diagonal() || proto.upper()) && kind != Op::TRI) {
      return OpError(*op, "sets diagonal or upper, which only TRI reads; clear them");
    }
    if (proto.pad() != Op::PAD_VALUE_UNSPECIFIED) {
      if (!Op::PadValue_IsValid(proto.pad())) {
        return OpError(
            *op, absl::StrCat("pad is ", proto.pad(), "; expected PAD_ZERO, PAD_MAX or PAD_MIN"));
      }
      if (kind != Op::FILLPAD) return OpError(*op, "sets pad, which only FILLPAD reads; clear it");
      op->pad = proto.pad();
    }
    return absl::OkStatus();
  }

  absl::Status CompileOp(const Op& proto) {
    const size_t index = out_->ops.size();
    out_->ops.emplace_back();
    CompiledOp op;
    op.kind = proto.kind();
    op.label = absl::StrCat(
        "kernel '", kernel_.name(), "' op ", index, " (",
        Op::Kind_IsValid(proto.kind()) ? Op::Kind_Name(proto.kind()) : absl::StrCat(proto.kind()),
        proto.origin().empty() ? "" : ", ", proto.origin(), ")");
    op.engine = KernelEngine();
    bool writes_dst = true;
    absl::Status status;
    switch (proto.kind()) {
      case Op::LOAD:
      case Op::STORE:
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
      case Op::ROW_SUM:
      case Op::ROW_MAX:
      case Op::FULL:
      case Op::MATMUL:
      case Op::MOVE:
      case Op::CREATE:
      case Op::ROW_MIN:
      case Op::COL_SUM:
      case Op::COL_MAX:
      case Op::COL_MIN:
      case Op::EXPAND:
      case Op::CONCAT:
      case Op::ASSEMBLE:
      case Op::RESHAPE:
      case Op::TRANSPOSE_VIEW:
      case Op::FILLPAD:
      case Op::EXTRACT:
      case Op::ABS:
      case Op::LOG:
      case Op::SIN:
      case Op::COS:
      case Op::NOT:
      case Op::LRELU:
      case Op::PRELU:
      case Op::FMOD:
      case Op::CMP:
      case Op::SELECT:
      case Op::ROW_PROD:
      case Op::COL_PROD:
      case Op::TRI:
      case Op::EXPDIF:
        break;
      case Op::IF:
      case Op::READ:
      case Op::LOOP:
      case Op::SYNCALL:
      case Op::FENCE:
      case Op::CACHE_INVALID:
        writes_dst = false;
        break;
      default:
        return OpError(op, "unknown op kind; expected one of the Op.Kind values LOAD..EXPDIF");
    }
    if (proto.kind() == Op::STORE) writes_dst = false;
    if (absl::Status s = CompileModifiers(&op, proto); !s.ok()) return s;
    if (writes_dst) {
      if (absl::Status s = CheckTileIndex(op, "dst", proto.dst()); !s.ok()) return s;
      if (absl::Status s = CheckNotCarried(op, proto.dst()); !s.ok()) return s;
      op.dst = static_cast<int32_t>(proto.dst());
      op.elements = out_->tiles[op.dst].elements();
    }

    switch (proto.kind()) {
      case Op::LOAD:
        if (proto.srcs_size() != 0) {
          status = OpError(op, "LOAD takes no source tiles");
          break;
        }
        status = CompileTensorAccess(&op, proto, out_->tiles[op.dst]);
        if (status.ok()) status = CompileValidShape(&op, proto);
        op.engine =
            IsCubeSpace(out_->tiles[op.dst].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::STORE:
        if (status = ReadSources(&op, proto, 1); !status.ok()) break;
        op.atomic_add = proto.atomic_add();
        if (op.atomic_add && !IsFloat(out_->tiles[op.src0].dtype) &&
            !IsSignedInt(out_->tiles[op.src0].dtype)) {
          status = OpError(op, absl::StrCat("atomic add on ", DTypeName(out_->tiles[op.src0].dtype),
                                            " is not supported; use FP32, FP16, BF16 or a signed "
                                            "integer"));
          break;
        }
        status = CompileTensorAccess(&op, proto, out_->tiles[op.src0]);
        op.engine =
            IsCubeSpace(out_->tiles[op.src0].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::ADD:
      case Op::SUB:
      case Op::MUL:
      case Op::DIV:
      case Op::MAX:
      case Op::MIN:
      case Op::FMOD:
        op.engine = EngineKind::kVector;
        status = CompileElementwise(&op, proto);
        if (status.ok() && op.partial && op.src1 < 0) {
          status = OpError(op, "is partial (TPART*) with a scalar; a partial op takes two tiles");
        }
        break;
      case Op::EXPDIF:
        op.engine = EngineKind::kVector;
        if (op.broadcast == Op::BROADCAST_NONE) {
          status = OpError(op,
                           "has no broadcast; EXPDIF subtracts a row (ROW) or column (COL) "
                           "vector");
          break;
        }
        if (status = CompileElementwise(&op, proto); !status.ok()) break;
        status = CheckFloat(op, out_->tiles[op.src0]);
        break;
      case Op::EXP:
      case Op::SQRT:
      case Op::RSQRT:
      case Op::RECIP:
      case Op::NEG:
      case Op::ABS:
      case Op::LOG:
      case Op::SIN:
      case Op::COS:
      case Op::NOT:
      case Op::LRELU:
        op.engine = EngineKind::kVector;
        status = CompileUnary(&op, proto);
        break;
      case Op::PRELU:
        op.engine = EngineKind::kVector;
        status = CompilePrelu(&op, proto);
        break;
      case Op::CMP:
        op.engine = EngineKind::kVector;
        status = CompileCompare(&op, proto);
        break;
      case Op::SELECT:
        op.engine = EngineKind::kVector;
        status = CompileSelect(&op, proto);
        break;
      case Op::TRI:
        op.engine = EngineKind::kVector;
        status = CompileTri(&op, proto);
        break;
      case Op::CAST: {
        op.engine = EngineKind::kVector;
        if (status = ReadSources(&op, proto, 1); !status.ok()) break;
        const CompiledTile& a = out_->tiles[op.src0];
        const CompiledTile& d = out_->tiles[op.dst];
        if (a.rows != d.rows || a.cols != d.cols) {
          status = OpError(
              op, absl::StrCat("result tile '", d.name, "' is ", ShapeString(d),
                               " but the operand is ", ShapeString(a), "; CAST keeps the shape"));
        }
        break;
      }
      case Op::ROW_SUM:
      case Op::ROW_MAX:
      case Op::ROW_MIN:
      case Op::ROW_PROD:
        op.engine = EngineKind::kVector;
        status = CompileRowReduce(&op, proto);
        break;
      case Op::COL_SUM:
      case Op::COL_MAX:
      case Op::COL_MIN:
      case Op::COL_PROD:
        op.engine = EngineKind::kVector;
        status = CompileColReduce(&op, proto);
        break;
      case Op::EXPAND:
        op.engine = EngineKind::kVector;
        status = CompileExpand(&op, proto);
        break;
      case Op::CONCAT:
        op.engine = EngineKind::kVector;
        status = CompileConcat(&op, proto);
        break;
      case Op::ASSEMBLE:
        status = CompileAssemble(&op, proto);
        op.engine =
            IsCubeSpace(out_->tiles[op.dst].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::RESHAPE:
      case Op::TRANSPOSE_VIEW:
        status = CompileView(&op, proto);
        op.engine =
            IsCubeSpace(out_->tiles[op.dst].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::FULL:
        op.engine = EngineKind::kVector;
        if (proto.srcs_size() != 0) {
          status = OpError(op, "FULL takes no source tiles");
          break;
        }
        if (!proto.has_scalar()) {
          status = OpError(op, "FULL needs a scalar operand (the fill value)");
          break;
        }
        status = CompileScalar(&op, proto);
        break;
      case Op::MATMUL:
        op.engine = EngineKind::kCube;
        status = CompileMatmul(&op, proto);
        break;
      case Op::MOVE:
        status = CompileMove(&op, proto);
        break;
      case Op::CREATE:
        if (proto.srcs_size() != 0) {
          status = OpError(op, "CREATE takes no source tiles");
          break;
        }
        if (proto.has_scalar()) {
          status = OpError(op, "CREATE takes no scalar; a tile filled with a value is FULL");
          break;
        }
        op.engine =
            IsCubeSpace(out_->tiles[op.dst].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::CACHE_INVALID:
        if (!proto.whole_cache()) {
          if (proto.param() >= out_->params.size() ||
              out_->params[proto.param()].kind != trace::KernelParam::TENSOR) {
            status = OpError(op, absl::StrCat("param ", proto.param(),
                                              " is not a TENSOR parameter; a region "
                                              "CACHE_INVALID names a tensor (or set whole_cache)"));
            break;
          }
          op.param = static_cast<int32_t>(proto.param());
        }
        op.whole_cache = proto.whole_cache();
        break;
      case Op::LOOP:
        status = CompileLoop(&op, index, proto);
        break;
      case Op::IF:
        status = CompileIf(&op, index, proto);
        break;
      case Op::READ:
        status = CompileRead(&op, proto);
        break;
      case Op::EXTRACT:
        status = CompileExtract(&op, proto);
        op.engine =
            IsCubeSpace(out_->tiles[op.dst].space) ? EngineKind::kCube : EngineKind::kVector;
        break;
      case Op::FILLPAD:
        op.engine = EngineKind::kVector;
        if (status = ReadSources(&op, proto, 1); !status.ok()) break;
        status = CheckSameAsDst(op, out_->tiles[op.src0]);
        break;
      case Op::SYNCALL:
        status = CompileSync(&op, proto);
        break;
      default:
        break;  // FENCE: no operands.
    }
    if (!status.ok()) return status;
    if (absl::Status s = CheckSlots(op); !s.ok()) return s;
    if (proto.engine() == trace::ENGINE_CUBE) op.engine = EngineKind::kCube;
    if (proto.engine() == trace::ENGINE_VECTOR) op.engine = EngineKind::kVector;
    if (writes_dst) {
      written_[op.dst] = true;
      if (writer_op_[op.dst] < 0) writer_op_[op.dst] = static_cast<int32_t>(index);
    }

    if (proto.kind() == Op::LOOP) {
      loop_stack_.push_back(op.loop_var);
      out_->ops[index] = std::move(op);
      if (absl::Status s = CompileOps(proto.loop().body()); !s.ok()) return s;
      loop_stack_.pop_back();
      out_->ops[index].body_end = static_cast<int32_t>(out_->ops.size());
      return CompileCarriesAfterBody(out_->ops[index], proto.loop());
    }
    if (proto.kind() == Op::IF) {
      out_->ops[index] = std::move(op);
      return CompileArms(index, proto.branch());
    }
    op.body_end = static_cast<int32_t>(index + 1);
    out_->ops[index] = std::move(op);
    return absl::OkStatus();
  }

  // An IF before its arms: the condition, the scalar phis and the phi tiles
  // (each new, the IF's alone, of its values' shape, dtype and space).
  absl::Status CompileIf(CompiledOp* op, size_t index, const Op& proto) {
    if (!proto.has_branch()) return OpError(*op, "IF has no branch (cond and arms)");
    const Op::Branch& branch = proto.branch();
    if (!branch.has_cond()) return OpError(*op, "IF has no branch.cond");
    absl::StatusOr<CompiledIntExpr> cond = CompileExpr(*op, "branch.cond", branch.cond());
    if (!cond.ok()) return cond.status();
    op->cond = *std::move(cond);
    for (int j = 0; j < branch.scalar_phis_size(); ++j) {
      const Op::Branch::ScalarPhi& phi = branch.scalar_phis(j);
      const std::string what = absl::StrCat("scalar_phis[", j, "]");
      if (phi.reg() >= out_->scalar_count) {
        return OpError(*op, absl::StrCat(what, ".reg is ", phi.reg(), " but the program has ",
                                         out_->scalar_count, " scalar registers"));
      }
      CompiledScalarPhi compiled;
      compiled.reg = static_cast<int32_t>(phi.reg());
      absl::StatusOr<CompiledIntExpr> then_expr =
          CompileExpr(*op, what + ".then_expr", phi.then_expr());
      if (!then_expr.ok()) return then_expr.status();
      absl::StatusOr<CompiledIntExpr> else_expr =
          CompileExpr(*op, what + ".else_expr", phi.else_expr());
      if (!else_expr.ok()) return else_expr.status();
      compiled.then_expr = *std::move(then_expr);
      compiled.else_expr = *std::move(else_expr);
      op->scalar_phis.push_back(std::move(compiled));
    }
    for (int j = 0; j < branch.phis_size(); ++j) {
      const Op::Branch::Phi& phi = branch.phis(j);
      const std::string what = absl::StrCat("phis[", j, "]", phi.name().empty() ? "" : " ('",
                                            phi.name(), phi.name().empty() ? "" : "')");
      if (absl::Status s = CheckTileIndex(*op, what + ".tile", phi.tile()); !s.ok()) return s;
      if (absl::Status s = CheckTileIndex(*op, what + ".then_value", phi.then_value()); !s.ok()) {
        return s;
      }
      if (absl::Status s = CheckTileIndex(*op, what + ".else_value", phi.else_value()); !s.ok()) {
        return s;
      }
      const int32_t tile = static_cast<int32_t>(phi.tile());
      if (writer_op_[tile] >= 0 || carry_loop_[tile] >= 0 || phi_if_[tile] >= 0 ||
          tile == static_cast<int32_t>(phi.then_value()) ||
          tile == static_cast<int32_t>(phi.else_value())) {
        return OpError(*op,
                       absl::StrCat(what, ".tile is tile ", tile, " ('", out_->tiles[tile].name,
                                    "'), which something else writes; a phi is a tile of "
                                    "its own that only its IF writes"));
      }
      for (const char* role : {"then_value", "else_value"}) {
        const int32_t value = static_cast<int32_t>(
            std::string(role) == "then_value" ? phi.then_value() : phi.else_value());
        if (absl::Status s = CheckCarryTile(*op, what, role, value, tile); !s.ok()) return s;
      }
      phi_if_[tile] = static_cast<int32_t>(index);
      op->phis.push_back(
          {tile, static_cast<int32_t>(phi.then_value()), static_cast<int32_t>(phi.else_value())});
    }
    return absl::OkStatus();
  }

  // The arms: a tile is written after the IF when both arms (or what came
  // before) wrote it; each phi's value must exist at its arm's end.
  absl::Status CompileArms(size_t index, const Op::Branch& branch) {
    const std::vector<bool> before = written_;
    if (absl::Status s = CompileOps(branch.then_body()); !s.ok()) return s;
    out_->ops[index].then_end = static_cast<int32_t>(out_->ops.size());
    const std::vector<bool> after_then = written_;
    written_ = before;
    if (absl::Status s = CompileOps(branch.else_body()); !s.ok()) return s;
    CompiledOp& op = out_->ops[index];
    op.body_end = static_cast<int32_t>(out_->ops.size());
    for (const CompiledPhi& phi : op.phis) {
      const bool then_ok = after_then[phi.then_value], else_ok = written_[phi.else_value];
      if (!then_ok || !else_ok) {
        const int32_t value = then_ok ? phi.else_value : phi.then_value;
        return OpError(
            op, absl::StrCat("the phi '", out_->tiles[phi.tile].name, "' takes tile ", value, " ('",
                             out_->tiles[value].name, "') from its ", then_ok ? "else" : "then",
                             " arm, which nothing writes by that arm's end"));
      }
    }
    for (size_t t = 0; t < written_.size(); ++t) written_[t] = written_[t] && after_then[t];
    for (const CompiledPhi& phi : op.phis) written_[phi.tile] = true;
    return absl::OkStatus();
  }

  // READ: an integer element of a tensor param into a scalar register.
  absl::Status CompileRead(CompiledOp* op, const Op& proto) {
    if (proto.srcs_size() != 0) return OpError(*op, "READ takes no source tiles");
    if (proto.scalar_reg() >= out_->scalar_count) {
      return OpError(
          *op, absl::StrCat("scalar_reg is ", proto.scalar_reg(), " but the program has ",
                            out_->scalar_count, " scalar registers (KernelProgram.scalar_count)"));
    }
    if (proto.param() >= out_->params.size() ||
        out_->params[proto.param()].kind != trace::KernelParam::TENSOR) {
      return OpError(*op, absl::StrCat("param ", proto.param(),
                                       " is not a TENSOR parameter; READ reads a tensor element"));
    }
    const CompiledParam& param = out_->params[proto.param()];
    if (param.dtype != trace::DTYPE_UNSPECIFIED && IsFloat(param.dtype)) {
      return OpError(*op, absl::StrCat("reads tensor param '", param.name, "' of dtype ",
                                       DTypeName(param.dtype),
                                       "; a scalar register holds an integer: read an integer "
                                       "tensor"));
    }
    op->param = static_cast<int32_t>(proto.param());
    op->scalar_reg = static_cast<int32_t>(proto.scalar_reg());
    if (proto.offsets_size() < 1 || proto.offsets_size() > kMaxViewRank) {
      return OpError(*op, absl::StrCat("has ", proto.offsets_size(),
                                       " offsets; give one index per dimension of the tensor "
                                       "view, or one row-major index (1..",
                                       kMaxViewRank, ")"));
    }
    for (int i = 0; i < proto.offsets_size(); ++i) {
      absl::StatusOr<CompiledIntExpr> e =
          CompileExpr(*op, absl::StrCat("offsets[", i, "]"), proto.offsets(i));
      if (!e.ok()) return e.status();
      op->offsets.push_back(*std::move(e));
    }
    op->elements = 1;
    return absl::OkStatus();
  }

  // LOAD's valid region: one extent per tile dim, each checked per instance.
  absl::Status CompileValidShape(CompiledOp* op, const Op& proto) {
    if (proto.valid_shape_size() == 0) return absl::OkStatus();
    const CompiledTile& tile = out_->tiles[op->dst];
    if (proto.valid_shape_size() != tile.rank) {
      return OpError(*op, absl::StrCat("valid_shape has ", proto.valid_shape_size(),
                                       " extents but tile '", tile.name, "' is ", ShapeString(tile),
                                       "; give one per tile dimension"));
    }
    const int64_t dims[2] = {tile.rank == 1 ? tile.cols : tile.rows, tile.cols};
    for (int i = 0; i < proto.valid_shape_size(); ++i) {
      absl::StatusOr<CompiledIntExpr> e =
          CompileExpr(*op, absl::StrCat("valid_shape[", i, "]"), proto.valid_shape(i));
      if (!e.ok()) return e.status();
      if (e->is_constant()) {
        const int64_t v = *e->Evaluate(IntEnv{});
        if (v < 0 || v > dims[i]) {
          return OpError(*op, absl::StrCat("valid_shape[", i, "] is ", v, " but tile '", tile.name,
                                           "' is ", ShapeString(tile), "; expected 0..", dims[i]));
        }
      }
      op->valid_shape.push_back(*std::move(e));
    }
    out_->uses_valid_shapes = true;
    return absl::OkStatus();
  }

  // A runtime slot is evaluated where the tile is used: it may read the
  // loop vars enclosing each op that reads or writes the tile.
  absl::Status CheckSlots(const CompiledOp& op) const {
    for (int32_t t : {op.dst, op.src0, op.src1, op.src2}) {
      if (t < 0 || !out_->tiles[t].has_slot) continue;
      const trace::TileDecl& decl = kernel_.program().tiles(t);
      if (absl::Status s = ValidateIntExpr(decl.slot(), kernel_.program(), loop_stack_); !s.ok()) {
        return OpError(op, absl::StrCat("tile ", t, " ('", decl.name(), "') slot: ", s.message()));
      }
    }
    return absl::OkStatus();
  }

  const trace::Kernel& kernel_;
  CompiledKernel* out_;
  std::vector<bool> written_;
  std::vector<int32_t> writer_op_;   // per tile: the first op that writes it, -1 if none
  std::vector<int32_t> carry_loop_;  // per tile: the loop op carrying it, -1 if none
  std::vector<bool> carry_has_init_;
  std::vector<int32_t> phi_if_;  // per tile: the IF op whose phi it is, -1 if none
  std::vector<bool> loop_var_used_;
  std::vector<uint32_t> loop_stack_;
};

absl::Status CheckCostSummary(const trace::Kernel& kernel) {
  const trace::CostSummary& c = kernel.cost();
  const auto bad = [&](const char* field, double v) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.name(), "' cost.", field,
                                                   " is ", v, "; expected a finite value >= 0"));
  };
  if (!std::isfinite(c.cube_flops()) || c.cube_flops() < 0)
    return bad("cube_flops", c.cube_flops());
  if (!std::isfinite(c.vector_elements()) || c.vector_elements() < 0) {
    return bad("vector_elements", c.vector_elements());
  }
  return absl::OkStatus();
}

}  // namespace

bool IsCubeSpace(trace::MemSpace space) {
  return space == trace::MAT || space == trace::ACC || space == trace::LEFT ||
         space == trace::RIGHT || space == trace::BIAS;
}

MoveRoute MoveRouteOf(trace::MemSpace from, trace::MemSpace to) {
  switch (from) {
    case trace::MAT:
      if (to == trace::LEFT || to == trace::RIGHT || to == trace::BIAS) return MoveRoute::kCube;
      return to == trace::VEC ? MoveRoute::kToVector : MoveRoute::kNone;
    case trace::ACC:
      if (to == trace::MAT) return MoveRoute::kCube;
      return to == trace::VEC ? MoveRoute::kToVector : MoveRoute::kNone;
    case trace::VEC:
      return to == trace::MAT || to == trace::LEFT || to == trace::RIGHT ? MoveRoute::kToCube
                                                                         : MoveRoute::kNone;
    default:
      return MoveRoute::kNone;
  }
}

const char* EngineName(EngineKind engine) {
  return engine == EngineKind::kCube ? "cube" : "vector";
}

namespace {

// Union-find over buffer ids: a tile lives in its TileDecl.buffer, and a
// carry's tiles become one buffer, named by its lowest id. A runtime-slot
// tile cannot be carried (its buffer changes per op), so it is checked here.
absl::Status AssignTileBuffers(const trace::KernelProgram& program, CompiledKernel* kernel) {
  kernel->buffer_count = program.buffer_count() > 0 ? program.buffer_count()
                                                    : static_cast<uint32_t>(program.tiles_size());
  std::vector<uint32_t> parent(kernel->buffer_count);
  for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](uint32_t b) {
    while (parent[b] != b) b = parent[b] = parent[parent[b]];
    return b;
  };
  // No buffer_count: the stream assigns no buffers, each tile is its own.
  const bool assigned = program.buffer_count() > 0;
  auto buffer_of = [&](int32_t tile) {
    return assigned ? program.tiles(tile).buffer() : static_cast<uint32_t>(tile);
  };
  auto join = [&](int32_t a, int32_t b) {
    if (a < 0 || b < 0) return;
    const uint32_t ra = root(buffer_of(a)), rb = root(buffer_of(b));
    parent[std::max(ra, rb)] = std::min(ra, rb);
  };
  for (const CompiledOp& op : kernel->ops) {
    for (const CompiledCarry& carry : op.carries) {
      for (int32_t t : {carry.tile, carry.init, carry.next}) {
        if (t >= 0 && kernel->tiles[t].has_slot) {
          return absl::InvalidArgumentError(absl::StrCat(
              op.label, ": carries tile ", t, " ('", kernel->tiles[t].name,
              "'), which has a runtime slot (TileDecl.slot); a carry is one buffer, so give it "
              "a literal slot or none"));
        }
      }
      join(carry.tile, carry.init);
      if (!carry.next_is_carried) join(carry.tile, carry.next);
    }
    if (op.kind == trace::Op::RESHAPE || op.kind == trace::Op::TRANSPOSE_VIEW) {
      join(op.dst, op.src0);
    }
    // A phi and its arms' values are one buffer: taking a value is a rename.
    for (const CompiledPhi& phi : op.phis) {
      for (int32_t t : {phi.tile, phi.then_value, phi.else_value}) {
        if (kernel->tiles[t].has_slot) {
          return absl::InvalidArgumentError(absl::StrCat(
              op.label, ": phi tile ", t, " ('", kernel->tiles[t].name,
              "') has a runtime slot (TileDecl.slot); a phi is one buffer, so give it a literal "
              "slot or none"));
        }
      }
      join(phi.tile, phi.then_value);
      join(phi.tile, phi.else_value);
    }
  }
  kernel->tile_buffers.resize(kernel->tiles.size());
  for (size_t t = 0; t < kernel->tiles.size(); ++t) {
    kernel->tile_buffers[t] = root(buffer_of(static_cast<int32_t>(t)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CompiledKernel> CompileKernel(const trace::Kernel& kernel) {
  static std::atomic<uint64_t> next_uid{1};
  CompiledKernel out;
  out.uid = next_uid.fetch_add(1, std::memory_order_relaxed);
  out.id = kernel.id();
  out.name = kernel.name();
  out.origin = kernel.origin();
  out.core_type = kernel.core_type();
  switch (kernel.body_case()) {
    case trace::Kernel::kCost:
      if (absl::Status s = CheckCostSummary(kernel); !s.ok()) return s;
      out.is_cost_summary = true;
      out.cost = kernel.cost();
      return out;
    case trace::Kernel::kProgram: {
      Compiler compiler(kernel, &out);
      if (absl::Status s = compiler.Run(); !s.ok()) return s;
      if (absl::Status s = AssignTileBuffers(kernel.program(), &out); !s.ok()) return s;
      return out;
    }
    case trace::Kernel::BODY_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "kernel '", kernel.name(), "' (id ", kernel.id(),
      ") has no body; set Kernel.program (an op program) or Kernel.cost (a cost summary)"));
}

}  // namespace pto
