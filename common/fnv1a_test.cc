#include "common/fnv1a.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(Fnv1aTest, MatchesThePublishedTestVectors) {
  // From the FNV reference page's test suite.
  EXPECT_EQ(Fnv1a64().value(), 0xcbf29ce484222325ULL);
  Fnv1a64 a;
  a.Update("a");
  EXPECT_EQ(a.value(), 0xaf63dc4c8601ec8cULL);
  Fnv1a64 foobar;
  foobar.Update("foobar");
  EXPECT_EQ(foobar.value(), 0x85944171f73967e8ULL);
}

TEST(Fnv1aTest, LittleEndianWordsHashAsTheirBytes) {
  Fnv1a64 word;
  word.UpdateLittleEndian(0x0201, 2);
  Fnv1a64 bytes;
  bytes.Update(absl::string_view("\x01\x02", 2));
  EXPECT_EQ(word.value(), bytes.value());
}

TEST(Fnv1aTest, AFileHashesAsItsBytesAcrossChunks) {
  const std::string path = ::testing::TempDir() + "/fnv_file";
  std::string content((1 << 20) + 3, 'x');  // past one read chunk
  content[12345] = 'y';
  std::ofstream(path, std::ios::binary) << content;
  Fnv1a64 expected;
  expected.Update(content);
  char hex[17];
  snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(expected.value()));
  EXPECT_EQ(HashFileFnv1a64(path).value(), hex);
  EXPECT_FALSE(HashFileFnv1a64(path + ".missing").ok());
}

}  // namespace
}  // namespace pto
