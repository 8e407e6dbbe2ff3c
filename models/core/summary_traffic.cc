#include "models/core/summary_traffic.h"

#include <algorithm>

namespace pto {
namespace {

bool Reads(trace::ArgDirection direction) {
  return direction == trace::INPUT || direction == trace::INOUT || direction == trace::NO_DEP;
}

bool Writes(trace::ArgDirection direction) {
  return direction == trace::OUTPUT || direction == trace::OUTPUT_EXISTING ||
         direction == trace::INOUT;
}

// The `index`th of `parts` even shares of [offset, offset + bytes); the last
// takes the remainder.
ByteSlice Part(const ByteSlice& whole, int64_t index, int64_t parts) {
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(1, parts));
  const uint64_t each = whole.bytes / n;
  const uint64_t i = static_cast<uint64_t>(index);
  return ByteSlice{whole.offset + i * each, i + 1 == n ? whole.bytes - i * each : each};
}

}  // namespace

void SummarySpans(absl::Span<const BoundArg> args, GmDirection direction,
                  std::vector<GmSpan>* spans) {
  spans->clear();
  for (const BoundArg& arg : args) {
    if (arg.kind != BoundArg::Kind::kTensor || arg.tensor.footprint_bytes == 0) continue;
    const trace::ArgDirection d = arg.tensor.direction;
    if (direction == GmDirection::kRead ? Reads(d) : Writes(d)) {
      spans->push_back(GmSpan{arg.tensor.gm_addr, arg.tensor.footprint_bytes});
    }
  }
}

ByteSlice SummarySlice(uint64_t total, const SummaryShare& share) {
  ByteSlice slice = Part(ByteSlice{0, total}, share.block, share.blocks);
  slice = Part(slice, share.phase, share.phases);
  return Part(slice, share.lane, share.lanes);
}

void AppendStreamRuns(absl::Span<const GmSpan> spans, const ByteSlice& slice,
                      std::vector<GmRuns>* out) {
  uint64_t stream = 0;
  for (const GmSpan& span : spans) stream += span.bytes;
  if (stream == 0 || slice.bytes == 0) return;
  const uint64_t passes = slice.bytes / stream;
  if (passes > 0) {
    for (const GmSpan& span : spans) {
      out->push_back(GmRuns{span.base, span.bytes, static_cast<int64_t>(passes), /*stride=*/0});
    }
  }
  // The rest: from the slice's start around the stream, at most once.
  uint64_t at = slice.offset % stream;
  uint64_t left = slice.bytes % stream;
  size_t i = 0;
  uint64_t span_start = 0;
  while (at >= span_start + spans[i].bytes) span_start += spans[i++].bytes;
  while (left > 0) {
    const GmSpan& span = spans[i];
    const uint64_t skip = at - span_start;
    const uint64_t n = std::min(left, span.bytes - skip);
    out->push_back(GmRuns{span.base + skip, n, 1, n});
    left -= n;
    at += n;
    span_start += span.bytes;
    if (++i == spans.size()) {
      i = 0;
      at = span_start = 0;
    }
  }
}

}  // namespace pto
