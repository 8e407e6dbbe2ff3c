#include "models/core/mix_lane_transfers.h"

#include <utility>

namespace pto {

void MixLaneTransfers::Begin(TimePs ops_start, std::vector<double> planned_start_ns,
                             std::vector<double> planned_end_ns) {
  durations_ns_.assign(planned_start_ns.size(), -1);
  planned_start_ns_ = std::move(planned_start_ns);
  planned_end_ns_ = std::move(planned_end_ns);
  ops_start_ = ops_start;
  shift_ = 0;
  next_ = 0;
  load_pending_ = false;
  stores_in_flight_ = 0;
}

TimePs MixLaneTransfers::next_due() const {
  return ops_start_ + Ns(planned_start_ns_[transfers_[next_].record]) + shift_;
}

void MixLaneTransfers::Issue(TimePs now) {
  const Transfer& t = transfers_[next_++];
  if (t.direction == GmDirection::kRead) {
    load_pending_ = true;
    load_issued_ = now;
  } else {
    ++stores_in_flight_;  // posted
  }
}

void MixLaneTransfers::OnLoadLanded(TimePs done) {
  load_pending_ = false;
  const size_t record = transfers_[next_ - 1].record;
  durations_ns_[record] = static_cast<double>(done - load_issued_) / 1e3;
  const TimePs planned_end = ops_start_ + Ns(planned_end_ns_[record]) + shift_;
  if (done > planned_end) shift_ += done - planned_end;
}

}  // namespace pto
