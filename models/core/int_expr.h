#ifndef PTO_MODELS_CORE_INT_EXPR_H_
#define PTO_MODELS_CORE_INT_EXPR_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/task_stream.pb.h"

namespace pto {

// What an integer expression can read while a block runs.
struct IntEnv {
  int64_t block_idx = 0;
  int64_t block_num = 1;
  int64_t subblock_idx = 0;
  absl::Span<const int64_t> loop_vars;      // indexed by Op.Loop.var
  absl::Span<const int64_t> scalar_params;  // indexed by KernelParam index
  absl::Span<const int64_t> scalar_regs;    // indexed by IntExpr.scalar_reg
};

// An IntExpr flattened into postfix code for a small fixed-size stack, so that
// evaluating it on the hot path neither walks protos nor allocates.
// Semantics are Python's: FLOOR_DIV rounds toward -inf, MOD takes the sign of
// the divisor. Division by zero and int64 overflow are errors, never UB.
class CompiledIntExpr {
 public:
  // Deepest operand stack an expression may need; deeper (pathologically
  // right-nested) expressions are rejected at compile time.
  static constexpr int kMaxStackDepth = 32;

  CompiledIntExpr() = default;  // the constant 0

  // Structural checks only (a kind is set, operators known, depth bound);
  // index ranges are checked by ValidateIntExpr against the program.
  static absl::StatusOr<CompiledIntExpr> Compile(const trace::IntExpr& expr);
  static CompiledIntExpr Constant(int64_t value);

  // Errors name the failing operator ("FLOOR_DIV by zero"); callers add the
  // kernel/op context. Out-of-range loop var or param reads are errors too
  // (they cannot happen after ValidateIntExpr, but the env is caller-built).
  absl::StatusOr<int64_t> Evaluate(const IntEnv& env) const {
    if (is_constant_) return constant_;
    return EvaluateCode(env);
  }

  bool is_constant() const { return is_constant_; }

 private:
  enum class Code : uint8_t {
    kConst,
    kBlockIdx,
    kBlockNum,
    kSubblockIdx,
    kLoopVar,
    kParam,
    kScalarReg,
    kAdd,
    kSub,
    kMul,
    kFloorDiv,
    kMod,
    kMin,
    kMax,
    kEq,  // comparisons push 1 or 0
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
  };
  struct Instr {
    Code code;
    int64_t operand;  // kConst value, loop var or param index
  };

  static absl::Status Emit(const trace::IntExpr& expr, int depth, std::vector<Instr>* code,
                           int* max_depth);
  absl::StatusOr<int64_t> EvaluateCode(const IntEnv& env) const;

  bool is_constant_ = true;
  int64_t constant_ = 0;
  std::vector<Instr> code_;
};

// Checks that every loop_var an expression reads is one of
// `enclosing_loop_vars`, every scalar_param is a SCALAR parameter of
// `program` with an integer (or unspecified) dtype and every scalar_reg is
// below program.scalar_count. Messages say which index was wrong and what
// the program offers.
absl::Status ValidateIntExpr(const trace::IntExpr& expr, const trace::KernelProgram& program,
                             absl::Span<const uint32_t> enclosing_loop_vars);

// Python floor division and modulo on int64; errors on a zero divisor or
// overflow (INT64_MIN // -1).
absl::StatusOr<int64_t> PyFloorDiv(int64_t a, int64_t b);
absl::StatusOr<int64_t> PyMod(int64_t a, int64_t b);

}  // namespace pto

#endif  // PTO_MODELS_CORE_INT_EXPR_H_
