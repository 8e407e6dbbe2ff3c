// The hazard detector's cost per task on the simulator's hot path
// (pto_sim without --no-hazards).

#include <cstdint>

#include "benchmark/benchmark.h"
#include "models/hazard/hazard_detector.h"

namespace pto {
namespace {

// A stream of tasks in a window of `range(0)` live tasks: each reads a band
// of a shared input, writes its own band and depends on its predecessor.
void BM_HazardDetectorPerTask(benchmark::State& state) {
  const int64_t window = state.range(0);
  HazardDetector detector(HazardDetector::Options(), nullptr);
  TaskSeq seq = 0;
  for (auto _ : state) {
    detector.AddTask(seq, "task");
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, 0x100000 + (seq % 64) * 4096, 4096);
    detector.AddAccess(seq, GmAccessKind::kWrite, 0x800000 + (seq % 1024) * 4096, 4096);
    if (seq >= static_cast<TaskSeq>(window)) detector.RetireTask(seq - window);
    ++seq;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HazardDetectorPerTask)->Arg(64)->Arg(1024);

// `serialized` at scale: every task reads and rewrites one accumulator, the
// orchestrator `range(0)` tasks ahead of retirement.
void BM_HazardDetectorAccumulatorChain(benchmark::State& state) {
  const int64_t window = state.range(0);
  HazardDetector detector(HazardDetector::Options(), nullptr);
  TaskSeq seq = 0;
  for (auto _ : state) {
    detector.AddTask(seq, "accumulate");
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, 0x100000, 32 << 10);
    detector.AddAccess(seq, GmAccessKind::kWrite, 0x100000, 32 << 10);
    if (seq >= static_cast<TaskSeq>(window)) detector.RetireTask(seq - window);
    ++seq;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HazardDetectorAccumulatorChain)->Arg(64)->Arg(16384);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
