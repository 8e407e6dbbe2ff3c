#include "models/core/flat_gm_port.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kBase = 0x1000;

FlatGmPort CountingGm(size_t size) {
  FlatGmPort gm(kBase, size);
  for (size_t i = 0; i < size; ++i) gm.bytes()[i] = static_cast<uint8_t>(i);
  return gm;
}

TEST(FlatGmPortTest, ReadRowsPacksStridedRowsAndCountsEachRow) {
  FlatGmPort gm = CountingGm(64);
  std::vector<uint8_t> out(6);
  gm.ReadRows(kBase + 2, 3, 2, 10, out.data());  // rows at 2, 12, 22
  EXPECT_THAT(out, ElementsAre(2, 3, 12, 13, 22, 23));
  EXPECT_EQ(gm.reads(), 3);
  EXPECT_EQ(gm.bytes_read(), 6);
  EXPECT_TRUE(gm.status().ok());
}

TEST(FlatGmPortTest, WriteRowsOfContiguousRowsWritesTheWholeBlock) {
  FlatGmPort gm(kBase, 16);
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5, 6};
  gm.WriteRows(kBase + 4, 3, 2, 2, in.data());
  EXPECT_THAT(std::vector<uint8_t>(gm.bytes().begin() + 4, gm.bytes().begin() + 10),
              ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(gm.writes(), 3);
  EXPECT_EQ(gm.bytes_written(), 6);
}

TEST(FlatGmPortTest, RowsPastTheEndAreRefusedRowByRowNamingTheFirstOutside) {
  FlatGmPort gm = CountingGm(32);
  std::vector<uint8_t> out(12, 0xEE);
  gm.ReadRows(kBase + 10, 3, 2, 10, out.data());  // rows at 10, 20, 30 (30..31 fit), so all in
  EXPECT_TRUE(gm.status().ok());
  gm.ReadRows(kBase + 20, 3, 4, 8, out.data());  // rows at 20, 28 (28..31), 36: the last is out
  ASSERT_FALSE(gm.status().ok());
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("0x1024"));
  EXPECT_EQ(out[0], 20);  // the rows inside were still read
  EXPECT_EQ(out[4], 28);
  EXPECT_EQ(out[8], 0xEE);  // the refused row left its bytes alone
}

}  // namespace
}  // namespace pto
