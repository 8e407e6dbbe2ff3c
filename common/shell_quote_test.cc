#include "common/shell_quote.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(ShellQuoteTest, QuotesEveryByteAndEscapesTheQuote) {
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(rm -rf x) `y`"), "'$(rm -rf x) `y`'");
  EXPECT_EQ(ShellQuote(""), "''");
}

TEST(ShellQuoteTest, ACommandLineQuotesOnlyTheWordsThatNeedIt) {
  EXPECT_EQ(ShellCommandLine({"pto_sim", "regress", "a b.yaml", "--set", "x=1", "", "it's"}),
            "pto_sim regress 'a b.yaml' --set x=1 '' 'it'\\''s'");
}

}  // namespace
}  // namespace pto
