// The whole chip as a module: a fresh simulation per test on a few records,
// checking what the chip itself does. It elaborates at 1 ps, resets every
// component's counters when a launch begins and collects them into one
// LaunchCounters when it ends, and ends the run at the first failure.

#include "models/chip.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/testing/systemc_test.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A block of the cost kernel is busy 400 prologue + 1000 + 200 epilogue.
constexpr TimePs kBlockBusy = 1'600'000;

// Records from a list; `fail_at` (if set) is where the stream breaks.
class ListSource : public RecordSource {
 public:
  explicit ListSource(std::vector<trace::StreamRecord> records, int fail_at = -1)
      : records_(std::move(records)), fail_at_(fail_at) {}
  absl::StatusOr<bool> Next(trace::StreamRecord* record) override {
    if (next_ == fail_at_) return absl::DataLossError("record 3: truncated");
    if (next_ == static_cast<int>(records_.size())) return false;
    *record = records_[next_++];
    return true;
  }
  std::string Where() const override { return "record " + std::to_string(next_); }

 private:
  std::vector<trace::StreamRecord> records_;
  int fail_at_;
  int next_ = 0;
};

class Listener : public LaunchListener {
 public:
  void OnLaunchBegin(int launch, const std::string& name) override { begun.push_back(name); }
  void OnLaunchEnd(int launch, const LaunchCounters& counters) override {
    ended.push_back(counters);
  }
  void OnCheck(const trace::Check& check) override {}
  std::vector<std::string> begun;
  std::vector<LaunchCounters> ended;
};

trace::StreamRecord LaunchBegin(const std::string& name) {
  trace::StreamRecord record;
  record.mutable_launch_begin()->set_name(name);
  return record;
}
trace::StreamRecord LaunchEnd() {
  trace::StreamRecord record;
  record.mutable_launch_end();
  return record;
}
// An AIV task of the cost kernel, waiting for the launch's submits `deps`.
trace::StreamRecord Submit(const std::string& name, uint32_t blocks,
                           std::vector<uint32_t> deps = {}) {
  trace::StreamRecord record;
  trace::Submit* submit = record.mutable_submit();
  submit->set_name(name);
  for (int32_t id : {-1, 0, -1}) submit->add_kernel_ids(id);
  submit->set_block_num(blocks);
  for (uint32_t dep : deps) submit->add_deps(dep);
  return record;
}

// Two clusters, one scheduler thread, a timing-only run.
struct Bench {
  explicit Bench(std::vector<trace::StreamRecord> records, int fail_at = -1)
      : source(std::move(records), fail_at) {
    config.chip.clusters = 2;
    config.aicpu.scheduler_threads = 1;
    trace::Kernel cost;
    cost.set_name("cost");
    cost.set_core_type(trace::AIV);
    cost.mutable_cost()->set_fixed_cycles(1850);  // 1000 ns at 1.85 GHz
    kernels.push_back(*CompileKernel(cost));
    for (RingLimits& limits : setup.ring_limits) limits = RingLimits{16, 1 << 20, 16};
    setup.config = &config;
    setup.header = &header;
    setup.kernels = &kernels;
    setup.memory = &memory;
    setup.observer = &observer;
    setup.source = &source;
    setup.listener = &listener;
  }

  ChipConfig config;
  trace::StreamHeader header;
  std::deque<CompiledKernel> kernels;
  MemoryImage memory;
  RunObserver observer;
  ListSource source;
  Listener listener;
  ChipSetup setup;
};

PTO_SYSTEMC_TEST(ChipModuleTest, EachLaunchReportsItsOwnCountersFromEveryComponent) {
  Bench bench({LaunchBegin("first"), Submit("a", 2), Submit("b", 2, {0}), LaunchEnd(),
               LaunchBegin("second"), Submit("c", 1), LaunchEnd()});
  Chip chip("chip", bench.setup);
  sc_core::sc_start();

  ASSERT_TRUE(chip.fatal().ok()) << chip.fatal();
  EXPECT_TRUE(chip.orchestrator().done());
  EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_THAT(bench.listener.begun, ElementsAre("first", "second"));
  ASSERT_EQ(bench.listener.ended.size(), 2u);

  const LaunchCounters& first = bench.listener.ended[0];
  EXPECT_EQ(first.orchestrator.tasks, 2u);
  EXPECT_EQ(first.orchestrator.submits, 2u);
  EXPECT_GT(first.orchestrator.busy, 0);
  EXPECT_EQ(first.rings[0].peak_tasks, 2u);
  EXPECT_EQ(first.schedulers.task_dispatches, 2u);
  EXPECT_EQ(first.schedulers.block_dispatches, 4u);
  ASSERT_EQ(first.threads.size(), 1u);
  EXPECT_EQ(first.threads[0].loops, first.schedulers.loops);
  EXPECT_EQ(first.threads[0].busy, first.schedulers.busy);
  EXPECT_EQ(first.cores.aiv_busy, 4 * kBlockBusy);
  EXPECT_EQ(first.cores.aic_busy, 0);
  EXPECT_GT(first.cores.first_kernel_start, first.orchestrator.launch_start);
  // b waits for a: two waves of blocks at least.
  EXPECT_GE(first.cores.last_kernel_end - first.cores.first_kernel_start, 2 * kBlockBusy);
  EXPECT_GT(first.lifecycle.last_retire, first.cores.last_kernel_end);

  // The second launch counts only its own work: every part was reset.
  const LaunchCounters& second = bench.listener.ended[1];
  EXPECT_EQ(second.orchestrator.tasks, 1u);
  EXPECT_GE(second.orchestrator.launch_start, first.lifecycle.last_retire);
  EXPECT_EQ(second.rings[0].peak_tasks, 1u);
  EXPECT_EQ(second.schedulers.task_dispatches, 1u);
  EXPECT_EQ(second.schedulers.block_dispatches, 1u);
  EXPECT_LT(second.schedulers.loops, first.schedulers.loops);
  EXPECT_EQ(second.cores.aiv_busy, kBlockBusy);
  EXPECT_GT(second.cores.first_kernel_start, second.orchestrator.launch_start);
  EXPECT_GT(second.lifecycle.last_retire, second.cores.last_kernel_end);
  EXPECT_GT(chip.activations(), 0u);
}

PTO_SYSTEMC_TEST(ChipModuleTest, TheFirstFailureStopsTheSimulation) {
  // The stream breaks after the first submit: the chip keeps that error and
  // stops, although the submitted task could still run.
  Bench bench({LaunchBegin("broken"), Submit("a", 1), Submit("b", 1)}, /*fail_at=*/2);
  Chip chip("chip", bench.setup);
  sc_core::sc_start();

  EXPECT_EQ(chip.fatal(), absl::DataLossError("record 3: truncated"));
  EXPECT_THAT(bench.listener.begun, ElementsAre("broken"));
  EXPECT_TRUE(bench.listener.ended.empty());
  EXPECT_FALSE(chip.orchestrator().done());
  chip.Fail(absl::InternalError("an echo"));  // later failures are dropped
  EXPECT_THAT(std::string(chip.fatal().message()), HasSubstr("truncated"));
}

}  // namespace
}  // namespace pto
