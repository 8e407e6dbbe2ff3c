#include "sim/deps_reduction.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"

namespace pto {

absl::StatusOr<EdgeMode> ParseEdgeMode(absl::string_view text) {
  if (text == "full") return EdgeMode::kFull;
  if (text == "reduced") return EdgeMode::kReduced;
  if (text == "reduced_dataflow") return EdgeMode::kReducedDataflow;
  return absl::InvalidArgumentError(absl::StrCat("--edge-mode: unknown mode '", std::string(text),
                                                 "'; expected full, reduced or reduced_dataflow"));
}

const char* EdgeModeName(EdgeMode mode) {
  switch (mode) {
    case EdgeMode::kFull:
      return "full";
    case EdgeMode::kReduced:
      return "reduced";
    case EdgeMode::kReducedDataflow:
      return "reduced_dataflow";
  }
  return "full";
}

EdgeReduction ReduceEdges(size_t nodes, absl::Span<const GraphEdge> edges, EdgeMode mode) {
  EdgeReduction result;
  // Unique pairs, with every creator reason's dataflow proof folded in.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<EdgePair, bool>> by_pair;  // (succ, pred)
  for (const GraphEdge& e : edges) {
    if (e.pred == e.succ || e.pred >= nodes || e.succ >= nodes) continue;
    auto [it, inserted] = by_pair.try_emplace({e.succ, e.pred});
    EdgePair& p = it->second.first;
    bool& all_creators_proven = it->second.second;
    if (inserted) {
      p.pred = e.pred;
      p.succ = e.succ;
      all_creators_proven = true;
    }
    switch (e.source) {
      case EdgeSource::kCreator:
        p.creator = true;
        all_creators_proven = all_creators_proven && e.dataflow_proven;
        break;
      case EdgeSource::kTensorMap:
        p.tensormap = true;
        break;
      case EdgeSource::kExplicit:
        p.explicit_dep = true;
        break;
    }
  }
  std::vector<bool> proven;
  for (auto& [key, value] : by_pair) {
    result.pairs.push_back(value.first);
    proven.push_back(value.second);
  }

  // Successor lists and a topological order (Kahn); a cycle stops here.
  std::vector<std::vector<uint32_t>> succs(nodes);
  std::vector<int> indegree(nodes, 0);
  for (const EdgePair& p : result.pairs) {
    succs[p.pred].push_back(p.succ);
    ++indegree[p.succ];
  }
  std::vector<uint32_t> order;
  order.reserve(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    if (indegree[n] == 0) order.push_back(n);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (uint32_t s : succs[order[k]]) {
      if (--indegree[s] == 0) order.push_back(s);
    }
  }
  if (order.size() != nodes) {
    result.cyclic = true;
    return result;
  }

  // reach[n]: every node reachable from n by a path of length >= 1.
  const size_t words = (nodes + 63) / 64;
  std::vector<uint64_t> reach(nodes * words, 0);
  auto row = [&](uint32_t n) { return reach.data() + static_cast<size_t>(n) * words; };
  for (size_t k = nodes; k-- > 0;) {
    const uint32_t n = order[k];
    uint64_t* r = row(n);
    for (uint32_t s : succs[n]) {
      r[s / 64] |= uint64_t{1} << (s % 64);
      const uint64_t* rs = row(s);
      for (size_t w = 0; w < words; ++w) r[w] |= rs[w];
    }
  }
  for (size_t i = 0; i < result.pairs.size(); ++i) {
    EdgePair& p = result.pairs[i];
    for (uint32_t w : succs[p.pred]) {
      if (w != p.succ && (row(w)[p.succ / 64] >> (p.succ % 64) & 1)) {
        p.redundant = true;
        break;
      }
    }
    switch (mode) {
      case EdgeMode::kFull:
        p.dropped = false;
        break;
      case EdgeMode::kReduced:
        p.dropped = p.redundant && !p.creator;
        break;
      case EdgeMode::kReducedDataflow:
        p.dropped = p.redundant && (!p.creator || proven[i]);
        break;
    }
  }
  return result;
}

}  // namespace pto

namespace pto {
namespace {

constexpr uint64_t kMaxRegionIntervals = 10000;  // deps_viewer's cap

using Intervals = std::vector<ByteInterval>;

Intervals Merge(Intervals v) {
  std::sort(v.begin(), v.end(), [](const ByteInterval& a, const ByteInterval& b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  Intervals out;
  for (const ByteInterval& i : v) {
    if (i.begin >= i.end) continue;
    if (!out.empty() && i.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

Intervals Intersect(const Intervals& a, const Intervals& b) {
  Intervals out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t begin = std::max(a[i].begin, b[j].begin);
    const uint64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) out.push_back({begin, end});
    (a[i].end <= b[j].end ? i : j)++;
  }
  return out;
}

bool Covers(const Intervals& target, Intervals covers) {
  const Intervals cover = Merge(std::move(covers));
  size_t k = 0;
  for (const ByteInterval& t : target) {
    uint64_t cursor = t.begin;
    while (k < cover.size() && cover[k].end <= cursor) ++k;
    for (size_t idx = k; cursor < t.end && idx < cover.size() && cover[idx].begin <= cursor;
         ++idx) {
      cursor = std::max(cursor, cover[idx].end);
    }
    if (cursor < t.end) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<ByteInterval>> ViewByteIntervals(const TensorView& view,
                                                           uint64_t buffer_numel) {
  const uint64_t bytes = DTypeSize(view.dtype);
  if (view.ndims <= 0 || bytes == 0 || view.start_offset < 0) return std::nullopt;
  for (int d = 0; d < view.ndims; ++d) {
    if (view.shape[d] <= 0 || view.strides[d] <= 0) return std::nullopt;
  }
  // Collapse the longest row-major-contiguous suffix into one interval.
  int suffix = view.ndims;
  int64_t contiguous = 1;
  for (int d = view.ndims - 1; d >= 0 && view.strides[d] == contiguous; --d) {
    contiguous *= view.shape[d];
    suffix = d;
  }
  uint64_t count = 1;
  for (int d = 0; d < suffix; ++d) {
    count *= static_cast<uint64_t>(view.shape[d]);
    if (count > kMaxRegionIntervals) return std::nullopt;
  }
  std::vector<int64_t> offsets = {view.start_offset};
  for (int d = 0; d < suffix; ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * view.shape[d]);
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < view.shape[d]; ++i) next.push_back(base + i * view.strides[d]);
    }
    offsets = std::move(next);
  }
  Intervals out;
  out.reserve(offsets.size());
  for (int64_t off : offsets) {
    out.push_back({view.base_addr + off * bytes, view.base_addr + (off + contiguous) * bytes});
  }
  out = Merge(std::move(out));
  const uint64_t buffer_end = view.base_addr + buffer_numel * bytes;
  for (const ByteInterval& i : out) {
    if (i.begin < view.base_addr || i.end > buffer_end) return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

void ProveCreatorDataflow(absl::Span<const EdgeGeometry> geometry, std::vector<GraphEdge>* edges) {
  // Creator records on INOUT / OUTPUT_EXISTING arguments with known bytes,
  // by (owner, task, buffer); TensorMap dataflow into INOUT arguments, in by
  // (consumer, arg, buffer) and out by (producer, buffer).
  struct CreatorRecord {
    size_t reason;
    int arg;
    bool inout;
    Intervals bytes;
  };
  struct Modifier {
    uint32_t pred, succ;
    int arg;
    Intervals overlap;
  };
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, std::vector<CreatorRecord>> creators;
  std::map<std::tuple<uint32_t, int, uint64_t>, std::vector<Modifier>> incoming;
  std::map<std::pair<uint32_t, uint64_t>, std::vector<Modifier>> outgoing;
  std::vector<const CreatorRecord*> record_of(edges->size(), nullptr);
  for (size_t i = 0; i < edges->size(); ++i) {
    const GraphEdge& e = (*edges)[i];
    const EdgeGeometry& g = geometry[i];
    const uint64_t buffer = g.consumer_view.base_addr;
    if (e.source == EdgeSource::kCreator &&
        (g.consumer_direction == trace::INOUT || g.consumer_direction == trace::OUTPUT_EXISTING)) {
      std::optional<Intervals> bytes = ViewByteIntervals(g.consumer_view, g.buffer_numel);
      if (!bytes) continue;
      creators[{e.pred, e.succ, buffer}].push_back(
          {i, e.arg, g.consumer_direction == trace::INOUT, *std::move(bytes)});
    } else if (e.source == EdgeSource::kTensorMap && g.consumer_direction == trace::INOUT &&
               g.producer_view.base_addr == buffer) {
      std::optional<Intervals> consumer = ViewByteIntervals(g.consumer_view, g.buffer_numel);
      TensorView producer_view = g.producer_view;
      producer_view.dtype = g.consumer_view.dtype;  // the buffer's dtype, as the viewer assumes
      std::optional<Intervals> producer = ViewByteIntervals(producer_view, g.buffer_numel);
      if (!consumer || !producer) continue;
      Intervals overlap = Intersect(*consumer, *producer);
      if (overlap.empty()) continue;
      Modifier m{e.pred, e.succ, e.arg, std::move(overlap)};
      incoming[{e.succ, e.arg, buffer}].push_back(m);
      outgoing[{e.pred, buffer}].push_back(std::move(m));
    }
  }
  for (const auto& [key, records] : creators) {
    for (const CreatorRecord& r : records) record_of[r.reason] = &r;
  }
  for (size_t i = 0; i < edges->size(); ++i) {
    GraphEdge& e = (*edges)[i];
    e.dataflow_proven = false;
    const CreatorRecord* r = record_of[i];
    if (r == nullptr || !r->inout) continue;
    const uint64_t buffer = geometry[i].consumer_view.base_addr;
    const uint32_t owner = e.pred;
    Intervals earlier, later;
    if (auto it = incoming.find({e.succ, r->arg, buffer}); it != incoming.end()) {
      for (const Modifier& m : it->second) {
        auto peers = creators.find({owner, m.pred, buffer});
        if (peers == creators.end()) continue;
        for (const CreatorRecord& peer : peers->second) {
          const Intervals x = Intersect(m.overlap, peer.bytes);
          earlier.insert(earlier.end(), x.begin(), x.end());
        }
      }
    }
    if (auto it = outgoing.find({e.succ, buffer}); it != outgoing.end()) {
      for (const Modifier& m : it->second) {
        auto peers = creators.find({owner, m.succ, buffer});
        if (peers == creators.end()) continue;
        for (const CreatorRecord& peer : peers->second) {
          if (peer.arg != m.arg || !peer.inout) continue;
          const Intervals x = Intersect(m.overlap, peer.bytes);
          later.insert(later.end(), x.begin(), x.end());
        }
      }
    }
    e.dataflow_proven = Covers(r->bytes, std::move(earlier)) && Covers(r->bytes, std::move(later));
  }
}

}  // namespace pto
