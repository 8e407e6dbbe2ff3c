#ifndef PTO_MODELS_BASE_IDS_H_
#define PTO_MODELS_BASE_IDS_H_

#include <cstdint>

namespace pto {

// A run-wide sequence number: every submit, dummy and alloc takes the next.
using TaskSeq = uint64_t;
inline constexpr TaskSeq kNoTask = ~TaskSeq{0};

}  // namespace pto

#endif  // PTO_MODELS_BASE_IDS_H_
