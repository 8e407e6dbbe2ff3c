#ifndef PTO_MODELS_GM_L2_TEST_SUPPORT_H_
#define PTO_MODELS_GM_L2_TEST_SUPPORT_H_

#include <cstdint>
#include <random>

#include "models/base/chip_config.h"
#include "models/gm/gm_request.h"
#include "models/gm/l2_model.h"

namespace pto {

// An L2 of `lines` 512 B lines; `ways` 0 is fully associative.
inline GmParams SmallL2(int64_t lines, int64_t ways = 0) {
  GmParams params;
  params.l2_line_bytes = 512;
  params.l2_capacity_bytes = lines * 512;
  params.l2_associativity = ways;
  params.l2_hit_latency_ns = 100;
  params.l2_miss_latency_ns = 400;
  return params;
}

// What one L2 model made of a workload: its reads' hit and miss bytes and
// the dirty bytes it evicted.
struct L2Outcome {
  L2Split reads;
  int64_t evicted_bytes = 0;
};

// A decode-like reuse pattern for a cache of 8192 lines (4 MiB): a hot
// activation buffer, a weight stream of strided tile rows that never
// repeats, output stores, and re-reads of random KV blocks 1.25 times the
// cache. The same transfers go to every model in `models`.
template <size_t N>
void RunDecodeLikePattern(L2Model* const (&models)[N], L2Outcome (&outcomes)[N]) {
  std::mt19937 random(7);
  const auto all = [&](const GmRuns& runs, bool is_write) {
    for (size_t i = 0; i < N; ++i) {
      const L2Split split = models[i]->AccessRuns(runs, is_write, &outcomes[i].evicted_bytes);
      if (is_write) continue;
      outcomes[i].reads.hit_bytes += split.hit_bytes;
      outcomes[i].reads.miss_bytes += split.miss_bytes;
    }
  };
  constexpr uint64_t kActivations = 1ull << 30;
  constexpr uint64_t kOutputs = 2ull << 30;
  constexpr uint64_t kKv = 3ull << 30;
  constexpr uint64_t kWeights = 4ull << 30;
  constexpr uint64_t kWeightRow = 34816;  // a 17408-column BF16 matrix
  for (int step = 0; step < 400; ++step) {
    all(GmRuns{kActivations, 64 << 10, 1, 0}, false);
    const uint64_t tile = static_cast<uint64_t>(step);
    all(GmRuns{kWeights + tile / 17 * 64 * kWeightRow + tile % 17 * 2048, 2048, 64, kWeightRow},
        false);
    all(GmRuns{kOutputs + (tile % 64) * (16 << 10), 16 << 10, 1, 0}, true);
    const uint64_t block = random() % 40;  // 40 × 128 KiB: 1.25 × the cache
    all(GmRuns{kKv + block * (128 << 10), 512, 256, 512}, false);
  }
}

}  // namespace pto

#endif  // PTO_MODELS_GM_L2_TEST_SUPPORT_H_
