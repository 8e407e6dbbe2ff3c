#ifndef PTO_COMMON_RING_LIMITS_H_
#define PTO_COMMON_RING_LIMITS_H_

#include <cstdint>

namespace pto {

// The ring sizes the runtime accepts (RuntimeEnv::validate,
// hw-native-sys/simpler@6ebaf771 src/common/task_interface/call_config.h):
// a task window that is a power of two of at least 4, a heap of at least
// 1 KiB, a dep pool of at least 4 entries up to INT32_MAX. The upper bounds
// of the window and the heap are this simulator's (an assumption: far above
// any device). One place for ptoc's RunConfig check, the config schema and
// the trace reader.
inline constexpr int64_t kMinTaskWindow = 4;
inline constexpr int64_t kMaxTaskWindow = int64_t{1} << 24;
inline constexpr int64_t kMinHeapBytes = 1024;
inline constexpr int64_t kMaxHeapBytes = int64_t{1} << 40;
inline constexpr int64_t kMinDepPool = 4;
inline constexpr int64_t kMaxDepPool = 2147483647;

inline constexpr bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace pto

#endif  // PTO_COMMON_RING_LIMITS_H_
