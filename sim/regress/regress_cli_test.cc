// `pto_sim regress` end to end: baselines recorded, compared, broken by a
// changed latency with a readable diff, and rewritten by --update-baselines,
// all on temporary copies (the committed baselines are never touched).
#include <unistd.h>

#include <filesystem>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

using ::pto::testing::FreshDir;
using ::pto::testing::ReadJson;
using ::pto::testing::RunCli;
using ::pto::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSuite[] = R"(suite: probe
cases:
  - {name: spmd_blocks, trace: spmd_blocks}
  - {name: raw_chain, trace: raw_chain.pbtxt}
properties:
  - name: SPMD makespan is under half the per-block makespan
    left: spmd_blocks/spmd_blocks.makespan_us
    op: "<"
    right: spmd_blocks/per_block_tasks.makespan_us
    factor: 0.5
)";

class RegressCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir("regress_cli");
    suite_ = dir_ + "/probe.yaml";
    baselines_ = dir_ + "/baselines";
    WriteFile(suite_, kSuite);
  }

  testing::CliResult Regress(std::vector<std::string> extra, const std::string& suite = "") {
    std::vector<std::string> args = {
        "regress",  suite.empty() ? suite_ : suite,         "--root",      PTO_SOURCE_DIR,
        "--traces", std::string(PTO_BUILD_DIR) + "/traces", "--baselines", baselines_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(PTO_SIM_BINARY, args);
  }

  // The work directories suite `suite` left in the temp dir
  // (pto_regress_<pid>_<suite>; other tests run their own suites at once).
  static std::set<std::string> Leftovers(const std::string& suite) {
    std::set<std::string> found;
    for (const auto& e :
         std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("pto_regress_", 0) == 0 && name.size() > suite.size() + 1 &&
          name.compare(name.size() - suite.size() - 1, std::string::npos, "_" + suite) == 0) {
        found.insert(e.path().string());
      }
    }
    return found;
  }

  std::string dir_, suite_, baselines_;
};

TEST_F(RegressCliTest, ChangedLatencyFailsWithDiffAndUpdateRewritesTheBaseline) {
  testing::CliResult record = Regress({"--update-baselines"});
  ASSERT_EQ(record.exit_code, 0) << record.out << record.err;
  const nlohmann::json first = ReadJson(baselines_ + "/probe.json");
  const double makespan = first["cases"]["spmd_blocks"]["per_block_tasks.makespan_us"];
  EXPECT_GT(makespan, 0);

  testing::CliResult same = Regress({});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_THAT(same.out, HasSubstr("ok   probe/spmd_blocks"));

  // A slower kernel start (400 ns -> 2000 ns) moves every makespan.
  testing::CliResult slower = Regress({"--set", "core.kernel_start_ns=2000"});
  EXPECT_EQ(slower.exit_code, 1) << slower.out;
  EXPECT_THAT(slower.out, HasSubstr("FAIL probe/spmd_blocks: expected the timing baseline"));
  EXPECT_THAT(slower.out, HasSubstr("per_block_tasks.makespan_us"));
  EXPECT_THAT(slower.out, HasSubstr("baseline"));
  EXPECT_THAT(slower.out, HasSubstr("measured"));
  EXPECT_THAT(slower.out, HasSubstr("±1%"));
  // The hint is the exact command, --set and all, and names the file.
  EXPECT_THAT(slower.out,
              HasSubstr("if the change is intended: pto_sim regress " + suite_ + " --root " +
                        PTO_SOURCE_DIR + " --traces " + PTO_BUILD_DIR + "/traces --baselines " +
                        baselines_ +
                        " --set core.kernel_start_ns=2000 --update-baselines --accept-overrides\n"
                        "    then review and commit the diff of " +
                        baselines_ + "/probe.json"));
  EXPECT_THAT(slower.out, HasSubstr("regress probe: 2 cases, 1 properties: 2 failed"));
  // Dispatch counts do not depend on the latency: they are not in the diff.
  EXPECT_THAT(slower.out, Not(HasSubstr("task_dispatches")));

  // Recording baselines under an override the suite does not name is
  // refused unless asked for, and the baselines stay as they were.
  testing::CliResult refused =
      Regress({"--set", "core.kernel_start_ns=2000", "--update-baselines"});
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("--update-baselines with --set core.kernel_start_ns=2000 "
                                     "would record baselines for a config the suites do not "
                                     "name"));
  EXPECT_EQ(ReadJson(baselines_ + "/probe.json"), first);

  testing::CliResult update =
      Regress({"--set", "core.kernel_start_ns=2000", "--update-baselines", "--accept-overrides"});
  ASSERT_EQ(update.exit_code, 0) << update.out;
  EXPECT_THAT(update.out,
              HasSubstr("baselines of 2 cases written to " + baselines_ + "/probe.json"));
  const nlohmann::json second = ReadJson(baselines_ + "/probe.json");
  EXPECT_GT(second["cases"]["spmd_blocks"]["per_block_tasks.makespan_us"].get<double>(), makespan);
  EXPECT_EQ(second["cases"]["spmd_blocks"]["task_dispatches"],
            first["cases"]["spmd_blocks"]["task_dispatches"]);
  EXPECT_EQ(Regress({"--set", "core.kernel_start_ns=2000"}).exit_code, 0);
  EXPECT_EQ(Regress({}).exit_code, 1);
}

TEST_F(RegressCliTest, MissingBaselineSaysHowToRecordIt) {
  testing::CliResult run = Regress({});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out, HasSubstr("FAIL probe/raw_chain: expected a timing baseline in"));
  EXPECT_THAT(run.out, HasSubstr("record it with --update-baselines"));
}

TEST_F(RegressCliTest, FailedRunShowsExpectedAndMeasuredExitAndStderr) {
  const std::string suite = dir_ + "/bad_value.yaml";
  WriteFile(suite, R"(suite: bad_value
cases:
  - {name: zero_threads, trace: raw_chain.pbtxt, set: [aicpu.scheduler_threads=0], baseline: false}
)");
  testing::CliResult run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr("FAIL bad_value/zero_threads: expected exit 0 (the run succeeds "
                                 "and every check passes), measured exit 2"));
  EXPECT_THAT(run.out, HasSubstr("its stderr:\n      pto_sim: error:"));
  EXPECT_THAT(run.out, HasSubstr("aicpu.scheduler_threads"));
}

TEST_F(RegressCliTest, AFailedCheckShowsTheRunsOwnLinesAndLeavesNoWorkFiles) {
  // A check that fails prints its detail on stdout, not stderr.
  const std::string suite = dir_ + "/failing_check.yaml";
  // Named after this process: its work directory is told apart from others'.
  const std::string name = "failing_check_" + std::to_string(getpid());
  WriteFile(suite, "suite: " + name + R"(
cases:
  - {name: poisoned, trace: POISONED, baseline: false}
)");
  std::string text = testing::ReadFile(std::string(PTO_SOURCE_DIR) + "/traces/raw_chain.pbtxt");
  const std::string trace = dir_ + "/poisoned.pbtxt";
  // The expected value of the trace's check, made wrong (1 + 4 i).
  const size_t at = text.find("start: 1 step: 3");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "start: 1 step: 4");
  WriteFile(trace, text);
  std::string body = testing::ReadFile(suite);
  body.replace(body.find("POISONED"), 8, trace);
  WriteFile(suite, body);
  ASSERT_THAT(Leftovers(name), ::testing::IsEmpty());
  testing::CliResult run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("FAIL " + name + "/poisoned: expected exit 0"));
  EXPECT_THAT(run.out, HasSubstr("its stdout says:\n      "));
  EXPECT_THAT(run.out, HasSubstr("out == (a + b) * 2"));
  EXPECT_THAT(Leftovers(name), ::testing::IsEmpty()) << "the failed run left its work directory";
  testing::CliResult kept = Regress({"--keep-work"}, suite);
  const std::set<std::string> left = Leftovers(name);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_THAT(kept.out, HasSubstr("the cases' pto_sim outputs are kept in " + *left.begin()));
  EXPECT_THAT(kept.out, HasSubstr("    its files: " + *left.begin() + "/poisoned"));
  std::filesystem::remove_all(*left.begin());
}

TEST_F(RegressCliTest, ACopiedSuiteIsToldItReadsTheRepositorysBaselines) {
  const std::string suite = dir_ + "/copied.yaml";
  WriteFile(suite, "suite: copied\ncases:\n  - {name: raw_chain, trace: raw_chain.pbtxt}\n");
  testing::CliResult run =
      RunCli(PTO_SIM_BINARY, {"regress", suite, "--root", PTO_SOURCE_DIR, "--traces",
                              std::string(PTO_BUILD_DIR) + "/traces"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("reads the repository's baselines; give it its own with "
                                 "--baselines DIR"));
}

TEST_F(RegressCliTest, BrokenPropertyPrintsBothSides) {
  const std::string suite = dir_ + "/inverted.yaml";
  WriteFile(suite, R"(suite: inverted
cases:
  - {name: spmd_blocks, trace: spmd_blocks, baseline: false}
properties:
  - name: per-block tasks beat SPMD (false)
    left: spmd_blocks/per_block_tasks.makespan_us
    op: "<"
    right: spmd_blocks/spmd_blocks.makespan_us
)");
  testing::CliResult run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr("FAIL inverted: property 'per-block tasks beat SPMD (false)': "
                                 "expected spmd_blocks/per_block_tasks.makespan_us < "
                                 "spmd_blocks/spmd_blocks.makespan_us, measured "
                                 "spmd_blocks/per_block_tasks.makespan_us = "));
  // Both measured sides, whatever the calibrated defaults make them.
  EXPECT_THAT(run.out, ::testing::ContainsRegex("makespan_us = [0-9.]+ against [0-9.]+"));
}

// A property marked pending (waiting for a re-fit) that fails is an
// expected failure: the run passes and records what it measured. Once it
// holds, the mark is stale and the run fails until it is removed.
TEST_F(RegressCliTest, APendingPropertyIsAStrictExpectedFailure) {
  const std::string suite = dir_ + "/pending.yaml";
  const std::string body = R"(suite: pending
cases:
  - {name: spmd_blocks, trace: spmd_blocks, baseline: false}
properties:
  - name: per-block tasks beat SPMD
    left: spmd_blocks/per_block_tasks.makespan_us
    op: "OP"
    right: spmd_blocks/spmd_blocks.makespan_us
    pending: "the block-dispatch cost is re-fitted later"
)";
  std::string failing = body;
  failing.replace(failing.find("OP"), 2, "<");
  WriteFile(suite, failing);
  testing::CliResult run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("xfail pending: per-block tasks beat SPMD (pending re-fit: the "
                                 "block-dispatch cost is re-fitted later; measured "
                                 "spmd_blocks/per_block_tasks.makespan_us = "));
  std::string holding = body;
  holding.replace(holding.find("OP"), 2, ">");
  WriteFile(suite, holding);
  run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr("is marked pending (the block-dispatch cost is re-fitted later) "
                                 "but holds"));
  EXPECT_THAT(run.out, HasSubstr("remove its 'pending' mark"));
  // An empty reason is bad input.
  std::string no_reason = failing;
  no_reason.replace(no_reason.find("\"the block"), 44, "\"\"");
  WriteFile(suite, no_reason);
  run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("'pending' needs the reason"));
}

TEST_F(RegressCliTest, BadSuiteOrTraceIsBadInput) {
  const std::string suite = dir_ + "/no_trace.yaml";
  WriteFile(suite, "suite: no_trace\ncases:\n  - {name: ghost, trace: no_such_trace}\n");
  testing::CliResult run = Regress({}, suite);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("case 'ghost': trace 'no_such_trace' not found"));
  WriteFile(suite, "suite: [unclosed\n");
  EXPECT_EQ(Regress({}, suite).exit_code, 2);
}

}  // namespace
}  // namespace pto
