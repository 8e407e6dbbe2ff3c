#include "models/gm/hbm_model.h"

#include <algorithm>
#include <cmath>

namespace pto {

double NarrowRowFactor(int64_t innermost_run_bytes, const GmParams& params) {
  return innermost_run_bytes < params.narrow_row_bytes ? 1.0 + params.narrow_row_penalty : 1.0;
}

int64_t ContiguousRunBytes(int64_t elem_bytes, absl::Span<const int64_t> shape,
                           absl::Span<const int64_t> strides) {
  int64_t run = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != run) break;
    run *= shape[d];
  }
  return run * elem_bytes;
}

HbmModel::HbmModel(const GmParams& params, int64_t bin_ps, int64_t window_bins)
    : params_(params),
      bytes_per_ps_(params.hbm_bandwidth_bytes_per_s * params.hbm_efficiency * 1e-12),
      bin_ps_(bin_ps),
      window_bins_(window_bins),
      bin_capacity_(bytes_per_ps_ * static_cast<double>(bin_ps)),
      remaining_(static_cast<size_t>(window_bins), bin_capacity_) {}

int64_t HbmModel::UncontendedPs(int64_t bytes) const {
  return std::llround(static_cast<double>(bytes) / bytes_per_ps_);
}

void HbmModel::Cover(int64_t bin) {
  const int64_t last = first_bin_ + window_bins_ - 1;
  if (bin <= last) return;
  const int64_t new_first = bin - window_bins_ + 1;
  // Bins [first_bin_, new_first) leave the window; their ring entries become
  // the new bins (last, bin], which start empty.
  const int64_t dropped = std::min(new_first - first_bin_, window_bins_);
  for (int64_t i = 0; i < dropped; ++i) Remaining(last + 1 + i) = bin_capacity_;
  first_bin_ = new_first;
}

int64_t HbmModel::Transfer(int64_t start_ps, int64_t bytes, int64_t innermost_run_bytes) {
  ++transfers_;
  bytes_transferred_ += bytes;
  if (bytes <= 0) return start_ps;
  double need = static_cast<double>(bytes) * NarrowRowFactor(innermost_run_bytes, params_);
  int64_t now = std::max(start_ps, first_bin_ * bin_ps_);
  int64_t bin = now / bin_ps_;
  while (true) {
    Cover(bin);
    const int64_t bin_start = bin * bin_ps_;
    const int64_t bin_end = bin_start + bin_ps_;
    double& remaining = Remaining(bin);
    // Capacity already taken is served first: this transfer's bytes follow
    // it, and never before `now`.
    const double taken = bin_capacity_ - remaining;
    const double begin = std::max(static_cast<double>(now), bin_start + taken / bytes_per_ps_);
    const double usable = std::max(0.0, (bin_end - begin) * bytes_per_ps_);
    if (need <= usable) {
      remaining -= need;
      return static_cast<int64_t>(std::ceil(begin + need / bytes_per_ps_));
    }
    remaining -= usable;
    need -= usable;
    ++bin;
    now = bin * bin_ps_;
  }
}

}  // namespace pto
