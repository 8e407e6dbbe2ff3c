#ifndef PTO_MODELS_CORE_TESTING_COND_LOG_H_
#define PTO_MODELS_CORE_TESTING_COND_LOG_H_

#include <cstdint>
#include <ostream>

#include "models/base/time.h"

namespace pto::core_testing {

// A COND value as a core test's owner saw it: when it became visible, and
// what it said.
struct Cond {
  TimePs at;
  uint32_t token;
  bool fin;
  bool operator==(const Cond& other) const {
    return at == other.at && token == other.token && fin == other.fin;
  }
};

inline std::ostream& operator<<(std::ostream& os, const Cond& c) {
  return os << (c.fin ? "FIN " : "ACK ") << c.token << " @" << c.at;
}

}  // namespace pto::core_testing

#endif  // PTO_MODELS_CORE_TESTING_COND_LOG_H_
