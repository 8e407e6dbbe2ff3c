#include "common/output_dir.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path Fresh(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("output_dir_" + name);
  fs::remove_all(dir);
  return dir;
}

void Touch(const fs::path& path) { std::ofstream(path) << "x"; }

TEST(OutputDirTest, ANewDirectoryIsCreatedAndMarked) {
  const fs::path dir = Fresh("new") / "a" / "b";
  ASSERT_TRUE(ClaimOutputDir(dir.string(), "--out").ok());
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::exists(dir / kOutputMarker));
}

TEST(OutputDirTest, AnEarlierRunsDirectoryIsEmptiedOfItsFiles) {
  const fs::path dir = Fresh("earlier");
  ASSERT_TRUE(ClaimOutputDir(dir.string(), "--out").ok());
  fs::create_directories(dir / "launch_2");
  Touch(dir / "launch_2" / "stats.json");
  Touch(dir / "name_map_0.json");
  ASSERT_TRUE(ClaimOutputDir(dir.string(), "--out").ok());
  EXPECT_FALSE(fs::exists(dir / "launch_2"));
  EXPECT_FALSE(fs::exists(dir / "name_map_0.json"));
  EXPECT_TRUE(fs::exists(dir / kOutputMarker));
}

TEST(OutputDirTest, AnEmptyDirectoryIsTaken) {
  const fs::path dir = Fresh("empty");
  fs::create_directories(dir);
  EXPECT_TRUE(ClaimOutputDir(dir.string(), "--out").ok());
}

TEST(OutputDirTest, AForeignNonEmptyDirectoryIsRefusedAndKept) {
  const fs::path dir = Fresh("foreign");
  fs::create_directories(dir);
  Touch(dir / "thesis.tex");
  const absl::Status status = ClaimOutputDir(dir.string(), "--out");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("--out " + dir.string() + ": the directory is not empty"));
  EXPECT_THAT(status.message(), HasSubstr("give a new or empty directory"));
  EXPECT_TRUE(fs::exists(dir / "thesis.tex"));
  EXPECT_FALSE(fs::exists(dir / kOutputMarker));
}

TEST(OutputDirTest, AFileIsRefused) {
  const fs::path dir = Fresh("file");
  fs::create_directories(dir);
  Touch(dir / "stats");
  const absl::Status status = ClaimOutputDir((dir / "stats").string(), "--out");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("exists and is not a directory"));
}

TEST(OutputDirTest, AnUnwritableDirectoryIsRefused) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not apply";
  const fs::path dir = Fresh("readonly");
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  const absl::Status status = ClaimOutputDir(dir.string(), "--out");
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("cannot write into the directory"));
}

}  // namespace
}  // namespace pto
