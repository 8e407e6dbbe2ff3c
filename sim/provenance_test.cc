#include "sim/provenance.h"

#include <fstream>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(ProvenanceTest, NamesTheInputsAsGivenWithTheirHashes) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/c.yaml") << "chip: {}\n";
  std::ofstream(dir + "/t.pb") << "trace";
  const nlohmann::json p =
      Provenance({dir + "/c.yaml", {"chip.clusters=8", "core.setup_ns=5"}, {dir + "/t.pb"}});
  EXPECT_EQ(p["tool"], "pto_sim");
  EXPECT_FALSE(p["version"].get<std::string>().empty());
  EXPECT_FALSE(p["git_revision"].get<std::string>().empty());
  EXPECT_EQ(p["config"]["path"], dir + "/c.yaml");
  EXPECT_EQ(p["config"]["fnv1a64"].get<std::string>().size(), 16u);
  EXPECT_EQ(p["overrides"], nlohmann::json({"chip.clusters=8", "core.setup_ns=5"}));
  ASSERT_EQ(p["traces"].size(), 1u);
  EXPECT_EQ(p["traces"][0]["path"], dir + "/t.pb");
  EXPECT_NE(p["traces"][0]["fnv1a64"], p["config"]["fnv1a64"]);
}

TEST(ProvenanceTest, AChangedFileChangesItsHashAndARelativePathStaysRelative) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/v.yaml") << "a: 1\n";
  const nlohmann::json before = Provenance({dir + "/v.yaml", {}, {"relative/missing.pb"}});
  std::ofstream(dir + "/v.yaml") << "a: 2\n";
  const nlohmann::json after = Provenance({dir + "/v.yaml", {}, {"relative/missing.pb"}});
  EXPECT_NE(before["config"]["fnv1a64"], after["config"]["fnv1a64"]);
  EXPECT_EQ(after["traces"][0]["path"], "relative/missing.pb");
  EXPECT_TRUE(after["traces"][0]["fnv1a64"].is_null());
}

}  // namespace
}  // namespace pto
