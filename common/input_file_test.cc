#include "common/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::HasSubstr;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pto_input_file_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileWithinItsLimit) {
  const std::string path = Write("a.yaml", "chip: {}\n");
  absl::StatusOr<std::string> text = ReadInputFile(path, 9, "a config");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "chip: {}\n");
  EXPECT_TRUE(ReadInputFile(Write("empty", ""), 0, "a config").ok());
}

TEST_F(InputFileTest, RefusesAFileOverItsLimitBeforeReadingIt) {
  const std::string path = Write("big", std::string(2048, 'x'));
  absl::Status status = ReadInputFile(path, 2047, "a YAML config").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(path + ": is 2 KiB, more than the 1.999 KiB"));
  EXPECT_THAT(status.message(), HasSubstr("a YAML config"));
}

TEST_F(InputFileTest, RefusesWhatCouldBlockOrNeverEnd) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Refused from its stat: nothing opens the FIFO, so nothing blocks.
  absl::Status status = ReadInputFile(fifo, 1 << 20, "a trace").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(fifo + ": is a FIFO (named pipe); expected a trace"));
  status = ReadInputFile("/dev/zero", 1 << 20, "a config").status();
  EXPECT_THAT(status.message(), HasSubstr("/dev/zero: is a character device"));
  status = CheckInputFile(dir_.string(), 1 << 20, "a config");
  EXPECT_THAT(status.message(), HasSubstr(": is a directory; expected a config"));
}

TEST_F(InputFileTest, NamesMissingFilesAndSymlinkLoops) {
  absl::Status status = CheckInputFile((dir_ / "none").string(), 10, "a trace");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("none: no such file; expected a trace"));
  const std::filesystem::path a = dir_ / "loop_a", b = dir_ / "loop_b";
  std::filesystem::create_symlink(b, a);
  std::filesystem::create_symlink(a, b);
  status = CheckInputFile(a.string(), 10, "a trace");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("a symlink loop?"));
  status = CheckInputFile(Write("file", "x") + "/below", 10, "a trace");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("Not a directory"));
}

TEST(ByteSizeTest, BytesThenBinaryUnits) {
  EXPECT_EQ(ByteSize(1), "1 byte");
  EXPECT_EQ(ByteSize(1023), "1023 bytes");
  EXPECT_EQ(ByteSize(1024), "1 KiB");
  EXPECT_EQ(ByteSize(3 << 19), "1.5 MiB");
  EXPECT_EQ(ByteSize(uint64_t{16} << 30), "16 GiB");
}

}  // namespace
}  // namespace pto
