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

namespace {

// The bitset rows of one block may take this much; a block one word wide
// (8 bytes per row) is always allowed, so memory stays linear in nodes.
constexpr size_t kBlockBudgetBytes = size_t{64} << 20;
constexpr size_t kMaxBlockWords = 64;  // 4096 targets per block
// What one successor visit costs next to OR-ing one word, for choosing a
// block width: a guess, it only moves the time.
constexpr size_t kVisitCostWords = 4;

// The triangle pass skips in-lists longer than this, to stay O(E).
constexpr size_t kTriangleScan = 64;
constexpr uint32_t kNoStamp = ~uint32_t{0};

template <typename T>
void Release(std::vector<T>* v) {
  std::vector<T>().swap(*v);
}

// One entry of a node's successor list in topological-rank space.
struct Successor {
  uint32_t rank;  // the successor's rank
  uint32_t pair;  // index into EdgeReduction::pairs
};

// Sets `redundant` on the pairs of an acyclic graph. `out_begin` / `out` hold
// each rank's successors by ascending rank; `min_pred[r]` is the lowest rank
// among r's direct predecessors whose pair is not yet known to be redundant
// (r when there is none).
//
// The targets are cut into blocks of ranks [a, end), 64 per bitset word. For
// a block, every rank u in [lo, end), lo the lowest min_pred of its targets,
// gets one row: the block's targets u reaches. Walking u downwards, u's row
// first ORs its successors' rows (the targets reached by a path of length
// >= 2: a pair (u, t) is redundant iff t's bit is set), then adds u's direct
// targets. Any path between two ranks stays between them, so the rows are
// exact, and the pairs from below lo are already settled.
//
// Time: a block costs (rows + successor visits) * words. When every unsettled
// pair spans at most L ranks, rows <= L + 64 * words, so the total is
// O((V + E) * (L + 64) / 64); at worst (L ~ V) O((V + E) * V / 64), the full
// closure's time. Memory: one block's rows, at most
// max(kBlockBudgetBytes, 8 * V) bytes.
void MarkRedundant(absl::Span<const uint32_t> out_begin, absl::Span<const Successor> out,
                   absl::Span<const uint32_t> min_pred, std::vector<EdgePair>* pairs) {
  const size_t nodes = min_pred.size();
  std::vector<uint64_t> rows;
  for (size_t a = 0; a < nodes;) {
    // The width with the least estimated work per target that fits the
    // budget; widening pays off when long edges make every block tall.
    size_t words = 1, end = 0, lo = a;
    double best_cost = 0;
    size_t scan_end = a, scan_lo = a;
    for (size_t w = 1; w <= kMaxBlockWords; w *= 2) {
      const size_t e = std::min(nodes, a + 64 * w);
      for (; scan_end < e; ++scan_end) scan_lo = std::min<size_t>(scan_lo, min_pred[scan_end]);
      const size_t height = e - scan_lo;
      if (w > 1 && height * w * sizeof(uint64_t) > kBlockBudgetBytes) break;
      const double cost =
          static_cast<double>(height) * (w + kVisitCostWords) / static_cast<double>(e - a);
      if (w == 1 || cost < best_cost) {
        best_cost = cost;
        words = w;
        end = e;
        lo = scan_lo;
      }
      if (e == nodes) break;
    }

    rows.assign((end - lo) * words, 0);
    auto row = [&](size_t rank) { return rows.data() + (rank - lo) * words; };
    for (size_t u = end; u-- > lo;) {
      uint64_t* r = row(u);
      const Successor* first = out.data() + out_begin[u];
      const Successor* last = out.data() + out_begin[u + 1];
      // Successors ascend: those at or past `end` cannot reach the block.
      const Successor* s = first;
      for (; s != last && s->rank < end; ++s) {
        const uint64_t* rs = row(s->rank);
        for (size_t k = 0; k < words; ++k) r[k] |= rs[k];
      }
      // Then the successors inside the block, walking back from `s`.
      for (const Successor* t = s; t != first;) {
        --t;  // never below `first` (which is null when there are none)
        if (t->rank < a) break;
        const size_t bit = t->rank - a;
        uint64_t& word = r[bit / 64];
        const uint64_t mask = uint64_t{1} << (bit % 64);
        (*pairs)[t->pair].redundant = (word & mask) != 0;
        word |= mask;  // only t's own pair tests this bit
      }
    }
    a = end;
  }
}

}  // namespace

EdgeReduction ReduceEdges(size_t nodes, absl::Span<const GraphEdge> edges, EdgeMode mode) {
  EdgeReduction result;
  // Unique pairs by sorting (succ, pred) keys, with every creator reason's
  // dataflow proof folded in (a tree node per pair would cost ~80 bytes).
  std::vector<std::pair<uint64_t, size_t>> keyed;  // ((succ << 32) | pred, reason)
  keyed.reserve(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    const GraphEdge& e = edges[i];
    if (e.pred == e.succ || e.pred >= nodes || e.succ >= nodes) continue;
    keyed.push_back({uint64_t{e.succ} << 32 | e.pred, i});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<bool> proven;
  for (size_t k = 0; k < keyed.size(); ++k) {
    const GraphEdge& e = edges[keyed[k].second];
    if (k == 0 || keyed[k].first != keyed[k - 1].first) {
      EdgePair& p = result.pairs.emplace_back();
      p.pred = e.pred;
      p.succ = e.succ;
      proven.push_back(true);
    }
    EdgePair& p = result.pairs.back();
    switch (e.source) {
      case EdgeSource::kCreator:
        p.creator = true;
        if (!e.dataflow_proven) proven.back() = false;
        break;
      case EdgeSource::kTensorMap:
        p.tensormap = true;
        break;
      case EdgeSource::kExplicit:
        p.explicit_dep = true;
        break;
    }
  }
  Release(&keyed);
  const std::vector<EdgePair>& pairs = result.pairs;

  // in_begin[n]: n's pairs start there (they are sorted by succ).
  std::vector<uint32_t> in_begin(nodes + 1, 0);
  for (const EdgePair& p : pairs) ++in_begin[p.succ + 1];
  for (size_t n = 0; n < nodes; ++n) in_begin[n + 1] += in_begin[n];

  // A topological order. pto_sim deps numbers tasks in submission order and
  // TraceReader only admits earlier tasks as producers, so there the ids
  // already are one; any other graph gets Kahn's algorithm, where a cycle
  // stops here.
  std::vector<uint32_t> order(nodes);
  for (uint32_t n = 0; n < nodes; ++n) order[n] = n;
  const bool forward =
      std::all_of(pairs.begin(), pairs.end(), [](const EdgePair& p) { return p.pred < p.succ; });
  if (!forward) {
    std::vector<uint32_t> out_begin(nodes + 1, 0), out(pairs.size());
    for (const EdgePair& p : pairs) ++out_begin[p.pred + 1];
    for (size_t n = 0; n < nodes; ++n) out_begin[n + 1] += out_begin[n];
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (const EdgePair& p : pairs) out[fill[p.pred]++] = p.succ;
    std::vector<uint32_t> indegree(nodes);
    for (size_t n = 0; n < nodes; ++n) indegree[n] = in_begin[n + 1] - in_begin[n];
    order.clear();
    for (uint32_t n = 0; n < nodes; ++n) {
      if (indegree[n] == 0) order.push_back(n);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      for (uint32_t i = out_begin[order[k]]; i < out_begin[order[k] + 1]; ++i) {
        if (--indegree[out[i]] == 0) order.push_back(out[i]);
      }
    }
    if (order.size() != nodes) {
      result.cyclic = true;
      return result;
    }
  }
  std::vector<uint32_t> rank(nodes);
  for (uint32_t r = 0; r < nodes; ++r) rank[order[r]] = r;

  // A pair (p, s) closing a triangle p -> q -> s is redundant at once. Most
  // long edges (a creator feeding every user of its buffer) close one, and
  // leaving them out of min_pred keeps the blocks short. In-lists longer than
  // kTriangleScan are not scanned, which bounds this pass by kTriangleScan * E.
  std::vector<uint32_t> stamp(nodes, kNoStamp), pair_at(nodes);
  for (uint32_t s = 0; s < nodes; ++s) {
    for (uint32_t i = in_begin[s]; i < in_begin[s + 1]; ++i) {
      stamp[pairs[i].pred] = s;
      pair_at[pairs[i].pred] = i;
    }
    for (uint32_t i = in_begin[s]; i < in_begin[s + 1]; ++i) {
      const uint32_t q = pairs[i].pred;
      if (in_begin[q + 1] - in_begin[q] > kTriangleScan) continue;
      for (uint32_t j = in_begin[q]; j < in_begin[q + 1]; ++j) {
        if (stamp[pairs[j].pred] == s) result.pairs[pair_at[pairs[j].pred]].redundant = true;
      }
    }
  }
  Release(&stamp);
  Release(&pair_at);

  // Successor lists by rank, each ascending (filled in ascending succ rank),
  // and every rank's lowest predecessor not settled by a triangle.
  std::vector<uint32_t> out_begin(nodes + 1, 0), min_pred(nodes);
  std::vector<Successor> out(pairs.size());
  for (const EdgePair& p : pairs) ++out_begin[rank[p.pred] + 1];
  for (size_t r = 0; r < nodes; ++r) out_begin[r + 1] += out_begin[r];
  std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
  for (uint32_t r = 0; r < nodes; ++r) {
    const uint32_t n = order[r];
    min_pred[r] = r;
    for (uint32_t i = in_begin[n]; i < in_begin[n + 1]; ++i) {
      const uint32_t pred = rank[pairs[i].pred];
      out[fill[pred]++] = {r, i};
      if (!pairs[i].redundant) min_pred[r] = std::min(min_pred[r], pred);
    }
  }
  Release(&fill);
  Release(&in_begin);
  Release(&order);
  Release(&rank);
  MarkRedundant(out_begin, out, min_pred, &result.pairs);

  for (size_t i = 0; i < result.pairs.size(); ++i) {
    EdgePair& p = result.pairs[i];
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
