#include "models/gm/l2_model.h"

#include <algorithm>
#include <cmath>

#include "absl/numeric/bits.h"
#include "models/gm/l2_cache.h"
#include "models/gm/l2_transfer_cache.h"

namespace pto {

L2Model::L2Model(const GmParams& params)
    : line_bytes_(params.l2_line_bytes),
      line_shift_(absl::countr_zero(static_cast<uint64_t>(params.l2_line_bytes))),
      capacity_lines_(std::max<int64_t>(1, params.l2_capacity_bytes / params.l2_line_bytes)),
      hit_latency_ps_(std::llround(params.l2_hit_latency_ns * 1e3)),
      miss_latency_ps_(std::llround(params.l2_miss_latency_ns * 1e3)) {}

void L2Model::Count(const L2Access& access) {
  hits_ += access.hit_lines;
  misses_ += access.miss_lines;
  dirty_evictions_ += access.dirty_evictions;
}

L2Access L2Model::Access(uint64_t addr, uint64_t size, bool is_write) {
  if (size == 0) return L2Access();
  const L2Access access = TouchRange(addr, size, is_write);
  Count(access);
  return access;
}

L2Split L2Model::AccessRuns(const GmRuns& runs, bool is_write, int64_t* dirty_evicted_bytes) {
  L2Access total;
  if (runs.rows == 1 || runs.stride == runs.row_bytes) {
    total = Access(runs.base, runs.bytes(), is_write);
  } else if (runs.stride == 0) {
    total = Access(runs.base, runs.row_bytes, is_write);
    if (runs.rows >= 2) {
      const L2Access again = Access(runs.base, runs.row_bytes, is_write);
      const int64_t more = runs.rows - 2;  // as the second pass did
      const L2Access rest{again.hit_lines * more, again.miss_lines * more,
                          again.dirty_evictions * more};
      Count(rest);
      total += again;
      total += rest;
    }
  } else {
    total = TouchRows(runs, is_write);
    Count(total);
  }
  *dirty_evicted_bytes += total.dirty_evictions * line_bytes_;
  const int64_t bytes = static_cast<int64_t>(runs.bytes());
  if (is_write) return L2Split{bytes, 0};
  const int64_t lines = total.hit_lines + total.miss_lines;
  const int64_t miss =
      lines == 0 ? 0
                 : static_cast<int64_t>(static_cast<__int128>(bytes) * total.miss_lines / lines);
  return L2Split{bytes - miss, miss, total.miss_lines * line_bytes_};
}

int64_t L2Model::LatencyPs(const L2Access& access) const {
  return access.miss_lines > 0 ? miss_latency_ps_ : hit_latency_ps_;
}

std::unique_ptr<L2Model> MakeL2Model(const GmParams& params) {
  if (params.l2_associativity == 0) return std::make_unique<L2TransferCache>(params);
  return std::make_unique<L2Cache>(params);
}

}  // namespace pto
