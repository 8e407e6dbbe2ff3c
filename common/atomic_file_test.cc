#include "common/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/stop_request.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string Read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, NothingUnderTheFinalNameUntilCommit) {
  const fs::path path = dir_ / "stats.json";
  AtomicFile file(path.string());
  ASSERT_TRUE(file.Open().ok());
  file.out() << "{\"a\": 1}";
  file.out().flush();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::exists(path.string() + ".tmp"));
  ASSERT_TRUE(file.Commit().ok());
  EXPECT_EQ(Read(path), "{\"a\": 1}");
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST_F(AtomicFileTest, DroppedWithoutCommitLeavesNothing) {
  const fs::path path = dir_ / "perfetto.json";
  {
    AtomicFile file(path.string());
    ASSERT_TRUE(file.Open().ok());
    file.out() << "[ half";
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(AtomicFileTest, CommitReplacesAnOlderFileWhole) {
  const fs::path path = dir_ / "deps.json";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "old contents, longer than the new").ok());
  ASSERT_TRUE(WriteFileAtomically(path.string(), "new").ok());
  EXPECT_EQ(Read(path), "new");
}

TEST_F(AtomicFileTest, UnwritableDirectoryIsAnError) {
  const absl::Status s = WriteFileAtomically((dir_ / "missing" / "x.json").string(), "x");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("x.json.tmp: cannot open for writing"));
}

// Past the run's wall-clock deadline (or after a signal) nothing more is
// committed: the file stays absent, its temporary removed.
TEST_F(AtomicFileTest, AStoppedRunCommitsNothing) {
  const fs::path path = dir_ / "deps.json";
  SetWallDeadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  const absl::Status status = WriteFileAtomically(path.string(), "{}\n");
  ClearWallDeadline();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(status.message(), HasSubstr("deps.json: not written: the run is stopping"));
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  EXPECT_TRUE(WriteFileAtomically(path.string(), "{}\n").ok());  // no deadline: written
}

}  // namespace
}  // namespace pto
