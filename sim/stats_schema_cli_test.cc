// The stats.json files real runs write hold exactly the keys of the stats
// schema (sim/stats_schema.h): nothing a reader would not find in
// docs/stats.md, and every row the schema promises for every run.

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/stats_schema.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

// The leaf paths of the run's first launch's stats.json.
std::vector<std::string> LaunchLeaves(const std::string& trace,
                                      const std::vector<std::string>& extra) {
  const testing::SimRun run = testing::Simulate(kPtoSim, kSource + "/configs/ascend.yaml",
                                                kBuild + "/traces/" + trace + ".pb", extra);
  EXPECT_EQ(run.cli.exit_code, 0) << run.cli.err;
  return StatLeafPaths(run.stats);
}

bool Covered(const std::string& leaf) {
  for (const StatSpec& spec : StatsSchema()) {
    if (StatPathCovers(spec.path, leaf)) return true;
  }
  return false;
}

TEST(StatsSchemaCliTest, EveryKeyARunWritesIsInTheSchemaAndEveryAlwaysKeyIsWritten) {
  // gated: checks, predicates, two launches; cross_core_ring: the MIX ring
  // and engine intervals; tensor_claim: a manual scope and deps; with every
  // output on (the overhead model, the per-record arrays).
  std::set<std::string> seen;
  for (const char* trace : {"gated", "cross_core_ring", "tensor_claim", "mixed_kernel"}) {
    for (const std::string& leaf : LaunchLeaves(trace, {})) {
      EXPECT_TRUE(Covered(leaf)) << trace << " writes '" << leaf
                                 << "', which is not in sim/stats_schema.cc";
      seen.insert(leaf);
    }
  }
  for (const StatSpec& spec : StatsSchema()) {
    if (spec.conditional) continue;
    // Index rows ("rings/0/...") are views of an array row.
    if (spec.path.find_first_of("0123456789") != absl::string_view::npos) continue;
    bool written = false;
    for (const std::string& leaf : seen) written |= StatPathCovers(spec.path, leaf);
    EXPECT_TRUE(written) << "the schema promises '" << spec.path
                         << "' in every run, but no run wrote it";
  }
}

TEST(StatsSchemaCliTest, SummaryOnlyWritesOnlyUnconditionalKeys) {
  for (const std::string& leaf : LaunchLeaves("spmd_blocks", {"--summary-only"})) {
    bool unconditional = false;
    for (const StatSpec& spec : StatsSchema()) {
      unconditional |= !spec.conditional && StatPathCovers(spec.path, leaf);
    }
    EXPECT_TRUE(unconditional) << "--summary-only writes '" << leaf
                               << "', a key the schema marks conditional or lacks";
  }
}

}  // namespace
}  // namespace pto
