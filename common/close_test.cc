#include "common/close.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr CloseTolerance kTol{/*rtol=*/1e-3, /*atol=*/1e-5, /*equal_nan=*/false};
constexpr CloseTolerance kTolNan{/*rtol=*/1e-3, /*atol=*/1e-5, /*equal_nan=*/true};

TEST(IsCloseTest, FiniteValuesUseAtolPlusRtolTimesExpected) {
  EXPECT_TRUE(IsClose(1.0, 1.0, kTol));
  EXPECT_TRUE(IsClose(100.09, 100.0, kTol));  // 0.09 <= 1e-5 + 0.1
  EXPECT_FALSE(IsClose(100.2, 100.0, kTol));
  // rtol scales with the expected value, not the actual one.
  EXPECT_TRUE(IsClose(0.0, 1e-5, kTol));
  EXPECT_FALSE(IsClose(1.0, 0.0, CloseTolerance{1.0, 0.0, false}));
}

TEST(IsCloseTest, NanMatchesNanOnlyWithEqualNan) {
  EXPECT_FALSE(IsClose(kNan, kNan, kTol));
  EXPECT_TRUE(IsClose(kNan, kNan, kTolNan));
  EXPECT_FALSE(IsClose(kNan, 0.002, kTol));
  EXPECT_FALSE(IsClose(kNan, 0.002, kTolNan));
  EXPECT_FALSE(IsClose(0.002, kNan, kTolNan));
  // No tolerance is wide enough for NaN.
  EXPECT_FALSE(IsClose(kNan, 0.0, CloseTolerance{kInf, kInf, true}));
}

TEST(IsCloseTest, EqualInfinitiesMatchOthersDoNot) {
  EXPECT_TRUE(IsClose(kInf, kInf, kTol));
  EXPECT_TRUE(IsClose(-kInf, -kInf, kTol));
  EXPECT_FALSE(IsClose(kInf, -kInf, kTol));
  EXPECT_FALSE(IsClose(kInf, 1.0, kTol));
  EXPECT_FALSE(IsClose(1.0, kInf, kTol));
  // Even an infinite tolerance does not let an infinity match a finite value.
  EXPECT_FALSE(IsClose(kInf, 1.0, CloseTolerance{0.0, kInf, false}));
  EXPECT_FALSE(IsClose(1.0, kInf, CloseTolerance{1.0, 0.0, false}));
}

// atol + rtol * |inf| is inf, so a rule that only compared the difference
// with it would pass any pair with an infinity in it; torch's does not.
TEST(IsCloseTest, NoToleranceMatchesAnInfinityWithAnythingButItself) {
  for (const CloseTolerance& wide :
       {CloseTolerance{1e6, 1e6, false}, CloseTolerance{1e6, 1e6, true},
        CloseTolerance{kInf, kInf, true}}) {
    EXPECT_FALSE(IsClose(kInf, -kInf, wide));
    EXPECT_FALSE(IsClose(-kInf, kInf, wide));
    EXPECT_FALSE(IsClose(0.0, kInf, wide));
    EXPECT_FALSE(IsClose(kInf, 0.0, wide));
    EXPECT_FALSE(IsClose(0.0, -kInf, wide));
    EXPECT_FALSE(IsClose(1e300, kInf, wide));
    EXPECT_TRUE(IsClose(kInf, kInf, wide));
    EXPECT_TRUE(IsClose(-kInf, -kInf, wide));
    // NaN as before: only NaN against NaN, and only with equal_nan.
    EXPECT_EQ(IsClose(kNan, kNan, wide), wide.equal_nan);
    EXPECT_FALSE(IsClose(kNan, kInf, wide));
    EXPECT_FALSE(IsClose(kInf, kNan, wide));
    EXPECT_FALSE(IsClose(kNan, 0.0, wide));
  }
}

TEST(CloseStatsTest, PassingComparisonKeepsTheLargestFiniteError) {
  CloseStats stats;
  EXPECT_TRUE(stats.Add(1.0005, 1.0, kTol));
  EXPECT_TRUE(stats.Add(kInf, kInf, kTol));     // counts 0, not inf - inf = NaN
  EXPECT_TRUE(stats.Add(kNan, kNan, kTolNan));  // counts 0
  EXPECT_TRUE(stats.passed());
  EXPECT_EQ(stats.elements, 3);
  EXPECT_EQ(stats.first_mismatch, -1);
  EXPECT_NEAR(stats.max_abs_error, 0.0005, 1e-12);
}

TEST(CloseStatsTest, NanMismatchIsCountedAndMakesTheErrorNan) {
  CloseStats stats;
  stats.Add(1.0, 1.0, kTol);
  stats.Add(5.0, 1.0, kTol);   // finite mismatch, flat 1
  stats.Add(kNan, 2.0, kTol);  // flat 2
  stats.Add(3.0, 1.0, kTol);
  stats.Add(kNan, kNan, kTol);  // no equal_nan: a mismatch too
  EXPECT_FALSE(stats.passed());
  EXPECT_EQ(stats.mismatches, 4);
  EXPECT_EQ(stats.nan_mismatches, 2);
  EXPECT_EQ(stats.inf_mismatches, 0);
  EXPECT_EQ(stats.nonfinite_mismatches(), 2);
  EXPECT_EQ(stats.first_mismatch, 1);
  EXPECT_EQ(stats.first_nan, 2);
  EXPECT_EQ(stats.first_actual, 5.0);
  EXPECT_TRUE(std::isnan(stats.max_abs_error)) << stats.max_abs_error;
}

TEST(CloseStatsTest, InfiniteMismatchMakesTheErrorInfinite) {
  CloseStats stats;
  stats.Add(2.0, 1.0, kTol);
  stats.Add(kInf, 1.0, kTol);
  EXPECT_EQ(stats.inf_mismatches, 1);
  EXPECT_EQ(stats.first_inf, 1);
  EXPECT_EQ(stats.max_abs_error, kInf);
  // A NaN mismatch after it wins: NaN is never hidden behind a number.
  stats.Add(1.0, kNan, kTol);
  EXPECT_TRUE(std::isnan(stats.max_abs_error));
  stats.Add(5.0, 1.0, kTol);
  EXPECT_TRUE(std::isnan(stats.max_abs_error));
}

TEST(CloseStatsTest, InfinityMismatchesUnderAWideToleranceAreCountedAsInfinite) {
  constexpr CloseTolerance kWide{/*rtol=*/1e6, /*atol=*/1e6, /*equal_nan=*/false};
  CloseStats stats;
  EXPECT_TRUE(stats.Add(kInf, kInf, kWide));    // counts 0
  EXPECT_TRUE(stats.Add(-kInf, -kInf, kWide));  // counts 0
  EXPECT_TRUE(stats.Add(5.0, 1.0, kWide));
  EXPECT_EQ(stats.max_abs_error, 4.0);
  EXPECT_FALSE(stats.Add(kInf, -kInf, kWide));  // flat 3
  EXPECT_FALSE(stats.Add(0.0, kInf, kWide));
  EXPECT_EQ(stats.mismatches, 2);
  EXPECT_EQ(stats.inf_mismatches, 2);
  EXPECT_EQ(stats.nan_mismatches, 0);
  EXPECT_EQ(stats.first_mismatch, 3);
  EXPECT_EQ(stats.first_inf, 3);
  EXPECT_EQ(stats.first_actual, kInf);
  EXPECT_EQ(stats.first_expected, -kInf);
  EXPECT_EQ(stats.max_abs_error, kInf);
  EXPECT_EQ(DescribeMismatches(stats, {5}, ""),
            "2 element(s) outside tolerance, 2 of them infinite, first infinite at [3]; first "
            "at [3]: got inf, expected -inf; max abs error inf");
}

TEST(CloseStatsTest, DescribesNanMismatches) {
  CloseStats stats;
  stats.Add(0.0, 0.0, kTol);
  for (double actual : {kNan, kNan, 7.0}) stats.Add(actual, 0.00208584, kTol);
  EXPECT_EQ(DescribeMismatches(stats, {2, 2}, " of 'out'"),
            "3 element(s) of 'out' outside tolerance, 2 of them NaN, first NaN at [0, 1]; "
            "first at [0, 1]: got nan, expected 0.00208584; max abs error nan");
}

TEST(CloseStatsTest, DescribesInfiniteMismatches) {
  CloseStats stats;
  stats.Add(1.0, 1.0, kTol);
  stats.Add(1.0, 1.0, kTol);
  stats.Add(-kInf, 1.0, kTol);
  const std::string text = DescribeMismatches(stats, {3}, "");
  EXPECT_THAT(text, HasSubstr("1 element(s) outside tolerance, 1 of them infinite, first "
                              "infinite at [2]; first at [2]: got -inf, expected 1"));
  EXPECT_THAT(text, HasSubstr("max abs error inf"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("NaN")));
}

TEST(UnflattenIndexTest, RowMajor) {
  EXPECT_EQ(UnflattenIndex(7, {2, 3, 4}), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(UnflattenIndex(23, {2, 3, 4}), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(UnflattenIndex(5, {8}), (std::vector<int64_t>{5}));
}

}  // namespace
}  // namespace pto
