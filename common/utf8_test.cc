#include "common/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(Utf8Test, AcceptsAsciiAndEveryLength) {
  const std::string text = "x = 1  # caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  EXPECT_EQ(FirstInvalidUtf8(text), text.size());
  EXPECT_EQ(FirstInvalidUtf8(""), 0u);
}

TEST(Utf8Test, FindsTheFirstBadByte) {
  EXPECT_EQ(FirstInvalidUtf8("ab\xE9"
                             "cd"),
            2u);                                        // Latin-1
  EXPECT_EQ(FirstInvalidUtf8("a\xC0\xAF"), 1u);         // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("\xED\xA0\x80"), 0u);      // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("ok\xE2\x82"), 2u);        // cut short
  EXPECT_EQ(FirstInvalidUtf8("\x80"), 0u);              // a lone continuation
}

}  // namespace
}  // namespace pto
