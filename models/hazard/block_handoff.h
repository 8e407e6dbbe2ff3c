#ifndef PTO_MODELS_HAZARD_BLOCK_HANDOFF_H_
#define PTO_MODELS_HAZARD_BLOCK_HANDOFF_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "models/hazard/hazard_report.h"
#include "models/hazard/strided_range.h"

namespace pto {

// One thing a block of a task did: a GM access or a publish event. 32
// bytes: a multi-block task's log is held whole until the task ends.
struct BlockLogEntry {
  uint64_t begin = 0;  // access bytes [begin, end); kCacheInvalidLine: the address
  uint64_t end = 0;
  // A tile transfer's rows: `row` bytes every `stride` from `begin` up to
  // `end`; stride 0: one contiguous range (see set_range).
  uint32_t row = 0;
  uint32_t stride = 0;
  uint16_t block = 0;  // < 65536 blocks per submit (the trace reader's bound)
  int16_t core = -1;   // < 32768 cores (4096 clusters of 3)
  bool is_event = false;
  GmAccessKind access = GmAccessKind::kRead;
  BlockEventKind event = BlockEventKind::kFence;

  StridedRange range() const { return {begin, end, stride == 0 ? end - begin : row, stride}; }
  // Rows or a stride of 4 GiB or more are kept as their bounds (which may
  // flag the gaps between the rows, never miss a byte).
  void set_range(const StridedRange& range) {
    begin = range.begin;
    end = range.end;
    const bool narrow = !range.contiguous() && range.stride <= UINT32_MAX;
    row = narrow ? static_cast<uint32_t>(range.row) : 0;
    stride = narrow ? static_cast<uint32_t>(range.stride) : 0;
  }
  // Calls f(row_begin, row_end) for each contiguous run of the access.
  template <typename F>
  void ForEachRow(F f) const {
    if (stride == 0) {
      f(begin, end);
      return;
    }
    for (uint64_t start = begin; start < end; start += stride) f(start, start + row);
  }
};

// Checks the GM hand-offs between the blocks of one task. `log` holds every
// block's entries, each block's in its program order (blocks may
// interleave). A "block" here is one (block index, core) pair, so the cube
// and vector lanes of one MIX block are checked against each other too. A block's syncalls split
// its program into phases; a read of bytes another block wrote is ordered only if a syncall
// separates them, and sees the data only if the writer cleaned the line (cacheinvalid, whole or the
// region overload on that very line) and fenced after its last write to the line and before that
// syncall, and the reader invalidated the line after the syncall and before the read. Two blocks
// writing one line are checked the same way (the later writer's write-allocate reads the line), and
// in the same phase are false sharing. Atomic adds are exempt. Appends one report per (kind, writer
// block, reader block, tensor).
void CheckBlockHandoffs(absl::Span<const BlockLogEntry> log, int64_t line_bytes,
                        const HazardTask& task, const TensorResolver& resolver,
                        std::vector<HazardReport>* reports);

}  // namespace pto

#endif  // PTO_MODELS_HAZARD_BLOCK_HANDOFF_H_
