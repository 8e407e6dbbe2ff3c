#include "sim/compare_command.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

// A single-launch stats.json as the driver writes it, with the overhead
// analysis merged in and per-record arrays after the summary.
nlohmann::json LaunchSummary(double makespan, int dispatches, double injected_hop1) {
  return nlohmann::json::parse(R"({
    "launch": 0, "name": "early", "makespan_us": )" +
                               std::to_string(makespan) + R"(,
    "device_wall_us": 20.0, "tasks": 3, "task_dispatches": )" +
                               std::to_string(dispatches) + R"(,
    "block_dispatches": 3, "predicated_skips": 0, "edges": 2,
    "engine_busy_share": {"aic": 0.5, "aiv": 0.25},
    "rings": [{"peak_task_window": 4, "orchestrator_blocked_us": 0.0},
              {"peak_task_window": )" +
                               std::to_string(dispatches * 2) + R"(,
               "orchestrator_blocked_us": 1.5}],
    "scheduler_overhead": {
      "overhead_share": {"aic": 0.1, "aiv": 0.2, "all": 0.0, "has": 0.3},
      "critical_path": {"hops": 1, "compute_us": 8.0, "injected_us": 3.0, "path": [
        {"name": "qk", "injected_us": 1.0},
        {"name": "sf", "injected_us": )" +
                               std::to_string(injected_hop1) + R"(}]}},
    "task_records": [{"index": 0}, {"index": 1}],
    "core_intervals": [[0, 1, 2]]
  })");
}

std::string Save(const std::string& name, const std::string& text) {
  const std::string path = ::pto::testing::FreshOutputDir(name) + "/stats.json";
  std::ofstream(path) << text;
  return path;
}

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Compare(const std::string& a, const std::string& b, bool all = false) {
  std::ostringstream out, err;
  CompareOptions options;
  options.all = all;
  const int code = RunCompareCommand(a, b, options, out, err);
  return {code, out.str(), err.str()};
}

// The row of `metric` in `out`, whitespace-collapsed.
std::string Row(const std::string& out, const std::string& metric) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first, row, w;
    words >> first;
    if (first != metric) continue;
    row = first;
    while (words >> w) row += " " + w;
    return row;
  }
  return "";
}

TEST(CompareCommandTest, SingleLaunchDeltasAbsoluteAndPercent) {
  const std::string a = Save("cmp_a", LaunchSummary(12.5, 4, 2.0).dump());
  const std::string b = Save("cmp_b", LaunchSummary(10.0, 3, 0.5).dump());
  const Result r = Compare(a, b, /*all=*/true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Row(r.out, "makespan_us"), "makespan_us 12.5 10 -2.5 -20.0%");
  EXPECT_EQ(Row(r.out, "task_dispatches"), "task_dispatches 4 3 -1 -25.0%");
  EXPECT_EQ(Row(r.out, "overhead_share.has"), "overhead_share.has 0.3 0.3 +0 +0.0%");
  EXPECT_EQ(Row(r.out, "critical_path.hops"), "critical_path.hops 1 1 +0 +0.0%");
  EXPECT_EQ(Row(r.out, "ring1.peak_task_window"), "ring1.peak_task_window 8 6 -2 -25.0%");
  EXPECT_EQ(Row(r.out, "ring2.peak_task_window"), "");  // absent on both sides
  EXPECT_THAT(r.out, HasSubstr("hop 1 sf"));
  EXPECT_THAT(Row(r.out, "hop"), HasSubstr("hop 0 qk 1 1 +0"));
  EXPECT_THAT(r.out, MatchesRegex("(.|\n)*hop 1 sf +2 +0.5 +-1.5 +-75.0%(.|\n)*"));
  EXPECT_THAT(r.out, Not(HasSubstr("task_records")));
}

TEST(CompareCommandTest, ByDefaultOnlyWhatChangedWithACountOfTheRest) {
  const std::string a = Save("cmp_changed_a", LaunchSummary(12.5, 4, 2.0).dump());
  const std::string b = Save("cmp_changed_b", LaunchSummary(10.0, 4, 2.0).dump());
  const Result r = Compare(a, b);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Row(r.out, "makespan_us"), "makespan_us 12.5 10 -2.5 -20.0%");
  EXPECT_EQ(Row(r.out, "task_dispatches"), "");  // 4 and 4
  EXPECT_EQ(Row(r.out, "overhead_share.has"), "");
  EXPECT_THAT(r.out,
              MatchesRegex("(.|\n)*  [0-9]+ more unchanged \\(--all shows them\\)\n(.|\n)*"));
  EXPECT_THAT(r.out, Not(HasSubstr("hop 0 qk")));  // the same hops
  const Result same = Compare(a, a);
  EXPECT_THAT(same.out, HasSubstr("no metric changed"));
  EXPECT_THAT(same.out, HasSubstr("provenance: neither file records its inputs"));
}

TEST(CompareCommandTest, LeadsWithWhatDifferedInTheProvenance) {
  nlohmann::json a = LaunchSummary(12.5, 4, 2.0);
  a["provenance"] = {{"tool", "pto_sim"},
                     {"version", "0.1.0"},
                     {"git_revision", "abc"},
                     {"config", {{"path", "configs/ascend.yaml"}, {"fnv1a64", "00ff"}}},
                     {"overrides", nlohmann::json::array()},
                     {"traces", {{{"path", "gated.pb"}, {"fnv1a64", "1234"}}}}};
  nlohmann::json b = a;
  const Result same = Compare(Save("cmp_prov_a", a.dump()), Save("cmp_prov_b", b.dump()));
  EXPECT_THAT(same.out,
              HasSubstr("provenance: the same pto_sim build, config, --set overrides and trace"));
  b["provenance"]["overrides"] = {"core.kernel_start_ns=450"};
  b["provenance"]["traces"][0]["fnv1a64"] = "5678";
  b["makespan_us"] = 13.0;
  const Result r = Compare(Save("cmp_prov_c", a.dump()), Save("cmp_prov_d", b.dump()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("provenance differs:\n  --set: A [], B [\"core.kernel_start_ns=450\"]\n"
                        "  trace: A gated.pb (1234), B gated.pb (5678)\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("config:")));
  EXPECT_LT(r.out.find("provenance differs"), r.out.find("makespan_us"));
  EXPECT_THAT(r.out, Not(HasSubstr("git_revision")));  // never a metric row
}

TEST(CompareCommandTest, MultiLaunchComparesTotalsThenEachLaunch) {
  nlohmann::json a = {{"launches", 2}, {"makespan_us", 30.0}, {"task_dispatches", 8}};
  a["per_launch"] = {LaunchSummary(12.5, 4, 2.0), LaunchSummary(17.5, 4, 2.0)};
  nlohmann::json b = a;
  b["makespan_us"] = 27.0;
  b["per_launch"][1] = LaunchSummary(14.5, 4, 2.0);
  const Result r = Compare(Save("cmp_multi_a", a.dump()), Save("cmp_multi_b", b.dump()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("totals:"));
  EXPECT_THAT(r.out, HasSubstr("launch 1 'early':"));
  const size_t launch1 = r.out.find("launch 1 'early':");
  EXPECT_THAT(r.out.substr(launch1), HasSubstr("-3"));
  EXPECT_EQ(Row(r.out, "makespan_us"), "makespan_us 30 27 -3 -10.0%");  // the totals row
}

TEST(CompareCommandTest, MissingOrForeignFilesExitTwo) {
  const std::string good = Save("cmp_good", LaunchSummary(1, 1, 1).dump());
  Result r = Compare(good, "/nonexistent/stats.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/stats.json: no such file"));
  r = Compare(Save("cmp_not_json", "{oops"), good);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not valid JSON"));
  r = Compare(good, Save("cmp_foreign", R"({"traceEvents": []})"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a pto_sim stats.json"));
}

}  // namespace
}  // namespace pto
