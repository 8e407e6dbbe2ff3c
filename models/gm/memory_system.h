#ifndef PTO_MODELS_GM_MEMORY_SYSTEM_H_
#define PTO_MODELS_GM_MEMORY_SYSTEM_H_

// GM's timing as transfers over shared bandwidth. Every transfer a core
// issues (a tile load or store, an extern's byte stream, a line fill) is one
// request; its bytes move as flows through the resources on their path at
// max-min fair rates (FlowModel), and it completes when its last byte has
// moved plus its latency, once:
//
//   read, L2 hit part:   requester's read cap -> L2 read bandwidth
//   read, L2 miss part:  requester's read cap -> L2 read bandwidth -> HBM
//   write (posted):      requester's write cap -> L2 write bandwidth
//   dirty eviction:      HBM (no requester waits for it)
//
// HBM reads and writes share one pool. A read whose bytes are partly
// resident splits into its hit and miss parts, which move side by side; it
// completes at the later of the two plus the miss latency (the hit latency
// when nothing missed). A write is accepted when its bytes are in L2, plus
// the hit latency. Residency itself is the caller's (L2Split): this class
// only times.
//
//   MemorySystem gm(params);
//   const auto core = gm.AddRequester({/*read=*/115.2, /*write=*/115.2});
//   gm.Start(/*now=*/0, core, GmDirection::kRead, L2Split{.miss_bytes = 1 << 20});
//   std::vector<MemorySystem::Completion> done;
//   gm.AdvanceTo(gm.next_flow_end(), &done);  // done[0].done: last byte + latency
//
// Plain C++ and deterministic: the same requests at the same times give the
// same completions to the picosecond, whatever order same-time requests
// came in (FlowModel's rates depend only on which flows are active).

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "models/base/chip_config.h"
#include "models/base/time.h"
#include "models/gm/flow_model.h"
#include "models/gm/gm_request.h"

namespace pto {

struct MemorySystemParams {
  double hbm_bytes_per_ns = 0;       // peak × efficiency, reads and writes together
  double l2_read_bytes_per_ns = 0;   // the L2's aggregate read bandwidth
  double l2_write_bytes_per_ns = 0;  // ... and write bandwidth
  TimePs l2_hit_latency = 0;         // to the first byte when every byte hit
  TimePs l2_miss_latency = 0;        // ... when some byte came from HBM

  // The chip's: HBM at gm.hbm_bandwidth_bytes_per_s × gm.hbm_efficiency; the
  // L2 at gm.l2_read/write_bytes_per_cycle per AI core (chip.clusters of
  // them) at chip.aicore_clock_hz; the L2 latencies.
  static MemorySystemParams Of(const ChipConfig& config);
};

// One requester's own caps (a core's reads and its writes are separate
// requesters' worth of bandwidth: its loads and stores overlap).
struct RequesterCaps {
  double read_bytes_per_ns = 0;
  double write_bytes_per_ns = 0;
};

class MemorySystem {
 public:
  using RequesterId = int32_t;
  using TransferId = uint64_t;

  struct Completion {
    TransferId transfer;
    RequesterId requester;
    TimePs done;  // last byte moved + latency
  };

  struct Counters {
    int64_t transfers = 0;
    int64_t l2_read_hit_bytes = 0;
    int64_t l2_read_miss_bytes = 0;
    int64_t l2_write_bytes = 0;
    int64_t hbm_read_bytes = 0;
    int64_t hbm_write_bytes = 0;
    // What moved between two readings (a launch's share of the run's).
    Counters operator-(const Counters& before) const {
      return Counters{transfers - before.transfers,
                      l2_read_hit_bytes - before.l2_read_hit_bytes,
                      l2_read_miss_bytes - before.l2_read_miss_bytes,
                      l2_write_bytes - before.l2_write_bytes,
                      hbm_read_bytes - before.hbm_read_bytes,
                      hbm_write_bytes - before.hbm_write_bytes};
    }
  };

  // Every rate must be > 0 and every latency >= 0 (the config's schema
  // checks what users give).
  explicit MemorySystem(const MemorySystemParams& params);

  RequesterId AddRequester(const RequesterCaps& caps);

  // Starts a transfer at `now` (not before the time last advanced to; a flow
  // ending earlier must have been advanced past first). `split` has at least
  // one byte; a write has no miss bytes. Narrow rows (NarrowRowFactor) move
  // `bandwidth_factor` (>= 1) times their bytes' worth of bandwidth.
  TransferId Start(TimePs now, RequesterId requester, GmDirection direction, const L2Split& split,
                   double bandwidth_factor = 1.0);
  // `bytes` (> 0) of dirty lines L2 evicted, written to HBM from `now` on;
  // they take HBM bandwidth from everyone, and nobody waits for them.
  void StartWriteBack(TimePs now, int64_t bytes);

  // When the earliest active flow moves its last byte, or kNever: the time
  // to advance to next.
  TimePs next_flow_end() { return flows_.next_completion(); }
  // FlowModel::next_completion_bound: no later than next_flow_end() of the
  // transfers active before the starts at this instant, without their
  // recompute.
  TimePs next_flow_end_bound() const { return flows_.next_completion_bound(); }
  bool rates_stale() const { return flows_.stale(); }
  // Moves every flow up to `now`; appends the transfers whose last flow
  // ended by then, in the order they ended (ties: in the order they started).
  void AdvanceTo(TimePs now, std::vector<Completion>* completed);

  // Told the HBM's summed rate (bytes per ns) from `at` on, each time it
  // changes: the perfetto HBM-bandwidth track.
  using RateListener = std::function<void(TimePs at, double bytes_per_ns)>;
  void set_hbm_rate_listener(RateListener listener) { hbm_listener_ = std::move(listener); }

  const Counters& counters() const { return counters_; }
  size_t active_transfers() const { return transfers_.size(); }
  // A transfer's current rate over its parts (bytes per ns; 0 once done).
  double rate(TransferId transfer);

 private:
  struct Requester {
    FlowModel::ResourceId read;
    FlowModel::ResourceId write;
  };
  struct Transfer {
    RequesterId requester;
    TimePs latency;
    int parts = 0;       // flows started (hit, miss and line-fill part)
    int parts_left = 0;  // ... not yet ended
    FlowModel::FlowId part[3];
  };
  static constexpr TransferId kWriteBack = ~TransferId{0};

  void StartPart(TimePs now, TransferId transfer, int64_t bytes,
                 absl::Span<const FlowModel::ResourceId> path);

  MemorySystemParams params_;
  FlowModel flows_;
  FlowModel::ResourceId hbm_;
  FlowModel::ResourceId l2_read_;
  FlowModel::ResourceId l2_write_;
  std::vector<Requester> requesters_;
  absl::flat_hash_map<TransferId, Transfer> transfers_;
  // The transfer each active flow belongs to (kNoTransfer: a write-back).
  absl::flat_hash_map<FlowModel::FlowId, TransferId> owner_;
  TransferId next_transfer_ = 0;
  std::vector<FlowModel::FlowId> ended_;  // scratch for AdvanceTo
  // Tells the listener if the HBM's rate changed at `at`.
  void NoteHbmRate(TimePs at);
  // After a start at `at`: now, or once stale rates are recomputed.
  void NoteHbmRateAfterStart(TimePs at);

  Counters counters_;
  RateListener hbm_listener_;
  double hbm_rate_ = 0;
  TimePs hbm_note_at_ = kNever;  // a start's note awaiting the recompute
};

}  // namespace pto

#endif  // PTO_MODELS_GM_MEMORY_SYSTEM_H_
