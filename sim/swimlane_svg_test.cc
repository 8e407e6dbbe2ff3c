#include "sim/swimlane_svg.h"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/output_fixtures.h"
#include "sim/testing/png_image.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::IntervalUs;
using ::pto::testing::kUs;
using ::pto::testing::MakeTask;
using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

OutputChip TwoClusters() {
  OutputChip chip;
  chip.clusters = 2;  // AIC 0,1; AIV 2,3 (cluster 0) and 4,5 (cluster 1)
  chip.scheduler_threads = 1;
  return chip;
}

// True when every element opened in `xml` is closed in order (a light
// well-formedness check for the subset the renderer writes).
bool TagsBalance(const std::string& xml, std::string* error) {
  std::vector<std::string> open;
  for (size_t pos = xml.find('<'); pos != std::string::npos; pos = xml.find('<', pos + 1)) {
    const size_t end = xml.find('>', pos);
    if (end == std::string::npos) {
      *error = "unterminated tag at " + std::to_string(pos);
      return false;
    }
    const std::string tag = xml.substr(pos + 1, end - pos - 1);
    if (tag.empty()) return false;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        *error = "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
        return false;
      }
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  if (!open.empty()) *error = "<" + open.back() + "> never closed";
  return open.empty();
}

// The groups of the first match of `pattern` in `text`, the whole match
// first (empty when none).
std::vector<std::string> Match(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return {};
  return std::vector<std::string>(m.begin(), m.end());
}

std::string Render(const LaunchLog& log, SwimlaneSvgOptions options = {}) {
  std::ostringstream out;
  RenderSwimlaneSvg(log, TwoClusters(), options, out);
  return out.str();
}

// A MIX task on cluster 1 (AIC 1, AIV 4, AIV 5), then an SPMD AIV task on
// AIVs 2 and 4 that depends on it, and a predicated skip and a dummy.
LaunchLog SmallRun() {
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "mixed<&>", TaskShape::kMix), {}, 0, 0);
  Task spmd = MakeTask(1, 1, "spmd", TaskShape::kAiv);
  spmd.block_num = 2;
  log.AddTask(spmd, {Edge(0, EdgeSource::kCreator, 0)}, 0, 0);
  for (int core : {1, 4, 5}) log.AddInterval(IntervalUs(core, 0, 1, 1, 1, 2, 10, 11));
  log.AddInterval(IntervalUs(2, 1, 1, 11, 11, 12, 15, 16, 0));
  log.AddInterval(IntervalUs(4, 1, 2, 11, 11, 12, 15, 16, 1));
  Task skip = MakeTask(2, 2, "gated", TaskShape::kAiv);
  skip.predicated_skip = true;
  log.AddTask(skip, {}, 0, 0);
  log.AddInlineRetire(0, skip, 12 * kUs);
  Task dummy = MakeTask(3, 3, "join", TaskShape::kDummy);
  log.AddTask(dummy, {}, 0, 0);
  log.AddInlineRetire(0, dummy, 13 * kUs);
  return log;
}

TEST(SwimlaneSvgTest, OneLanePerUsedCoreGroupedByCluster) {
  const std::string svg = Render(SmallRun());
  EXPECT_EQ(Count(svg, "<g class=\"lane\" "), 4);  // cores 1, 2, 4, 5; not 0 or 3
  EXPECT_EQ(Count(svg, "<g class=\"cluster\""), 2);
  // Cluster 0 holds AIV 2 only; cluster 1 holds AIC 1, then AIV 4 and 5.
  const size_t c1 = svg.find("data-cluster=\"1\"");
  EXPECT_LT(svg.find("data-core=\"2\""), c1);
  EXPECT_LT(c1, svg.find("data-core=\"1\""));
  EXPECT_LT(svg.find("data-core=\"1\""), svg.find("data-core=\"4\""));
  EXPECT_LT(svg.find("data-core=\"4\""), svg.find("data-core=\"5\""));
}

TEST(SwimlaneSvgTest, OneBarPerCoreRecordWithNamesOnHover) {
  const std::string svg = Render(SmallRun());
  EXPECT_EQ(Count(svg, "<rect class=\"bar"), 5);
  EXPECT_EQ(Count(svg, "<rect class=\"bar mix\""), 3);  // the MIX halves
  EXPECT_EQ(Count(svg, "<rect class=\"bar spmd\""), 2);
  EXPECT_THAT(svg, HasSubstr("<title>mixed&lt;&amp;&gt;(t0) block 0 on AIC_1"));
  EXPECT_THAT(svg, HasSubstr("<title>spmd(t1) block 1 on AIV_4"));
}

TEST(SwimlaneSvgTest, MarksSkipsAndDummiesDrawsArrowsAndAxis) {
  const std::string svg = Render(SmallRun());
  EXPECT_EQ(Count(svg, "class=\"marker skip\""), 1);
  EXPECT_EQ(Count(svg, "class=\"marker dummy\""), 1);
  EXPECT_THAT(svg, HasSubstr("predicated skip: gated(t2)"));
  EXPECT_EQ(Count(svg, "<line class=\"dep\""), 1);
  EXPECT_THAT(svg, HasSubstr("time (us from"));
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
}

TEST(SwimlaneSvgTest, TheTitleNamesTraceAndLaunchAndTheAxisTitleHasItsOwnRow) {
  SwimlaneSvgOptions options;
  options.trace = "build/traces/gated.pb";
  options.launch = "launch 1 'gated'";
  const std::string svg = Render(SmallRun(), options);
  EXPECT_THAT(svg, HasSubstr(">pto_sim swimlane of build/traces/gated.pb, launch 1 'gated': "
                             "5 core records on 4 cores, "));
  // The axis title sits above the tick labels (y 24 against 38), not on
  // their row where it overprinted the "0" tick.
  const std::vector<std::string> title =
      Match(svg, "class=\"axis-title\" x=\"([0-9.]+)\" y=\"([0-9.]+)\"");
  ASSERT_EQ(title.size(), 3u);
  EXPECT_EQ(std::stod(title[2]), 24);
  EXPECT_THAT(svg,
              ::testing::ContainsRegex("<text x=\"90.00\" y=\"38\" text-anchor=\"middle\">0<"));
}

TEST(SwimlaneSvgTest, OneLegendEntryPerKernelNameWithAStableColour) {
  // Four kernels named up_proj (Qwen3's projections), one named down_proj.
  LaunchLog log;
  for (int i = 0; i < 4; ++i) {
    Task t = MakeTask(i, i, "up_proj", TaskShape::kAiv);
    log.AddTask(t, {}, 0, 0);
    log.AddInterval(IntervalUs(2, i, 1, i, i, i, i + 0.5, i + 0.6));
  }
  log.AddTask(MakeTask(4, 4, "down_proj", TaskShape::kAiv), {}, 0, 0);
  log.AddInterval(IntervalUs(3, 4, 1, 5, 5, 5, 6, 6.1));
  const std::string svg = Render(log);
  EXPECT_EQ(Count(svg, "<g class=\"entry\" data-name=\"up_proj\""), 1);
  EXPECT_EQ(Count(svg, "<g class=\"entry\""), 2);
  // Every up_proj bar has the colour its legend entry shows, in any run.
  const std::vector<std::string> entry =
      Match(svg, "data-name=\"up_proj\"><rect [^>]*fill=\"(#[0-9a-f]+)\"");
  ASSERT_EQ(entry.size(), 2u);
  EXPECT_EQ(Count(svg, "<rect class=\"bar\" [^>]*fill=\"" + entry[1] + "\""), 4);
  EXPECT_EQ(Render(log), svg);
  // Past max_legend_entries the rest are counted.
  SwimlaneSvgOptions few;
  few.max_legend_entries = 1;
  EXPECT_THAT(Render(log, few), HasSubstr(">+1 more kernels<"));
}

TEST(SwimlaneSvgTest, MarksVisibleWaitsBetweenReceiveAndStart) {
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "staged", TaskShape::kAiv), {}, 0, 0);
  log.AddTask(MakeTask(1, 1, "prompt", TaskShape::kAiv), {}, 0, 0);
  // Received at 1 us, started at 6 us (staged); the other starts at once.
  log.AddInterval(IntervalUs(2, 0, 1, 1, 1, 6, 8, 9));
  log.AddInterval(IntervalUs(3, 1, 1, 1, 1, 1, 8, 9));
  const std::string svg = Render(log);
  EXPECT_EQ(Count(svg, "<rect class=\"wait\""), 1);
  EXPECT_THAT(svg, HasSubstr("received 1.000000 us, started 6.000000 us"));
}

TEST(SwimlaneSvgTest, NothingIsDrawnLeftOfThePlot) {
  // Every core received its task before the first kernel started (the
  // axis origin): the waits start at the plot's edge, not over the labels.
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "staged", TaskShape::kAiv), {}, 0, 0);
  log.AddInterval(IntervalUs(2, 0, 1, 1, 1, 6, 8, 9));
  log.AddInterval(IntervalUs(3, 0, 1, 1, 1, 7, 8, 9));
  const std::string svg = Render(log);
  EXPECT_EQ(Count(svg, "<rect class=\"wait\""), 1);
  EXPECT_EQ(Count(svg, " x=\"-"), 0) << svg;
}

TEST(SwimlaneSvgTest, MixBlocksShowTheirEnginesBusyTime) {
  LaunchLog log;
  log.AddTask(MakeTask(0, 0, "mixed", TaskShape::kMix), {}, 0, 0);
  log.AddInterval(IntervalUs(0, 0, 1, 1, 1, 1, 8, 9));
  log.AddInterval(IntervalUs(2, 0, 1, 1, 1, 1, 8, 9));
  log.AddEngineBusy(EngineInterval{0, 0, 0, /*cube=*/true, 1'000'000, 5'000'000});
  log.AddEngineBusy(EngineInterval{2, 0, 0, /*cube=*/false, 3'000'000, 8'000'000});
  const std::string svg = Render(log);
  EXPECT_EQ(Count(svg, "<rect class=\"engine cube\""), 1);
  EXPECT_EQ(Count(svg, "<rect class=\"engine vector\""), 1);
  EXPECT_THAT(svg, HasSubstr("vector busy 3.000000-8.000000 us"));
  EXPECT_EQ(Count(svg, "<rect class=\"bar"), 2);  // engine strips are not bars
  // The strips have legend entries of their own, in their colours.
  EXPECT_THAT(svg, ::testing::ContainsRegex(
                       "data-name=\"cube busy \\(MIX\\)\"><rect [^>]*fill=\"#b03a2e\""));
  EXPECT_THAT(svg, ::testing::ContainsRegex(
                       "data-name=\"vector busy \\(MIX\\)\"><rect [^>]*fill=\"#1f618d\""));
  EXPECT_THAT(Render(SmallRun()), Not(HasSubstr("busy (MIX)")));
}

// SmallRun with the SPMD task's block 0 (AIV 2, 12-15 us) on its pipes:
// two loads in flight together, two EXPs apart, a store; kept op by op.
LaunchLog PipeRun() {
  LaunchLog log = SmallRun();
  log.set_keep_pipe_ops(true);
  auto op = [](Pipe pipe, trace::Op::Kind kind, double start, double end) {
    return PipeOpInterval{pipe, kind, 0, static_cast<TimePs>(start * kUs),
                          static_cast<TimePs>(end * kUs)};
  };
  const PipeOpInterval ops[] = {
      op(Pipe::kMte2, trace::Op::LOAD, 12, 13), op(Pipe::kMte2, trace::Op::LOAD, 12.5, 13.5),
      op(Pipe::kVector, trace::Op::EXP, 13.5, 13.75), op(Pipe::kVector, trace::Op::EXP, 14, 14.25),
      op(Pipe::kMte3, trace::Op::STORE, 14.25, 15)};
  PipeSegment segment;
  segment.core = 2;
  segment.task = 1;
  segment.start = 12 * kUs;
  segment.end = 15 * kUs;
  segment.ops = ops;
  log.AddPipeOps(segment);
  return log;
}

TEST(SwimlaneSvgTest, PipeStripsUnderACoresLaneShowEachPipesBusyRuns) {
  SwimlaneSvgOptions options;
  options.pipe_strips = true;
  const std::string svg = Render(PipeRun(), options);
  EXPECT_EQ(Count(svg, "<g class=\"pipes\" data-core=\"2\""), 1);
  EXPECT_EQ(Count(svg, "<g class=\"pipes\""), 1);  // only AIV 2 ran on pipes
  // The loads in flight together are one run; the EXPs 0.25 us apart two.
  EXPECT_EQ(Count(svg, "<rect class=\"pipe mte2\""), 1);
  EXPECT_THAT(svg, HasSubstr("mte2 busy 12.000000-13.500000 us: 2 ops"));
  EXPECT_EQ(Count(svg, "<rect class=\"pipe vector\""), 2);
  EXPECT_EQ(Count(svg, "<rect class=\"pipe mte3\""), 1);
  EXPECT_EQ(Count(svg, ">mte2</text>"), 1);
  // The strips sit below AIV 2's lane, in pipe order, and push cluster 1
  // down by three strips (7 px each).
  EXPECT_LT(svg.find("data-core=\"2\""), svg.find("class=\"pipes\""));
  EXPECT_LT(svg.find("class=\"pipe mte2\""), svg.find("class=\"pipe vector\""));
  EXPECT_LT(svg.find("class=\"pipe vector\""), svg.find("class=\"pipe mte3\""));
  const std::string plain = Render(PipeRun());
  auto lane_y = [](const std::string& text, int core) {
    const std::smatch m = [&] {
      std::smatch found;
      std::regex_search(text, found,
                        std::regex("data-core=\"" + std::to_string(core) +
                                   "\"><rect x=\"[0-9.]+\" y=\"([0-9.]+)\""));
      return found;
    }();
    return m.empty() ? -1.0 : std::stod(m[1]);
  };
  EXPECT_DOUBLE_EQ(lane_y(svg, 1) - lane_y(plain, 1), 21.0);
  std::string error;
  EXPECT_TRUE(TagsBalance(svg, &error)) << error;
}

TEST(SwimlaneSvgTest, NoPipeStripsUnlessAskedOrKept) {
  EXPECT_EQ(Count(Render(PipeRun()), "class=\"pipe"), 0);  // the option is off
  LaunchLog log = SmallRun();                              // keeps no ops
  const PipeOpInterval ops[] = {{Pipe::kMte2, trace::Op::LOAD, 0, 12 * kUs, 13 * kUs}};
  PipeSegment segment;
  segment.core = 2;
  segment.task = 1;
  segment.ops = ops;
  log.AddPipeOps(segment);
  EXPECT_TRUE(log.pipe_ops().empty());
  SwimlaneSvgOptions options;
  options.pipe_strips = true;
  EXPECT_EQ(Count(Render(log, options), "class=\"pipe"), 0);
}

TEST(SwimlaneSvgTest, IsWellFormed) {
  const std::string dir = ::pto::testing::FreshOutputDir("svg_wellformed");
  ASSERT_TRUE(WriteSwimlaneSvg(SmallRun(), TwoClusters(), {}, dir).ok());
  std::string error;
  EXPECT_TRUE(TagsBalance(::pto::testing::ReadWholeFile(dir + "/swimlane.svg"), &error)) << error;
}

// The centre of the first `<rect ...>` whose attributes match `pattern`
// (x, y, width, height and fill read from it); {-1, ...} when none.
struct Box {
  double cx = -1, cy = -1;
  std::string fill;
};
Box FirstRect(const std::string& svg, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(svg, m, std::regex("<rect " + pattern + "[^>]*>"))) return {};
  const std::string tag = m[0];
  auto attr = [&](const char* name) {
    std::smatch a;
    std::regex_search(tag, a, std::regex(std::string(" ") + name + "=\"([^\"]*)\""));
    return a.size() > 1 ? std::string(a[1]) : std::string();
  };
  return {std::stod(attr("x")) + std::stod(attr("width")) / 2,
          std::stod(attr("y")) + std::stod(attr("height")) / 2, attr("fill")};
}

// Needs Debian's chromium: run by the ctest case `swimlane_svg_renders_in_chromium`
// (label `chromium`), which skips with a message where chromium is missing.
// The browser's picture is sampled where the SVG says known elements are.
TEST(SwimlaneSvgTest, DISABLED_RendersInChromium) {
  const std::string dir = ::pto::testing::FreshOutputDir("svg_render");
  SwimlaneSvgOptions options;
  options.pipe_strips = true;  // everything the renderer draws
  options.trace = "pipe_run.pb";
  options.launch = "launch 0 'pipes'";
  ASSERT_TRUE(WriteSwimlaneSvg(PipeRun(), TwoClusters(), options, dir).ok());
  const std::string svg = ::pto::testing::ReadWholeFile(dir + "/swimlane.svg");
  const char* browsers[] = {"chromium", "chromium-browser"};
  std::string browser;
  for (const char* b : browsers) {
    if (std::system((std::string("command -v ") + b + " >/dev/null 2>&1").c_str()) == 0) {
      browser = b;
      break;
    }
  }
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed; SVG render check skipped";
  std::smatch size;
  ASSERT_TRUE(std::regex_search(svg, size, std::regex("width=\"([0-9]+)\" height=\"([0-9]+)\"")));
  const std::string shot = dir + "/shot.png";
  const std::string command =
      browser +
      " --headless --disable-gpu --no-sandbox --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --hide-scrollbars "
      "--force-device-scale-factor=1 --user-data-dir=" +
      dir + "/profile --window-size=" + std::string(size[1]) + "," + std::string(size[2]) +
      " --screenshot=" + shot + " file://" + dir + "/swimlane.svg >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  absl::StatusOr<::pto::testing::PngImage> png =
      ::pto::testing::DecodePng(::pto::testing::ReadWholeFile(shot));
  ASSERT_TRUE(png.ok()) << png.status();
  ASSERT_EQ(png->width, std::stoi(size[1]));
  // Each element where the SVG puts it, in its colour (a flat fill's centre
  // pixel; 3 levels of slack for the rasteriser).
  auto expect_at = [&](const std::string& what, const Box& box) {
    ASSERT_GE(box.cx, 0) << what << " is not in the SVG";
    const std::array<uint8_t, 3> want = ::pto::testing::HexColour(box.fill);
    const std::array<uint8_t, 3> got = png->Rgb(static_cast<int>(box.cx), static_cast<int>(box.cy));
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(got[c], want[c], 3)
          << what << " at (" << box.cx << ", " << box.cy << "): drawn rgb(" << int{got[0]} << ","
          << int{got[1]} << "," << int{got[2]} << "), the SVG says " << box.fill;
    }
  };
  expect_at("the SPMD task's bar", FirstRect(svg, "class=\"bar spmd\""));
  expect_at("the MIX task's bar", FirstRect(svg, "class=\"bar mix\""));
  expect_at("the mte2 strip", FirstRect(svg, "class=\"pipe mte2\""));
  expect_at("the vector strip", FirstRect(svg, "class=\"pipe vector\""));
  expect_at("the legend swatch of 'spmd'",
            FirstRect(svg.substr(svg.find("data-name=\"spmd\"")), ""));
  // The title's text is drawn: dark pixels on its row, left of 300 px.
  int dark = 0;
  for (int y = 4; y < 16; ++y) {
    for (int x = 4; x < 300; ++x) dark += png->Rgb(x, y)[0] < 100;
  }
  EXPECT_GT(dark, 50) << "no title text in the picture";
}

TEST(SwimlaneSvgTest, NoArrowsAboveTheLimit) {
  SwimlaneSvgOptions options;
  options.max_arrows = 0;
  EXPECT_EQ(Count(Render(SmallRun(), options), "<line class=\"dep\""), 0);
}

TEST(SwimlaneSvgTest, TenThousandTasksAggregateIntoFewElements) {
  LaunchLog log;
  for (int i = 0; i < 10000; ++i) {
    log.AddTask(MakeTask(i, i, "k", TaskShape::kAiv), {}, 0, 0);
    const double t = i * 0.5;
    log.AddInterval(IntervalUs(2 + i % 4, i, i, t, t, t, t + 0.4, t + 0.45));
  }
  const std::string svg = Render(log);
  // 5000 us over 1400 px: each 0.4 us bar is sub-pixel, so runs merge.
  EXPECT_EQ(Count(svg, "<rect class=\"bar"), 0);
  const int aggregates = Count(svg, "<rect class=\"agg\"");
  EXPECT_GT(aggregates, 0);
  EXPECT_LT(aggregates, 4 * 1400);
  EXPECT_LT(svg.size(), 1u << 20);
  EXPECT_EQ(Count(svg, "<g class=\"lane\" "), 4);
}

TEST(SwimlaneSvgTest, WritesTheFileByRename) {
  const std::string dir = ::pto::testing::FreshOutputDir("svg_file");
  ASSERT_TRUE(WriteSwimlaneSvg(SmallRun(), TwoClusters(), {}, dir).ok());
  EXPECT_THAT(::pto::testing::ListDir(dir), ::testing::ElementsAre("swimlane.svg"));
  EXPECT_EQ(::pto::testing::ReadWholeFile(dir + "/swimlane.svg"), Render(SmallRun()));
}

}  // namespace
}  // namespace pto
