#include "models/core/access_recorder.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;

// Logs what reaches it, as "read 0x..+n".
class LoggingPort : public GmPort {
 public:
  void Read(uint64_t addr, void*, size_t size) override { Log("read", addr, size); }
  void Write(uint64_t addr, const void*, size_t size) override { Log("write", addr, size); }
  void AtomicAdd(uint64_t addr, DType, const void*, size_t count) override {
    Log("add", addr, count);
  }
  void BeginTransfer() override { log.push_back("begin"); }
  void EndTransfer() override { log.push_back("end"); }
  std::vector<std::string> log;

 private:
  void Log(const char* what, uint64_t addr, size_t size) {
    log.push_back(absl::StrCat(what, " ", addr, "+", size));
  }
};

class CountingObserver : public CoreObserver {
 public:
  void OnGmAccess(TaskSeq, int64_t, int, GmAccess, uint64_t, uint64_t) override { ++accesses; }
  int accesses = 0;
};

TEST(AccessRecorderTest, ATransfersAccessesAreReportedButNeedNotPassOn) {
  LoggingPort next;
  CountingObserver observer;
  AccessRecorder recorder(&next, &observer);
  recorder.set_forwards_transfers(false);
  char buffer[64] = {};
  recorder.BeginTransfer();
  recorder.ReadRows(0x1000, 2, 16, 64, buffer);  // a tile's two rows
  recorder.EndTransfer();
  recorder.Read(0x2000, buffer, 4);  // a scalar read, outside any transfer
  recorder.BeginTransfer();
  recorder.AtomicAdd(0x3000, trace::FP32, buffer, 2);  // an atomic tile store
  recorder.EndTransfer();
  EXPECT_EQ(observer.accesses, 4);
  EXPECT_THAT(next.log, ElementsAre("read 8192+4"));
  // By default everything passes on, brackets too.
  next.log.clear();
  recorder.set_forwards_transfers(true);
  recorder.BeginTransfer();
  recorder.Write(0x1000, buffer, 8);
  recorder.EndTransfer();
  EXPECT_THAT(next.log, ElementsAre("begin", "write 4096+8", "end"));
}

// Logs OnGmRows as "rows addr n×bytes/stride"; OnGmAccess as "row addr+n".
class RowsObserver : public CoreObserver {
 public:
  void OnGmAccess(TaskSeq, int64_t, int, GmAccess, uint64_t addr, uint64_t size) override {
    log.push_back(absl::StrCat("row ", addr, "+", size));
  }
  void OnGmRows(TaskSeq, int64_t, int, GmAccess kind, uint64_t addr, int64_t rows,
                uint64_t row_bytes, uint64_t stride) override {
    log.push_back(absl::StrCat(kind == GmAccess::kWrite ? "write" : "read", " rows ", addr, " ",
                               rows, "x", row_bytes, "/", stride));
  }
  std::vector<std::string> log;
};

TEST(AccessRecorderTest, ATilesRowsAreOneObservationAndPassOnRowByRow) {
  LoggingPort next;
  RowsObserver observer;
  AccessRecorder recorder(&next, &observer);
  char buffer[64] = {};
  recorder.ReadRows(0x1000, 3, 8, 32, buffer);
  recorder.WriteRows(0x2000, 2, 16, 16, buffer);
  EXPECT_THAT(observer.log, ElementsAre("read rows 4096 3x8/32", "write rows 8192 2x16/16"));
  EXPECT_THAT(next.log, ElementsAre("read 4096+8", "read 4128+8", "read 4160+8", "write 8192+16",
                                    "write 8208+16"));
}

}  // namespace
}  // namespace pto
