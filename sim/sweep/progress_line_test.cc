#include "sim/sweep/progress_line.h"

#include <algorithm>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

TEST(ProgressLineTest, ShowsDoneRateAndEta) {
  EXPECT_EQ(FormatProgress("sweep", 6, 18, 1, 3.0),
            "sweep: 6/18 points (1 failed), 2.00 points/s, ETA 0:06");
  EXPECT_EQ(FormatProgress("sweep", 0, 18, 0, 0.0), "sweep: 0/18 points");
  EXPECT_THAT(FormatProgress("sweep", 1, 200, 0, 2.0), HasSubstr("ETA 6:38"));
}

TEST(ProgressLineTest, SilentWhenNotATerminal) {
  std::ostringstream out;
  ProgressLine line(out, /*is_terminal=*/false, "sweep", 4);
  line.Update(1, 0);
  line.Finish();
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLineTest, RewritesOneLineOnATerminal) {
  std::ostringstream out;
  ProgressLine line(out, /*is_terminal=*/true, "sweep", 4);
  line.Update(1, 0);
  line.Update(2, 1);
  line.Finish();
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("\rsweep: 1/4 points"));
  EXPECT_THAT(text, HasSubstr("\rsweep: 2/4 points (1 failed)"));
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

}  // namespace
}  // namespace pto
