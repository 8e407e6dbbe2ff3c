#include "models/base/calendar_process.h"

#include <algorithm>

#include "models/base/sc_time.h"

namespace pto {

CalendarProcess::CalendarProcess(sc_core::sc_module_name name, Calendar* calendar, TimePs quantum)
    : sc_module(name), calendar_(*calendar), quantum_(std::max<TimePs>(quantum, 1)) {
  UsePicosecondResolution();  // before this process builds any time
  calendar_.set_driver(this);
  SC_METHOD(Step);
  sensitive << wake_;
  // Runs once at time zero: wakes asked for during elaboration are due then
  // or later.
}

CalendarProcess::~CalendarProcess() { calendar_.set_driver(nullptr); }

void CalendarProcess::EarliestMoved(TimePs at) {
  // Before the first run, that run arms the process. A wake asked for by
  // another process while the calendar has run ahead is due at the
  // calendar's time at the earliest.
  if (started_) wake_.notify(ScTime(std::max(at, NowPs()) - NowPs()));
}

void CalendarProcess::Arm(TimePs now) {
  if (const TimePs next = calendar_.next_at(); next != kNever) {
    wake_.notify(ScTime(std::max(next, now) - now));
  }
}

void CalendarProcess::Step() {
  started_ = true;
  const TimePs now = NowPs();
  const TimePs next = calendar_.next_at();
  if (next == kNever || next > now) return Arm(now);
  ++activations_;
  TimePs horizon = now + quantum_;
  // Another process's activity bounds the run: the calendar must not run
  // past a time at which something outside it may still act.
  if (sc_core::sc_pending_activity()) {
    horizon = std::min(horizon,
                       now + static_cast<TimePs>(sc_core::sc_time_to_pending_activity().value()));
  }
  calendar_.RunUntil(horizon);
  Arm(now);
}

}  // namespace pto
