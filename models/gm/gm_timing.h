#ifndef PTO_MODELS_GM_GM_TIMING_H_
#define PTO_MODELS_GM_GM_TIMING_H_

#include <cstdint>
#include <memory>

#include "models/base/chip_config.h"
#include "models/gm/hbm_model.h"
#include "models/gm/l2_model.h"

namespace pto {

struct GmTransfer {
  int64_t done_ps = 0;  // read: last byte delivered; write: accepted by L2
  L2Access l2;
};

// The GM side of a transfer's time: the shared L2 in front of the shared
// HBM, as GlobalMemory's b_transport needs it (one instance per chip).
//   * Reads: the first byte after the L2 hit latency when every line hits;
//     otherwise the missing lines stream from HBM (contended, narrow rows
//     costing gm.narrow_row_penalty more) and the last one arrives the L2
//     miss latency after HBM served it.
//   * Writes are posted: accepted after the hit latency; their lines become
//     dirty in L2 (a whole-line write needs no fetch; partial L2 lines are
//     not fetched either — a simplification).
//   * Dirty lines L2 evicts are written to HBM at once, taking bandwidth from
//     everyone's later transfers but not delaying this one.
// The core-side rates (core.gm_to_l1_bytes_per_cycle, ...) are the op cost's business;
// the transfer ends at the later of the two.
class GmTiming {
 public:
  explicit GmTiming(const GmParams& params);

  GmTransfer Transfer(int64_t start_ps, uint64_t addr, uint64_t size, bool is_write,
                      int64_t innermost_run_bytes);

  L2Model& l2() { return *l2_; }
  HbmModel& hbm() { return hbm_; }

 private:
  int64_t line_bytes_;
  int64_t hit_latency_ps_;
  int64_t miss_latency_ps_;
  std::unique_ptr<L2Model> l2_;
  HbmModel hbm_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_GM_TIMING_H_
