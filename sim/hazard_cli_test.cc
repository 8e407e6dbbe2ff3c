// The hazard detector on whole runs: unordered overlapping GM accesses
// between tasks are reported, ordered or disjoint ones are not.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::testing::SimRun;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

std::string Compiled(const std::string& name) { return kBuild + "/traces/" + name + ".pb"; }

SimRun Simulate(const std::string& trace, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, kSource + "/configs/ascend.yaml", trace, extra);
}

// tensor_claim with the copy task's deps= removed: manual_dep dropped its
// RAW edges, so nothing orders it after the writers of `scratch`.
std::string TensorClaimWithoutDeps() {
  trace::TraceText text = ::pto::testing::LoadTraceFile(Compiled("tensor_claim"));
  for (auto& record : *text.mutable_records()) {
    if (record.has_submit() && record.submit().deps_size() > 0) {
      record.mutable_submit()->clear_deps();
    }
  }
  return ::pto::testing::SaveTraceFile(text, "tensor_claim_no_deps");
}

TEST(HazardCliTest, MissingDepsOnTheCopyTaskIsAReportedRaw) {
  const SimRun run = Simulate(TensorClaimWithoutDeps());
  // The seed's warning: a partly wrong result, and nothing loud on the device.
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("FAIL"));
  ASSERT_NE(run.stats, nullptr) << run.cli.err;
  ASSERT_GE(run.stats["hazards"].size(), 1u) << run.cli.out;
  const nlohmann::json& hazard = run.stats["hazards"][0];
  EXPECT_EQ(hazard["kind"], "RAW");
  EXPECT_THAT(hazard["line"].get<std::string>(), HasSubstr("deps="));
  EXPECT_EQ(hazard["task"]["name"], "tensor_claim_at4");  // the copy task
  EXPECT_EQ(hazard["others"].size(), 4u);                 // the four writers
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: RAW"));
  // The scratch tensor is named as the kernel description names it.
  EXPECT_EQ(run.stats["hazards"][0]["tensor"], "scratch");
  EXPECT_THAT(run.cli.out, HasSubstr("on scratch bytes"));
}

TEST(HazardCliTest, FailOnHazardTurnsAReportIntoExitOne) {
  // Timing-only: no checks to fail, so the exit code is the hazard's alone.
  const std::string trace = TensorClaimWithoutDeps();
  EXPECT_EQ(Simulate(trace, {"--timing-only"}).cli.exit_code, 0);
  EXPECT_EQ(Simulate(trace, {"--timing-only", "--fail-on-hazard"}).cli.exit_code, 1);
  const SimRun quiet = Simulate(trace, {"--no-hazards", "--timing-only"});
  EXPECT_THAT(quiet.cli.out, Not(HasSubstr("hazard:")));
  EXPECT_FALSE(quiet.stats.contains("hazards"));
}

TEST(HazardCliTest, ClaimsThatHoldAreNotReported) {
  for (const char* name :
       {"tensor_claim", "narrow_claim", "region_claim", "sliced", "serialized", "soft_barrier"}) {
    const SimRun run = Simulate(Compiled(name), {"--fail-on-hazard"});
    EXPECT_EQ(run.cli.exit_code, 0) << name << ": " << run.cli.out << run.cli.err;
    EXPECT_TRUE(run.stats["hazards"].empty()) << name << ": " << run.stats["hazards"];
  }
}

}  // namespace
}  // namespace pto
