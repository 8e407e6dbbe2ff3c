#ifndef PTO_MODELS_BASE_CALENDAR_PROCESS_H_
#define PTO_MODELS_BASE_CALENDAR_PROCESS_H_

#include <cstdint>

#include "models/base/calendar.h"
#include "models/base/time.h"
#include "systemc"

namespace pto {

// The one SystemC process that advances a Calendar. It runs ahead of
// SystemC's time the way a loosely-timed TLM-2.0 initiator does under a
// quantum keeper (IEEE 1666-2011 §16.2): each activation runs the
// calendar's wakes from now to now + quantum, stopping early at the next
// activity of any other SystemC process, then sleeps until the next wake (a
// single timed sc_event). The model's time is Calendar::now(); SystemC's
// lags it by less than a quantum. Results do not depend on the quantum: every
// component keeps its time on the calendar, which runs wakes in exact time
// order whatever the quantum; it only sets how often SystemC (and a
// caller's sc_start slices) catch up.
class CalendarProcess : public sc_core::sc_module, private Calendar::Driver {
 public:
  SC_HAS_PROCESS(CalendarProcess);

  static constexpr TimePs kDefaultQuantum = 1'000'000;  // 1 us

  // `calendar` outlives the process.
  CalendarProcess(sc_core::sc_module_name name, Calendar* calendar,
                  TimePs quantum = kDefaultQuantum);
  ~CalendarProcess() override;

  // The process's runs: one per quantum with wakes in it.
  uint64_t activations() const { return activations_; }

 private:
  void EarliestMoved(TimePs at) override;
  void Step();
  // Sleeps until the calendar's next wake (none: until told of one).
  void Arm(TimePs now);

  Calendar& calendar_;
  const TimePs quantum_;
  sc_core::sc_event wake_;
  uint64_t activations_ = 0;
  bool started_ = false;
};

}  // namespace pto

#endif  // PTO_MODELS_BASE_CALENDAR_PROCESS_H_
