#include "sim/check_runner.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint64_t kAddr = 0x1000;

// A 2x2 FP32 tensor 'out' holding `actual`, checked against `expected`.
class CheckRunnerTest : public ::testing::Test {
 protected:
  CheckResult Run(const std::vector<float>& actual, const std::vector<float>& expected,
                  bool equal_nan = false) {
    tensor_.set_name("out");
    tensor_.set_dtype(trace::FP32);
    tensor_.add_shape(2);
    tensor_.add_shape(2);
    tensor_.set_gm_addr(kAddr);
    tensor_.set_size_bytes(16);
    memory_.AddRegion(kAddr, 16, "out", /*allocate=*/true);
    EXPECT_TRUE(memory_.Write(kAddr, actual.data(), 16).ok());
    trace::Check check;
    check.set_tensor_id(0);
    check.mutable_expected()->set_data(
        std::string(reinterpret_cast<const char*>(expected.data()), 16));
    check.set_rtol(rtol_);
    check.set_atol(atol_);
    check.set_equal_nan(equal_nan);
    check.set_name("assert_close(out)");
    check.set_origin("k.py:30");
    return RunCheck(check, tensor_, memory_);
  }

  double rtol_ = 1e-5;
  double atol_ = 1e-5;
  trace::Tensor tensor_;
  MemoryImage memory_;
};

TEST_F(CheckRunnerTest, CloseValuesPass) {
  const CheckResult r = Run({1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, 2.0f, 3.0f, 4.00001f});
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.stats.mismatches, 0);
  EXPECT_GT(r.stats.max_abs_error, 0.0);
  EXPECT_THAT(DescribeCheck(r), HasSubstr("check 'assert_close(out)' (k.py:30): PASS, max abs "
                                          "error "));
}

TEST_F(CheckRunnerTest, NanAgainstFiniteFailsAndSaysNan) {
  const CheckResult r = Run({1.0f, kNan, kNan, 9.0f}, {1.0f, 0.00208584f, 0.5f, 1.0f});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.stats.mismatches, 3);
  EXPECT_EQ(r.stats.nan_mismatches, 2);
  EXPECT_EQ(r.stats.nonfinite_mismatches(), 2);
  EXPECT_EQ(r.Index(r.stats.first_nan), (std::vector<int64_t>{0, 1}));
  // The greatest error of a failing NaN element is NaN, never 0.
  EXPECT_TRUE(std::isnan(r.stats.max_abs_error)) << r.stats.max_abs_error;
  EXPECT_EQ(DescribeCheck(r),
            "check 'assert_close(out)' (k.py:30): FAIL, 3 element(s) of 'out' outside "
            "tolerance, 2 of them NaN, first NaN at [0, 1]; first at [0, 1]: got nan, expected "
            "0.00208584; max abs error nan");
}

TEST_F(CheckRunnerTest, OnlyNanElementFailingIsNotErrorZero) {
  const CheckResult r = Run({1.0f, 2.0f, 3.0f, kNan}, {1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.stats.max_abs_error, 0.0);
  EXPECT_THAT(DescribeCheck(r), HasSubstr("max abs error nan"));
  EXPECT_THAT(DescribeCheck(r), Not(HasSubstr("max abs error 0")));
}

TEST_F(CheckRunnerTest, NanMatchesNanOnlyWithEqualNan) {
  const std::vector<float> values = {1.0f, kNan, 3.0f, 4.0f};
  const CheckResult without = Run(values, values);
  EXPECT_FALSE(without.passed);
  EXPECT_EQ(without.stats.nan_mismatches, 1);
  EXPECT_THAT(DescribeCheck(without), HasSubstr("1 of them NaN, first NaN at [0, 1]"));

  tensor_.Clear();
  memory_ = MemoryImage();
  const CheckResult with = Run(values, values, /*equal_nan=*/true);
  EXPECT_TRUE(with.passed);
  EXPECT_EQ(with.stats.max_abs_error, 0.0);
}

TEST_F(CheckRunnerTest, EqualInfinitiesPass) {
  const CheckResult r = Run({kInf, -kInf, 3.0f, 4.0f}, {kInf, -kInf, 3.0f, 4.0f});
  EXPECT_TRUE(r.passed) << DescribeCheck(r);
  EXPECT_EQ(r.stats.max_abs_error, 0.0);
}

TEST_F(CheckRunnerTest, InfinityAgainstFiniteFails) {
  const CheckResult r = Run({1.0f, 2.0f, kInf, 4.0f}, {1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.stats.inf_mismatches, 1);
  EXPECT_EQ(r.stats.nan_mismatches, 0);
  EXPECT_TRUE(std::isinf(r.stats.max_abs_error));
  EXPECT_THAT(DescribeCheck(r),
              HasSubstr("1 element(s) of 'out' outside tolerance, 1 of them infinite, first "
                        "infinite at [1, 0]; first at [1, 0]: got inf, expected 3; max abs "
                        "error inf"));
}

// atol + rtol * |inf| is inf: however wide the tolerance, an infinity
// matches only the same infinity (torch.testing.assert_close).
TEST_F(CheckRunnerTest, OppositeInfinitiesAndZeroAgainstInfinityFailUnderAWideTolerance) {
  rtol_ = 1e6;
  atol_ = 1e6;
  const CheckResult r = Run({kInf, 0.0f, -kInf, 5.0f}, {-kInf, kInf, -kInf, 1.0f});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.stats.mismatches, 2);
  EXPECT_EQ(r.stats.inf_mismatches, 2);
  EXPECT_EQ(r.stats.nan_mismatches, 0);
  EXPECT_TRUE(std::isinf(r.stats.max_abs_error));
  EXPECT_EQ(DescribeCheck(r),
            "check 'assert_close(out)' (k.py:30): FAIL, 2 element(s) of 'out' outside "
            "tolerance, 2 of them infinite, first infinite at [0, 0]; first at [0, 0]: got inf, "
            "expected -inf; max abs error inf");
  const nlohmann::json j = CheckToJson(r);
  EXPECT_TRUE(j["max_abs_error"].is_null()) << j.dump();
  EXPECT_EQ(j["nonfinite_mismatches"], 2);
  EXPECT_EQ(j["first_infinite"], (std::vector<int64_t>{0, 0}));
}

TEST_F(CheckRunnerTest, SameInfinitiesPassUnderAWideToleranceWithAFiniteError) {
  rtol_ = 1e6;
  atol_ = 1e6;
  const CheckResult r = Run({kInf, -kInf, 3.0f, 5.0f}, {kInf, -kInf, 3.0f, 4.0f});
  EXPECT_TRUE(r.passed) << DescribeCheck(r);
  EXPECT_EQ(r.stats.max_abs_error, 1.0);  // the matched infinities count 0, not NaN
  EXPECT_EQ(CheckToJson(r)["max_abs_error"], 1.0);
}

TEST_F(CheckRunnerTest, StatsJsonNeverShowsANanErrorAsANumber) {
  const CheckResult r = Run({1.0f, kNan, kInf, 9.0f}, {1.0f, 0.5f, 0.5f, 1.0f});
  const nlohmann::json j = CheckToJson(r);
  EXPECT_EQ(j["passed"], false);
  EXPECT_TRUE(j["max_abs_error"].is_null()) << j.dump();
  EXPECT_EQ(j["mismatches"], 3);
  EXPECT_EQ(j["nonfinite_mismatches"], 2);
  EXPECT_EQ(j["nan_mismatches"], 1);
  EXPECT_EQ(j["first_mismatch"], (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(j["actual"].is_null());
  EXPECT_EQ(j["expected"], 0.5);
  EXPECT_EQ(j["first_nan"], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(j["first_infinite"], (std::vector<int64_t>{1, 0}));
  // What stats.json holds after a round trip: still null, not 0.
  EXPECT_TRUE(nlohmann::json::parse(j.dump())["max_abs_error"].is_null());
}

TEST_F(CheckRunnerTest, StatsJsonOfAPassingCheckIsANumber) {
  const CheckResult r = Run({1.0f, 2.0f, 3.0f, 4.5f}, {1.0f, 2.0f, 3.0f, 4.5f});
  const nlohmann::json j = CheckToJson(r);
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["max_abs_error"], 0.0);
  EXPECT_EQ(j["nonfinite_mismatches"], 0);
  EXPECT_EQ(j["nan_mismatches"], 0);
  EXPECT_FALSE(j.contains("first_mismatch"));
  EXPECT_FALSE(j.contains("first_nan"));
}

TEST_F(CheckRunnerTest, TimingOnlyTensorIsNotEvaluated) {
  tensor_.set_name("out");
  tensor_.set_dtype(trace::FP32);
  tensor_.add_shape(4);
  tensor_.set_gm_addr(kAddr);
  tensor_.set_size_bytes(16);
  memory_.AddRegion(kAddr, 16, "out", /*allocate=*/false);
  trace::Check check;
  check.mutable_expected()->set_zeros(true);
  const CheckResult r = RunCheck(check, tensor_, memory_);
  EXPECT_FALSE(r.passed);
  EXPECT_THAT(DescribeCheck(r), HasSubstr("NOT EVALUATED, the tensor has no contents"));
}

}  // namespace
}  // namespace pto
