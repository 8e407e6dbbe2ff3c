// SchedulerThread as a module: real threads and runtime state, fake cores
// whose COND values the test's rules decide. Each test's times are added up
// by hand from the default config (loop 115 ns, COND poll 100 ns, barrier
// 30 ns, publish 5 ns, doorbell 5 ns) and the fake's rules below.

#include "models/aicpu/scheduler_thread.h"

#include <map>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "models/base/sc_time.h"
#include "models/testing/systemc_test.h"
#include "proto/task_stream.pb.h"

namespace pto {
namespace {

using Lane = ReadyQueues::Lane;
using ::pto::testing::TestCalendar;
using ::pto::testing::TestNow;

constexpr TimePs kNs = 1000;
constexpr TimePs kLatency = 1000 * kNs;  // dispatch (or doorbell) to start
constexpr TimePs kRun = 2000 * kNs;      // start (ACK) to FIN
constexpr TimePs kPickup = 320 * kNs;    // a latched block starts after the FIN

// A core that starts a block kLatency after its dispatch (a gated block:
// after its doorbell), or kPickup after the running block's FIN if it is
// busy then; it ACKs at the start and FINs kRun later, each COND value
// visible to the owner as written.
class FakeCore : public ScheduledCore {
 public:
  struct Dispatched {
    TimePs at;  // when the thread wrote the register
    TimePs publish_delay;
    BlockWork work;
  };
  struct Doorbell {
    TaskSeq task;
    TimePs at;
  };

  FakeCore(int id, CoreKind kind, int cluster) : id_(id), kind_(kind), cluster_(cluster) {}

  int id() const override { return id_; }
  CoreKind core_kind() const override { return kind_; }
  int cluster() const override { return cluster_; }
  void set_owner(CoreOwner* owner) override { owner_ = owner; }
  void Dispatch(const BlockWork& work, TimePs publish_delay) override {
    dispatched.push_back({TestNow(), publish_delay, work});
    intervals_[work.token] =
        CoreInterval{id_, work.task, work.block, work.token, work.thread, work.dispatch};
    const TimePs arrive = TestNow() + publish_delay + kLatency;
    if (work.gated) {
      gated_[work.task] = work.token;
      prepared_at_ = arrive;
      return;
    }
    Start(work.token, arrive);
  }
  void RingDoorbell(TaskSeq task, TimePs delay) override {
    doorbells.push_back({task, TestNow() + delay});
    Start(gated_.at(task), TestNow() + delay + kLatency);
  }
  TimePs gated_prepared_at() const override { return prepared_at_; }
  const CoreInterval* IntervalOf(uint32_t token) const override {
    auto it = intervals_.find(token);
    return it == intervals_.end() ? nullptr : &it->second;
  }

  std::vector<Dispatched> dispatched;
  std::vector<Doorbell> doorbells;

 private:
  void Start(uint32_t token, TimePs arrive) {
    const TimePs start = arrive >= busy_until_ ? arrive : busy_until_ + kPickup;
    busy_until_ = start + kRun;
    Write(start, CondValue{token, false});
    Write(start + kRun, CondValue{token, true});
  }
  // Told at once, visible at `at`, as a core tells its owner at the write.
  void Write(TimePs at, CondValue value) { owner_->OnCondWritten(id_, value, at); }

  int id_;
  CoreKind kind_;
  int cluster_;
  CoreOwner* owner_ = nullptr;
  TimePs busy_until_ = 0;
  TimePs prepared_at_ = 0;
  std::map<uint32_t, CoreInterval> intervals_;
  std::map<TaskSeq, uint32_t> gated_;  // task -> token of its gated block
};

// The chip's side of the signals (as models/chip.cc wires them).
class Signals : public RuntimeSignals {
 public:
  void WakeSchedulers(TimePs visible_at) override {
    for (SchedulerThread* thread : threads) thread->Wake(visible_at);
  }
  void WakeOrchestrator() override {}
  void RingDoorbell(int core, TaskSeq task, TimePs at) override {
    cores.at(core)->RingDoorbell(task, at - TestNow());
    owners.at(core)->Ungate(core, task);
  }

  std::vector<SchedulerThread*> threads;
  std::map<int, FakeCore*> cores;
  std::map<int, SchedulerThread*> owners;
};

class Recorder : public AicpuObserver {
 public:
  void OnCoreInterval(const CoreInterval& interval) override { intervals.push_back(interval); }
  void OnSchedulerPhase(const SchedulerPhase& phase) override { phases.push_back(phase); }
  std::vector<CoreInterval> intervals;
  std::vector<SchedulerPhase> phases;
};

// One chip's runtime state with scheduler threads over fake cores, wired as
// models/chip.cc wires them (a timing-only run: predicates pass).
struct Harness {
  Harness()
      : tasks([](Task&) {}),
        lifecycle(TaskLifecycle::Env{&tasks, &ready, &signals, /*memory=*/nullptr,
                                     Ns(config.aicpu.doorbell_ns)}),
        env{&TestCalendar(), &config.aicpu, config.core.dispatch_slots,
            &tasks,          &ready,        &lifecycle,
            &signals,        &recorder,     &failure},
        group(&tasks, &lifecycle) {}
  // A thread over `cores`, which must outlive it.
  SchedulerThread& AddThread(std::vector<FakeCore*> cores) {
    const int index = static_cast<int>(threads.size());
    threads.push_back(
        std::make_unique<SchedulerThread>(absl::StrCat("sched", index), index, env, &group,
                                          std::vector<ScheduledCore*>(cores.begin(), cores.end())));
    SchedulerThread* thread = threads.back().get();
    group.Add(thread);
    signals.threads.push_back(thread);
    for (FakeCore* core : cores) {
      signals.cores[core->id()] = core;
      signals.owners[core->id()] = thread;
    }
    return *thread;
  }
  // A submitted task with no unfinished producer.
  Task& AddTask(TaskShape shape, int64_t block_num) {
    Task& task = tasks.Create(tasks.next_seq(), /*ring=*/1);
    task.shape = shape;
    task.block_num = block_num;
    task.fanin_pending = 0;
    task.times.submit = 0;
    return task;
  }
  // Queues `task`, visible from time 0.
  void Ready(Task& task, Lane lane = Lane::kNormal) { ready.Push(task.shape, task.seq, 0, lane); }
  void WakeFirstThreadAt(TimePs at) {
    testing::CallAt(at, [this, at] { threads.front()->Wake(at); });
  }
  // When the thread saw the FIN of `token` on `core` (its interval record).
  TimePs FinishOf(int core, uint32_t token) const {
    for (const CoreInterval& interval : recorder.intervals) {
      if (interval.core == core && interval.reg_task_id == token) return interval.finish;
    }
    return kNever;
  }
  const std::vector<SchedulerPhase>& phases() const { return recorder.phases; }
  SchedulerCounters counters() const { return group.Totals(); }

  ChipConfig config;
  Recorder recorder;
  Signals signals;
  RunFailure failure;
  TaskTable tasks;
  ReadyQueues ready;
  TaskLifecycle lifecycle;
  SchedulerEnv env;
  SchedulerGroup group;
  std::vector<std::unique_ptr<SchedulerThread>> threads;
};

PTO_SYSTEMC_TEST(SchedulerThreadModuleTest, DispatchesIdleCoresAndCompletesTasksOnObservedFins) {
  Harness chip;
  FakeCore aic(0, CoreKind::kAic, 0), aiv1(1, CoreKind::kAiv, 0), aiv2(2, CoreKind::kAiv, 0);
  SchedulerThread& thread = chip.AddThread({&aic, &aiv1, &aiv2});
  Task& spmd = chip.AddTask(TaskShape::kAiv, 2);  // T0
  Task& cube = chip.AddTask(TaskShape::kAic, 1);  // T1
  chip.Ready(spmd);
  chip.Ready(cube);
  chip.WakeFirstThreadAt(0);
  sc_core::sc_start();

  // Loop at 0: 115 overhead; AIC first (even thread): barrier to 145,
  // publish 150; AIV: barrier 180, publish 185 and 190.
  ASSERT_EQ(aic.dispatched.size(), 1u);
  EXPECT_EQ(aic.dispatched[0].at, 0);
  EXPECT_EQ(aic.dispatched[0].publish_delay, 150 * kNs);
  EXPECT_EQ(aic.dispatched[0].work.dispatch, 115 * kNs);
  EXPECT_EQ(aic.dispatched[0].work.task, cube.seq);
  EXPECT_EQ(aic.dispatched[0].work.token, 1u);
  ASSERT_EQ(aiv1.dispatched.size(), 1u);
  EXPECT_EQ(aiv1.dispatched[0].publish_delay, 185 * kNs);
  EXPECT_EQ(aiv1.dispatched[0].work.block, 0);
  EXPECT_EQ(aiv1.dispatched[0].work.dispatch, 150 * kNs);
  ASSERT_EQ(aiv2.dispatched.size(), 1u);
  EXPECT_EQ(aiv2.dispatched[0].publish_delay, 190 * kNs);
  EXPECT_EQ(aiv2.dispatched[0].work.block, 1);
  EXPECT_EQ(spmd.first_core, 1);
  EXPECT_EQ(spmd.times.first_dispatch, 150 * kNs);

  // FINs visible at 3150 (AIC), 3185 and 3190 (AIVs). The loop at 3150
  // polls the AIC (215 in) and completes T1; the AIVs' FINs are seen in the
  // next loop, at 3150 + 415 = 3565: 215 and 315 in.
  EXPECT_EQ(cube.times.finish, 3365 * kNs);
  EXPECT_EQ(chip.FinishOf(0, 1), 3365 * kNs);
  EXPECT_EQ(chip.FinishOf(1, 1), 3780 * kNs);
  EXPECT_EQ(chip.FinishOf(2, 1), 3880 * kNs);
  EXPECT_EQ(spmd.times.finish, 3880 * kNs);
  EXPECT_TRUE(spmd.completed);
  EXPECT_EQ(thread.running_cores(), 0u);

  EXPECT_EQ(chip.counters().task_dispatches, 2u);
  EXPECT_EQ(chip.counters().block_dispatches, 3u);
  // Loops with work at 0, 1150 (AIC ACK), 1565 (AIV ACKs), 3150, 3565 and
  // 3880 (the deferred release); the idle ones at 190, 1980, 3995 are not.
  EXPECT_EQ(thread.counters().loops, 6u);
  std::vector<SchedulerPhase> completes;
  for (const SchedulerPhase& phase : chip.phases()) {
    if (phase.kind == SchedulerPhaseKind::kComplete) completes.push_back(phase);
  }
  ASSERT_EQ(completes.size(), 2u);
  EXPECT_EQ(completes[0].start, 3265 * kNs);
  EXPECT_EQ(completes[0].end, 3565 * kNs);
  EXPECT_EQ(completes[0].tasks_processed, 1u);
  EXPECT_EQ(completes[1].end, 3880 * kNs);
  EXPECT_EQ(completes[1].tasks_processed, 2u);
}

PTO_SYSTEMC_TEST(SchedulerThreadModuleTest, LatchedBlockFinishesTheRunningOneWhenItStarts) {
  Harness chip;
  FakeCore aic(0, CoreKind::kAic, 0);
  chip.AddThread({&aic});
  Task& first = chip.AddTask(TaskShape::kAic, 1);
  Task& second = chip.AddTask(TaskShape::kAic, 1);
  chip.Ready(first);
  chip.Ready(second);
  chip.WakeFirstThreadAt(0);
  sc_core::sc_start();

  // T0 at 150 (ACK 1150, FIN 3150). T1 waits for the ACK: the loop at 1150
  // polls it (215 in), then latches T1 in the pending slot (barrier 245,
  // publish 250).
  ASSERT_EQ(aic.dispatched.size(), 2u);
  EXPECT_EQ(aic.dispatched[1].at, 1150 * kNs);
  EXPECT_EQ(aic.dispatched[1].publish_delay, 250 * kNs);
  EXPECT_EQ(aic.dispatched[1].work.dispatch, 1365 * kNs);
  EXPECT_EQ(aic.dispatched[1].work.token, 2u);
  // T0's FIN at 3150 leaves it running while T1 is latched; T1's ACK at
  // 3150 + 320 finishes T0 (polled 215 in); T1's FIN at 5470 finishes T1.
  EXPECT_EQ(first.times.finish, 3685 * kNs);
  EXPECT_EQ(second.times.finish, 5685 * kNs);
}

PTO_SYSTEMC_TEST(SchedulerThreadModuleTest, EarlyDispatchedConsumerWaitsForItsDoorbell) {
  Harness chip;
  FakeCore aic(0, CoreKind::kAic, 0), aiv(1, CoreKind::kAiv, 0);
  chip.AddThread({&aic, &aiv});
  Task& producer = chip.AddTask(TaskShape::kAic, 1);
  producer.allow_early_resolve = true;
  Task& consumer = chip.AddTask(TaskShape::kAiv, 1);
  consumer.fanin_pending = 1;
  consumer.early_waiting = 1;
  producer.consumers.push_back(&consumer);
  chip.Ready(producer);
  chip.WakeFirstThreadAt(0);
  sc_core::sc_start();

  // Loop at 0: the producer at 150 is fully published, so the consumer is
  // an early candidate visible at 150 and staged gated in the same loop
  // (barrier 180, publish 185).
  ASSERT_EQ(aiv.dispatched.size(), 1u);
  EXPECT_TRUE(aiv.dispatched[0].work.gated);
  EXPECT_EQ(aiv.dispatched[0].at, 0);
  EXPECT_EQ(aiv.dispatched[0].publish_delay, 185 * kNs);
  EXPECT_EQ(chip.counters().early_blocks, 1u);
  // The producer's FIN (3150) is polled 215 in: completion at 3365 rings the
  // doorbell at 3370, and charges the fan-out (361 + 93 + 5 = 459); the rung
  // core is polled in the same pass (+100): the loop ends at 3924.
  EXPECT_EQ(producer.times.finish, 3365 * kNs);
  ASSERT_EQ(aiv.doorbells.size(), 1u);
  EXPECT_EQ(aiv.doorbells[0].at, 3370 * kNs);
  bool found = false;
  for (const SchedulerPhase& phase : chip.phases()) {
    if (phase.kind == SchedulerPhaseKind::kComplete && phase.start == 3265 * kNs) {
      EXPECT_EQ(phase.end, 3924 * kNs);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  // Started at 4370, FIN at 6370, polled 215 in.
  EXPECT_EQ(consumer.times.finish, 6585 * kNs);
}

PTO_SYSTEMC_TEST(SchedulerThreadModuleTest, CohortWiderThanAThreadLaunchesThroughTheDrain) {
  Harness chip;
  FakeCore a(10, CoreKind::kAiv, 0), b(11, CoreKind::kAiv, 0);
  FakeCore c(20, CoreKind::kAiv, 1), d(21, CoreKind::kAiv, 1);
  chip.AddThread({&a, &b});
  chip.AddThread({&c, &d});
  Task& cohort = chip.AddTask(TaskShape::kAiv, 3);
  cohort.sync_start = true;
  chip.Ready(cohort, Lane::kSync);
  chip.WakeFirstThreadAt(0);
  sc_core::sc_start();

  // Thread 0 pops it at 0 and begins the drain (it has two cores); at 115
  // a thread launches it: 115 in, thread 0 stages blocks 0-1 (publish 120,
  // 125), thread 1 block 2 (130), all gated. The rendezvous is the last
  // staged core prepared (115 + 130 + 1000 = 1245); each thread then rings
  // its cores 5 apart.
  ASSERT_EQ(a.dispatched.size(), 1u);
  ASSERT_EQ(b.dispatched.size(), 1u);
  ASSERT_EQ(c.dispatched.size(), 1u);
  EXPECT_TRUE(d.dispatched.empty());
  EXPECT_EQ(a.dispatched[0].work.block, 0);
  EXPECT_EQ(b.dispatched[0].work.block, 1);
  EXPECT_EQ(c.dispatched[0].work.block, 2);
  EXPECT_TRUE(c.dispatched[0].work.gated);
  EXPECT_EQ(a.dispatched[0].at, 115 * kNs);
  EXPECT_EQ(a.dispatched[0].publish_delay, 120 * kNs);
  EXPECT_EQ(b.dispatched[0].publish_delay, 125 * kNs);
  EXPECT_EQ(c.dispatched[0].publish_delay, 130 * kNs);
  EXPECT_EQ(a.dispatched[0].work.dispatch, 230 * kNs);
  EXPECT_EQ(c.dispatched[0].work.dispatch, 240 * kNs);
  ASSERT_EQ(a.doorbells.size(), 1u);
  EXPECT_EQ(a.doorbells[0].at, 1250 * kNs);
  EXPECT_EQ(b.doorbells[0].at, 1255 * kNs);
  EXPECT_EQ(c.doorbells[0].at, 1250 * kNs);
  EXPECT_EQ(chip.group.sync_drains(), 1u);
  EXPECT_EQ(chip.counters().task_dispatches, 1u);
  EXPECT_EQ(chip.counters().block_dispatches, 3u);
  EXPECT_TRUE(cohort.completed);
}

}  // namespace
}  // namespace pto
