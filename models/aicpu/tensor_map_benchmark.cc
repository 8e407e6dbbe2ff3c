// Cost of dependency inference per submit (tensor-map lookups + inserts +
// retirement) for a steady stream of 4-arg submits with 64 producers live.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "models/aicpu/dep_inference.h"

namespace pto {
namespace {

constexpr int kLiveProducers = 64;
constexpr int64_t kRows = 1024;
constexpr int64_t kCols = 128;
constexpr int64_t kBandRows = kRows / kLiveProducers;

TensorView Band(uint64_t base, int64_t band) {
  TensorView view;
  view.base_addr = base;
  view.dtype = trace::FP16;
  view.ndims = 2;
  view.start_offset = band * kBandRows * kCols;
  view.shape[0] = kBandRows;
  view.shape[1] = kCols;
  view.strides[0] = kCols;
  view.strides[1] = 1;
  return view;
}

// Each submit reads two bands written earlier, updates one band in place and
// overwrites another. With `shared_buffer`, all bands are slices of one root
// buffer (long chains, the "sliced views" pattern); otherwise each band slot
// is its own buffer (chains of about one entry).
void RunSubmitStream(benchmark::State& state, bool shared_buffer) {
  DependencyInference deps;
  std::vector<DepEdge> edges;
  std::vector<TaskSeq> producers;
  InferStats stats;
  int64_t probed = 0;
  auto view = [&](int64_t slot) {
    slot %= kLiveProducers;
    return shared_buffer ? Band(0x1000000, slot) : Band(0x1000000 + slot * 0x100000, 0);
  };
  TaskSeq self = 0;
  for (auto _ : state) {
    const DepArg args[4] = {
        {view(self + 1), trace::INPUT, false, {}},
        {view(self + 7), trace::INPUT, false, {}},
        {view(self), trace::INOUT, false, {}},
        {view(self + 32), trace::OUTPUT_EXISTING, false, {}},
    };
    deps.Infer(self, trace::ScopeBegin::AUTO, args, {}, &edges, &stats);
    UniqueProducers(self, edges, &producers);
    benchmark::DoNotOptimize(producers.data());
    probed += stats.entries_probed;
    if (self >= kLiveProducers) deps.EraseProducer(self - kLiveProducers);
    ++self;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["probed_per_submit"] =
      benchmark::Counter(static_cast<double>(probed) / static_cast<double>(state.iterations()));
  state.counters["map_entries"] = static_cast<double>(deps.tensor_map().size());
}

void BM_SubmitDistinctBuffers(benchmark::State& state) { RunSubmitStream(state, false); }
void BM_SubmitSlicesOfOneBuffer(benchmark::State& state) { RunSubmitStream(state, true); }

BENCHMARK(BM_SubmitDistinctBuffers);
BENCHMARK(BM_SubmitSlicesOfOneBuffer);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
