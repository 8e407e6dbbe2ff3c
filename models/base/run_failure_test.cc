#include "models/base/run_failure.h"

#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(RunFailureTest, KeepsTheFirstFailureAndCallsBackOnce) {
  std::vector<absl::Status> seen;
  RunFailure failure([&](const absl::Status& status) { seen.push_back(status); });
  EXPECT_FALSE(failure.failed());
  failure.Fail(absl::OkStatus());  // not a failure
  EXPECT_FALSE(failure.failed());
  failure.Fail(absl::DeadlineExceededError("FLOW_CONTROL_DEADLOCK"));
  failure.Fail(absl::InternalError("an echo of it"));
  EXPECT_TRUE(failure.failed());
  EXPECT_EQ(failure.status(), absl::DeadlineExceededError("FLOW_CONTROL_DEADLOCK"));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], failure.status());
}

TEST(RunFailureTest, WorksWithoutACallback) {
  RunFailure failure;
  failure.Fail(absl::InternalError("core 3: GM read hit no tensor"));
  EXPECT_EQ(failure.status().message(), "core 3: GM read hit no tensor");
}

}  // namespace
}  // namespace pto
