#include "sim/deps_reduction.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

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
