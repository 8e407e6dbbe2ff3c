#ifndef PTO_MODELS_GM_HBM_MODEL_H_
#define PTO_MODELS_GM_HBM_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "models/base/chip_config.h"

namespace pto {

// How much longer a transfer takes when its innermost contiguous run is
// shorter than gm.narrow_row_bytes (one L2 line, 512 B, on a2a3; 128 B on
// a5): 1 + gm.narrow_row_penalty below it, else 1 (hw-native-sys/pypto@e2d0f78a
// docs/en/user/performance/04-incore.md: 128 B rows measured 16-25 % slower).
double NarrowRowFactor(int64_t innermost_run_bytes, const GmParams& params);

// Bytes in the innermost contiguous run of a strided transfer (shape and
// strides in elements, outermost first): contiguous inner dimensions fold
// into one run. The argument NarrowRowFactor wants.
int64_t ContiguousRunBytes(int64_t elem_bytes, absl::Span<const int64_t> shape,
                           absl::Span<const int64_t> strides);

// HBM bandwidth shared by every core, at the effective rate
// gm.hbm_bandwidth_bytes_per_s × gm.hbm_efficiency. Time is cut into bins;
// each bin can serve rate × bin bytes, and a transfer takes what is left in
// the bins from its start time on, so concurrent transfers share the rate
// (two bandwidth-bound streams take twice as long as one) while a lone one
// runs at the full rate. Transfers may arrive out of time order (cores run
// temporally decoupled): an earlier transfer still fills the spare capacity
// of earlier bins. Only a sliding window of bins is kept (window_bins ×
// bin_ps, 1.6 ms by default); a transfer stamped before the window starts is
// treated as starting at its beginning. Memory is fixed; no allocation per
// transfer.
class HbmModel {
 public:
  explicit HbmModel(const GmParams& params, int64_t bin_ps = 100'000,
                    int64_t window_bins = 1 << 14);

  // A transfer of `bytes` whose innermost contiguous run is
  // `innermost_run_bytes` (narrow runs cost NarrowRowFactor more bandwidth),
  // ready at `start_ps`. Returns the time its last byte is served (ps).
  int64_t Transfer(int64_t start_ps, int64_t bytes, int64_t innermost_run_bytes);

  // The time `bytes` take alone at the effective rate (ps).
  int64_t UncontendedPs(int64_t bytes) const;
  double bytes_per_ps() const { return bytes_per_ps_; }
  int64_t bytes_transferred() const { return bytes_transferred_; }
  int64_t transfers() const { return transfers_; }

 private:
  double& Remaining(int64_t bin) { return remaining_[static_cast<size_t>(bin % window_bins_)]; }
  // Moves the window so that it holds `bin`, refilling the bins it drops.
  void Cover(int64_t bin);

  GmParams params_;
  double bytes_per_ps_;
  int64_t bin_ps_;
  int64_t window_bins_;
  double bin_capacity_;
  std::vector<double> remaining_;  // bytes each bin can still serve, a ring
  int64_t first_bin_ = 0;          // oldest bin in the window (absolute index)
  int64_t bytes_transferred_ = 0;
  int64_t transfers_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_HBM_MODEL_H_
