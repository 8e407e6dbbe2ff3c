#ifndef PTO_MODELS_FFTS_SOFT_BARRIER_H_
#define PTO_MODELS_FFTS_SOFT_BARRIER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pto {

// The soft syncall's poll loop: a participant whose own atomic add landed at
// `own_ready_ps` re-reads the GM counter every `poll_ps`
// (core.soft_syncall_poll_ns: invalidate the line, load it); poll k ends at
// own_ready + k × poll and sees the counter as of its start. It exits after
// the first poll that starts at or after `last_add_ps`, when the last
// participant's add landed. Returns that time; `polls` gets the count.
int64_t SoftSyncallExitPs(int64_t own_ready_ps, int64_t last_add_ps, int64_t poll_ps,
                          int64_t* polls);

// One soft syncall (mode=SOFT) of a launch: a counter in the GM workspace
// that `used_cores` participants atomically increment and then poll. Unlike
// the FFTS barrier it works at partial occupancy — any `used_cores` cores —
// but it still needs every participant to arrive: blocks waiting in later
// waves never come while the pollers hold the cores. The barrier re-arms
// after each release (the kernel's next syncall).
class SoftBarrier {
 public:
  SoftBarrier(int64_t used_cores, int64_t poll_ps);

  struct Release {
    int core = -1;
    int64_t exit_ps = 0;  // when its poll loop sees the full count
    int64_t polls = 0;    // counter re-reads it made (64 B GM reads each)
  };

  // `core` reaches the syncall; its atomic add lands at `add_landed_ps` and
  // it starts polling then. When this arrival completes the count, returns
  // every participant's release (this one included, in arrival order), else
  // an empty list. A core arriving twice before the release is an error.
  absl::StatusOr<std::vector<Release>> Arrive(int core, int64_t add_landed_ps);

  std::vector<int> Waiting() const;  // arrived in this round, still polling
  int64_t used_cores() const { return used_cores_; }
  int64_t generation() const { return generation_; }
  int64_t total_polls() const { return total_polls_; }  // over all releases

  // Why a soft syncall never completed: "soft syncall in task 'k' waits for
  // used_cores=8 participants; 4 arrived and poll (core 24, ...), 4 never
  // arrived. ..."
  std::string Report(const std::string& task_name) const;

 private:
  struct Arrival {
    int core;
    int64_t ready_ps;
  };
  int64_t used_cores_;
  int64_t poll_ps_;
  std::vector<Arrival> arrivals_;
  int64_t generation_ = 0;
  int64_t total_polls_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_FFTS_SOFT_BARRIER_H_
