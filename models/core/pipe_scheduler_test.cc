#include "models/core/pipe_scheduler.h"

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;

PipeOpSpec Compute(Pipe pipe, TimePs duration, std::vector<uint32_t> reads,
                   std::vector<uint32_t> writes) {
  PipeOpSpec op;
  op.pipe = pipe;
  op.duration = duration;
  op.reads = std::move(reads);
  op.writes = std::move(writes);
  return op;
}

// A load of `runs` into `buffer`: the memory system times it.
PipeOpSpec Load(uint32_t buffer, GmRuns runs = {}) {
  PipeOpSpec op;
  op.pipe = Pipe::kMte2;
  op.external = true;
  op.writes = {buffer};
  op.touches_gm = runs.rows > 0;
  op.gm = runs;
  return op;
}

PipeOpSpec Store(uint32_t buffer, GmRuns runs = {}) {
  PipeOpSpec op;
  op.pipe = Pipe::kMte3;
  op.external = true;
  op.reads = {buffer};
  op.touches_gm = runs.rows > 0;
  op.gm = runs;
  op.gm_write = true;
  return op;
}

// Plays the memory system: every external op started at t ends at t +
// took(op). Runs the block from `start` to its end.
void Drive(PipeScheduler* pipes, TimePs start, const std::function<TimePs(uint32_t)>& took) {
  std::multimap<TimePs, uint32_t> landing;
  std::vector<uint32_t> started;
  auto issue = [&] {
    pipes->TakeStarted(&started);
    for (uint32_t op : started) landing.emplace(pipes->timing(op).start + took(op), op);
  };
  pipes->Start(start);
  issue();
  while (!pipes->finished()) {
    const TimePs internal = pipes->next_internal_at();
    ASSERT_TRUE(internal != kNever || !landing.empty()) << "stuck";
    if (!landing.empty() && (internal == kNever || landing.begin()->first <= internal)) {
      const auto [at, op] = *landing.begin();
      landing.erase(landing.begin());
      pipes->Complete(op, at);
    } else {
      pipes->RunUntil(internal);
    }
    issue();
  }
}

std::pair<TimePs, TimePs> Interval(TimePs start, TimePs end) { return {start, end}; }

std::pair<TimePs, TimePs> Span(const PipeScheduler& pipes, uint32_t op) {
  return {pipes.timing(op).start, pipes.timing(op).end};
}

TEST(PipeSchedulerTest, IndependentOpsOnTwoPipesOverlap) {
  // A vector op and a cube op with no buffer in common run side by side;
  // a second vector op queues behind the first on its pipe.
  PipeScheduler pipes;
  const uint32_t v0 = pipes.Add(Compute(Pipe::kVector, 300, {}, {1}));
  const uint32_t c0 = pipes.Add(Compute(Pipe::kCube, 500, {}, {2}));
  const uint32_t v1 = pipes.Add(Compute(Pipe::kVector, 400, {}, {3}));
  Drive(&pipes, 1000, [](uint32_t) { return 0; });
  EXPECT_EQ(Span(pipes, v0), Interval(1000, 1300));
  EXPECT_EQ(Span(pipes, c0), Interval(1000, 1500));
  EXPECT_EQ(Span(pipes, v1), Interval(1300, 1700));
  EXPECT_EQ(pipes.end_time(), 1700);
  EXPECT_EQ(pipes.busy(Pipe::kVector), 700);
  EXPECT_EQ(pipes.busy(Pipe::kCube), 500);
  EXPECT_EQ(pipes.busy(Pipe::kMte2), 0);
}

TEST(PipeSchedulerTest, ReaderWaitsForItsProducer) {
  // RAW: exp reads the loaded tile; the store reads exp's result. Load 1000,
  // exp 500, store 800: 0-1000, 1000-1500, 1500-2300.
  PipeScheduler pipes;
  const uint32_t load = pipes.Add(Load(0));
  const uint32_t exp = pipes.Add(Compute(Pipe::kVector, 500, {0}, {1}));
  const uint32_t store = pipes.Add(Store(1));
  Drive(&pipes, 0, [&](uint32_t op) { return op == load ? 1000 : 800; });
  EXPECT_EQ(Span(pipes, load), Interval(0, 1000));
  EXPECT_EQ(Span(pipes, exp), Interval(1000, 1500));
  EXPECT_EQ(Span(pipes, store), Interval(1500, 2300));
}

TEST(PipeSchedulerTest, ReusedBufferWaitsForThePreviousValuesReaders) {
  // A single-buffered loop, two iterations: load -> exp -> store with the
  // same two buffers. The second load may not overwrite buffer 0 before the
  // first exp read it (WAR), and the second exp may not overwrite buffer 1
  // before the first store read it. Load L = 1000, exp E = 500, store S =
  // 800, with four loads allowed in flight:
  //   load0 0-1000, exp0 1000-1500, store0 1500-2300,
  //   load1 1500-2500 (after exp0), exp1 2500-3000 (after load1 and
  //   store0's 2300), store1 3000-3800.
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 4;
  PipeScheduler pipes(limits);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 2; ++i) {
    ids.push_back(pipes.Add(Load(0)));
    ids.push_back(pipes.Add(Compute(Pipe::kVector, 500, {0}, {1})));
    ids.push_back(pipes.Add(Store(1)));
  }
  Drive(&pipes, 0, [&](uint32_t op) { return pipes.pipe_of(op) == Pipe::kMte2 ? 1000 : 800; });
  EXPECT_EQ(Span(pipes, ids[3]), Interval(1500, 2500));
  EXPECT_EQ(Span(pipes, ids[4]), Interval(2500, 3000));
  EXPECT_EQ(Span(pipes, ids[5]), Interval(3000, 3800));
  EXPECT_EQ(pipes.end_time(), 3800);
}

TEST(PipeSchedulerTest, TwoBuffersLetTheNextLoadOverlapCompute) {
  // The same loop double-buffered (buffers 0/2 for loads, 1/3 for results):
  // both loads start at 0 and land at 1000; exp0 1000-1500, exp1 1500-2000;
  // store0 1500-2300, store1 2300-3100 (MTE3 runs one at a time).
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 4;
  PipeScheduler pipes(limits);
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 2; ++i) {
    ids.push_back(pipes.Add(Load(2 * i)));
    ids.push_back(pipes.Add(Compute(Pipe::kVector, 500, {2 * i}, {2 * i + 1})));
    ids.push_back(pipes.Add(Store(2 * i + 1)));
  }
  Drive(&pipes, 0, [&](uint32_t op) { return pipes.pipe_of(op) == Pipe::kMte2 ? 1000 : 800; });
  EXPECT_EQ(Span(pipes, ids[3]), Interval(0, 1000));
  EXPECT_EQ(Span(pipes, ids[4]), Interval(1500, 2000));
  EXPECT_EQ(Span(pipes, ids[5]), Interval(2300, 3100));
  EXPECT_EQ(pipes.end_time(), 3100);
  EXPECT_EQ(pipes.busy(Pipe::kMte2), 1000);
  EXPECT_EQ(pipes.busy(Pipe::kMte3), 1600);
}

TEST(PipeSchedulerTest, Mte2KeepsAtMostItsOutstandingLoadsInFlight) {
  // Five independent loads of 1000 each, two in flight at a time: they
  // start at 0, 0, 1000, 1000, 2000 and the block ends at 3000.
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 2;
  PipeScheduler pipes(limits);
  for (uint32_t i = 0; i < 5; ++i) pipes.Add(Load(i));
  Drive(&pipes, 0, [](uint32_t) { return 1000; });
  std::vector<TimePs> starts;
  for (uint32_t i = 0; i < 5; ++i) starts.push_back(pipes.timing(i).start);
  EXPECT_THAT(starts, ElementsAre(0, 0, 1000, 1000, 2000));
  EXPECT_EQ(pipes.end_time(), 3000);
  EXPECT_EQ(pipes.busy(Pipe::kMte2), 3000);
}

TEST(PipeSchedulerTest, LoadsIntoOneBufferAreOrderedByTheirQueueAlone) {
  // Three loads of 1000 into buffer 0, back to back and never read (a
  // DataCopy stream): no flag between them, so they stream at MTE2's depth
  // of two (0, 0, 1000); the vector op reading buffer 0 waits for the last
  // (2000), and the load after it for that reader (WAR across pipes, 2500).
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 2;
  PipeScheduler pipes(limits);
  for (int i = 0; i < 3; ++i) pipes.Add(Load(0));
  const uint32_t read = pipes.Add(Compute(Pipe::kVector, 500, {0}, {1}));
  const uint32_t reload = pipes.Add(Load(0));
  Drive(&pipes, 0, [](uint32_t) { return 1000; });
  std::vector<TimePs> starts;
  for (uint32_t i = 0; i < 3; ++i) starts.push_back(pipes.timing(i).start);
  EXPECT_THAT(starts, ElementsAre(0, 0, 1000));
  EXPECT_EQ(Span(pipes, read), Interval(2000, 2500));
  EXPECT_EQ(Span(pipes, reload), Interval(2500, 3500));
}

TEST(PipeSchedulerTest, LoadsIssueInOrderEvenWhenALaterOneIsFree) {
  // In-order queue: load1 waits for buffer 0's reader (WAR); load2, free
  // to go, still waits behind it.
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 4;
  PipeScheduler pipes(limits);
  pipes.Add(Load(0));                                // 0-1000
  pipes.Add(Compute(Pipe::kVector, 500, {0}, {1}));  // 1000-1500
  const uint32_t load1 = pipes.Add(Load(0));         // 1500-2500
  const uint32_t load2 = pipes.Add(Load(2));         // 1500-2500
  Drive(&pipes, 0, [](uint32_t) { return 1000; });
  EXPECT_EQ(pipes.timing(load1).start, 1500);
  EXPECT_EQ(pipes.timing(load2).start, 1500);
}

TEST(PipeSchedulerTest, GmBytesKeepProgramOrderAcrossPipes) {
  // A store of rows [0, 64) x 128 B at stride 256, then a load of the same
  // bytes on another pipe: the load waits for the store to land. A load of
  // the interleaved columns (base 128) shares no byte and does not wait.
  const GmRuns written{0x10000, 128, 64, 256};
  const GmRuns same{0x10000, 128, 64, 256};
  const GmRuns beside{0x10000 + 128, 128, 64, 256};
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 4;
  PipeScheduler pipes(limits);
  pipes.Add(Compute(Pipe::kVector, 200, {}, {0}));  // 0-200
  const uint32_t store = pipes.Add(Store(0, written));
  const uint32_t load_beside = pipes.Add(Load(1, beside));
  const uint32_t load_same = pipes.Add(Load(2, same));
  Drive(&pipes, 0, [](uint32_t) { return 1000; });
  EXPECT_EQ(Span(pipes, store), Interval(200, 1200));
  EXPECT_EQ(pipes.timing(load_beside).start, 0);
  EXPECT_EQ(pipes.timing(load_same).start, 1200);
}

TEST(PipeSchedulerTest, ManyGmOpsEndingPastALongStoreStillLeaveItPending) {
  // A store that takes long, then 100 loads of other bytes that end one by
  // one while it is in flight (the ended ones are dropped from the pending
  // list in passes), then a load of the store's bytes: it still waits.
  const GmRuns written{0x40000, 256, 4, 256};
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 4;
  PipeScheduler pipes(limits);
  const uint32_t store = pipes.Add(Store(0, written));
  for (uint32_t i = 0; i < 100; ++i) {
    pipes.Add(Load(1 + i % 2, GmRuns{0x80000 + 4096ull * i, 256, 4, 256}));
  }
  const uint32_t load_same = pipes.Add(Load(3, written));
  Drive(&pipes, 0, [&](uint32_t op) { return op == store ? 1'000'000 : 10; });
  EXPECT_EQ(Span(pipes, store), Interval(0, 1'000'000));
  EXPECT_LT(pipes.timing(load_same - 1).end, 10'000);  // the loads before it did not wait
  EXPECT_EQ(pipes.timing(load_same).start, 1'000'000);
}

TEST(PipeSchedulerTest, ReadsOfTheSameGmBytesDoNotOrder) {
  const GmRuns tile{0x20000, 512, 8, 512};
  PipeLimits limits;
  limits.in_flight[static_cast<int>(Pipe::kMte2)] = 2;
  PipeScheduler pipes(limits);
  const uint32_t a = pipes.Add(Load(0, tile));
  const uint32_t b = pipes.Add(Load(1, tile));
  Drive(&pipes, 0, [](uint32_t) { return 700; });
  EXPECT_EQ(pipes.timing(a).start, 0);
  EXPECT_EQ(pipes.timing(b).start, 0);
}

TEST(PipeSchedulerTest, InPlaceOpWaitsForOtherReadersOnly) {
  // exp in place on buffer 0 (reads and writes it) after a cube op read it:
  // it waits for that reader, not for itself.
  PipeScheduler pipes;
  pipes.Add(Compute(Pipe::kVector, 100, {}, {0}));  // 0-100
  pipes.Add(Compute(Pipe::kCube, 600, {0}, {1}));   // 100-700
  const uint32_t exp = pipes.Add(Compute(Pipe::kVector, 300, {0}, {0}));
  Drive(&pipes, 0, [](uint32_t) { return 0; });
  EXPECT_EQ(Span(pipes, exp), Interval(700, 1000));
}

TEST(PipeSchedulerTest, BarrierWaitsForEverythingBeforeAndHoldsEverythingAfter) {
  // An external barrier (a fence) after a store: it starts when the store
  // lands; the vector op after it waits for its end even though it touches
  // nothing the store did.
  PipeScheduler pipes;
  pipes.Add(Compute(Pipe::kVector, 100, {}, {0}));  // 0-100
  const uint32_t store = pipes.Add(Store(0));       // 100-1100
  PipeOpSpec fence;
  fence.barrier = true;
  fence.external = true;
  const uint32_t barrier = pipes.Add(fence);                              // 1100-1400
  const uint32_t after = pipes.Add(Compute(Pipe::kVector, 50, {}, {5}));  // 1400-1450
  Drive(&pipes, 0, [&](uint32_t op) { return op == store ? 1000 : 300; });
  EXPECT_EQ(Span(pipes, barrier), Interval(1100, 1400));
  EXPECT_EQ(Span(pipes, after), Interval(1400, 1450));
}

TEST(PipeSchedulerTest, AStallingScalarLoadHoldsLaterOpsButNotEarlierOnes) {
  // A READ (scalar load, 122 ns) after a long vector op: it does not wait
  // for that op (it reads nothing the op writes), but the vector op after it
  // issues only once its value is back, although the two touch nothing in
  // common.
  PipeScheduler pipes;
  const uint32_t before = pipes.Add(Compute(Pipe::kVector, 500, {}, {0}));  // 0-500
  PipeOpSpec read = Compute(Pipe::kScalar, 122, {}, {});
  read.stalls_issue = true;
  const uint32_t load = pipes.Add(read);                                   // 0-122
  const uint32_t after = pipes.Add(Compute(Pipe::kMte2, 10, {}, {1}));     // 122-132
  const uint32_t vector = pipes.Add(Compute(Pipe::kVector, 20, {}, {2}));  // 500-520
  Drive(&pipes, 0, [](uint32_t) { return 0; });
  EXPECT_EQ(Span(pipes, before), Interval(0, 500));
  EXPECT_EQ(Span(pipes, load), Interval(0, 122));
  EXPECT_EQ(Span(pipes, after), Interval(122, 132));
  EXPECT_EQ(Span(pipes, vector), Interval(500, 520));
  // Without the stall the MTE2 op would not wait at all.
  pipes.Clear();
  read.stalls_issue = false;
  pipes.Add(Compute(Pipe::kVector, 500, {}, {0}));
  pipes.Add(read);
  const uint32_t free = pipes.Add(Compute(Pipe::kMte2, 10, {}, {1}));
  Drive(&pipes, 0, [](uint32_t) { return 0; });
  EXPECT_EQ(Span(pipes, free), Interval(0, 10));
}

TEST(PipeSchedulerTest, ZeroTimeOpsAndEmptyBlocksEndAtOnce) {
  PipeScheduler pipes;
  pipes.Start(42);
  EXPECT_TRUE(pipes.finished());
  EXPECT_EQ(pipes.end_time(), 42);

  pipes.Clear();
  pipes.Add(Compute(Pipe::kScalar, 0, {}, {0}));
  pipes.Add(Compute(Pipe::kVector, 0, {0}, {1}));
  pipes.Start(7);
  EXPECT_TRUE(pipes.finished());
  EXPECT_EQ(pipes.end_time(), 7);
}

TEST(PipeSchedulerTest, ClearForgetsBuffersOfThePreviousBlock) {
  // After Clear, buffer 0's old reader is no one's predecessor.
  PipeScheduler pipes;
  pipes.Add(Compute(Pipe::kVector, 100, {0}, {1}));
  Drive(&pipes, 0, [](uint32_t) { return 0; });
  pipes.Clear();
  const uint32_t load = pipes.Add(Load(0));
  Drive(&pipes, 5000, [](uint32_t) { return 10; });
  EXPECT_EQ(Span(pipes, load), Interval(5000, 5010));
  EXPECT_EQ(pipes.busy(Pipe::kVector), 0);
}

}  // namespace
}  // namespace pto
