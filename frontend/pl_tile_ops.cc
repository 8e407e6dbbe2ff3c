// pl's tile ops: each reachable as pl.X and as pl.tile.X, with the argument
// names, defaults and messages of hw-native-sys/pypto@e2d0f78a
// python/pypto/language/op/tile_ops.py (pl.tile.X) and unified_ops.py (pl.X).
// pl.tile.X takes tiles only; pl.X also takes tensors in a task body, loading
// the whole view first (the tensor level, as ConvertTensorToTileOps lowers it).
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/arg_reader.h"
#include "frontend/device_views.h"
#include "frontend/interpreter.h"
#include "frontend/kernel_builder.h"
#include "frontend/pl_args.h"
#include "frontend/status_macros.h"
#include "frontend/tile_ops.h"

namespace pto::ptoc {
namespace {

using Builtin = std::function<absl::StatusOr<Value>(const CallArgs&)>;

// pypto's cast modes by name and code (python/pypto/ir/utils.py
// CAST_MODE_NAMES), as Op.CastMode (code + 1).
absl::StatusOr<trace::Op::CastMode> CastModeOf(Interpreter* I, const Value& v, SourceLocation loc) {
  static const char* const kNames[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
  if (v.is_str()) {
    for (int i = 0; i < 7; ++i) {
      if (v.s() == kNames[i]) return static_cast<trace::Op::CastMode>(i + 1);
    }
    return I->Error(loc, absl::StrCat("Invalid rounding mode '", v.s(),
                                      "'. Expected one of ['none', 'rint', 'round', 'floor', "
                                      "'ceil', 'trunc', 'odd']."));
  }
  if (v.is_int() && !v.is_bool()) {
    if (v.i() < 0 || v.i() > 6) {
      return I->Error(
          loc, absl::StrCat("Invalid rounding mode ", v.i(), ". Expected int in range [0, 6]."));
    }
    return static_cast<trace::Op::CastMode>(v.i() + 1);
  }
  return I->Error(loc, absl::StrCat("Invalid rounding mode ", v.Repr(),
                                    ". Expected str name or int in range [0, 6]."));
}

// A scalar operand of max / min: a compile-time int or a device integer.
bool IsScalarInt(const Value& v) { return v.is_integral() || v.As<SymInt>() != nullptr; }

// pl.tile.X refuses a tensor operand (upstream's tile ops take Tile values);
// `operands` is how many leading positional arguments are operands.
Builtin TileLevelOnly(Interpreter* I, const std::string& name, size_t operands, Builtin fn) {
  return [I, name, operands, fn](const CallArgs& args) -> absl::StatusOr<Value> {
    for (size_t i = 0; i < std::min(operands, args.positional.size()); ++i) {
      if (args.positional[i].As<TensorRef>() != nullptr) {
        return I->Error(args.ArgLoc(i),
                        absl::StrCat("pl.tile.", name, " takes Tile operands, but argument ", i + 1,
                                     " is a Tensor; pl.load it first, or call pl.", name,
                                     " for the tensor level"));
      }
    }
    return fn(args);
  };
}

}  // namespace

void AddBoth(Interpreter* I, Namespace* pl, Namespace* tile, const std::string& name,
             size_t operands, Builtin fn) {
  tile->AddFunction(name, TileLevelOnly(I, name, operands, fn));
  pl->AddFunction(name, std::move(fn));
}

void AddTileOps(Interpreter* interp, Namespace* pl) {
  Interpreter* I = interp;
  auto tile = std::make_shared<Namespace>("pl.tile");

  // ---- GM transfers
  auto load = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.load",
                {"tensor", "offsets", "shapes", "target_memory", "valid_shape", "clamp"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    auto ref = r.Get(0)->AsShared<TensorRef>();
    PTOC_ASSIGN_OR_RETURN(offsets, ValueList(I, *r.Get(1), r.Loc(1), "offsets"));
    if (auto view = r.Get(0)->AsShared<DeviceTensorView>()) {
      // A window at device offsets: the load is at the summed offsets.
      PTOC_ASSIGN_OR_RETURN(sum, AddOffsets(view->offsets(), offsets));
      offsets = std::move(sum);
      ref = view->base();
    }
    if (!ref) return r.Wrong(0, "a tensor");
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(2), r.Loc(2), "shapes"));
    trace::MemSpace space = trace::MEM_SPACE_UNSPECIFIED;
    if (r.Has(3)) {
      PTOC_ASSIGN_OR_RETURN(s, MemSpaceOf(I, *r.Get(3), r.Loc(3), "pl.load target_memory"));
      if (s != trace::VEC && s != trace::MAT) {
        return I->Error(r.Loc(3),
                        absl::StrCat("pl.load fills Vec (UB) or Mat (L1), not ", PlSpaceName(s),
                                     "; load into pl.Mem.Mat and pl.move the tile "
                                     "there"));
      }
      space = s;
    }
    std::vector<Value> valid;
    if (r.Has(4)) {
      PTOC_ASSIGN_OR_RETURN(v, ValueList(I, *r.Get(4), r.Loc(4), "valid_shape"));
      valid = std::move(v);
    }
    bool clamp = false;
    if (r.Has(5)) {
      if (!r.Get(5)->is_bool()) return r.Wrong(5, "True or False");
      clamp = r.Get(5)->b();
    }
    if (clamp && offsets.size() == shape.size() && shape.size() == ref->shape().size()) {
      // clamp=True cuts the read back to the source's edge: the valid extent
      // of each dim is min(extent, dim - offset), at least 0.
      if (valid.empty()) {
        for (int64_t n : shape) valid.push_back(Value::Int(n));
      }
      for (size_t d = 0; d < shape.size() && d < valid.size(); ++d) {
        PTOC_ASSIGN_OR_RETURN(offset, ToIntExpr(offsets[d]));
        PTOC_ASSIGN_OR_RETURN(extent, ToIntExpr(valid[d]));
        trace::IntExpr dim, zero;
        dim.set_constant(ref->shape()[d]);
        zero.set_constant(0);
        PTOC_ASSIGN_OR_RETURN(left, ToIntExpr(IntBinary(trace::IntExpr::SUB, dim, offset)));
        PTOC_ASSIGN_OR_RETURN(cut, ToIntExpr(IntBinary(trace::IntExpr::MIN, extent, left)));
        valid[d] = IntBinary(trace::IntExpr::MAX, cut, zero);
      }
    }
    const bool has_valid = r.Has(4) || clamp;
    PTOC_ASSIGN_OR_RETURN(loaded, EmitLoad(I, ref, offsets, shape, space, args.loc,
                                           has_valid ? &valid : nullptr, r.Loc(4)));
    return Value::Obj(loaded);
  };
  auto store = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.store", {"tile", "offsets", "output_tensor", "atomic"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    PTOC_ASSIGN_OR_RETURN(t, I->AsTile(*r.Get(0), r.Loc(0)));
    auto ref = r.Get(2)->AsShared<TensorRef>();
    PTOC_ASSIGN_OR_RETURN(offsets, ValueList(I, *r.Get(1), r.Loc(1), "offsets"));
    if (auto view = r.Get(2)->AsShared<DeviceTensorView>()) {
      PTOC_ASSIGN_OR_RETURN(sum, AddOffsets(view->offsets(), offsets));
      offsets = std::move(sum);
      ref = view->base();
    }
    if (!ref) return r.Wrong(2, "a tensor");
    const bool atomic = r.Has(3) && IsEnum(*r.Get(3), "pl.AtomicType", "Add");
    PTOC_RETURN_IF_ERROR(EmitStore(I, t, offsets, ref, atomic, args.loc));
    return *r.Get(2);
  };
  for (Namespace* ns : {pl, tile.get()}) {
    ns->AddFunction("load", load);
    ns->AddFunction("store", store);
  }

  // ---- elementwise: two operands; maximums / minimums take a tile and a
  // scalar only (tile_ops.py).
  struct BinaryOp {
    const char* name;
    trace::Op::Kind kind;
    const char* tile_form;  // for a scalar-only rhs: the op that takes two tiles
  };
  const BinaryOp binary[] = {{"add", trace::Op::ADD, nullptr},
                             {"sub", trace::Op::SUB, nullptr},
                             {"mul", trace::Op::MUL, nullptr},
                             {"div", trace::Op::DIV, nullptr},
                             {"maximum", trace::Op::MAX, nullptr},
                             {"minimum", trace::Op::MIN, nullptr},
                             {"maximums", trace::Op::MAX, "pl.maximum"},
                             {"minimums", trace::Op::MIN, "pl.minimum"},
                             // tile.adds / subs / muls / divs: the scalar forms by name.
                             {"adds", trace::Op::ADD, "pl.add"},
                             {"subs", trace::Op::SUB, "pl.sub"},
                             {"muls", trace::Op::MUL, "pl.mul"},
                             {"divs", trace::Op::DIV, "pl.div"}};
  for (const BinaryOp& op : binary) {
    const std::string fn = absl::StrCat("pl.", op.name);
    const trace::Op::Kind k = op.kind;
    const char* tile_form = op.tile_form;
    AddBoth(I, pl, tile.get(), op.name, 2,
            [I, fn, k, tile_form](const CallArgs& args) -> absl::StatusOr<Value> {
              // div's high_precision picks the device's exact tdiv; pto_sim
              // computes every quotient in full precision either way.
              std::vector<std::string> params = {"lhs", "rhs"};
              if (fn == "pl.div") params.push_back("high_precision");
              ArgReader r(I, args, fn, params);
              PTOC_RETURN_IF_ERROR(r.Check());
              PTOC_RETURN_IF_ERROR(r.Require(2));
              if (params.size() == 3 && r.Has(2) && !r.Get(2)->is_bool()) {
                return r.Wrong(2, "True or False");
              }
              if (tile_form != nullptr) {
                if (!r.Get(1)->is_number() && r.Get(1)->As<SymInt>() == nullptr) {
                  return r.Wrong(1, absl::StrCat("a scalar (int, float or pl.Scalar); for two "
                                                 "tiles use ",
                                                 tile_form));
                }
                if (r.Get(0)->is_number()) return r.Wrong(0, "a tile");
              }
              return TileElementwise(I, k, *r.Get(0), *r.Get(1), args.loc);
            });
  }
  // relu(x) = max(x, 0): one vector op (tile_ops.py relu).
  AddBoth(I, pl, tile.get(), "relu", 1, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.relu", {"tile"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (!r.Has(0)) return r.Missing(0);
    if (r.Get(0)->is_number()) return r.Wrong(0, "a tile");
    return TileElementwise(I, trace::Op::MAX, *r.Get(0), Value::Float(0.0), args.loc);
  });
  const std::vector<std::pair<const char*, trace::Op::Kind>> unary = {{"exp", trace::Op::EXP},
                                                                      {"neg", trace::Op::NEG},
                                                                      {"sqrt", trace::Op::SQRT},
                                                                      {"rsqrt", trace::Op::RSQRT},
                                                                      {"recip", trace::Op::RECIP}};
  for (const auto& [name, kind] : unary) {
    const std::string fn = absl::StrCat("pl.", name);
    const trace::Op::Kind k = kind;
    AddBoth(I, pl, tile.get(), name, 1, [I, fn, k](const CallArgs& args) -> absl::StatusOr<Value> {
      // rsqrt's high-precision lowering (a scratch tile, or high_precision=
      // on a tensor) changes the device's algorithm, not the exact result
      // pto_sim computes.
      std::vector<std::string> params = {"x"};
      if (k == trace::Op::RSQRT) params = {"x", "tmp", "high_precision"};
      ArgReader r(I, args, fn, params);
      PTOC_RETURN_IF_ERROR(r.Check());
      if (!r.Has(0)) return r.Missing(0);
      if (params.size() == 3 && r.Has(2) && !r.Get(2)->is_bool()) {
        return r.Wrong(2, "True or False");
      }
      return TileUnary(I, k, *r.Get(0), args.loc);
    });
  }
  // pl.max / pl.min: the scalar max and min (tile_ops.py max, min); tiles
  // reduce with the direction-specific ops.
  for (const bool is_max : {true, false}) {
    const std::string name = is_max ? "max" : "min";
    AddBoth(I, pl, tile.get(), name, 2,
            [I, name, is_max](const CallArgs& args) -> absl::StatusOr<Value> {
              const std::string fn = absl::StrCat("pl.", name);
              ArgReader r(I, args, fn, {"lhs", "rhs"});
              PTOC_RETURN_IF_ERROR(r.Check());
              PTOC_RETURN_IF_ERROR(r.Require(2));
              for (size_t i = 0; i < 2; ++i) {
                if (!IsScalarInt(*r.Get(i))) {
                  return r.Wrong(i, absl::StrCat("a scalar (int or pl.Scalar); tile reductions "
                                                 "are direction-specific: use pl.row_",
                                                 name, " or pl.col_", name));
                }
              }
              PTOC_ASSIGN_OR_RETURN(x, ToIntExpr(*r.Get(0)));
              PTOC_ASSIGN_OR_RETURN(y, ToIntExpr(*r.Get(1)));
              return IntBinary(is_max ? trace::IntExpr::MAX : trace::IntExpr::MIN, x, y);
            });
  }

  // ---- reductions: the row forms need tmp_tile on tiles, col_sum may take
  // one, col_max / col_min take none (unified_ops.py).
  enum class Scratch { kRequired, kOptional, kNone };
  struct Reduction {
    const char* name;
    trace::Op::Kind kind;
    Scratch scratch;
  };
  const Reduction reductions[] = {{"row_sum", trace::Op::ROW_SUM, Scratch::kRequired},
                                  {"row_max", trace::Op::ROW_MAX, Scratch::kRequired},
                                  {"row_min", trace::Op::ROW_MIN, Scratch::kRequired},
                                  {"col_sum", trace::Op::COL_SUM, Scratch::kOptional},
                                  {"col_max", trace::Op::COL_MAX, Scratch::kNone},
                                  {"col_min", trace::Op::COL_MIN, Scratch::kNone},
                                  {"row_prod", trace::Op::ROW_PROD, Scratch::kRequired},
                                  {"col_prod", trace::Op::COL_PROD, Scratch::kNone}};
  for (const Reduction& red : reductions) {
    const std::string fn = absl::StrCat("pl.", red.name);
    const trace::Op::Kind k = red.kind;
    const Scratch scratch = red.scratch;
    AddBoth(I, pl, tile.get(), red.name, 2,
            [I, fn, k, scratch](const CallArgs& args) -> absl::StatusOr<Value> {
              std::vector<std::string> params = {"input"};
              if (scratch != Scratch::kNone) params.push_back("tmp_tile");
              ArgReader r(I, args, fn, params);
              PTOC_RETURN_IF_ERROR(r.Check());
              if (!r.Has(0)) return r.Missing(0);
              // Upstream's tensor-level reduction (a tensor, or a tile that is
              // one upstream: an op of a tensor) takes no tmp_tile.
              const Tile* in_tile = r.Get(0)->As<Tile>();
              const bool tensor = r.Get(0)->As<TensorRef>() != nullptr ||
                                  r.Get(0)->As<DeviceTensorView>() != nullptr;
              const bool tensor_level =
                  tensor || (in_tile && I->in_kernel() && I->kernel()->tensor_level(*in_tile));
              const Value* tmp = scratch != Scratch::kNone && r.Has(1) ? r.Get(1) : nullptr;
              if (tensor && tmp != nullptr) {
                return I->Error(r.Loc(1), absl::StrCat(fn,
                                                       ": Tensor inputs must not pass tmp_tile — "
                                                       "the scratch tile is allocated during "
                                                       "Tensor-to-Tile lowering"));
              }
              if (!tensor_level && tmp == nullptr && scratch == Scratch::kRequired) {
                return I->Error(args.loc,
                                absl::StrCat(fn,
                                             ": Tile inputs require tmp_tile with the same dtype "
                                             "and rank as the input, and every dimension at least "
                                             "as large as the corresponding input dimension, e.g. ",
                                             fn, "(t, pl.create_tile(t.shape, dtype=...))"));
              }
              return TileReduce(I, k, *r.Get(0), tmp, fn, args.loc);
            });
  }

  // ---- broadcasts: pl.row_expand(target, row_vec) spreads a [rows, 1] tile
  // over target's shape, pl.row_expand_OP(tile, row_vec) applies OP with it;
  // the col_ forms take a [1, cols] tile.
  struct Expand {
    const char* suffix;
    trace::Op::Kind kind;
  };
  const Expand expands[] = {{"", trace::Op::EXPAND},  {"_add", trace::Op::ADD},
                            {"_sub", trace::Op::SUB}, {"_mul", trace::Op::MUL},
                            {"_div", trace::Op::DIV}, {"_max", trace::Op::MAX},
                            {"_min", trace::Op::MIN}, {"_expdif", trace::Op::EXPDIF}};
  for (const bool row : {true, false}) {
    for (const Expand& e : expands) {
      const std::string name = absl::StrCat(row ? "row_expand" : "col_expand", e.suffix);
      const std::string fn = absl::StrCat("pl.", name);
      const trace::Op::Kind k = e.kind;
      AddBoth(I, pl, tile.get(), name, 2,
              [I, fn, k, row](const CallArgs& args) -> absl::StatusOr<Value> {
                const std::string first = k == trace::Op::EXPAND ? "target" : "tile";
                const std::string vec = row ? "row_vec" : "col_vec";
                ArgReader r(I, args, fn, {first, vec, "tmp"});
                PTOC_RETURN_IF_ERROR(r.Check());
                PTOC_RETURN_IF_ERROR(r.Require(2));
                if (r.Has(2)) {
                  // Only pl.row_expand_add has it upstream: a PTOAS codegen scratch.
                  return I->Error(r.Loc(2),
                                  absl::StrCat(fn,
                                               "() takes no tmp in ptoc (upstream's "
                                               "row_expand_add tmp is a code generator "
                                               "scratch, not part of the result); omit it"));
                }
                return TileBroadcast(I, k, row ? trace::Op::ROW : trace::Op::COL, *r.Get(0),
                                     *r.Get(1), fn, args.loc);
              });
    }
  }

  // ---- matmul: a_trans / b_trans / c_matrix_nz are the tensor level's
  // flags; a tile is transposed by a view (unified_ops.py matmul).
  auto read_matmul_flags = [I](const ArgReader& r, const std::string& fn, size_t first, bool tensor,
                               bool* a_trans, bool* b_trans) -> absl::Status {
    const char* names[] = {"a_trans", "b_trans", "c_matrix_nz"};
    bool flags[3] = {false, false, false};
    for (size_t i = 0; i < 3; ++i) {
      const size_t at = first + i;
      if (!r.Has(at)) continue;
      if (!r.Get(at)->is_bool()) {
        return I->Error(r.Loc(at), absl::StrCat(names[i], " must be True or False"));
      }
      flags[i] = r.Get(at)->b();
      if (flags[i] && !tensor) {
        return I->Error(
            r.Loc(at),
            absl::StrCat(fn, ": '", names[i], "' is not supported for Tile operands. ",
                         i < 2 ? "At tile level a transposed operand is an explicit zero-copy "
                                 "view, not an op flag: wrap the operand with "
                                 "pl.tile.transpose_view(...) and pass it directly."
                               : "The tile matmul result layout is fixed by its Acc tile type; "
                                 "there is no tile-level equivalent of this tensor-level flag."));
      }
    }
    if (flags[2]) {
      return I->Error(r.Loc(first + 2),
                      absl::StrCat(fn,
                                   ": c_matrix_nz=True (an NZ-layout result) is not modelled "
                                   "by ptoc; the result is stored row-major"));
    }
    *a_trans = flags[0];
    *b_trans = flags[1];
    return absl::OkStatus();
  };
  AddBoth(I, pl, tile.get(), "matmul", 2,
          [I, read_matmul_flags](const CallArgs& args) -> absl::StatusOr<Value> {
            ArgReader r(I, args, "pl.matmul",
                        {"lhs", "rhs", "out_dtype", "a_trans", "b_trans", "c_matrix_nz"});
            PTOC_RETURN_IF_ERROR(r.Check());
            PTOC_RETURN_IF_ERROR(r.Require(2));
            const bool tensor =
                r.Get(0)->As<TensorRef>() != nullptr && r.Get(1)->As<TensorRef>() != nullptr;
            bool at = false, bt = false;
            PTOC_RETURN_IF_ERROR(read_matmul_flags(r, "pl.matmul", 3, tensor, &at, &bt));
            std::optional<trace::DType> out;
            if (r.Has(2)) {
              PTOC_ASSIGN_OR_RETURN(d, DTypeOf(I, *r.Get(2), r.Loc(2)));
              out = d;
            }
            return TileMatmul(I, *r.Get(0), *r.Get(1), out, tensor, at, bt, args.loc,
                              r.Has(2) ? r.Loc(2) : args.loc);
          });
  AddBoth(I, pl, tile.get(), "matmul_acc", 3, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    // The order of pypto@e2d0f78a python/pypto/language/op/unified_ops.py.
    ArgReader r(I, args, "pl.matmul_acc", {"acc", "lhs", "rhs", "a_trans", "b_trans", "init_cond"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    bool at = false, bt = false;
    for (size_t i = 3; i < 5; ++i) {
      if (r.Has(i) && (!r.Get(i)->is_bool() || r.Get(i)->b())) {
        const bool tensor =
            r.Get(1)->As<TensorRef>() != nullptr && r.Get(2)->As<TensorRef>() != nullptr;
        if (!r.Get(i)->is_bool()) {
          return I->Error(
              r.Loc(i), i == 3 ? "a_trans must be True or False" : "b_trans must be True or False");
        }
        if (!tensor) {
          return I->Error(r.Loc(i), absl::StrCat("pl.matmul_acc: '", i == 3 ? "a_trans" : "b_trans",
                                                 "' is not supported for Tile operands. At tile "
                                                 "level a transposed operand is an explicit "
                                                 "zero-copy view, not an op flag: wrap the operand "
                                                 "with pl.tile.transpose_view(...) and pass it "
                                                 "directly."));
        }
        (i == 3 ? at : bt) = true;
      }
    }
    return TileMatmulAcc(I, *r.Get(0), *r.Get(1), *r.Get(2), at, bt, r.Get(5), args.loc);
  });

  // ---- creation, movement, casts and shapes
  AddBoth(I, pl, tile.get(), "move", 1, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.move", {"tile", "target_memory"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    return TileMove(I, *r.Get(0), *r.Get(1), args.loc, r.Loc(1));
  });
  // pl.tile.create / pl.create_tile (tile_ops.py): a tile of target_memory
  // (Vec by default) with no defined contents, e.g. the accumulator that
  // pl.matmul_acc(..., init_cond=(k == 0)) overwrites first.
  auto create_tile = [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.create", {"shape", "dtype", "target_memory"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(0), r.Loc(0), "pl.tile.create shape"));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    trace::MemSpace space = trace::VEC;
    if (r.Has(2)) {
      PTOC_ASSIGN_OR_RETURN(s, MemSpaceOf(I, *r.Get(2), r.Loc(2), "pl.tile.create target_memory"));
      space = s;
    }
    return TileCreate(I, shape, dtype, space, args.loc, r.Loc(0));
  };
  pl->AddFunction("create_tile", create_tile);
  tile->AddFunction("create", create_tile);
  tile->AddFunction("create_tile", create_tile);
  // pl.tile.full (tile_ops.py full): a Vec tile of `value`; pl.full is the
  // tensor-level op (a filled tensor, pl_module.cc).
  tile->AddFunction("full", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.tile.full", {"shape", "dtype", "value"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(0), r.Loc(0), "pl.tile.full shape"));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    return TileFull(I, shape, dtype, *r.Get(2), args.loc, r.Loc(0));
  });
  AddBoth(I, pl, tile.get(), "cast", 1, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.cast", {"tile", "target_type", "mode"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    PTOC_ASSIGN_OR_RETURN(dtype, DTypeOf(I, *r.Get(1), r.Loc(1)));
    // A scalar: an integer stays itself under an integer type (the device's
    // scalars are int64; pl.cast(pl.read(cfg, [0]), pl.INDEX)).
    if (IsScalarInt(*r.Get(0)) && !IsFloat(dtype)) return *r.Get(0);
    trace::Op::CastMode mode = trace::Op::CAST_ROUND;  // pypto's default, "round"
    if (r.Has(2)) {
      PTOC_ASSIGN_OR_RETURN(m, CastModeOf(I, *r.Get(2), r.Loc(2)));
      mode = m;
    }
    return TileCast(I, *r.Get(0), dtype, mode, args.loc);
  });
  AddBoth(I, pl, tile.get(), "concat", 2, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.concat", {"src0", "src1"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    return TileConcat(I, *r.Get(0), *r.Get(1), args.loc);
  });
  AddBoth(I, pl, tile.get(), "assemble", 2, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.assemble", {"target", "source", "offset", "atomic"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(3));
    PTOC_ASSIGN_OR_RETURN(offset, ValueList(I, *r.Get(2), r.Loc(2), "pl.assemble offset"));
    bool atomic_add = false;
    if (r.Has(3) && !r.Get(3)->is_none()) {
      if (!IsEnum(*r.Get(3), "pl.AtomicType", nullptr)) {
        return r.Wrong(3, "a pl.AtomicType (Add)");
      }
      atomic_add = IsEnum(*r.Get(3), "pl.AtomicType", "Add");
    }
    // The tensor level: the source written into the target tensor, a store
    // (atomic=pl.AtomicType.Add: an atomic-add store, as pl.store's).
    if (auto view = r.Get(0)->AsShared<DeviceTensorView>()) {
      PTOC_ASSIGN_OR_RETURN(source, I->AsTile(*r.Get(1), r.Loc(1)));
      PTOC_ASSIGN_OR_RETURN(at, AddOffsets(view->offsets(), offset));
      PTOC_RETURN_IF_ERROR(EmitStore(I, source, at, view->base(), atomic_add, args.loc));
      return *r.Get(0);
    }
    if (auto ref = r.Get(0)->AsShared<TensorRef>()) {
      PTOC_ASSIGN_OR_RETURN(source, I->AsTile(*r.Get(1), r.Loc(1)));
      PTOC_RETURN_IF_ERROR(EmitStore(I, source, offset, ref, atomic_add, args.loc));
      return *r.Get(0);
    }
    if (atomic_add) {
      return I->Error(r.Loc(3), "pl.assemble atomic= applies to a tensor target (a GM store)");
    }
    return TileAssemble(I, *r.Get(0), *r.Get(1), offset, args.loc, r.Loc(2));
  });
  AddBoth(I, pl, tile.get(), "reshape", 1, [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.reshape", {"input", "shape"});
    PTOC_RETURN_IF_ERROR(r.Check());
    PTOC_RETURN_IF_ERROR(r.Require(2));
    PTOC_ASSIGN_OR_RETURN(shape, IntList(I, *r.Get(1), r.Loc(1), "pl.reshape shape"));
    return TileReshape(I, *r.Get(0), shape, args.loc, r.Loc(1));
  });
  tile->AddFunction(
      "transpose_view",
      TileLevelOnly(I, "transpose_view", 1, [I](const CallArgs& args) -> absl::StatusOr<Value> {
        ArgReader r(I, args, "pl.tile.transpose_view", {"tile"});
        PTOC_RETURN_IF_ERROR(r.Check());
        if (!r.Has(0)) return r.Missing(0);
        return TileTransposeView(I, *r.Get(0), args.loc);
      }));

  // ---- the block's place in an SPMD task
  auto block_var = [I](trace::IntExpr::Var var, const char* name) {
    return [I, var, name](const CallArgs& args) -> absl::StatusOr<Value> {
      if (!I->in_kernel()) {
        return I->Error(args.loc, absl::StrCat("pl.tile.", name,
                                               "() is only valid inside a "
                                               "task body"));
      }
      if (var == trace::IntExpr::BLOCK_IDX) I->kernel()->NoteBlockIdxRead();
      trace::IntExpr e;
      e.set_var(var);
      return Value::Obj(std::make_shared<SymInt>(e));
    };
  };
  tile->AddFunction("get_block_idx", block_var(trace::IntExpr::BLOCK_IDX, "get_block_idx"));
  tile->AddFunction("get_block_num", block_var(trace::IntExpr::BLOCK_NUM, "get_block_num"));
  tile->AddFunction("get_subblock_idx",
                    block_var(trace::IntExpr::SUBBLOCK_IDX, "get_subblock_idx"));
  AddTileMathOps(I, pl, tile.get());
  pl->Set("tile", Value::Obj(tile));
}

}  // namespace pto::ptoc
