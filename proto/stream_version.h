#ifndef PTO_PROTO_STREAM_VERSION_H_
#define PTO_PROTO_STREAM_VERSION_H_

#include <cstdint>

namespace pto {

// The task-stream schema version (proto/task_stream.proto): ptoc writes it in
// every StreamHeader, pto_sim's trace reader accepts exactly it. Bump it with
// every schema change a reader must know about, together with the proto
// comment, the hand-written traces and the bad-input catalogue.
inline constexpr uint32_t kTaskStreamVersion = 10;

}  // namespace pto

#endif  // PTO_PROTO_STREAM_VERSION_H_
