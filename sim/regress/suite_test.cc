#include "sim/regress/suite.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string WriteSuite(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("suite_test_" + name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

TEST(SuiteTest, ReadsCasesPropertiesAndTolerances) {
  absl::StatusOr<RegressSuite> suite = LoadRegressSuite(WriteSuite("ok", R"(
suite: demo
tolerance: {time: 0.05}
cases:
  - name: one
    trace: spmd_blocks
    set: [aicpu.scheduler_threads=2]
  - name: two
    trace: stress_1m.pb
    summary_only: true
    timing_only: true
    expect_exit: 3
    tolerance: {share: 0.1}
properties:
  - name: faster
    left: one/spmd_blocks.makespan_us
    op: "<"
    right: one/per_block_tasks.makespan_us
    factor: 0.5
)"));
  ASSERT_TRUE(suite.ok()) << suite.status();
  EXPECT_EQ(suite->name, "demo");
  EXPECT_EQ(suite->config, "configs/ascend.yaml");
  ASSERT_EQ(suite->cases.size(), 2u);
  EXPECT_EQ(suite->cases[0].sets, std::vector<std::string>{"aicpu.scheduler_threads=2"});
  EXPECT_EQ(suite->cases[0].tolerance.time_relative, 0.05);
  EXPECT_EQ(suite->cases[1].expect_exit, 3);
  EXPECT_TRUE(suite->cases[1].summary_only);
  EXPECT_FALSE(suite->cases[0].timing_only);
  EXPECT_TRUE(suite->cases[1].timing_only);
  EXPECT_EQ(suite->cases[1].tolerance.share_absolute, 0.1);
  EXPECT_EQ(suite->cases[1].tolerance.time_relative, 0.05);
  ASSERT_EQ(suite->properties.size(), 1u);
  EXPECT_EQ(suite->properties[0].factor, 0.5);
}

TEST(SuiteTest, UnknownKeyNamesTheLineAndTheValidKeys) {
  absl::StatusOr<RegressSuite> suite = LoadRegressSuite(WriteSuite("unknown", R"(suite: demo
cases:
  - name: one
    trace: gated
    tolerence: {time: 0.1}
)"));
  ASSERT_FALSE(suite.ok());
  const std::string message(suite.status().message());
  EXPECT_THAT(message, HasSubstr("suite_test_unknown.yaml:5:"));
  EXPECT_THAT(message, HasSubstr("unknown key 'tolerence'"));
  EXPECT_THAT(message, HasSubstr("tolerance"));
}

TEST(SuiteTest, PropertyMustNameACaseOfTheSuite) {
  absl::StatusOr<RegressSuite> suite = LoadRegressSuite(WriteSuite("badref", R"(suite: demo
cases:
  - {name: one, trace: gated}
properties:
  - {name: p, left: two/makespan_us, op: "<", value: 3}
)"));
  ASSERT_FALSE(suite.ok());
  EXPECT_THAT(std::string(suite.status().message()), HasSubstr("names case 'two'"));
}

TEST(SuiteTest, BadOperatorAndDuplicateNamesAreErrors) {
  EXPECT_FALSE(LoadRegressSuite(WriteSuite("op", R"(suite: d
cases: [{name: a, trace: gated}]
properties: [{name: p, left: a/makespan_us, op: "<<", value: 1}]
)"))
                   .ok());
  absl::StatusOr<RegressSuite> dup = LoadRegressSuite(WriteSuite("dup", R"(suite: d
cases: [{name: a, trace: gated}, {name: a, trace: sliced}]
)"));
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(std::string(dup.status().message()), HasSubstr("used twice"));
}

TEST(SuiteTest, MissingFileIsNamed) {
  absl::StatusOr<RegressSuite> suite = LoadRegressSuite("/nonexistent/suite.yaml");
  ASSERT_FALSE(suite.ok());
  EXPECT_THAT(std::string(suite.status().message()), HasSubstr("/nonexistent/suite.yaml"));
}

// Every trace in traces/ is a case of some suite in regress/suites/, so the
// regression run covers all of them; and every committed suite parses.
TEST(SuiteTest, CommittedSuitesCoverEveryTrace) {
  std::set<std::string> covered;
  for (const auto& entry : fs::directory_iterator(fs::path(PTO_SOURCE_DIR) / "regress/suites")) {
    if (entry.path().extension() != ".yaml") continue;
    absl::StatusOr<RegressSuite> suite = LoadRegressSuite(entry.path().string());
    ASSERT_TRUE(suite.ok()) << suite.status();
    for (const RegressCase& c : suite->cases) covered.insert(fs::path(c.trace).stem().string());
  }
  for (const auto& entry : fs::directory_iterator(fs::path(PTO_SOURCE_DIR) / "traces")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".py" && ext != ".pbtxt") continue;
    EXPECT_EQ(covered.count(entry.path().stem().string()), 1u)
        << entry.path().filename().string()
        << " is in no regression suite; add a case for it to regress/suites/*.yaml";
  }
}

}  // namespace
}  // namespace pto
