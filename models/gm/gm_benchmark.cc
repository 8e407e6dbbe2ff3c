// Costs of GM's logic on the simulator's hot paths: a core's tile transfers
// through its data cache and L2/HBM accounting per transfer.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "models/base/chip_config.h"
#include "models/gm/data_cache.h"
#include "models/gm/hbm_model.h"
#include "models/gm/l2_model.h"
#include "models/gm/line_backend.h"

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

// Arg: gm.l2_associativity (0: L2TransferCache, 16: L2Cache in 16 ways).
GmParams L2Params(const benchmark::State& state) {
  GmParams params;
  params.l2_associativity = state.range(0);
  return params;
}

void BM_L2AndHbmPerTransfer(benchmark::State& state) {
  const GmParams params = L2Params(state);
  const std::unique_ptr<L2Model> l2 = MakeL2Model(params);
  HbmModel hbm(params);
  int64_t now = 0;
  uint64_t addr = 0;
  for (auto _ : state) {
    const L2Access access = l2->Access(addr, 32 << 10);
    now = hbm.Transfer(now + l2->LatencyPs(access), access.miss_lines * 512, 512);
    addr = (addr + (32 << 10)) % (256 << 20);  // cycles through more than L2 holds
  }
  benchmark::DoNotOptimize(now);
}
BENCHMARK(BM_L2AndHbmPerTransfer)->Arg(0)->Arg(16);

// The same transfers over a working set that fits in L2: all hits.
void BM_L2HitPerTransfer(benchmark::State& state) {
  const std::unique_ptr<L2Model> l2 = MakeL2Model(L2Params(state));
  uint64_t addr = 0;
  int64_t hits = 0;
  for (auto _ : state) {
    hits += l2->Access(addr, 32 << 10).hit_lines;
    addr = (addr + (32 << 10)) % (64 << 20);
  }
  benchmark::DoNotOptimize(hits);
}
BENCHMARK(BM_L2HitPerTransfer)->Arg(0)->Arg(16);

// Decode weight tiles: 64 rows of 2 KiB, 34 KiB apart, sixteen cores'
// column bands in turn, streaming through more than L2 holds.
void BM_L2StridedWeightTile(benchmark::State& state) {
  const std::unique_ptr<L2Model> l2 = MakeL2Model(L2Params(state));
  constexpr uint64_t kRow = 34816;
  uint64_t tile = 0;
  int64_t evicted = 0;
  for (auto _ : state) {
    const uint64_t base = (tile / 17) % 4096 * 64 * kRow + tile % 17 * 2048;
    benchmark::DoNotOptimize(l2->AccessRuns(GmRuns{base, 2048, 64, kRow}, false, &evicted));
    ++tile;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_L2StridedWeightTile)->Arg(0)->Arg(16);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
