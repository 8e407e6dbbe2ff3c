#include "models/core/int_expr.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using kernel_testing::Bin;
using kernel_testing::BlockIdx;
using kernel_testing::BlockNum;
using kernel_testing::C;
using kernel_testing::LoopVar;
using kernel_testing::Plus;
using kernel_testing::ScalarParam;
using kernel_testing::SubblockIdx;
using kernel_testing::Times;
using ::testing::HasSubstr;
using trace::IntExpr;

int64_t Eval(const IntExpr& e, const IntEnv& env = IntEnv{}) {
  absl::StatusOr<CompiledIntExpr> c = CompiledIntExpr::Compile(e);
  EXPECT_TRUE(c.ok()) << c.status();
  absl::StatusOr<int64_t> v = c->Evaluate(env);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.value_or(-999999);
}

absl::Status EvalError(const IntExpr& e, const IntEnv& env = IntEnv{}) {
  absl::StatusOr<CompiledIntExpr> c = CompiledIntExpr::Compile(e);
  if (!c.ok()) return c.status();
  return c->Evaluate(env).status();
}

TEST(PyFloorDivTest, RoundsTowardMinusInfinityLikePython) {
  EXPECT_EQ(*PyFloorDiv(7, 2), 3);
  EXPECT_EQ(*PyFloorDiv(-7, 2), -4);
  EXPECT_EQ(*PyFloorDiv(7, -2), -4);
  EXPECT_EQ(*PyFloorDiv(-7, -2), 3);
  EXPECT_EQ(*PyFloorDiv(-8, 2), -4);
  EXPECT_EQ(*PyFloorDiv(0, -3), 0);
}

TEST(PyModTest, TakesTheSignOfTheDivisorLikePython) {
  EXPECT_EQ(*PyMod(7, 3), 1);
  EXPECT_EQ(*PyMod(-7, 3), 2);
  EXPECT_EQ(*PyMod(7, -3), -2);
  EXPECT_EQ(*PyMod(-7, -3), -1);
  EXPECT_EQ(*PyMod(-9, 3), 0);
  EXPECT_EQ(*PyMod(std::numeric_limits<int64_t>::min(), -1), 0);
}

TEST(PyFloorDivTest, ZeroDivisorAndOverflowAreErrorsNotUb) {
  EXPECT_THAT(PyFloorDiv(5, 0).status().message(), HasSubstr("FLOOR_DIV by zero"));
  EXPECT_THAT(PyMod(5, 0).status().message(), HasSubstr("MOD by zero"));
  EXPECT_THAT(PyFloorDiv(std::numeric_limits<int64_t>::min(), -1).status().message(),
              HasSubstr("overflows"));
}

TEST(CompiledIntExprTest, EvaluatesEveryOperatorAndLeaf) {
  EXPECT_EQ(Eval(C(42)), 42);
  EXPECT_EQ(Eval(Bin(IntExpr::SUB, C(3), C(10))), -7);
  EXPECT_EQ(Eval(Bin(IntExpr::FLOOR_DIV, C(-7), C(2))), -4);
  EXPECT_EQ(Eval(Bin(IntExpr::MOD, C(-7), C(3))), 2);
  EXPECT_EQ(Eval(Bin(IntExpr::MIN, C(-7), C(3))), -7);
  EXPECT_EQ(Eval(Bin(IntExpr::MAX, C(-7), C(3))), 3);
  // Comparisons are predicates: 1 or 0.
  EXPECT_EQ(Eval(Bin(IntExpr::EQ, C(3), C(3))), 1);
  EXPECT_EQ(Eval(Bin(IntExpr::EQ, C(3), C(4))), 0);
  EXPECT_EQ(Eval(Bin(IntExpr::NE, C(3), C(4))), 1);
  EXPECT_EQ(Eval(Bin(IntExpr::LT, C(-7), C(3))), 1);
  EXPECT_EQ(Eval(Bin(IntExpr::LE, C(3), C(3))), 1);
  EXPECT_EQ(Eval(Bin(IntExpr::GT, C(-7), C(3))), 0);
  EXPECT_EQ(Eval(Bin(IntExpr::GE, C(2), C(3))), 0);

  const std::vector<int64_t> loops = {5, 11};
  const std::vector<int64_t> params = {0, 100};
  IntEnv env;
  env.block_idx = 3;
  env.block_num = 4;
  env.subblock_idx = 1;
  env.loop_vars = loops;
  env.scalar_params = params;
  // block_idx * 64 + loop1 * 2 + param1 - subblock
  IntExpr e = Bin(IntExpr::SUB,
                  Plus(Plus(Times(BlockIdx(), C(64)), Times(LoopVar(1), C(2))), ScalarParam(1)),
                  SubblockIdx());
  EXPECT_EQ(Eval(e, env), 3 * 64 + 22 + 100 - 1);
  EXPECT_EQ(Eval(Times(BlockNum(), LoopVar(0)), env), 20);
  EXPECT_EQ(Eval(Bin(IntExpr::EQ, LoopVar(0), C(5)), env), 1);  // pl.matmul_acc's k == 0 form
  EXPECT_EQ(Eval(Bin(IntExpr::EQ, LoopVar(1), C(5)), env), 0);
}

TEST(CompiledIntExprTest, ConstantsAreFoldedForTheHotPath) {
  absl::StatusOr<CompiledIntExpr> c = CompiledIntExpr::Compile(C(9));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->is_constant());
  absl::StatusOr<CompiledIntExpr> v = CompiledIntExpr::Compile(BlockIdx());
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->is_constant());
}

TEST(CompiledIntExprTest, DivisionByZeroAtRunTimeNamesTheOperator) {
  IntEnv env;
  env.block_idx = 0;
  absl::Status s = EvalError(Bin(IntExpr::FLOOR_DIV, C(64), BlockIdx()), env);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("FLOOR_DIV by zero"));
  EXPECT_THAT(EvalError(Bin(IntExpr::MOD, C(64), BlockIdx()), env).message(),
              HasSubstr("MOD by zero"));
}

TEST(CompiledIntExprTest, OverflowIsAnError) {
  EXPECT_THAT(EvalError(Times(C(std::numeric_limits<int64_t>::max()), C(2))).message(),
              HasSubstr("MUL"));
  EXPECT_THAT(EvalError(Plus(C(std::numeric_limits<int64_t>::max()), C(1))).message(),
              HasSubstr("ADD"));
}

TEST(CompiledIntExprTest, UnboundLoopVarIsAnErrorNotAnOutOfBoundsRead) {
  EXPECT_THAT(EvalError(LoopVar(3)).message(), HasSubstr("loop_var 3"));
}

TEST(CompiledIntExprTest, MalformedExpressionsAreRejected) {
  EXPECT_THAT(CompiledIntExpr::Compile(IntExpr()).status().message(), HasSubstr("no kind"));
  IntExpr half;
  half.mutable_binary()->set_op(IntExpr::ADD);
  *half.mutable_binary()->mutable_lhs() = C(1);
  EXPECT_THAT(CompiledIntExpr::Compile(half).status().message(), HasSubstr("rhs"));
  IntExpr deep = C(1);
  for (int i = 0; i < 40; ++i) deep = Plus(C(1), deep);  // right-nested
  EXPECT_THAT(CompiledIntExpr::Compile(deep).status().message(), HasSubstr("nests deeper"));
  IntExpr wide = C(1);
  for (int i = 0; i < 200; ++i) wide = Plus(wide, C(1));  // left-nested is fine
  EXPECT_EQ(Eval(wide), 201);
}

TEST(ValidateIntExprTest, ChecksLoopVarsAndScalarParamsAgainstTheProgram) {
  kernel_testing::KernelBuilder b("k");
  b.TensorParam("x", trace::FP32);
  b.ScalarParam("n", trace::INT32);
  b.ScalarParam("alpha", trace::FP32);
  const trace::KernelProgram& p = b.kernel().program();
  const std::vector<uint32_t> loops = {2};

  EXPECT_TRUE(ValidateIntExpr(Plus(LoopVar(2), ScalarParam(1)), p, loops).ok());
  EXPECT_THAT(ValidateIntExpr(LoopVar(0), p, loops).message(),
              HasSubstr("loop_var 0, which no enclosing LOOP defines"));
  EXPECT_THAT(ValidateIntExpr(LoopVar(0), p, {}).message(), HasSubstr("not inside a loop"));
  EXPECT_THAT(ValidateIntExpr(ScalarParam(7), p, loops).message(),
              HasSubstr("scalar_param 7 but the kernel has 3 params"));
  EXPECT_THAT(ValidateIntExpr(ScalarParam(0), p, loops).message(),
              HasSubstr("('x'), which is not a SCALAR"));
  EXPECT_THAT(ValidateIntExpr(Times(C(2), ScalarParam(2)), p, loops).message(),
              HasSubstr("'alpha') of dtype FP32"));
}

}  // namespace
}  // namespace pto
