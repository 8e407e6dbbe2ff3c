// Costs of the issue #6 logic on the simulator's hot paths: a core's tile
// transfers through its data cache, L2/HBM accounting per transfer, and the
// hazard detector per task.

#include <cstdint>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "models/base/chip_config.h"
#include "models/gm/data_cache.h"
#include "models/gm/hbm_model.h"
#include "models/gm/l2_cache.h"
#include "models/gm/line_backend.h"
#include "models/hazard/hazard_detector.h"

namespace pto {
namespace {

// A flat backing store without bounds checks: measures the cache itself.
class FlatBackend : public LineBackend {
 public:
  explicit FlatBackend(size_t size) : bytes_(size) {}
  void ReadLine(uint64_t addr, void* dst, size_t size) override {
    std::memcpy(dst, bytes_.data() + addr, size);
  }
  void WriteLine(uint64_t addr, const void* src, size_t size) override {
    std::memcpy(bytes_.data() + addr, src, size);
  }
  void AtomicAdd(uint64_t, DType, const void*, size_t) override {}
  bool Contains(uint64_t addr, size_t size) const override { return addr + size <= bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// One task on one core: pickup, load two 64x128 FP32 tiles, store one, end.
void BM_DataCacheTask(benchmark::State& state) {
  constexpr size_t kTile = 64 * 128 * 4;
  FlatBackend backend(4 * kTile);
  DataCache cache(&backend, 64);
  std::vector<uint8_t> tile(kTile);
  for (auto _ : state) {
    cache.OnTaskPickup();
    cache.Read(0, tile.data(), kTile);
    cache.Read(kTile, tile.data(), kTile);
    cache.Write(2 * kTile, tile.data(), kTile);
    cache.OnTaskEnd();
    cache.ClearWriteBacks();
    benchmark::DoNotOptimize(tile.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kTile);
}
BENCHMARK(BM_DataCacheTask);

void BM_L2AndHbmPerTransfer(benchmark::State& state) {
  GmParams params;
  L2Cache l2(params);
  HbmModel hbm(params);
  int64_t now = 0;
  uint64_t addr = 0;
  for (auto _ : state) {
    const L2Access access = l2.Access(addr, 32 << 10);
    now = hbm.Transfer(now + l2.LatencyPs(access), access.miss_lines * 512, 512);
    addr = (addr + (32 << 10)) % (256 << 20);  // cycles through more than L2 holds
  }
  benchmark::DoNotOptimize(now);
}
BENCHMARK(BM_L2AndHbmPerTransfer);

// The same transfers over a working set that fits in L2: all hits.
void BM_L2HitPerTransfer(benchmark::State& state) {
  L2Cache l2{GmParams()};
  uint64_t addr = 0;
  int64_t hits = 0;
  for (auto _ : state) {
    hits += l2.Access(addr, 32 << 10).hit_lines;
    addr = (addr + (32 << 10)) % (64 << 20);
  }
  benchmark::DoNotOptimize(hits);
}
BENCHMARK(BM_L2HitPerTransfer);

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
