// The hazard detector's cost per task on the simulator's hot path
// (pto_sim without --no-hazards).

#include <cstdint>

#include "benchmark/benchmark.h"
#include "models/hazard/hazard_detector.h"

namespace pto {
namespace {

HazardDetector::Options WindowOf(int64_t window) {
  HazardDetector::Options options;
  options.task_window = {window, window, window, window};
  return options;
}

// A stream of tasks in ring 0 with a task window of `range(0)`: each reads
// a band of a shared input, writes its own band and depends on its
// predecessor.
void BM_HazardDetectorPerTask(benchmark::State& state) {
  HazardDetector detector(WindowOf(state.range(0)), nullptr);
  TaskSeq seq = 0;
  for (auto _ : state) {
    detector.AddTask(seq, "task", 0, static_cast<uint32_t>(seq));
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, 0x100000 + (seq % 64) * 4096, 4096);
    detector.AddAccess(seq, GmAccessKind::kWrite, 0x800000 + (seq % 1024) * 4096, 4096);
    detector.EndTask(seq);
    ++seq;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HazardDetectorPerTask)->Arg(64)->Arg(1024);

// `serialized` at scale: every task reads and rewrites one accumulator, in
// a task window of `range(0)`.
void BM_HazardDetectorAccumulatorChain(benchmark::State& state) {
  HazardDetector detector(WindowOf(state.range(0)), nullptr);
  TaskSeq seq = 0;
  for (auto _ : state) {
    detector.AddTask(seq, "accumulate", 0, static_cast<uint32_t>(seq));
    if (seq > 0) detector.AddDependency(seq - 1, seq);
    detector.AddAccess(seq, GmAccessKind::kRead, 0x100000, 32 << 10);
    detector.AddAccess(seq, GmAccessKind::kWrite, 0x100000, 32 << 10);
    detector.EndTask(seq);
    ++seq;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HazardDetectorAccumulatorChain)->Arg(64)->Arg(16384);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
