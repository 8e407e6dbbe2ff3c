#ifndef PTO_MODELS_CORE_MIX_TRANSFER_BOARD_H_
#define PTO_MODELS_CORE_MIX_TRANSFER_BOARD_H_

// Where the lanes of one MIX block (its cluster's AIC and AIVs) meet to time
// the block's GM transfers on shared bandwidth. The cross-core ring schedule
// (ScheduleMixBlock) needs every transfer's duration, but each lane moves
// only its own engine's bytes: the AIC the cube side's loads and stores, each
// AIV its vector side. So each lane measures its own transfers and posts
// their durations here, by record; once every lane of the block's segment
// posted, the board hands each of them the durations of all (the longest
// where two lanes measured the same record, the split halves), and each lane
// schedules the ring with them. One board per cluster; plain C++.
//
//   MixTransferBoard board(/*lanes=*/3);
//   board.Post(now, {task, block, segment}, &aic_lane, aic_durations);
//   board.Post(now, {task, block, segment}, &aiv0_lane, aiv0_durations);
//   board.Post(now, {task, block, segment}, &aiv1_lane, aiv1_durations);
//   // the last Post told all three: Lane::OnMixTransfersTimed(now, merged)

#include <cstdint>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "models/base/ids.h"
#include "models/base/time.h"

namespace pto {

class MixTransferBoard {
 public:
  class Lane {
   public:
    virtual ~Lane() = default;
    // Every lane posted: `durations_ns` per record of the segment, the
    // measured duration of its transfer, or -1 where no lane moved bytes.
    virtual void OnMixTransfersTimed(TimePs now, absl::Span<const double> durations_ns) = 0;
  };
  // One segment (between SYNCALLs) of one block of a task.
  struct Segment {
    TaskSeq task = kNoTask;
    int64_t block = 0;
    int32_t index = 0;
    bool operator==(const Segment& other) const {
      return task == other.task && block == other.block && index == other.index;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Segment& s) {
      return H::combine(std::move(h), s.task, s.block, s.index);
    }
  };

  explicit MixTransferBoard(int lanes) : lanes_(lanes) {}

  // `lane`'s measured durations for `segment` (the same length from every
  // lane: the segment's records). The last lane's post tells every lane.
  void Post(TimePs now, const Segment& segment, Lane* lane, absl::Span<const double> durations_ns);

  // Segments some lane posted for and some has not yet.
  size_t open_segments() const { return open_.size(); }

 private:
  struct Entry {
    std::vector<double> durations;
    std::vector<Lane*> lanes;
  };
  int lanes_;
  absl::flat_hash_map<Segment, Entry> open_;
};

}  // namespace pto

#endif  // PTO_MODELS_CORE_MIX_TRANSFER_BOARD_H_
