#include "models/core/core_phases.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/cond_log.h"
#include "models/core/testing/exp_loop.h"
#include "models/core/testing/fake_task_port.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using ::pto::core_testing::Cond;
using ::pto::core_testing::ExpLoop;
using ::pto::core_testing::FakeTaskPort;
using ::pto::core_testing::Matrix1x16;
using ::pto::core_testing::Row64;
using ::pto::kernel_testing::C;
using ::pto::kernel_testing::KernelBuilder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every expected time below is derived by hand from the a2a3 defaults of
// chip_config.h (configs/ascend.yaml has the same values):
//   aicpu.dispatch_to_core_ns 140, aicpu.fin_to_visible_ns 180,
//   core.cold_propagation_ns 800, core.cold_far_propagation_ns 2400,
//   core.idle_setup_ns 20, core.setup_ns 320, core.staged_setup_ns 1356,
//   core.cold_start_ns 900, core.kernel_start_ns 400, core.kernel_finish_ns 200,
//   profiling.timestamp_read_ns 100, profiling.record_writeback_ns 390.
// The cost kernel runs 1850 cycles at 1.85 GHz: 1000 ns.
constexpr TimePs kPublish = 5'000;  // the scheduler's dispatch register write, 5 ns

// Keeps the segments the core reports on its pipes, when it asks for them.
class PipeRecorder : public CoreObserver {
 public:
  struct Segment {
    PipeSegment segment;  // ops left empty: they are in `ops`
    std::vector<PipeOpInterval> ops;
  };
  bool wants_pipe_ops() const override { return wants; }
  void OnPipeOps(const PipeSegment& segment) override {
    Segment s{segment, {segment.ops.begin(), segment.ops.end()}};
    s.segment.ops = {};
    segments.push_back(std::move(s));
  }
  bool wants = false;
  std::vector<Segment> segments;
};

class CorePhasesTest : public ::testing::Test, public CoreHost, public CoreOwner {
 protected:
  enum KernelId : int32_t { kCost = 0, kSync = 1, kCopy = 2 };

  CorePhasesTest() {
    trace::Kernel cost;
    cost.set_name("cost");
    cost.set_core_type(trace::AIV);
    cost.mutable_cost()->set_fixed_cycles(1850);
    kernels_.push_back(*CompileKernel(cost));

    KernelBuilder sync("sync");
    sync.Add(trace::Op::SYNCALL).mutable_sync()->set_mode(trace::Op::HARD);
    kernels_.push_back(*CompileKernel(sync.kernel()));

    KernelBuilder copy("copy");
    const uint32_t x = copy.TensorParam("x", trace::FP32, trace::KernelParam::IN);
    const uint32_t y = copy.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
    const uint32_t t = copy.Tile("t", {1, 16}, trace::FP32);  // 64 bytes: one cache line
    copy.Load(t, x, {C(0), C(0)});
    copy.Store(t, y, {C(0), C(0)});
    kernels_.push_back(*CompileKernel(copy.kernel()));
  }

  // CoreHost: a timed wake as an sc_event keeps it (the earliest wins), and
  // GM that answers after fixed delays.
  void WakeAt(TimePs at) override {
    EXPECT_GE(at, now_);
    ++wake_calls_;
    log_.push_back("wake " + std::to_string(at));
    if (wake_ == kNever || at < wake_) wake_ = at;
  }
  const CompiledKernel& Kernel(int32_t id) const override { return kernels_[id]; }
  GmCompletion Transport(const GmTransaction& transaction) override {
    EXPECT_GE(transaction.delay, 0);
    transactions_.push_back(Issued{transaction.write, transaction.addr, transaction.size,
                                   now_ + transaction.delay, transaction.untimed});
    return GmCompletion{transaction.delay + (transaction.write ? gm_write_ps_ : gm_read_ps_), true};
  }
  bool Contains(uint64_t, size_t) const override { return true; }
  // Shared-bandwidth timing, when a test turns it on: transfers are logged
  // and the test says when each lands (CorePhases::OnTransferDone).
  bool times_transfers() const override { return times_transfers_; }
  uint64_t StartTransfer(const GmRuns& runs, GmDirection direction) override {
    started_.push_back(Started{runs, direction, now_});
    return started_.size() - 1;
  }
  uint64_t StartUnplacedTransfer(uint64_t bytes, GmDirection direction) override {
    started_.push_back(Started{GmRuns{0, bytes, 1, bytes}, direction, now_});
    return started_.size() - 1;
  }
  // CoreOwner.
  void OnCondWritten(int core_id, CondValue value, TimePs visible_at) override {
    EXPECT_EQ(core_id, core_->id());
    EXPECT_GE(visible_at, now_);
    conds_.push_back(Cond{visible_at, value.token, value.fin});
    log_.push_back(std::string(value.fin ? "FIN " : "ACK ") + std::to_string(value.token));
  }

  // The core under test, built from config_ on first use.
  CorePhases& core(int cluster = 0) {
    if (core_ == nullptr) {
      CoreDeps deps;
      deps.config = &config_;
      deps.functional = false;  // timing-only: the cache keeps no bytes
      deps.tasks = &tasks_;
      deps.observer = &observer_;
      deps.failure = &failure_;
      deps.host = this;
      core_ = std::make_unique<CorePhases>(/*id=*/cluster, CoreKind::kAiv, cluster, deps);
      core_->set_owner(this);
    }
    return *core_;
  }

  TaskSeq AddTask(int32_t kernel, std::vector<BoundArg> args = {}) {
    return tasks_.Add("t" + std::to_string(next_task_++), kernel, std::move(args));
  }
  const absl::Status& fatal() const { return failure_.status(); }

  // Block 0 of `task`, with the per-core register token `token`.
  BlockWork WorkOf(TaskSeq task, uint32_t token, bool gated = false) {
    BlockWork work;
    work.task = task;
    work.kernel = tasks_.at(task).kernel;
    work.token = token;
    work.gated = gated;
    return work;
  }

  // The wake the core asked for fires at `t`: the SystemC module's Step.
  void AdvanceTo(TimePs t) {
    ASSERT_EQ(wake_, t);
    wake_ = kNever;
    now_ = t;
    core().Advance(t);
  }
  // Follows the core's wakes through `until` (the SystemC kernel stops at a
  // fatal error). With no bound, no event may be left without a wake.
  void RunWithTransfersTaking(TimePs took);
  // At 1 GHz with transfers timed by the test: ExpLoop(copies) on x at
  // 0x1000 and y at 0x2000, dispatched at 0 and run with every transfer
  // taking 1000 ns. Returns its task.
  TaskSeq RunExpLoop(int copies);
  void RunUntil(TimePs until = kNever) {
    while (wake_ != kNever && (until == kNever || wake_ <= until) && !failure_.failed()) {
      AdvanceTo(wake_);
    }
    if (until != kNever) {
      now_ = std::max(now_, until);
    } else if (!failure_.failed()) {
      EXPECT_EQ(core().next_event_at(), kNever) << "an event the core asked no wake for";
    }
  }

  ChipConfig config_;
  std::vector<CompiledKernel> kernels_;
  FakeTaskPort tasks_;
  int next_task_ = 0;
  PipeRecorder observer_;
  RunFailure failure_;
  TimePs wake_ = kNever;  // the pending wake
  int wake_calls_ = 0;
  TimePs gm_read_ps_ = 0;
  TimePs gm_write_ps_ = 0;
  struct Issued {
    bool write;
    uint64_t addr;
    size_t size;
    TimePs issue;
    bool untimed;
  };
  std::vector<Issued> transactions_;
  bool times_transfers_ = false;
  struct Started {
    GmRuns runs;
    GmDirection direction;
    TimePs at;
  };
  std::vector<Started> started_;
  std::unique_ptr<CorePhases> core_;
  TimePs now_ = 0;
  std::vector<Cond> conds_;
  std::vector<std::string> log_;  // wakes asked for and COND values, in order
};

TEST_F(CorePhasesTest, ColdIdleCoreStartsAfterDeliverySetupAndPrologue) {
  const TaskSeq task = AddTask(kCost);
  // Delivery: 5 publish + 140 propagation + 800 cold = 945 ns; then the
  // setup of a cold idle core: 20 idle setup + 900 cold start. An idle
  // core's arrival needs no event of its own: one wake, at the setup's end.
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  EXPECT_EQ(wake_, Ns(1865));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kIdle);
  // The kernel starts: the owner hears of the ACK at once, visible 180 ns
  // later (no event of the core's); the end after the 400 ns prologue, 1000
  // ns of kernel and the 200 ns epilogue, at 3465.
  AdvanceTo(Ns(1865));
  EXPECT_EQ(wake_, Ns(3465));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kRunning);
  EXPECT_EQ(core().current().start, Ns(1865));
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}));
  // The FIN is written at the end, visible 180 ns later: the core's last
  // event is the end.
  AdvanceTo(Ns(3465));
  EXPECT_EQ(wake_, kNever);

  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3645), 1, true}));
  const CoreInterval* interval = core().IntervalOf(1);
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(interval->task, task);
  EXPECT_EQ(interval->receive, Ns(945));
  EXPECT_EQ(interval->start, Ns(1865));
  EXPECT_EQ(interval->end, Ns(3465));
  EXPECT_EQ(core().IntervalOf(2), nullptr);
  EXPECT_EQ(core().counters().first_kernel_start, Ns(1865));
  EXPECT_EQ(core().counters().last_kernel_end, Ns(3465));
  EXPECT_EQ(core().counters().busy, Ns(1600));
  EXPECT_EQ(tasks_.at(task).first_start, Ns(1865));
  EXPECT_EQ(tasks_.at(task).last_end, Ns(3465));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kIdle);
}

TEST_F(CorePhasesTest, KernelStartAndFinishAreConfigured) {
  config_.core.kernel_start_ns = 50;
  config_.core.kernel_finish_ns = 0;
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil();
  // Start 1865 as above; end 1865 + 50 + 1000 + 0.
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3095), 1, true}));
}

TEST_F(CorePhasesTest, TheUpperHalfOfTheClustersGetsItsFirstDispatchLater) {
  const TaskSeq task = AddTask(kCost);
  // Cluster 12 of 24: 5 + 140 + 800 + 2400 far.
  core(/*cluster=*/12).Dispatch(0, WorkOf(task, 1), kPublish);
  EXPECT_EQ(wake_, Ns(3345 + 920));
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->receive, Ns(3345));
  EXPECT_EQ(core().IntervalOf(1)->start, Ns(3345 + 920));
}

TEST_F(CorePhasesTest, PendingBlockStartsOneSwitchGapAfterTheFin) {
  const TaskSeq first = AddTask(kCost);
  const TaskSeq second = AddTask(kCost);
  core().Dispatch(0, WorkOf(first, 1), kPublish);
  RunUntil(Ns(2000));
  // Latched while the first runs; a warm delivery at 2000 + 5 + 140, before
  // the pending wake for the first's end (3465): one new wake.
  const int wakes = wake_calls_;
  core().Dispatch(now_, WorkOf(second, 2), kPublish);
  EXPECT_EQ(wake_calls_, wakes + 1);
  EXPECT_EQ(wake_, Ns(2145));
  EXPECT_TRUE(core().has_pending());
  RunUntil();
  // The first ends at 3465; the pending pickup's setup is core.setup_ns
  // (320), so the second starts at 3785 and ends 1600 ns later.
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3645), 1, true},
                                  Cond{Ns(3965), 2, false}, Cond{Ns(5565), 2, true}));
  EXPECT_EQ(core().IntervalOf(2)->receive, Ns(3465));
  EXPECT_EQ(core().IntervalOf(2)->start - core().IntervalOf(1)->end, Ns(320));
  EXPECT_FALSE(core().has_pending());
}

TEST_F(CorePhasesTest, ProfiledRunsSwitchAfterTheCounterReadAndRecordWriteBack) {
  config_.profiling.enabled = 1;
  const TaskSeq first = AddTask(kCost);
  const TaskSeq second = AddTask(kCost);
  core().Dispatch(0, WorkOf(first, 1), kPublish);
  RunUntil(Ns(2000));
  core().Dispatch(now_, WorkOf(second, 2), kPublish);
  RunUntil(Ns(3465));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kRecord);
  RunUntil();
  // FIN after the 100 ns counter read; the record written back 390 ns after
  // that (3955); then the 320 ns pickup: 810 ns from end to start.
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3745), 1, true},
                                  Cond{Ns(4455), 2, false}, Cond{Ns(6155), 2, true}));
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(3465));
  EXPECT_EQ(core().IntervalOf(2)->start, Ns(4275));
}

TEST_F(CorePhasesTest, PendingBlockArrivingAfterTheFinPaysTheIdleSetup) {
  const TaskSeq first = AddTask(kCost);
  const TaskSeq second = AddTask(kCost);
  core().Dispatch(0, WorkOf(first, 1), kPublish);
  RunUntil(Ns(3400));
  // Arrives at 3545, after the first's end at 3465.
  core().Dispatch(now_, WorkOf(second, 2), kPublish);
  RunUntil();
  EXPECT_EQ(core().IntervalOf(2)->receive, Ns(3545));
  EXPECT_EQ(core().IntervalOf(2)->start, Ns(3565));
}

TEST_F(CorePhasesTest, GatedBlockIsPreparedThenWaitsForItsDoorbell) {
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1, /*gated=*/true), kPublish);
  // Arrival 945 + staged setup 1356 + cold start 900.
  EXPECT_EQ(core().gated_prepared_at(), Ns(3201));
  RunUntil(Ns(4000));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kGated);
  EXPECT_TRUE(conds_.empty());
  EXPECT_EQ(wake_, kNever);
  // The doorbell STR 5 ns from now, then the propagation latency.
  core().RingDoorbell(now_, task, Ns(5));
  EXPECT_EQ(wake_, Ns(4145));
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->start, Ns(4145));
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(5745));
}

TEST_F(CorePhasesTest, DoorbellDuringSetupStartsTheBlockWhenPrepared) {
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1, /*gated=*/true), kPublish);
  RunUntil(Ns(1000));                      // arrived at 945; prepared at 945 + 1356 + 900
  core().RingDoorbell(now_, task, Ns(5));  // arrives at 1145, during the setup
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->receive, Ns(945));
  EXPECT_EQ(core().IntervalOf(1)->start, Ns(3201));
}

TEST_F(CorePhasesTest, DoorbellBeforeTheBlockArrivesIsKept) {
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1, /*gated=*/true), kPublish);
  core().RingDoorbell(0, task, 0);
  EXPECT_EQ(wake_, Ns(140));  // before the arrival at 945
  // A second doorbell for the same task finds no unrung block.
  const int wakes = wake_calls_;
  core().RingDoorbell(0, task, 0);
  EXPECT_EQ(wake_calls_, wakes);
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->start, Ns(3201));
}

TEST_F(CorePhasesTest, GatedPendingBlockRungBehindTheRunningOneStartsWhenPrepared) {
  const TaskSeq first = AddTask(kCost);
  const TaskSeq second = AddTask(kCost);
  core().Dispatch(0, WorkOf(first, 1), kPublish);
  RunUntil(Ns(2000));
  core().Dispatch(now_, WorkOf(second, 2, /*gated=*/true), kPublish);
  RunUntil(Ns(2500));
  core().RingDoorbell(now_, second, 0);  // at 2640, behind the running block
  RunUntil();
  // Picked up at the first's end (3465), a staged setup of 1356 ns (warm).
  EXPECT_EQ(core().IntervalOf(2)->receive, Ns(3465));
  EXPECT_EQ(core().IntervalOf(2)->start, Ns(4821));
}

class RecordingBarrier : public SyncallBarrier {
 public:
  void Arrive(TaskSeq task, const SyncallRequest& request, TimePs at) override {
    arrivals.push_back({task, at});
    modes.push_back(request.mode);
    if (release_after != kNever) core->ReleaseSyncall(at, at + release_after);
  }
  std::vector<std::pair<TaskSeq, TimePs>> arrivals;
  std::vector<trace::Op::SyncMode> modes;
  CorePhases* core = nullptr;
  TimePs release_after = kNever;  // kNever: the test releases
};

TEST_F(CorePhasesTest, SyncallWaitsForTheBarrierRelease) {
  RecordingBarrier barrier;
  core().set_barrier(&barrier);
  const TaskSeq task = AddTask(kSync);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil();
  // Start 1865; the SYNCALL costs nothing, so the core arrives after the
  // 400 ns prologue.
  ASSERT_EQ(barrier.arrivals.size(), 1u);
  EXPECT_EQ(barrier.arrivals[0], std::make_pair(task, Ns(2265)));
  EXPECT_THAT(barrier.modes, ElementsAre(trace::Op::HARD));
  EXPECT_EQ(core().waiting_at_syncall(), task);
  EXPECT_EQ(core().next_event_at(), kNever);  // nothing happens until the release
  EXPECT_EQ(wake_, kNever);

  now_ = Ns(3000);
  core().ReleaseSyncall(now_, Ns(3000));
  EXPECT_EQ(wake_, Ns(3000));
  EXPECT_EQ(core().waiting_at_syncall(), task);  // until it resumes
  RunUntil();
  EXPECT_EQ(core().waiting_at_syncall(), kNoTask);
  // Resumed at 3000; nothing left but the 200 ns epilogue.
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3380), 1, true}));
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(3200));
}

TEST_F(CorePhasesTest, ASoftSyncallsCounterAddIsATransferAndTheArrivalWaitsForIt) {
  // With transfers timed on the shared memory system, the soft counter's
  // atomic add goes out as a 4-byte write into L2 at the arrival (after the
  // 400 ns prologue) and the barrier hears of the core when it landed.
  times_transfers_ = true;
  KernelBuilder kb("soft");
  const uint32_t ws = kb.TensorParam("ws", trace::INT32, trace::KernelParam::INOUT);
  trace::Op::Sync* sync = kb.Add(trace::Op::SYNCALL).mutable_sync();
  sync->set_mode(trace::Op::SOFT);
  sync->set_workspace_param(ws);
  *sync->mutable_used_cores() = C(1);
  kernels_.push_back(*CompileKernel(kb.kernel()));
  RecordingBarrier barrier;
  core().set_barrier(&barrier);
  BoundArg workspace = Matrix1x16(0x4000);
  workspace.tensor.dtype = trace::INT32;
  const TaskSeq task = AddTask(static_cast<int32_t>(kernels_.size() - 1), {workspace});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil(Ns(2265));
  ASSERT_TRUE(fatal().ok()) << fatal();
  ASSERT_EQ(started_.size(), 1u);
  EXPECT_EQ(started_[0].direction, GmDirection::kWrite);
  EXPECT_EQ(started_[0].at, Ns(2265));
  EXPECT_EQ(started_[0].runs.base, 0x4000u);
  EXPECT_EQ(started_[0].runs.bytes(), 4u);
  EXPECT_TRUE(barrier.arrivals.empty());
  core().OnTransferDone(0, Ns(2900));
  RunUntil(Ns(2900));
  EXPECT_THAT(barrier.arrivals, ElementsAre(std::make_pair(task, Ns(2900))));
  EXPECT_THAT(barrier.modes, ElementsAre(trace::Op::SOFT));
  // The add's bytes moved untimed: it was timed as the transfer.
  for (const Issued& t : transactions_) EXPECT_TRUE(t.untimed) << t.addr;
}

TEST_F(CorePhasesTest, ReleaseDuringTheCoresOwnArrivalWakesIt) {
  RecordingBarrier barrier;
  barrier.core = &core();
  barrier.release_after = Ns(100);  // e.g. the FFTS release after the last arrival
  core().set_barrier(&barrier);
  const TaskSeq task = AddTask(kSync);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil(Ns(2045));
  // The resume is scheduled by the nested ReleaseSyncall, inside Advance.
  AdvanceTo(Ns(2265));
  EXPECT_EQ(wake_, Ns(2365));
  EXPECT_EQ(core().next_event_at(), Ns(2365));
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(2565));
}

TEST_F(CorePhasesTest, TheOwnerHearsOfACondValueAtTheWriteAndAsksOnceForTheNextEvent) {
  // The step that starts the kernel tells the owner of the ACK (visible at
  // once here), then asks once for its one next event, the block's end.
  config_.aicpu.fin_to_visible_ns = 0;
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil(Ns(945));
  log_.clear();
  AdvanceTo(Ns(1865));  // the setup ends: the kernel starts
  EXPECT_THAT(log_, ElementsAre("ACK 1", "wake 3465000"));
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(1865), 1, false}));
}

TEST_F(CorePhasesTest, SyncallWithoutABarrierFailsTheRun) {
  const TaskSeq task = AddTask(kSync);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil();
  EXPECT_THAT(fatal().message(), HasSubstr("core 0: SYNCALL reached but no barrier block"));
  EXPECT_EQ(core().IntervalOf(1), nullptr);
}

TEST_F(CorePhasesTest, GmReadsStallTheKernelAndFinWaitsForTheWriteBack) {
  // 1 GHz and 64 bytes per cycle: a 64-byte line moves in 1 ns, so a LOAD
  // or STORE of the tile costs 500 + 1 ns core-side.
  config_.chip.aicore_clock_hz = 1e9;
  config_.core.gm_to_ub_bytes_per_cycle = 64;
  config_.core.ub_to_gm_bytes_per_cycle = 64;
  gm_read_ps_ = Ns(800);
  gm_write_ps_ = Ns(300);
  const TaskSeq task = AddTask(kCopy, {Matrix1x16(0x1000), Matrix1x16(0x2000)});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil();
  // Start 1865. The LOAD's line fill is issued after the prologue (2265) and
  // takes 800 ns: 299 ns beyond the 501 ns the op costs. The STORE's
  // write-allocate fill is issued at 2265 + 501 + 299 = 3065, another 299 ns
  // stall; the ops end at 3865, the epilogue at 4065, and FIN waits for the
  // write-back issued then: 4365.
  ASSERT_EQ(transactions_.size(), 3u);
  EXPECT_FALSE(transactions_[0].write);
  EXPECT_EQ(transactions_[0].addr, 0x1000u);
  EXPECT_EQ(transactions_[0].issue, Ns(2265));
  EXPECT_FALSE(transactions_[1].write);
  EXPECT_EQ(transactions_[1].addr, 0x2000u);
  EXPECT_EQ(transactions_[1].issue, Ns(3065));
  EXPECT_TRUE(transactions_[2].write);
  EXPECT_EQ(transactions_[2].addr, 0x2000u);
  EXPECT_EQ(transactions_[2].size, 64u);
  EXPECT_EQ(transactions_[2].issue, Ns(4065));
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(4365));
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(4545), 1, true}));
}

TEST_F(CorePhasesTest, SharedBandwidthTransfersAreIssuedAtTheirTimeAndAwaited) {
  // As above (1 GHz: each op costs 501 ns core-side), but the host times
  // tile transfers itself: the core issues each at its own time and learns
  // when it lands.
  config_.chip.aicore_clock_hz = 1e9;
  times_transfers_ = true;
  const TaskSeq task = AddTask(kCopy, {Matrix1x16(0x1000), Matrix1x16(0x2000)});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  // Start 1865; the LOAD is issued after the 400 ns prologue.
  RunUntil(Ns(2265));
  ASSERT_EQ(started_.size(), 1u);
  EXPECT_EQ(started_[0].direction, GmDirection::kRead);
  EXPECT_EQ(started_[0].at, Ns(2265));
  EXPECT_EQ(started_[0].runs.base, 0x1000u);
  EXPECT_EQ(started_[0].runs.bytes(), 64u);
  // The block waits for the load: no wake until it lands, 800 ns later (299
  // beyond its 501 ns op).
  EXPECT_EQ(wake_, kNever);
  core().OnTransferDone(0, Ns(3065));
  // The STORE is issued when the load's op ends: 2265 + 501 + 299.
  RunUntil(Ns(3065));
  ASSERT_EQ(started_.size(), 2u);
  EXPECT_EQ(started_[1].direction, GmDirection::kWrite);
  EXPECT_EQ(started_[1].at, Ns(3065));
  EXPECT_EQ(started_[1].runs.base, 0x2000u);
  // The store is the block's last op (on MTE3): the ops end when it lands,
  // at 4000, then the 200 ns epilogue runs.
  RunUntil(Ns(3766));
  EXPECT_EQ(core().phase(), CorePhases::Phase::kRunning);
  EXPECT_EQ(wake_, kNever);
  core().OnTransferDone(1, Ns(4000));
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(4200));
  EXPECT_THAT(conds_, ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(4380), 1, true}));
  // Timing-only: DMA bypasses the data cache and there are no bytes, so the
  // transfers made no cache transaction at all (a functional run moves their
  // bytes untimed through the cache, for its stale lines).
  EXPECT_TRUE(transactions_.empty());
}

TEST_F(CorePhasesTest, AFenceWaitsForTheStoresInFlight) {
  // load x; store y; fence; load x (1 GHz: 501 ns per transfer op). The
  // fence holds the block until the store lands; the second load is issued
  // after it.
  config_.chip.aicore_clock_hz = 1e9;
  times_transfers_ = true;
  KernelBuilder kb("fenced");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t t = kb.Tile("t", {1, 16}, trace::FP32);
  kb.Load(t, x, {C(0), C(0)});
  kb.Store(t, y, {C(0), C(0)});
  kb.Add(trace::Op::FENCE);
  kb.Load(t, x, {C(0), C(0)});
  kernels_.push_back(*CompileKernel(kb.kernel()));
  const TaskSeq task =
      AddTask(static_cast<int32_t>(kernels_.size() - 1), {Matrix1x16(0x1000), Matrix1x16(0x2000)});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunUntil(Ns(2265));
  core().OnTransferDone(0, Ns(2766));  // within the op's own 501 ns: no stall
  RunUntil(Ns(2766));
  ASSERT_EQ(started_.size(), 2u);
  EXPECT_EQ(started_[1].direction, GmDirection::kWrite);
  EXPECT_EQ(started_[1].at, Ns(2766));
  // At the fence (3267) with the store in flight: no wake, nothing issued.
  RunUntil(Ns(4000));
  EXPECT_EQ(started_.size(), 2u);
  EXPECT_EQ(wake_, kNever);
  core().OnTransferDone(1, Ns(5000));
  RunUntil(Ns(5000));
  ASSERT_EQ(started_.size(), 3u);
  EXPECT_EQ(started_[2].direction, GmDirection::kRead);
  EXPECT_EQ(started_[2].at, Ns(5000));
  core().OnTransferDone(2, Ns(5501));
  RunUntil();
  // The last load's op ends at 5501; the epilogue takes 200 ns.
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(5701));
}

// Lands every started transfer `took` after it started, in time order,
// following the core's wakes in between, to the end.
void CorePhasesTest::RunWithTransfersTaking(TimePs took) {
  size_t landed = 0;  // started_[0, landed) have been told
  while (!failure_.failed()) {
    const TimePs due = landed < started_.size() ? started_[landed].at + took : kNever;
    if (wake_ != kNever && (due == kNever || wake_ <= due)) {
      AdvanceTo(wake_);
    } else if (due != kNever) {
      now_ = due;
      core().OnTransferDone(landed++, due);
    } else {
      break;
    }
  }
}

TaskSeq CorePhasesTest::RunExpLoop(int copies) {
  config_.chip.aicore_clock_hz = 1e9;
  times_transfers_ = true;
  kernels_.push_back(ExpLoop(copies));
  const TaskSeq task =
      AddTask(static_cast<int32_t>(kernels_.size() - 1), {Row64(0x1000), Row64(0x2000)});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  RunWithTransfersTaking(Ns(1000));
  return task;
}

TEST_F(CorePhasesTest, ASingleBufferedLoopWaitsForEachTilesBuffers) {
  // 1 GHz: a 64-byte transfer is 501 ns core-side, and GM takes 1000; exp
  // of 16 elements is 1 cycle (32 a cycle, rounded up) = 1 ns. The ops start
  // at 2265 (start 1865 + the 400 ns prologue); the epilogue is 200 ns.
  //
  // Single buffer (t, u reused): load i waits for exp i-1 to read t, exp i
  // for store i-1 to read u. Load0 2265-3265, exp0 -3266, store0 -4266;
  // load1 3266-4266, exp1 4266-4267, store1 -5267; load2 4267-5267, ...:
  // a period of 1001, the last store ends at 7269 and the block at 7469.
  RunExpLoop(1);
  ASSERT_EQ(started_.size(), 8u);
  EXPECT_EQ(started_[2].at, Ns(3266));  // load1, after exp0
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(7469));
}

TEST_F(CorePhasesTest, TwoBuffersPerIterationOverlapLoadsWithComputeAndStores) {
  // As above with two tile pairs per iteration (t0/u0, t1/u1), two
  // iterations. Both loads of iteration 0 start at 2265 (MTE2 keeps several
  // in flight) and land at 3265; exp 3265-3266 and 3266-3267; the stores
  // 3266-4266 and 3267-4267. Iteration 1's loads wait for their buffers'
  // readers (exp: 3266 and 3267) and land at 4266 and 4267; its exps wait
  // for the stores of iteration 0 (4266, 4267): 4266-4267 and 4267-4268;
  // its stores end at 5267 and 5268. The block ends at 5468.
  RunExpLoop(2);
  ASSERT_EQ(started_.size(), 8u);
  EXPECT_EQ(started_[0].at, Ns(2265));
  EXPECT_EQ(started_[1].at, Ns(2265));
  EXPECT_EQ(started_[1].runs.base, 0x1000u + 64);
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(5468));
}

TEST_F(CorePhasesTest, TheObserverHearsEachOpsPipeAndTimesWhenTheSegmentsPipesFinish) {
  // The two-buffer loop above: LOADs on MTE2 2265-3265 (twice), 3266-4266
  // and 3267-4267: MTE2 busy 1000 + 1001; EXPs 1 ns each; STOREs on MTE3
  // 3266-4266, 3267-4267, 4267-5267, 4268-5268: busy 2002 (touching runs).
  observer_.wants = true;
  const TaskSeq task = RunExpLoop(2);
  ASSERT_EQ(observer_.segments.size(), 1u);
  const PipeSegment& s = observer_.segments[0].segment;
  EXPECT_EQ(s.task, task);
  EXPECT_EQ(s.core, 0);
  EXPECT_FALSE(s.aic);
  EXPECT_EQ(s.start, Ns(2265));
  EXPECT_EQ(s.end, Ns(5268));
  EXPECT_EQ(s.busy[static_cast<int>(Pipe::kMte2)], Ns(2001));
  EXPECT_EQ(s.busy[static_cast<int>(Pipe::kVector)], Ns(4));
  EXPECT_EQ(s.busy[static_cast<int>(Pipe::kMte3)], Ns(2002));
  EXPECT_EQ(s.busy[static_cast<int>(Pipe::kScalar)], 0);
  const std::vector<PipeOpInterval>& ops = observer_.segments[0].ops;
  ASSERT_EQ(ops.size(), 12u);  // program order: (load, exp, store) x 2 x 2
  EXPECT_EQ(ops[0].pipe, Pipe::kMte2);
  EXPECT_EQ(ops[0].kind, trace::Op::LOAD);
  EXPECT_EQ(ops[0].start, Ns(2265));
  EXPECT_EQ(ops[0].end, Ns(3265));
  EXPECT_EQ(ops[1].pipe, Pipe::kVector);
  EXPECT_EQ(ops[1].kind, trace::Op::EXP);
  EXPECT_EQ(ops[1].start, Ns(3265));
  EXPECT_EQ(ops[1].end, Ns(3266));
  EXPECT_EQ(ops[2].pipe, Pipe::kMte3);
  EXPECT_EQ(ops[2].kind, trace::Op::STORE);
  EXPECT_EQ(ops[11].start, Ns(4268));
  EXPECT_EQ(ops[11].end, Ns(5268));
  EXPECT_EQ(ops[3].op, ops[0].op + 3);  // the second tile pair's load, in the kernel's program
  EXPECT_EQ(ops[6].op, ops[0].op);      // iteration 1: the same program op
}

TEST_F(CorePhasesTest, NoPipeOpsAreReportedToAnObserverThatWantsNone) {
  RunExpLoop(2);
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(5468));
  EXPECT_TRUE(observer_.segments.empty());
}

TEST_F(CorePhasesTest, OneOutstandingLoadSerialisesTheLoads) {
  // core.mte2_outstanding = 1: iteration 0's second load waits for the
  // first to land (3265-4265); exp 4265-4266, store 4266-5266. Iteration
  // 1's first load follows at 4265 (after exp 3265-3266 read t0 and the
  // second load left MTE2), landing 5265; its second 5265-6265; the last
  // exp 6265-6266 and store 6266-7266: the block ends at 7466.
  config_.core.mte2_outstanding = 1;
  RunExpLoop(2);
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(7466));
}

TEST_F(CorePhasesTest, ACostSummaryPhaseEndsWhenBothItsComputeAndItsBytesAreDone) {
  // 1 GHz, fixed_cycles 1000 over two phases (one in-kernel barrier): 500 ns
  // of compute each. bytes_in 1000 stream over the input tensor (4000 B at
  // 0x1000) and bytes_out 64 with no output tensor: each phase reads 500
  // bytes and writes 32, issued as it starts.
  config_.chip.aicore_clock_hz = 1e9;
  times_transfers_ = true;
  trace::Kernel ext;
  ext.set_name("ext");
  ext.set_core_type(trace::AIV);
  ext.mutable_cost()->set_fixed_cycles(1000);
  ext.mutable_cost()->set_barrier_phases(1);
  ext.mutable_cost()->set_bytes_in(1000);
  ext.mutable_cost()->set_bytes_out(64);
  kernels_.push_back(*CompileKernel(ext));
  BoundArg in = Matrix1x16(0x1000);
  in.tensor.direction = trace::INPUT;
  in.tensor.footprint_bytes = 4000;
  const TaskSeq task = AddTask(static_cast<int32_t>(kernels_.size() - 1), {in});
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  // Start 1865; phase 0 after the 400 ns prologue.
  RunUntil(Ns(2265));
  ASSERT_EQ(started_.size(), 2u);
  EXPECT_EQ(started_[0].direction, GmDirection::kRead);
  EXPECT_EQ(started_[0].at, Ns(2265));
  EXPECT_EQ(started_[0].runs.base, 0x1000u);
  EXPECT_EQ(started_[0].runs.bytes(), 500u);
  EXPECT_EQ(started_[1].direction, GmDirection::kWrite);
  EXPECT_EQ(started_[1].runs.bytes(), 32u);
  // The write lands within the phase; the read 500 ns after its compute
  // (2765): phase 1 starts then.
  core().OnTransferDone(1, Ns(2500));
  core().OnTransferDone(0, Ns(3265));
  RunUntil(Ns(3265));
  ASSERT_EQ(started_.size(), 4u);
  EXPECT_EQ(started_[2].at, Ns(3265));
  EXPECT_EQ(started_[2].runs.base, 0x1000u + 500);
  EXPECT_EQ(started_[2].runs.bytes(), 500u);
  // Phase 1's bytes land within its compute: it ends at 3765; the epilogue
  // takes 200 ns.
  core().OnTransferDone(2, Ns(3400));
  core().OnTransferDone(3, Ns(3300));
  RunUntil();
  EXPECT_EQ(core().IntervalOf(1)->end, Ns(3965));
  EXPECT_EQ(core().counters().gm_stall, Ns(500));
  ASSERT_EQ(core().counters().stretched.size(), 1u);
  EXPECT_EQ(core().counters().stretched[0].fixed, Ns(1000));
  EXPECT_EQ(core().counters().stretched[0].took, Ns(1500));
}

TEST(SummaryStretchTest, NoteStretchKeepsEachKernelsWorstBlock) {
  std::vector<SummaryStretch> worst;
  NoteStretch({3, 1000, 1500}, &worst);
  NoteStretch({4, 100, 110}, &worst);
  NoteStretch({3, 2000, 2500}, &worst);  // 1.25x < 1.5x: kept out
  NoteStretch({3, 100, 300}, &worst);    // 3x
  ASSERT_EQ(worst.size(), 2u);
  EXPECT_EQ(worst[0].kernel, 3u);
  EXPECT_EQ(worst[0].took, 300);
  EXPECT_EQ(worst[1].kernel, 4u);
}

TEST_F(CorePhasesTest, AFailedRunHandlesNoMoreEvents) {
  const TaskSeq task = AddTask(kCost);
  core().Dispatch(0, WorkOf(task, 1), kPublish);
  failure_.Fail(absl::InternalError("elsewhere"));
  core().Advance(Ns(10'000));
  EXPECT_EQ(core().next_event_at(), Ns(1865));  // the arrival's setup end, unhandled
  EXPECT_EQ(core().phase(), CorePhases::Phase::kIdle);
}

}  // namespace
}  // namespace pto
