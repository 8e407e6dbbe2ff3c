#ifndef PTO_MODELS_GM_STRIDED_LINES_H_
#define PTO_MODELS_GM_STRIDED_LINES_H_

#include <cstdint>
#include <vector>

namespace pto {

// A set of cache lines in the shape a tile transfer touches them: `rows`
// runs of `length` consecutive lines, each `stride` lines after the one
// before. Normal form: rows >= 1 and length >= 1; one row, or stride >
// length (runs that abut are one longer row).
struct StridedLines {
  uint64_t first = 0;
  uint64_t length = 0;
  uint64_t stride = 0;
  int64_t rows = 0;

  uint64_t lines() const { return length * static_cast<uint64_t>(rows); }
  uint64_t row_first(int64_t row) const { return first + static_cast<uint64_t>(row) * stride; }
  // The line past the last row.
  uint64_t end() const { return row_first(rows - 1) + length; }
  bool Contains(uint64_t line) const;
  // Rows [from, to) alone.
  StridedLines Rows(int64_t from, int64_t to) const;
  bool operator==(const StridedLines& other) const {
    return first == other.first && length == other.length && rows == other.rows &&
           (rows == 1 || stride == other.stride);
  }
};

// The lines of `set` in [lo, hi): closed form, whatever the row count.
uint64_t CountInRange(const StridedLines& set, uint64_t lo, uint64_t hi);

// |a ∩ b|: closed form when the two share a stride (tiles of one tensor),
// one range count per row of the one with fewer rows otherwise.
uint64_t CountCommon(const StridedLines& a, const StridedLines& b);

// Collects disjoint runs of lines, given in ascending order, into few
// StridedLines: a run that continues an open set's shape (same length, one
// stride on) adds a row to it, one that abuts a single row lengthens it, and
// a run of the same length as a single row makes it two rows. Up to
// kOpenSets sets are open at once, so runs that alternate between shapes
// (the columns left either side of a band cut out of rows) still merge.
class StridedLinesBuilder {
 public:
  static constexpr int kOpenSets = 4;
  void AddRun(uint64_t first, uint64_t length);
  // Whole rows of a set, open for later runs to continue.
  void AddRows(const StridedLines& set);
  // The sets built since the last Take, by first line.
  const std::vector<StridedLines>& Take();

 private:
  void Open(const StridedLines& set);
  void StartBatch();
  std::vector<StridedLines> open_;
  std::vector<uint64_t> last_used_;  // per open set, for closing the stalest
  uint64_t clock_ = 0;
  std::vector<StridedLines> done_;
  bool taken_ = false;
};

// Adds the lines of a that are not in b to `out`: rows of a outside b's
// span whole, the rows b cuts run by run.
void AddDifference(const StridedLines& a, const StridedLines& b, StridedLinesBuilder* out);

}  // namespace pto

#endif  // PTO_MODELS_GM_STRIDED_LINES_H_
