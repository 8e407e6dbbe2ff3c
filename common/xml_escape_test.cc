#include "common/xml_escape.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(XmlEscapeTest, ReplacesTheFourSpecialCharacters) {
  EXPECT_EQ(XmlEscape("a<b && c>\"d\""), "a&lt;b &amp;&amp; c&gt;&quot;d&quot;");
}

TEST(XmlEscapeTest, LeavesOtherTextAlone) {
  EXPECT_EQ(XmlEscape("kernel_0(r1t2) 'x'"), "kernel_0(r1t2) 'x'");
  EXPECT_EQ(XmlEscape(""), "");
}

}  // namespace
}  // namespace pto
