#ifndef PTO_MODELS_BASE_TIME_H_
#define PTO_MODELS_BASE_TIME_H_

#include <cstdint>

namespace pto {

// Simulated time in picoseconds: the unit of every time the model computes.
// SystemC runs at the same resolution (models/base/sc_time.h sets and checks
// it), so a TimePs converts to an sc_time without rounding.
using TimePs = int64_t;
inline constexpr TimePs kNever = -1;

// Picoseconds from a configured nanosecond figure, rounded to the nearest.
inline TimePs Ns(double ns) { return static_cast<TimePs>(ns * 1000.0 + 0.5); }

}  // namespace pto

#endif  // PTO_MODELS_BASE_TIME_H_
