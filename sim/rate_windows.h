#ifndef PTO_SIM_RATE_WINDOWS_H_
#define PTO_SIM_RATE_WINDOWS_H_

#include <functional>
#include <utility>

#include "models/base/time.h"

namespace pto {

// The mean of a piecewise-constant rate over fixed windows of time, for a
// counter track that stays small however often the rate changes: told each
// change (Set, times non-decreasing), it emits (window start, mean over the
// window) for every window the rate has passed, skipping a window whose
// mean equals the last one emitted (a counter holds its value). Finish
// closes the open window at the last change (and emits 0 there if the rate
// fell to 0).
class RateWindows {
 public:
  using Emit = std::function<void(TimePs window_start, double mean)>;

  RateWindows(TimePs window, Emit emit) : window_(window), emit_(std::move(emit)) {}

  void Set(TimePs at, double rate);
  void Finish();

 private:
  // Integrates the current rate up to `to`, emitting each window completed.
  void Advance(TimePs to);
  void Flush(TimePs length);

  TimePs window_;
  Emit emit_;
  bool started_ = false;
  TimePs window_start_ = 0;
  TimePs last_ = 0;  // the time integrated up to
  double rate_ = 0;  // since last_
  double area_ = 0;  // rate x ps in the open window
  double emitted_ = 0;
  bool emitted_any_ = false;
};

}  // namespace pto

#endif  // PTO_SIM_RATE_WINDOWS_H_
