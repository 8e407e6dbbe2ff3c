#include "models/core/mix_transfer_board.h"

#include <algorithm>
#include <utility>

namespace pto {

void MixTransferBoard::Post(TimePs now, const Segment& segment, Lane* lane,
                            absl::Span<const double> durations_ns) {
  Entry& entry = open_[segment];
  if (entry.durations.size() < durations_ns.size()) {
    entry.durations.resize(durations_ns.size(), -1);
  }
  for (size_t i = 0; i < durations_ns.size(); ++i) {
    entry.durations[i] = std::max(entry.durations[i], durations_ns[i]);
  }
  entry.lanes.push_back(lane);
  if (static_cast<int>(entry.lanes.size()) < lanes_) return;
  // Taken out first: a lane told may post its next segment from here.
  Entry done = std::move(entry);
  open_.erase(segment);
  for (Lane* l : done.lanes) l->OnMixTransfersTimed(now, done.durations);
}

}  // namespace pto
