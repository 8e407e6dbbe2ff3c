#include "sim/sweep/sweep_chart.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

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
  // Numeric x values are to scale: 16 sits at the middle of 8..24.
  EXPECT_THAT(*svg, HasSubstr(">16</text>"));
  EXPECT_EQ(*RenderSweepChart(spec, rows, "makespan_us", "chip.clusters"), *svg);
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
