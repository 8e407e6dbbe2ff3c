// End-to-end tests of checks with NaN and infinite results: a kernel
// description compiled by the real ptoc, run by the real pto_sim, each in its
// own process.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

using ::pto::testing::CliResult;
using ::pto::testing::FreshDir;
using ::pto::testing::RunCli;
using ::pto::testing::SimRun;
using ::pto::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::Not;

// out = sqrt(a) on the device, where a is 1 except a[0, 1] = -1 and
// a[2, 3] = -4 (NaN) and a[3, 0] = 4 (2, a finite mismatch against 1).
constexpr char kSqrtKernel[] = R"(import pypto.language as pl
import torch


@pl.jit
def root(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.sqrt(pl.load(a, [0, 0], [16, 16])), [0, 0], out)
    return out


a = torch.ones(16, 16)
a[0, 1] = -1.0
a[2, 3] = -4.0
a[3, 0] = 4.0
out = torch.zeros(16, 16)
root(a, out)
)";

// out = a on the device, where a is 1 except a[0, 1] = inf, a[2, 3] = -inf
// and a[3, 0] = 0.
constexpr char kCopyKernel[] = R"(import pypto.language as pl
import torch


@pl.jit
def copy(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
    return out


a = torch.ones(16, 16)
a[0, 1] = float("inf")
a[2, 3] = float("-inf")
a[3, 0] = 0.0
out = torch.zeros(16, 16)
copy(a, out)
)";

// Compiles `harness` (`kernel` plus checks) with ptoc and runs it.
SimRun CompileAndRun(const std::string& name, const std::string& harness,
                     const char* kernel = kSqrtKernel) {
  const std::string dir = FreshDir(name);
  const std::string source = dir + "/" + name + ".py";
  WriteFile(source, std::string(kernel) + harness);
  const CliResult ptoc = RunCli(PTOC_BINARY, {source, "-o", dir + "/" + name + ".pb"});
  EXPECT_EQ(ptoc.exit_code, 0) << ptoc.err;
  return ::pto::testing::Simulate(PTO_SIM_BINARY,
                                  std::string(PTO_SOURCE_DIR) + "/configs/ascend.yaml",
                                  dir + "/" + name + ".pb");
}

TEST(ChecksCliTest, NanWhereAFiniteValueIsExpectedFailsNamingNan) {
  const SimRun run =
      CompileAndRun("nan_result", "torch.testing.assert_close(out, torch.ones(16, 16))\n");
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out,
              HasSubstr("nan_result.py:18): FAIL, 3 element(s) of "
                        "'out' outside tolerance, 2 of them NaN, first NaN at [0, 1]; first at "
                        "[0, 1]: got nan, expected 1; max abs error nan"));
  EXPECT_THAT(run.cli.out,
              HasSubstr("check 'torch.testing.assert_close(out, torch.ones(16, 16))' ("));
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 0 passed, 1 failed"));
  const nlohmann::json& check = run.stats["checks"]["results"][0];
  EXPECT_EQ(check["passed"], false);
  EXPECT_TRUE(check["max_abs_error"].is_null()) << check.dump();
  EXPECT_EQ(check["mismatches"], 3);
  EXPECT_EQ(check["nonfinite_mismatches"], 2);
  EXPECT_EQ(check["nan_mismatches"], 2);
  EXPECT_EQ(check["first_nan"], (std::vector<int>{0, 1}));
  EXPECT_EQ(run.stats["checks"]["failed"], 1);
}

TEST(ChecksCliTest, NanMatchesNanOnlyWithEqualNan) {
  // The expected values are ptoc's own reference results, NaN included.
  const SimRun strict =
      CompileAndRun("nan_strict",
                    "expected = out.clone()\n"
                    "torch.testing.assert_close(out, expected, rtol=0.0, atol=0.0)\n");
  EXPECT_EQ(strict.cli.exit_code, 1) << strict.cli.out << strict.cli.err;
  EXPECT_THAT(strict.cli.out, HasSubstr("FAIL, 2 element(s) of 'out' outside tolerance, 2 of "
                                        "them NaN, first NaN at [0, 1]"));

  const SimRun lenient = CompileAndRun(
      "nan_equal",
      "expected = out.clone()\n"
      "torch.testing.assert_close(out, expected, rtol=0.0, atol=0.0, equal_nan=True)\n");
  EXPECT_EQ(lenient.cli.exit_code, 0) << lenient.cli.out << lenient.cli.err;
  EXPECT_THAT(lenient.cli.out, HasSubstr("PASS, max abs error 0"));
  EXPECT_THAT(lenient.cli.out, Not(HasSubstr("NaN")));
  EXPECT_EQ(lenient.stats["checks"]["results"][0]["nan_mismatches"], 0);
}

// However wide the tolerance, an infinity matches only the same infinity:
// +inf against -inf and 0 against +inf fail, as in torch.
TEST(ChecksCliTest, InfinitiesMatchOnlyTheSameInfinityWhateverTheTolerance) {
  const SimRun run =
      CompileAndRun("inf_wide",
                    "expected = a.clone()\n"
                    "expected[0, 1] = float(\"-inf\")\n"
                    "expected[3, 0] = float(\"inf\")\n"
                    "torch.testing.assert_close(out, expected, rtol=1e6, atol=1e6)\n"
                    "torch.testing.assert_close(out, a.clone(), rtol=1e6, atol=1e6)\n",
                    kCopyKernel);
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out,
              HasSubstr("inf_wide.py:21): FAIL, 2 element(s) of 'out' outside tolerance, 2 of "
                        "them infinite, first infinite at [0, 1]; first at [0, 1]: got inf, "
                        "expected -inf; max abs error inf"));
  EXPECT_THAT(run.cli.out, HasSubstr("inf_wide.py:22): PASS, max abs error 0"));
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 1 failed"));
  const nlohmann::json& failed = run.stats["checks"]["results"][0];
  EXPECT_EQ(failed["passed"], false);
  EXPECT_TRUE(failed["max_abs_error"].is_null()) << failed.dump();
  EXPECT_EQ(failed["mismatches"], 2);
  EXPECT_EQ(failed["nonfinite_mismatches"], 2);
  EXPECT_EQ(failed["nan_mismatches"], 0);
  EXPECT_EQ(failed["first_infinite"], (std::vector<int>{0, 1}));
  EXPECT_EQ(run.stats["checks"]["results"][1]["passed"], true);
}

}  // namespace
}  // namespace pto
