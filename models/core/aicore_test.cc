// AiCore as a SystemC module: a fake owner polls its COND, a TLM target with
// fixed delays stands in for GM. Each test is a fresh simulation
// (models/testing/systemc_test.h). The expected times are derived by hand from
// the a2a3 defaults of chip_config.h, as in core_phases_test.cc:
//   delivery of a core's first dispatch: 5 publish + 140 propagation + 800 cold;
//   setup of a cold idle core: 20 idle setup + 900 cold start;
//   ACK and FIN visible 180 ns after the core raises them;
//   a block: 400 prologue + its kernel + 200 epilogue.

#include "models/core/aicore.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/base/run_failure.h"
#include "models/base/sc_time.h"
#include "models/core/core_observer.h"
#include "models/core/testing/cond_log.h"
#include "models/core/testing/fake_task_port.h"
#include "models/core/testing/kernel_builder.h"
#include "models/gm/memory_image.h"
#include "models/testing/systemc_test.h"
#include "systemc"
#include "tlm"
#include "tlm_utils/simple_target_socket.h"

namespace pto {
namespace {

using ::pto::core_testing::Cond;
using ::pto::core_testing::FakeTaskPort;
using ::pto::core_testing::Matrix1x16;
using ::pto::kernel_testing::C;
using ::pto::kernel_testing::KernelBuilder;
using ::pto::testing::CallAt;
using ::pto::testing::TestCalendar;
using ::pto::testing::TestNow;
using ::testing::ElementsAre;

constexpr TimePs kPublish = 5'000;  // the scheduler's dispatch register write

// The scheduler thread's side of COND: when each value became visible.
class FakeOwner : public CoreOwner {
 public:
  void OnCondWritten(int /*core_id*/, CondValue value, TimePs visible_at) override {
    conds.push_back(Cond{visible_at, value.token, value.fin});
  }
  std::vector<Cond> conds;
};

// GM as a loosely timed target: a read is done `read_ps` after it was issued,
// a write accepted `write_ps` after.
class FixedDelayGm : public sc_core::sc_module {
 public:
  struct Access {
    bool write;
    uint64_t addr;
    TimePs issue;
  };

  tlm_utils::simple_target_socket<FixedDelayGm> socket;

  FixedDelayGm(sc_core::sc_module_name name, TimePs read_ps, TimePs write_ps)
      : sc_module(name), socket("socket"), read_ps_(read_ps), write_ps_(write_ps) {
    socket.register_b_transport(this, &FixedDelayGm::b_transport);
  }

  std::vector<Access> accesses;

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const TimePs issue = NowPs() + static_cast<TimePs>(delay.value());
    accesses.push_back(Access{payload.is_write(), payload.get_address(), issue});
    delay += ScTime(payload.is_write() ? write_ps_ : read_ps_);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  TimePs read_ps_;
  TimePs write_ps_;
};

// The barrier releases 100 ns after the core's arrival (its only participant).
class ImmediateFabric : public SyncFabric {
 public:
  void ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request,
                       TimePs at) override {
    arrivals.push_back(at);
    core->ReleaseSyncall(at + Ns(100));
  }
  std::vector<TimePs> arrivals;
};

enum KernelId : int32_t { kCost = 0, kCopy = 1, kSync = 2 };

std::deque<CompiledKernel> Kernels() {
  std::deque<CompiledKernel> kernels;
  trace::Kernel cost;  // 1850 cycles at 1.85 GHz: 1000 ns
  cost.set_name("cost");
  cost.set_core_type(trace::AIV);
  cost.mutable_cost()->set_fixed_cycles(1850);
  kernels.push_back(*CompileKernel(cost));

  KernelBuilder copy("copy");
  const uint32_t x = copy.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = copy.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t t = copy.Tile("t", {1, 16}, trace::FP32);  // one 64-byte line
  copy.Load(t, x, {C(0), C(0)});
  copy.Store(t, y, {C(0), C(0)});
  kernels.push_back(*CompileKernel(copy.kernel()));

  KernelBuilder sync("sync");
  sync.Add(trace::Op::SYNCALL).mutable_sync()->set_mode(trace::Op::HARD);
  kernels.push_back(*CompileKernel(sync.kernel()));
  return kernels;
}

// One AIV core of cluster 0 wired to a fake owner and fixed-delay GM, in a
// timing-only run. Its failure stops the simulation, as the chip's does.
class CoreBench {
 public:
  explicit CoreBench(ChipConfig config, TimePs gm_read_ps = 0, TimePs gm_write_ps = 0)
      : config_(std::move(config)),
        kernels_(Kernels()),
        failure_([](const absl::Status&) {
          TestCalendar().Stop();
          sc_core::sc_stop();
        }),
        gm_("gm", gm_read_ps, gm_write_ps),
        core_("aiv0", /*id=*/0, CoreKind::kAiv, /*cluster=*/0,
              AiCoreEnv{&config_, &TestCalendar(), /*functional=*/false, &kernels_, &memory_,
                        &tasks_, &observer_, &failure_}) {
    core_.socket.bind(gm_.socket);
    core_.set_owner(&owner_);
  }

  TaskSeq AddTask(int32_t kernel, std::vector<BoundArg> args = {}) {
    return tasks_.Add("task", kernel, std::move(args));
  }
  // Dispatches block 0 of `task` with register token `token` at `at`.
  void DispatchAt(TimePs at, TaskSeq task, uint32_t token) {
    BlockWork work;
    work.task = task;
    work.kernel = tasks_.at(task).kernel;
    work.token = token;
    CallAt(at, [this, work] { core_.Dispatch(work, kPublish); });
  }

  AiCore& core() { return core_; }
  FixedDelayGm& gm() { return gm_; }
  const std::vector<Cond>& conds() const { return owner_.conds; }
  const absl::Status& fatal() const { return failure_.status(); }

 private:
  ChipConfig config_;
  std::deque<CompiledKernel> kernels_;
  MemoryImage memory_;  // timing-only: nothing allocated, every address allowed
  FakeTaskPort tasks_;
  CoreObserver observer_;
  RunFailure failure_;
  FakeOwner owner_;
  FixedDelayGm gm_;
  AiCore core_;
};

PTO_SYSTEMC_TEST(AiCoreModuleTest, BlockStartsEndsAndFinsAtItsHandDerivedTimes) {
  // 1 GHz and 64 bytes per cycle: the tile's LOAD and STORE cost 500 + 1 ns
  // core-side. GM takes 800 ns per read and accepts a write after 300 ns.
  ChipConfig config;
  config.chip.aicore_clock_hz = 1e9;
  config.core.gm_to_ub_bytes_per_cycle = 64;
  config.core.ub_to_gm_bytes_per_cycle = 64;
  CoreBench bench(config, /*gm_read_ps=*/Ns(800), /*gm_write_ps=*/Ns(300));
  const TaskSeq task = bench.AddTask(kCopy, {Matrix1x16(0x1000), Matrix1x16(0x2000)});
  bench.DispatchAt(0, task, /*token=*/1);
  sc_core::sc_start();

  ASSERT_TRUE(bench.fatal().ok()) << bench.fatal();
  // Received at 945, started at 1865. The LOAD's line fill leaves at 2265
  // (after the prologue) and stalls the kernel 800 - 501 = 299 ns; the
  // STORE's write-allocate fill leaves at 2265 + 501 + 299 = 3065 and stalls
  // as long. The ops end at 3865, the epilogue at 4065, when the dirty line
  // is written back; FIN waits until GM accepted it, at 4365.
  EXPECT_EQ(bench.gm().accesses.size(), 3u);
  std::vector<std::pair<bool, TimePs>> seen;
  for (const FixedDelayGm::Access& a : bench.gm().accesses) seen.emplace_back(a.write, a.issue);
  EXPECT_THAT(seen, ElementsAre(std::make_pair(false, Ns(2265)), std::make_pair(false, Ns(3065)),
                                std::make_pair(true, Ns(4065))));
  const CoreInterval* interval = bench.core().IntervalOf(1);
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(interval->receive, Ns(945));
  EXPECT_EQ(interval->start, Ns(1865));
  EXPECT_EQ(interval->end, Ns(4365));
  EXPECT_THAT(bench.conds(), ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(4545), 1, true}));
  // The core's last event is the block's end: the FIN's visibility (4545)
  // is the owner's to wait for.
  EXPECT_EQ(TestNow(), Ns(4365));
}

PTO_SYSTEMC_TEST(AiCoreModuleTest, PendingBlockStartsOneSwitchGapAfterTheFin) {
  CoreBench bench(ChipConfig{});
  const TaskSeq first = bench.AddTask(kCost);
  const TaskSeq second = bench.AddTask(kCost);
  bench.DispatchAt(0, first, 1);
  bench.DispatchAt(Ns(2000), second, 2);  // while the first runs: the pending slot
  sc_core::sc_start();

  // The first: start 1865, end 1865 + 400 + 1000 + 200 = 3465. The second
  // is picked up at that FIN and pays core.setup_ns (320).
  EXPECT_EQ(bench.core().IntervalOf(1)->end, Ns(3465));
  EXPECT_EQ(bench.core().IntervalOf(2)->start, Ns(3785));
  EXPECT_THAT(bench.conds(), ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3645), 1, true},
                                         Cond{Ns(3965), 2, false}, Cond{Ns(5565), 2, true}));
}

PTO_SYSTEMC_TEST(AiCoreModuleTest, ProfiledPendingBlockSwitchesIn810Ns) {
  ChipConfig config;
  config.profiling.enabled = 1;
  CoreBench bench(config);
  const TaskSeq first = bench.AddTask(kCost);
  const TaskSeq second = bench.AddTask(kCost);
  bench.DispatchAt(0, first, 1);
  bench.DispatchAt(Ns(2000), second, 2);
  sc_core::sc_start();

  // 100 ns counter read before FIN, 390 ns record write-back after it, then
  // the 320 ns pickup.
  EXPECT_EQ(bench.core().IntervalOf(2)->start - bench.core().IntervalOf(1)->end, Ns(810));
  EXPECT_THAT(bench.conds(), ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(3745), 1, true},
                                         Cond{Ns(4455), 2, false}, Cond{Ns(6155), 2, true}));
}

PTO_SYSTEMC_TEST(AiCoreModuleTest, SyncallReleasedDuringTheArrivalResumesTheBlock) {
  CoreBench bench(ChipConfig{});
  ImmediateFabric fabric;
  bench.core().set_sync_fabric(&fabric);
  const TaskSeq task = bench.AddTask(kSync);
  bench.DispatchAt(0, task, 1);
  sc_core::sc_start();

  // Arrives after the prologue (1865 + 400), released 100 ns later; then
  // only the epilogue remains.
  EXPECT_THAT(fabric.arrivals, ElementsAre(Ns(2265)));
  EXPECT_EQ(bench.core().waiting_at_syncall(), kNoTask);
  EXPECT_EQ(bench.core().IntervalOf(1)->end, Ns(2565));
  EXPECT_THAT(bench.conds(), ElementsAre(Cond{Ns(2045), 1, false}, Cond{Ns(2745), 1, true}));
}

PTO_SYSTEMC_TEST(AiCoreModuleTest, SyncallWithoutAFabricStopsTheRun) {
  CoreBench bench(ChipConfig{});
  const TaskSeq task = bench.AddTask(kSync);
  bench.DispatchAt(0, task, 1);
  sc_core::sc_start();
  EXPECT_EQ(std::string(bench.fatal().message()),
            "core 0: SYNCALL reached but no barrier block is wired");
  EXPECT_EQ(bench.core().IntervalOf(1), nullptr);  // the block never ends
}

}  // namespace
}  // namespace pto
