#include "models/gm/strided_lines.h"

#include <algorithm>
#include <utility>

namespace pto {
namespace {

// The rows of `set` that have lines in [lo, hi), as [from, to]; from > to
// when none do.
std::pair<int64_t, int64_t> RowsCrossing(const StridedLines& set, uint64_t lo, uint64_t hi) {
  if (hi <= lo || hi <= set.first || lo >= set.end()) return {1, 0};
  if (set.rows == 1) return {0, 0};
  // Row j ends after lo when j * stride > lo - first - length; it starts
  // before hi when j * stride < hi - first.
  const int64_t from = lo < set.first + set.length
                           ? 0
                           : static_cast<int64_t>((lo - set.first - set.length) / set.stride) + 1;
  const int64_t to =
      std::min(set.rows - 1, static_cast<int64_t>((hi - 1 - set.first) / set.stride));
  return {from, to};
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

bool StridedLines::Contains(uint64_t line) const {
  if (rows <= 0 || line < first || line >= end()) return false;
  return rows == 1 || (line - first) % stride < length;
}

StridedLines StridedLines::Rows(int64_t from, int64_t to) const {
  return StridedLines{row_first(from), length, stride, to - from};
}

uint64_t CountInRange(const StridedLines& set, uint64_t lo, uint64_t hi) {
  const auto [from, to] = RowsCrossing(set, lo, hi);
  if (from > to) return 0;
  uint64_t count = static_cast<uint64_t>(to - from + 1) * set.length;
  const uint64_t start = set.row_first(from);
  if (lo > start) count -= lo - start;
  const uint64_t end = set.row_first(to) + set.length;
  if (end > hi) count -= end - hi;
  return count;
}

uint64_t CountCommon(const StridedLines& a, const StridedLines& b) {
  if (a.rows <= 0 || b.rows <= 0 || a.end() <= b.first || b.end() <= a.first) return 0;
  if (a.rows == 1) return CountInRange(b, a.first, a.end());
  if (b.rows == 1) return CountInRange(a, b.first, b.end());
  if (a.stride == b.stride) {
    // b starts q strides and r lines (0 <= r < stride) after a, so a's row
    // i can only meet b's rows i - q (r lines in) and i - q - 1 (r - stride
    // lines in): every row is shorter than the stride.
    const int64_t s = static_cast<int64_t>(a.stride);
    const int64_t la = static_cast<int64_t>(a.length);
    const int64_t lb = static_cast<int64_t>(b.length);
    const int64_t d = static_cast<int64_t>(b.first) - static_cast<int64_t>(a.first);
    const int64_t q = FloorDiv(d, s);
    const int64_t r = d - q * s;
    const int64_t same_period = r < la ? std::min(la - r, lb) : 0;
    const int64_t next_period = r + lb > s ? std::min(la, r + lb - s) : 0;
    const auto pairs = [&](int64_t shift) {
      return std::max<int64_t>(0, std::min(a.rows, b.rows + shift) - std::max<int64_t>(0, shift));
    };
    return static_cast<uint64_t>(pairs(q) * same_period + pairs(q + 1) * next_period);
  }
  const StridedLines& few = a.rows <= b.rows ? a : b;
  const StridedLines& many = a.rows <= b.rows ? b : a;
  const auto [from, to] = RowsCrossing(few, many.first, many.end());
  uint64_t count = 0;
  for (int64_t i = from; i <= to; ++i) {
    count += CountInRange(many, few.row_first(i), few.row_first(i) + few.length);
  }
  return count;
}

void StridedLinesBuilder::StartBatch() {
  if (!taken_) return;
  done_.clear();
  taken_ = false;
}

void StridedLinesBuilder::Open(const StridedLines& set) {
  if (open_.size() == kOpenSets) {
    const size_t stalest = static_cast<size_t>(
        std::min_element(last_used_.begin(), last_used_.end()) - last_used_.begin());
    done_.push_back(open_[stalest]);
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(stalest));
    last_used_.erase(last_used_.begin() + static_cast<std::ptrdiff_t>(stalest));
  }
  open_.push_back(set);
  last_used_.push_back(++clock_);
}

void StridedLinesBuilder::AddRun(uint64_t first, uint64_t length) {
  StartBatch();
  // A set whose next row this is first; then one row to lengthen or pair.
  for (size_t i = 0; i < open_.size(); ++i) {
    StridedLines& set = open_[i];
    if (set.rows > 1 && set.length == length && set.row_first(set.rows) == first) {
      ++set.rows;
      last_used_[i] = ++clock_;
      return;
    }
  }
  for (size_t i = open_.size(); i-- > 0;) {
    StridedLines& set = open_[i];
    if (set.rows != 1) continue;
    if (set.end() == first) {
      set.length += length;
    } else if (set.length == length) {
      set.stride = first - set.first;
      set.rows = 2;
    } else {
      continue;
    }
    last_used_[i] = ++clock_;
    return;
  }
  Open(StridedLines{first, length, 0, 1});
}

void StridedLinesBuilder::AddRows(const StridedLines& set) {
  if (set.rows == 1) {
    AddRun(set.first, set.length);
    return;
  }
  StartBatch();
  Open(set);
}

const std::vector<StridedLines>& StridedLinesBuilder::Take() {
  StartBatch();
  done_.insert(done_.end(), open_.begin(), open_.end());
  open_.clear();
  last_used_.clear();
  std::sort(done_.begin(), done_.end(),
            [](const StridedLines& x, const StridedLines& y) { return x.first < y.first; });
  taken_ = true;
  return done_;
}

void AddDifference(const StridedLines& a, const StridedLines& b, StridedLinesBuilder* out) {
  const auto [from, to] = RowsCrossing(a, b.first, b.end());
  if (from > to) {
    out->AddRows(a);
    return;
  }
  if (from > 0) out->AddRows(a.Rows(0, from));
  for (int64_t i = from; i <= to; ++i) {
    // A single row of b covers every row of a between the first and last
    // it cuts.
    if (b.rows == 1 && i > from && i < to) continue;
    const uint64_t row = a.row_first(i);
    const uint64_t row_end = row + a.length;
    const auto [j_from, j_to] = RowsCrossing(b, row, row_end);
    uint64_t cursor = row;
    for (int64_t j = j_from; j <= j_to; ++j) {
      const uint64_t cut = b.row_first(j);
      if (cut > cursor) out->AddRun(cursor, std::min(cut, row_end) - cursor);
      cursor = std::max(cursor, cut + b.length);
    }
    if (cursor < row_end) out->AddRun(cursor, row_end - cursor);
  }
  if (to + 1 < a.rows) out->AddRows(a.Rows(to + 1, a.rows));
}

}  // namespace pto
