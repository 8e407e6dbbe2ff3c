#include "sim/sweep/sweep_chart.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SweepChartTest, OneLinePerCombinationOfTheOtherKeys) {
  SweepSpec spec;
  spec.traces = {"t.pb"};
  spec.axes = {{"chip.clusters", {"8", "16", "24"}}, {"core.dispatch_slots", {"1", "2"}}};
  std::vector<SweepRow> rows;
  int point = 0;
  for (const char* c : {"8", "16", "24"}) {
    for (const char* s : {"1", "2"}) {
      SweepRow row{point, "t.pb", {c, s}, 0, "", {{"makespan_us", 10.0 + point}}};
      if (point == 5) row.exit_code = 3;  // a failed point is left out
      rows.push_back(row);
      ++point;
    }
  }
  absl::StatusOr<std::string> svg = RenderSweepChart(spec, rows, "makespan_us", "chip.clusters");
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_THAT(*svg, HasSubstr("makespan_us against chip.clusters"));
  EXPECT_THAT(*svg, HasSubstr(">dispatch_slots=1<"));
  EXPECT_THAT(*svg, HasSubstr(">dispatch_slots=2<"));
  EXPECT_EQ(Count(*svg, "stroke-width=\"2\"/>\n<text"), 2);  // two legend entries
  EXPECT_EQ(Count(*svg, "<circle"), 5);
  // The failed point (24 clusters, 2 slots) is a marked gap with its exit code.
  EXPECT_EQ(Count(*svg, "class=\"failed\""), 1);
  EXPECT_THAT(*svg, HasSubstr(">exit 3</text>"));
  EXPECT_THAT(*svg, HasSubstr("class=\"subtitle\""));
  EXPECT_THAT(*svg, HasSubstr(">trace t.pb</text>"));
  EXPECT_THAT(*svg, Not(HasSubstr("sums")));
  // The axes, and a line per series (dispatch_slots=2's ends at 16).
  EXPECT_EQ(Count(*svg, "<polyline"), 3);
  // Numeric x values are to scale: 16 sits at the middle of 8..24.
  EXPECT_THAT(*svg, HasSubstr(">16</text>"));
  EXPECT_EQ(*RenderSweepChart(spec, rows, "makespan_us", "chip.clusters"), *svg);
}

// The x position of the first `<text class="xtick" x="..."` labelled `label`.
double TickX(const std::string& svg, const std::string& label) {
  const size_t at = svg.find(">" + label + "</text>");
  const size_t x = svg.rfind("class=\"xtick\" x=\"", at);
  if (at == std::string::npos || x == std::string::npos) return -1;
  return std::stod(svg.substr(x + 17));
}

TEST(SweepChartTest, TickLabelsNeverOverlapAndAFailedPointBreaksItsLine) {
  SweepSpec spec;
  spec.traces = {"qwen3.pb"};
  const std::vector<std::string> clusters = {"1", "2", "4", "8", "12", "16", "24", "32", "48"};
  spec.axes = {{"chip.clusters", clusters}};
  std::vector<SweepRow> rows;
  for (size_t i = 0; i < clusters.size(); ++i) {
    SweepRow row{
        static_cast<int>(i), "qwen3.pb", {clusters[i]}, 0, "", {{"makespan_us", 100.0 / (i + 1)}}};
    row.launches = 3;
    if (clusters[i] == "8") row.exit_code = 2;  // a point in the middle fails
    rows.push_back(row);
  }
  absl::StatusOr<std::string> svg = RenderSweepChart(spec, rows, "makespan_us", "chip.clusters");
  ASSERT_TRUE(svg.ok()) << svg.status();
  // Labels kept are at least a label apart; 1 and 48 are always kept.
  std::vector<double> xs;
  for (const std::string& c : clusters) {
    if (const double x = TickX(*svg, c); x >= 0) xs.push_back(x);
  }
  ASSERT_GE(xs.size(), 2u);
  EXPECT_GT(TickX(*svg, "1"), 0);
  EXPECT_GT(TickX(*svg, "48"), 0);
  for (size_t i = 1; i < xs.size(); ++i) EXPECT_GE(xs[i] - xs[i - 1], 7 + 6) << i;
  EXPECT_LT(TickX(*svg, "2"), 0);                // 1 and 2 sit 9 px apart: one label
  EXPECT_EQ(Count(*svg, "stroke=\"#999\""), 9);  // every value keeps its tick
  // Points 1..4 and 12..48: two polylines around the gap at 8.
  EXPECT_EQ(Count(*svg, "<polyline points=\"") - 1, 2);  // less the axes
  EXPECT_THAT(*svg, HasSubstr(">exit 2</text>"));
  EXPECT_THAT(*svg, HasSubstr("each point sums a run's launches (up to 3)"));
}

TEST(SweepChartTest, UnknownMetricOrKeyIsAnError) {
  SweepSpec spec;
  spec.traces = {"t.pb"};
  spec.axes = {{"chip.clusters", {"8"}}};
  EXPECT_THAT(std::string(RenderSweepChart(spec, {}, "speed", "chip.clusters").status().message()),
              HasSubstr("expected one of makespan_us"));
  EXPECT_FALSE(RenderSweepChart(spec, {}, "makespan_us", "chip.name").ok());
}

}  // namespace
}  // namespace pto
