#include "common/output_dir.h"

#include <sys/wait.h>
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

// Two runs into one directory at once: the second fails at once and
// removes nothing of the first's; once the first ends, the directory is
// free again. The first run is a forked child (a lock is per process).
TEST(OutputDirTest, ASecondWriterIsRefusedWhileTheFirstRuns) {
  const fs::path dir = Fresh("locked");
  int ready[2], finish[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(finish), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool claimed = ClaimOutputDir(dir.string(), "--out").ok();
    Touch(dir / "stats.json");
    char byte = claimed ? 'y' : 'n';
    (void)!write(ready[1], &byte, 1);
    (void)!read(finish[0], &byte, 1);  // holds the lock until told to end
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  const absl::Status second = ClaimOutputDir(dir.string(), "--out");
  EXPECT_EQ(second.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.message(), HasSubstr("another run is writing into it now"));
  EXPECT_TRUE(fs::exists(dir / "stats.json"));  // the first run's file is kept
  ASSERT_EQ(write(finish[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(ClaimOutputDir(dir.string(), "--out").ok());
  EXPECT_FALSE(fs::exists(dir / "stats.json"));  // now ours: emptied
  for (int fd : {ready[0], ready[1], finish[0], finish[1]}) close(fd);
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
