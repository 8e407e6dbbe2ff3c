#ifndef PTO_FRONTEND_SESSION_SEGMENT_H_
#define PTO_FRONTEND_SESSION_SEGMENT_H_

// A script's kernel calls as one stream on one chip (pypto's persistent
// chip, pto_sim --serve): each call's self-contained stream, ids from 0,
// becomes the next segment of the script's stream. Its tensors and kernels
// move into one Declare record ahead of its launch, with ids after the
// script's earlier ones and new tensors' GM addresses above theirs; the
// call's argument tensors the chip already holds keep their ids and
// addresses and are re-declared (their contents uploaded) only when the
// host changed them. The header is written once, by the first segment, and
// declares that segment's tensors and kernels itself.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// Where the script's stream stands before (and after) a segment.
struct SessionState {
  bool first = true;  // no segment yet: this one carries the header
  uint32_t next_tensor_id = 0;
  uint32_t next_kernel_id = 0;
  uint64_t next_gm_addr = 0;  // 1 KiB aligned
};

// An argument of the call that an earlier segment declared.
struct KnownTensor {
  uint32_t local_id = 0;  // in the call's own stream
  uint32_t id = 0;        // in the script's
  uint64_t gm_addr = 0;
  bool upload = false;  // the host changed it since: re-declare with contents
};

// Rewrites `text` (a call's stream) into the segment that follows `state`
// and advances `state`. Fails on a known tensor whose local id the call's
// stream does not have (a caller bug).
// `placed` receives, by the call's local tensor id, each tensor's id and GM
// address in the script's stream.
struct PlacedTensor {
  uint32_t id = 0;
  uint64_t gm_addr = 0;
};
absl::Status ToSessionSegment(const std::vector<KnownTensor>& known, SessionState* state,
                              trace::TraceText* text, std::vector<PlacedTensor>* placed);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_SESSION_SEGMENT_H_
