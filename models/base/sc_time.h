#ifndef PTO_MODELS_BASE_SC_TIME_H_
#define PTO_MODELS_BASE_SC_TIME_H_

// The one conversion between the model's picoseconds and SystemC time.

#include "models/base/time.h"
#include "systemc"

namespace pto {

// Sets SystemC's time resolution to 1 ps, which every TimePs assumes. Call
// once, before any sc_time is built (the chip's elaboration does); a second
// call is a no-op.
void UsePicosecondResolution();

// A delay or time of `ps` >= 0 picoseconds as an sc_time (exact at 1 ps).
inline sc_core::sc_time ScTime(TimePs ps) {
  return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps));
}

// The current simulated time in picoseconds.
inline TimePs NowPs() { return static_cast<TimePs>(sc_core::sc_time_stamp().value()); }

}  // namespace pto

#endif  // PTO_MODELS_BASE_SC_TIME_H_
