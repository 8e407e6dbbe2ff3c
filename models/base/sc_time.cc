#include "models/base/sc_time.h"

#include <cstdio>
#include <cstdlib>

namespace pto {

void UsePicosecondResolution() {
  static bool set = false;
  if (set) return;
  set = true;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  // Every TimePs is an sc_time value at this resolution; a mismatch would
  // scale all simulated time silently.
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    std::fprintf(stderr, "pto_sim: internal error: SystemC time resolution is not 1 ps\n");
    std::abort();
  }
}

}  // namespace pto
