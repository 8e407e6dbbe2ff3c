#include "models/core/int_expr.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"

namespace pto {
namespace {

using trace::IntExpr;

std::string BinOpName(IntExpr::BinOp op) {
  return IntExpr::BinOp_IsValid(op) ? IntExpr::BinOp_Name(op) : absl::StrCat(op);
}

absl::Status Overflow(const char* op, int64_t a, int64_t b) {
  return absl::OutOfRangeError(
      absl::StrCat("IntExpr ", op, "(", a, ", ", b, ") overflows int64; check the expression"));
}

}  // namespace

absl::StatusOr<int64_t> PyFloorDiv(int64_t a, int64_t b) {
  if (b == 0) {
    return absl::InvalidArgumentError(absl::StrCat("IntExpr FLOOR_DIV by zero (", a,
                                                   " // 0); the divisor must not evaluate to 0"));
  }
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return Overflow("FLOOR_DIV", a, b);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

absl::StatusOr<int64_t> PyMod(int64_t a, int64_t b) {
  if (b == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("IntExpr MOD by zero (", a, " % 0); the divisor must not evaluate to 0"));
  }
  if (b == -1) return 0;  // avoids INT64_MIN % -1, which is UB in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

CompiledIntExpr CompiledIntExpr::Constant(int64_t value) {
  CompiledIntExpr e;
  e.constant_ = value;
  return e;
}

absl::Status CompiledIntExpr::Emit(const IntExpr& expr, int depth, std::vector<Instr>* code,
                                   int* max_depth) {
  *max_depth = std::max(*max_depth, depth + 1);
  if (*max_depth > kMaxStackDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("IntExpr nests deeper than ", kMaxStackDepth,
                     " pending operands; rewrite it left-nested (a + b) + c"));
  }
  switch (expr.kind_case()) {
    case IntExpr::kConstant:
      code->push_back({Code::kConst, expr.constant()});
      return absl::OkStatus();
    case IntExpr::kVar:
      switch (expr.var()) {
        case IntExpr::BLOCK_IDX:
          code->push_back({Code::kBlockIdx, 0});
          return absl::OkStatus();
        case IntExpr::BLOCK_NUM:
          code->push_back({Code::kBlockNum, 0});
          return absl::OkStatus();
        case IntExpr::SUBBLOCK_IDX:
          code->push_back({Code::kSubblockIdx, 0});
          return absl::OkStatus();
        default:
          return absl::InvalidArgumentError(
              absl::StrCat("IntExpr.var is ", static_cast<int>(expr.var()),
                           "; expected BLOCK_IDX, BLOCK_NUM or SUBBLOCK_IDX"));
      }
    case IntExpr::kLoopVar:
      code->push_back({Code::kLoopVar, expr.loop_var()});
      return absl::OkStatus();
    case IntExpr::kScalarParam:
      code->push_back({Code::kParam, expr.scalar_param()});
      return absl::OkStatus();
    case IntExpr::kScalarReg:
      code->push_back({Code::kScalarReg, expr.scalar_reg()});
      return absl::OkStatus();
    case IntExpr::kBinary: {
      const IntExpr::Binary& bin = expr.binary();
      Code op;
      switch (bin.op()) {
        case IntExpr::ADD:
          op = Code::kAdd;
          break;
        case IntExpr::SUB:
          op = Code::kSub;
          break;
        case IntExpr::MUL:
          op = Code::kMul;
          break;
        case IntExpr::FLOOR_DIV:
          op = Code::kFloorDiv;
          break;
        case IntExpr::MOD:
          op = Code::kMod;
          break;
        case IntExpr::MIN:
          op = Code::kMin;
          break;
        case IntExpr::MAX:
          op = Code::kMax;
          break;
        case IntExpr::EQ:
          op = Code::kEq;
          break;
        case IntExpr::NE:
          op = Code::kNe;
          break;
        case IntExpr::LT:
          op = Code::kLt;
          break;
        case IntExpr::LE:
          op = Code::kLe;
          break;
        case IntExpr::GT:
          op = Code::kGt;
          break;
        case IntExpr::GE:
          op = Code::kGe;
          break;
        default:
          return absl::InvalidArgumentError(
              absl::StrCat("IntExpr.binary.op is ", BinOpName(bin.op()),
                           "; expected one of ADD SUB MUL FLOOR_DIV MOD MIN MAX EQ NE LT LE GT "
                           "GE"));
      }
      if (!bin.has_lhs() || !bin.has_rhs()) {
        return absl::InvalidArgumentError(absl::StrCat("IntExpr.binary ", BinOpName(bin.op()),
                                                       " lacks its ", bin.has_lhs() ? "rhs" : "lhs",
                                                       " operand"));
      }
      if (absl::Status s = Emit(bin.lhs(), depth, code, max_depth); !s.ok()) return s;
      if (absl::Status s = Emit(bin.rhs(), depth + 1, code, max_depth); !s.ok()) return s;
      code->push_back({op, 0});
      return absl::OkStatus();
    }
    case IntExpr::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "IntExpr has no kind set; expected constant, var, loop_var, scalar_param, scalar_reg or "
      "binary");
}

absl::StatusOr<CompiledIntExpr> CompiledIntExpr::Compile(const IntExpr& expr) {
  CompiledIntExpr out;
  int max_depth = 0;
  if (absl::Status s = Emit(expr, 0, &out.code_, &max_depth); !s.ok()) return s;
  if (out.code_.size() == 1 && out.code_[0].code == Code::kConst) {
    out.constant_ = out.code_[0].operand;
    out.code_.clear();
    return out;
  }
  out.is_constant_ = false;
  return out;
}

absl::StatusOr<int64_t> CompiledIntExpr::EvaluateCode(const IntEnv& env) const {
  int64_t stack[kMaxStackDepth];
  int top = 0;  // number of values on the stack
  for (const Instr& in : code_) {
    switch (in.code) {
      case Code::kConst:
        stack[top++] = in.operand;
        continue;
      case Code::kBlockIdx:
        stack[top++] = env.block_idx;
        continue;
      case Code::kBlockNum:
        stack[top++] = env.block_num;
        continue;
      case Code::kSubblockIdx:
        stack[top++] = env.subblock_idx;
        continue;
      case Code::kLoopVar:
        if (static_cast<size_t>(in.operand) >= env.loop_vars.size()) {
          return absl::InvalidArgumentError(absl::StrCat("IntExpr reads loop_var ", in.operand,
                                                         " but only ", env.loop_vars.size(),
                                                         " loop variables are bound"));
        }
        stack[top++] = env.loop_vars[in.operand];
        continue;
      case Code::kParam:
        if (static_cast<size_t>(in.operand) >= env.scalar_params.size()) {
          return absl::InvalidArgumentError(absl::StrCat("IntExpr reads scalar_param ", in.operand,
                                                         " but only ", env.scalar_params.size(),
                                                         " parameters are bound"));
        }
        stack[top++] = env.scalar_params[in.operand];
        continue;
      case Code::kScalarReg:
        if (static_cast<size_t>(in.operand) >= env.scalar_regs.size()) {
          return absl::InvalidArgumentError(absl::StrCat("IntExpr reads scalar_reg ", in.operand,
                                                         " but only ", env.scalar_regs.size(),
                                                         " registers are bound"));
        }
        stack[top++] = env.scalar_regs[in.operand];
        continue;
      default:
        break;
    }
    const int64_t b = stack[--top];
    const int64_t a = stack[top - 1];
    int64_t r;
    switch (in.code) {
      case Code::kAdd:
        if (__builtin_add_overflow(a, b, &r)) return Overflow("ADD", a, b);
        break;
      case Code::kSub:
        if (__builtin_sub_overflow(a, b, &r)) return Overflow("SUB", a, b);
        break;
      case Code::kMul:
        if (__builtin_mul_overflow(a, b, &r)) return Overflow("MUL", a, b);
        break;
      case Code::kFloorDiv: {
        absl::StatusOr<int64_t> q = PyFloorDiv(a, b);
        if (!q.ok()) return q.status();
        r = *q;
        break;
      }
      case Code::kMod: {
        absl::StatusOr<int64_t> m = PyMod(a, b);
        if (!m.ok()) return m.status();
        r = *m;
        break;
      }
      case Code::kMin:
        r = std::min(a, b);
        break;
      case Code::kMax:
        r = std::max(a, b);
        break;
      case Code::kEq:
        r = a == b;
        break;
      case Code::kNe:
        r = a != b;
        break;
      case Code::kLt:
        r = a < b;
        break;
      case Code::kLe:
        r = a <= b;
        break;
      case Code::kGt:
        r = a > b;
        break;
      case Code::kGe:
        r = a >= b;
        break;
      default:
        return absl::InternalError("IntExpr code corrupt");
    }
    stack[top - 1] = r;
  }
  return stack[0];
}

namespace {

absl::Status ValidateNode(const IntExpr& expr, const trace::KernelProgram& program,
                          absl::Span<const uint32_t> loops) {
  switch (expr.kind_case()) {
    case IntExpr::kLoopVar:
      if (std::find(loops.begin(), loops.end(), expr.loop_var()) == loops.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "IntExpr reads loop_var ", expr.loop_var(), ", which no enclosing LOOP defines",
            loops.empty()
                ? std::string(" (the op is not inside a loop)")
                : absl::StrCat(" (enclosing loop vars: ", absl::StrJoin(loops, ", "), ")"),
            "; use the var of an enclosing Op.Loop"));
      }
      return absl::OkStatus();
    case IntExpr::kScalarParam: {
      const uint32_t p = expr.scalar_param();
      if (p >= static_cast<uint32_t>(program.params_size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("IntExpr reads scalar_param ", p, " but the kernel has ",
                         program.params_size(), " params; use an index below that"));
      }
      const trace::KernelParam& param = program.params(p);
      if (param.kind() != trace::KernelParam::SCALAR) {
        return absl::InvalidArgumentError(absl::StrCat("IntExpr reads scalar_param ", p, " ('",
                                                       param.name(),
                                                       "'), which is not a SCALAR parameter"));
      }
      if (IsFloat(param.dtype())) {
        return absl::InvalidArgumentError(
            absl::StrCat("IntExpr reads scalar_param ", p, " ('", param.name(), "') of dtype ",
                         DTypeName(param.dtype()), "; integer expressions need an integer scalar"));
      }
      return absl::OkStatus();
    }
    case IntExpr::kScalarReg:
      if (expr.scalar_reg() >= program.scalar_count()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "IntExpr reads scalar_reg ", expr.scalar_reg(), " but the program has ",
            program.scalar_count(), " (KernelProgram.scalar_count); use a register below that"));
      }
      return absl::OkStatus();
    case IntExpr::kBinary:
      if (absl::Status s = ValidateNode(expr.binary().lhs(), program, loops); !s.ok()) return s;
      return ValidateNode(expr.binary().rhs(), program, loops);
    default:
      return absl::OkStatus();
  }
}

}  // namespace

absl::Status ValidateIntExpr(const IntExpr& expr, const trace::KernelProgram& program,
                             absl::Span<const uint32_t> enclosing_loop_vars) {
  return ValidateNode(expr, program, enclosing_loop_vars);
}

}  // namespace pto
