#include "models/gm/gm_timing.h"

#include <cmath>

namespace pto {

GmTiming::GmTiming(const GmParams& params)
    : line_bytes_(params.l2_line_bytes),
      hit_latency_ps_(std::llround(params.l2_hit_latency_ns * 1e3)),
      miss_latency_ps_(std::llround(params.l2_miss_latency_ns * 1e3)),
      l2_(MakeL2Model(params)),
      hbm_(params) {}

GmTransfer GmTiming::Transfer(int64_t start_ps, uint64_t addr, uint64_t size, bool is_write,
                              int64_t innermost_run_bytes) {
  GmTransfer transfer;
  transfer.l2 = l2_->Access(addr, size, is_write);
  if (transfer.l2.dirty_evictions > 0) {
    hbm_.Transfer(start_ps, transfer.l2.dirty_evictions * line_bytes_, line_bytes_);
  }
  if (is_write || transfer.l2.miss_lines == 0) {
    transfer.done_ps = start_ps + hit_latency_ps_;
    return transfer;
  }
  const int64_t served =
      hbm_.Transfer(start_ps, transfer.l2.miss_lines * line_bytes_, innermost_run_bytes);
  transfer.done_ps = served + miss_latency_ps_;
  return transfer;
}

}  // namespace pto
