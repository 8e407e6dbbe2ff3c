#ifndef PTO_MODELS_CORE_SUMMARY_TRAFFIC_H_
#define PTO_MODELS_CORE_SUMMARY_TRAFFIC_H_

// A cost-summary kernel's bytes as GM transfers. The kernel says only how
// many bytes its call reads (bytes_in) and writes (bytes_out); where they
// are is its task's: the reads stream over its input tensors (INPUT, INOUT,
// NO_DEP), the writes over its outputs (OUTPUT, OUTPUT_EXISTING, INOUT), each
// tensor's footprint laid end to end in argument order, the stream starting
// over when the bytes outrun it (a re-read). The call's bytes are shared as
// its work is (CostSummaryTime): evenly over the blocks, then the phases,
// then the lanes that move them, each remainder to the last.
//
//   std::vector<GmSpan> spans;
//   SummarySpans(args, GmDirection::kRead, &spans);
//   const ByteSlice slice = SummarySlice(kernel.cost.bytes_in(), {block, blocks, phase,
//                                        phases, lane, lanes});
//   std::vector<GmRuns> runs;
//   AppendStreamRuns(spans, slice, &runs);  // one transfer per span crossed

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "models/core/tile_executor.h"
#include "models/gm/gm_request.h"

namespace pto {

struct GmSpan {
  uint64_t base = 0;
  uint64_t bytes = 0;
};

// The footprints of `args`' tensors that `direction` moves bytes through,
// in argument order (empty footprints left out), into `*spans` (cleared
// first; its storage is reused).
void SummarySpans(absl::Span<const BoundArg> args, GmDirection direction,
                  std::vector<GmSpan>* spans);

// Which share of a call's bytes one lane moves in one phase of one block.
struct SummaryShare {
  int64_t block = 0;
  int64_t blocks = 1;
  int64_t phase = 0;
  int64_t phases = 1;
  int64_t lane = 0;
  int64_t lanes = 1;
};

// Bytes [offset, offset + bytes) of a stream.
struct ByteSlice {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

ByteSlice SummarySlice(uint64_t total, const SummaryShare& share);

// `slice` of the stream that lays `spans` end to end and repeats, as
// transfers appended to `out`: a run per span it crosses, and the passes
// over the whole stream it makes as one run per span whose rows repeat it
// (stride 0, which L2Model::AccessRuns prices in two passes). Nothing when
// `spans` is empty.
void AppendStreamRuns(absl::Span<const GmSpan> spans, const ByteSlice& slice,
                      std::vector<GmRuns>* out);

}  // namespace pto

#endif  // PTO_MODELS_CORE_SUMMARY_TRAFFIC_H_
