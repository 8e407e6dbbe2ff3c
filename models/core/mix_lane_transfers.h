#ifndef PTO_MODELS_CORE_MIX_LANE_TRANSFERS_H_
#define PTO_MODELS_CORE_MIX_LANE_TRANSFERS_H_

// One MIX lane's GM transfers in one segment, timed on shared bandwidth:
// the bookkeeping behind CorePhases' MIX flow timing, as a plain class.
//
// The lane notes the LOAD/STOREs of its own engine's ops as the segment
// executes (Add), then, given the ring schedule planned with core-side costs
// (Begin), issues them one after another: each at its op's planned start,
// shifted by how late this lane's earlier loads landed against their ops'
// planned ends. A load is waited for; a store is posted. What each load took
// is kept per record (durations), for the cluster's MixTransferBoard.
//
//   MixLaneTransfers lane;
//   lane.Add({/*record=*/0, runs, GmDirection::kRead});
//   lane.Begin(ops_start, plan.op_start_ns, plan.op_end_ns);
//   while (lane.has_next()) {
//     const TimePs due = lane.next_due();  // issue it then (not before now)
//     lane.Issue(now);                     // a load: wait for OnLoadLanded
//     ...
//   }

#include <cstddef>
#include <vector>

#include "absl/types/span.h"
#include "models/base/time.h"
#include "models/gm/gm_request.h"

namespace pto {

class MixLaneTransfers {
 public:
  struct Transfer {
    size_t record = 0;  // in the segment
    GmRuns runs;
    GmDirection direction = GmDirection::kRead;
  };

  // Forgets the last segment's transfers.
  void Clear() { transfers_.clear(); }
  // The next transfer of the segment, in program order.
  void Add(const Transfer& transfer) { transfers_.push_back(transfer); }

  // The segment's ops start at `ops_start`; `planned_start_ns` and
  // `planned_end_ns` are each record's op interval (ns from then) in the
  // ring schedule with core-side costs, for the segment's `records`.
  void Begin(TimePs ops_start, std::vector<double> planned_start_ns,
             std::vector<double> planned_end_ns);

  // A transfer is left to issue and no load is outstanding.
  bool has_next() const { return !load_pending_ && next_ < transfers_.size(); }
  const Transfer& next() const { return transfers_[next_]; }
  // When the next transfer is due: its op's planned start plus the shift.
  TimePs next_due() const;
  // The next transfer went out at `now`.
  void Issue(TimePs now);
  // The outstanding load landed at `done`: its duration is kept, and if it
  // landed after its op's planned (shifted) end, the later ones shift by
  // the difference.
  void OnLoadLanded(TimePs done);
  // A posted store landed.
  void OnStoreLanded() { --stores_in_flight_; }

  bool load_pending() const { return load_pending_; }
  // Every transfer issued and landed.
  bool all_landed() const {
    return next_ == transfers_.size() && !load_pending_ && stores_in_flight_ == 0;
  }
  // Per segment record: what its load took (ns), -1 where this lane moved
  // nothing (or only stored).
  absl::Span<const double> durations_ns() const { return durations_ns_; }
  TimePs shift() const { return shift_; }

 private:
  std::vector<Transfer> transfers_;
  std::vector<double> planned_start_ns_;
  std::vector<double> planned_end_ns_;
  std::vector<double> durations_ns_;
  TimePs ops_start_ = 0;
  TimePs shift_ = 0;
  size_t next_ = 0;
  bool load_pending_ = false;
  TimePs load_issued_ = 0;
  int stores_in_flight_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_MIX_LANE_TRANSFERS_H_
