#ifndef PTO_MODELS_GM_GM_REQUEST_H_
#define PTO_MODELS_GM_GM_REQUEST_H_

#include <cstdint>

#include "absl/status/status.h"

namespace pto {

enum class GmDirection : uint8_t { kRead, kWrite };

// The bytes one transfer moves, as a tile view lays them out in GM: `rows`
// runs of `row_bytes`, each `stride` bytes after the previous one, from
// `base` (the geometry HazardDetector::AddViewAccess walks). A contiguous
// block is one row, or rows whose stride equals their length.
struct GmRuns {
  uint64_t base = 0;
  uint64_t row_bytes = 0;
  int64_t rows = 0;
  uint64_t stride = 0;

  uint64_t bytes() const { return row_bytes * static_cast<uint64_t>(rows); }
  // The first byte past the last row.
  uint64_t end() const {
    return rows <= 0 ? base : base + static_cast<uint64_t>(rows - 1) * stride + row_bytes;
  }
  // The innermost contiguous run: the whole block when the rows abut, else
  // one row (what NarrowRowFactor prices).
  uint64_t contiguous_run_bytes() const {
    return rows == 1 || stride == row_bytes ? bytes() : row_bytes;
  }
};

// Whether the two share a byte. Closed form when both have several rows at
// one stride (tiles of one tensor); otherwise one closed-form check per row
// of the one with fewer rows.
bool RunsOverlap(const GmRuns& a, const GmRuns& b);

// How a transfer's bytes fared in L2.
struct L2Split {
  int64_t hit_bytes = 0;
  int64_t miss_bytes = 0;  // reads: fetched from HBM; writes: 0 (write-back L2)
  // Reads: what HBM moves to fill the missed lines, whole lines (0: the
  // miss bytes themselves). A transfer that reads part of a line still
  // brings the line into L2, so a 128 B read of a 512 B line costs HBM
  // 512 B, and the next reads of that line are hits.
  int64_t fill_bytes = 0;
  int64_t bytes() const { return hit_bytes + miss_bytes; }
};

// Whether `runs` is a transfer the memory system can time: at least one row
// of at least one byte, inside the 64-bit address space, and, for a write,
// rows that do not overlap (a row would overwrite the one before it within
// one transfer, so which bytes land would depend on the DMA's order).
// InvalidArgument names the field and what was expected.
absl::Status CheckRuns(const GmRuns& runs, GmDirection direction);

}  // namespace pto

#endif  // PTO_MODELS_GM_GM_REQUEST_H_
