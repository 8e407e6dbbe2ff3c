#include "sim/rate_windows.h"

namespace pto {

void RateWindows::Set(TimePs at, double rate) {
  if (!started_) {
    started_ = true;
    window_start_ = at / window_ * window_;
    last_ = at;
  }
  Advance(at);
  rate_ = rate;
}

void RateWindows::Advance(TimePs to) {
  while (to >= window_start_ + window_) {
    const TimePs end = window_start_ + window_;
    area_ += rate_ * static_cast<double>(end - last_);
    Flush(window_);
    window_start_ = end;
    last_ = end;
    if (rate_ == emitted_ && emitted_any_ && to >= window_start_ + window_) {
      // The same rate all the way: nothing new to emit until `to`'s window.
      window_start_ = to / window_ * window_;
      last_ = window_start_;
    }
  }
  area_ += rate_ * static_cast<double>(to - last_);
  last_ = to;
}

void RateWindows::Flush(TimePs length) {
  const double mean = length > 0 ? area_ / static_cast<double>(length) : 0;
  area_ = 0;
  if (emitted_any_ && mean == emitted_) return;
  emitted_any_ = true;
  emitted_ = mean;
  emit_(window_start_, mean);
}

void RateWindows::Finish() {
  if (!started_) return;
  if (last_ > window_start_) Flush(last_ - window_start_);
  // The rate fell to nothing at the last change: the track ends at 0 there.
  if (rate_ == 0 && emitted_any_ && emitted_ != 0) {
    emitted_ = 0;
    emit_(last_, 0);
  }
  started_ = false;
}

}  // namespace pto
