#ifndef PTO_MODELS_GM_TESTING_ROUND_MEMORY_PARAMS_H_
#define PTO_MODELS_GM_TESTING_ROUND_MEMORY_PARAMS_H_

#include "models/base/time.h"
#include "models/gm/memory_system.h"

namespace pto::gm_testing {

// Round numbers for hand-derived times: HBM 100 B/ns, L2 400 B/ns read and
// 200 B/ns write; latencies 100 ns (hit) and 500 ns (miss).
inline MemorySystemParams RoundMemoryParams() {
  MemorySystemParams params;
  params.hbm_bytes_per_ns = 100;
  params.l2_read_bytes_per_ns = 400;
  params.l2_write_bytes_per_ns = 200;
  params.l2_hit_latency = Ns(100);
  params.l2_miss_latency = Ns(500);
  return params;
}

}  // namespace pto::gm_testing

#endif  // PTO_MODELS_GM_TESTING_ROUND_MEMORY_PARAMS_H_
