#include "sim/deps_command.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/deps_reduction.h"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

GraphEdge E(uint32_t pred, uint32_t succ, EdgeSource source, bool proven = false) {
  GraphEdge e;
  e.pred = pred;
  e.succ = succ;
  e.source = source;
  e.dataflow_proven = proven;
  return e;
}

const EdgePair& PairOf(const EdgeReduction& r, uint32_t pred, uint32_t succ) {
  for (const EdgePair& p : r.pairs) {
    if (p.pred == pred && p.succ == succ) return p;
  }
  ADD_FAILURE() << "no pair " << pred << " -> " << succ;
  static EdgePair none;
  return none;
}

// 0 -> 1 -> 2 -> 3 plus shortcuts 0 -> 2 (creator, proven INOUT dataflow),
// 0 -> 3 (creator, not proven) and 1 -> 3 (explicit and tensormap).
std::vector<GraphEdge> Diamondish() {
  return {E(0, 1, EdgeSource::kCreator),        E(1, 2, EdgeSource::kTensorMap),
          E(0, 2, EdgeSource::kCreator, true),  E(2, 3, EdgeSource::kTensorMap),
          E(0, 3, EdgeSource::kCreator, false), E(1, 3, EdgeSource::kExplicit),
          E(1, 3, EdgeSource::kTensorMap)};
}

TEST(ReduceEdgesTest, FullListsRedundantPairsButDropsNone) {
  const EdgeReduction r = ReduceEdges(4, Diamondish(), EdgeMode::kFull);
  ASSERT_FALSE(r.cyclic);
  EXPECT_EQ(r.pairs.size(), 6u);  // 1 -> 3 twice projects to one pair
  EXPECT_TRUE(PairOf(r, 0, 2).redundant);
  EXPECT_TRUE(PairOf(r, 0, 3).redundant);
  EXPECT_TRUE(PairOf(r, 1, 3).redundant);
  EXPECT_FALSE(PairOf(r, 0, 1).redundant);
  EXPECT_FALSE(PairOf(r, 1, 2).redundant);
  EXPECT_FALSE(PairOf(r, 2, 3).redundant);
  for (const EdgePair& p : r.pairs) EXPECT_FALSE(p.dropped);
}

TEST(ReduceEdgesTest, ReducedNeverDropsAPairWithACreatorReason) {
  const EdgeReduction r = ReduceEdges(4, Diamondish(), EdgeMode::kReduced);
  EXPECT_TRUE(PairOf(r, 1, 3).dropped);
  EXPECT_TRUE(PairOf(r, 1, 3).explicit_dep);
  EXPECT_TRUE(PairOf(r, 1, 3).tensormap);
  EXPECT_FALSE(PairOf(r, 0, 2).dropped);
  EXPECT_FALSE(PairOf(r, 0, 3).dropped);
}

TEST(ReduceEdgesTest, ReducedDataflowDropsProvenCreatorPairsOnly) {
  const EdgeReduction r = ReduceEdges(4, Diamondish(), EdgeMode::kReducedDataflow);
  EXPECT_TRUE(PairOf(r, 1, 3).dropped);
  EXPECT_TRUE(PairOf(r, 0, 2).dropped);
  EXPECT_FALSE(PairOf(r, 0, 3).dropped);  // creator reason without proof
  EXPECT_FALSE(PairOf(r, 0, 1).dropped);  // not redundant
}

TEST(ReduceEdgesTest, ProtectionIsPerPair) {
  // 0 -> 2 is redundant; one reason is a creator edge, so `reduced` keeps the
  // pair even though its tensormap reason alone would go.
  const std::vector<GraphEdge> edges = {
      E(0, 1, EdgeSource::kTensorMap), E(1, 2, EdgeSource::kTensorMap),
      E(0, 2, EdgeSource::kTensorMap), E(0, 2, EdgeSource::kCreator)};
  EXPECT_FALSE(PairOf(ReduceEdges(3, edges, EdgeMode::kReduced), 0, 2).dropped);
}

TEST(ReduceEdgesTest, CycleIsReportedAndNothingDropped) {
  const std::vector<GraphEdge> edges = {
      E(0, 1, EdgeSource::kExplicit), E(1, 2, EdgeSource::kExplicit),
      E(2, 0, EdgeSource::kExplicit), E(0, 2, EdgeSource::kExplicit)};
  const EdgeReduction r = ReduceEdges(3, edges, EdgeMode::kReduced);
  EXPECT_TRUE(r.cyclic);
  for (const EdgePair& p : r.pairs) EXPECT_FALSE(p.dropped || p.redundant);
}

// The transitive reduction as it was first written, one reachability bitset
// per node: the reference the bounded algorithm must match.
EdgeReduction ReduceWithBitsetClosure(size_t nodes, const std::vector<GraphEdge>& edges,
                                      EdgeMode mode) {
  EdgeReduction result;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<EdgePair, bool>> by_pair;  // (succ, pred)
  for (const GraphEdge& e : edges) {
    if (e.pred == e.succ || e.pred >= nodes || e.succ >= nodes) continue;
    auto [it, inserted] = by_pair.try_emplace({e.succ, e.pred});
    EdgePair& p = it->second.first;
    if (inserted) {
      p.pred = e.pred;
      p.succ = e.succ;
      it->second.second = true;
    }
    p.creator |= e.source == EdgeSource::kCreator;
    p.tensormap |= e.source == EdgeSource::kTensorMap;
    p.explicit_dep |= e.source == EdgeSource::kExplicit;
    if (e.source == EdgeSource::kCreator && !e.dataflow_proven) it->second.second = false;
  }
  std::vector<bool> proven;
  for (auto& [key, value] : by_pair) {
    result.pairs.push_back(value.first);
    proven.push_back(value.second);
  }
  std::vector<std::vector<uint32_t>> succs(nodes);
  std::vector<int> indegree(nodes, 0);
  for (const EdgePair& p : result.pairs) {
    succs[p.pred].push_back(p.succ);
    ++indegree[p.succ];
  }
  std::vector<uint32_t> order;
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
  std::vector<std::vector<bool>> reach(nodes, std::vector<bool>(nodes, false));
  for (size_t k = nodes; k-- > 0;) {
    const uint32_t n = order[k];
    for (uint32_t s : succs[n]) {
      reach[n][s] = true;
      for (size_t t = 0; t < nodes; ++t) {
        if (reach[s][t]) reach[n][t] = true;
      }
    }
  }
  for (size_t i = 0; i < result.pairs.size(); ++i) {
    EdgePair& p = result.pairs[i];
    for (uint32_t w : succs[p.pred]) p.redundant = p.redundant || (w != p.succ && reach[w][p.succ]);
    p.dropped = mode == EdgeMode::kReduced           ? p.redundant && !p.creator
                : mode == EdgeMode::kReducedDataflow ? p.redundant && (!p.creator || proven[i])
                                                     : false;
  }
  return result;
}

// A random graph of one of four shapes: dense and small; long and local
// (edges from the last few nodes, a few long ones, barriers and maybe a hub,
// as task graphs have them); one of those renumbered (acyclic, but edges may
// point to lower ids); any direction (often cyclic). Reasons repeat pairs with random sources and
// proofs, and a few are self-loops or out of range (ignored).
std::pair<size_t, std::vector<GraphEdge>> RandomGraph(std::mt19937& rng, int shape) {
  auto uniform = [&rng](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  std::vector<std::pair<uint32_t, uint32_t>> links;
  size_t nodes = 0;
  if (shape == 0 || shape == 3) {
    nodes = uniform(1, 40);
    const uint32_t count = uniform(0, static_cast<uint32_t>(nodes * nodes / 3));
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t a = uniform(0, nodes - 1), b = uniform(0, nodes - 1);
      if (shape == 0 && a > b) std::swap(a, b);
      links.push_back({a, b});
    }
  } else {
    nodes = uniform(50, 700);
    const uint32_t window = uniform(1, 24);
    const bool hub = uniform(0, 1) == 1;  // node 0 feeds a quarter of the nodes
    for (uint32_t s = 1; s < nodes; ++s) {
      for (uint32_t k = uniform(0, 4); k > 0; --k) {
        links.push_back({s - uniform(1, std::min(s, window)), s});
      }
      if (uniform(0, 49) == 0) links.push_back({uniform(0, s - 1), s});  // a long edge
      if (hub && uniform(0, 3) == 0) links.push_back({0, s});
      if (uniform(0, 99) == 0) {  // a barrier after the last 80 nodes
        for (uint32_t k = 1; k <= std::min(s, 80u); ++k) links.push_back({s - k, s});
      }
    }
    if (shape == 2) {
      std::vector<uint32_t> id(nodes);
      for (uint32_t n = 0; n < nodes; ++n) id[n] = n;
      std::shuffle(id.begin(), id.end(), rng);
      for (auto& [pred, succ] : links) pred = id[pred], succ = id[succ];
    }
  }
  std::vector<GraphEdge> edges;
  for (const auto& [pred, succ] : links) {
    for (uint32_t k = uniform(1, 2); k > 0; --k) {
      edges.push_back(E(pred, succ, static_cast<EdgeSource>(uniform(0, 2)), uniform(0, 1) == 1));
    }
  }
  if (uniform(0, 3) == 0) {
    edges.push_back(E(0, 0, EdgeSource::kExplicit));
    edges.push_back(E(0, static_cast<uint32_t>(nodes), EdgeSource::kTensorMap));
  }
  std::shuffle(edges.begin(), edges.end(), rng);
  return {nodes, edges};
}

TEST(ReduceEdgesTest, MatchesBitsetClosureOnRandomGraphs) {
  std::mt19937 rng(20240611);
  int cyclic = 0;
  for (int graph = 0; graph < 800; ++graph) {
    const int shape = graph % 4;
    const EdgeMode mode = static_cast<EdgeMode>(graph / 4 % 3);
    const auto [nodes, edges] = RandomGraph(rng, shape);
    const EdgeReduction want = ReduceWithBitsetClosure(nodes, edges, mode);
    const EdgeReduction got = ReduceEdges(nodes, edges, mode);
    SCOPED_TRACE(::testing::Message() << "graph " << graph << ", shape " << shape << ", " << nodes
                                      << " nodes, mode " << EdgeModeName(mode));
    cyclic += want.cyclic;
    ASSERT_EQ(got.cyclic, want.cyclic);
    ASSERT_EQ(got.pairs.size(), want.pairs.size());
    for (size_t i = 0; i < want.pairs.size(); ++i) {
      const EdgePair& g = got.pairs[i];
      const EdgePair& w = want.pairs[i];
      ASSERT_EQ(std::tie(g.pred, g.succ), std::tie(w.pred, w.succ)) << "pair " << i;
      EXPECT_EQ(std::tie(g.creator, g.tensormap, g.explicit_dep, g.redundant, g.dropped),
                std::tie(w.creator, w.tensormap, w.explicit_dep, w.redundant, w.dropped))
          << "t" << w.pred << " -> t" << w.succ;
    }
  }
  EXPECT_GT(cyclic, 20);  // the any-direction shape does reach the cycle check
}

// A 1 M-node chain with shortcuts, beyond what one bitset per node could hold
// (125 GB): 0 -> 1 -> ... -> n-3 -> n-1, k -> k+2 every 1000 nodes, long
// edges 0 -> n-3 and 1 -> n-1, and a side node n-2 (0 -> n-2 -> n-1).
TEST(ReduceEdgesTest, MillionNodeChainWithShortcuts) {
  constexpr uint32_t n = 1000000;
  std::vector<GraphEdge> edges;
  for (uint32_t k = 0; k + 1 < n - 2; ++k) edges.push_back(E(k, k + 1, EdgeSource::kTensorMap));
  for (uint32_t k = 0; k + 2 < n - 2; k += 1000)
    edges.push_back(E(k, k + 2, EdgeSource::kExplicit));
  for (const auto& [pred, succ] : std::vector<std::pair<uint32_t, uint32_t>>{
           {0, n - 3}, {1, n - 1}, {0, n - 2}, {n - 2, n - 1}, {n - 3, n - 1}}) {
    edges.push_back(E(pred, succ, EdgeSource::kExplicit));
  }
  const EdgeReduction r = ReduceEdges(n, edges, EdgeMode::kReduced);
  ASSERT_FALSE(r.cyclic);
  EXPECT_EQ(r.pairs.size(), edges.size());
  EXPECT_TRUE(PairOf(r, 0, 2).redundant);
  EXPECT_TRUE(PairOf(r, 999000, 999002).dropped);
  EXPECT_FALSE(PairOf(r, 999000, 999001).redundant);
  EXPECT_FALSE(PairOf(r, 999001, 999002).redundant);
  EXPECT_TRUE(PairOf(r, 0, n - 3).redundant);
  EXPECT_TRUE(PairOf(r, 1, n - 1).redundant);
  EXPECT_FALSE(PairOf(r, 0, n - 2).redundant);  // the side node's only way in
  EXPECT_FALSE(PairOf(r, n - 2, n - 1).redundant);
  EXPECT_FALSE(PairOf(r, n - 3, n - 1).redundant);
  size_t redundant = 0;
  for (const EdgePair& p : r.pairs) redundant += p.redundant;
  EXPECT_EQ(redundant, 1000u + 2);  // the shortcuts and the two long chain edges
}

TEST(ParseEdgeModeTest, KnownAndUnknown) {
  EXPECT_EQ(*ParseEdgeMode("reduced_dataflow"), EdgeMode::kReducedDataflow);
  const absl::StatusOr<EdgeMode> bad = ParseEdgeMode("omitted");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("full, reduced or reduced_dataflow"));
}

// A reuse chain on one runtime-allocated buffer: alloc t0 creates s; t1, t2
// and t3 update s in place (INOUT, whole tensor); t4 reads s and names t1
// explicitly. Reasons: creator t0 -> t1..t4, tensormap t1 -> t2 -> t3 -> t4,
// explicit t1 -> t4. Redundant: t0 -> t2, t0 -> t3, t0 -> t4 (via t1) and
// t1 -> t4 (via t2, t3). reduced_dataflow proves t0 -> t2 only: its bytes
// arrive from t1 and leave to t3, both INOUT users of t0; t3's leave to t4,
// an INPUT, and t4's creator argument is an INPUT.
constexpr char kTrace[] = R"pb(
  header {
    version: 10
    tensors {
      id: 0
      name: "s"
      dtype: FP32
      shape: [ 64 ]
      gm_addr: 0x1000
      size_bytes: 256
    }
    kernels {
      id: 0
      name: "upd"
      core_type: AIV
      cost { vector_elements: 64 }
    }
  }
  records { launch_begin { name: "chain" } }
  records { alloc { tensor_ids: [ 0 ] } }
  records {
    submit {
      name: "w1"
      kernel_ids: [ -1, 0, -1 ]
      block_num: 1
      args { tensor { tensor_id: 0 direction: INOUT } }
    }
  }
  records {
    submit {
      name: "w2"
      kernel_ids: [ -1, 0, -1 ]
      block_num: 1
      args { tensor { tensor_id: 0 direction: INOUT } }
    }
  }
  records {
    submit {
      name: "w3"
      kernel_ids: [ -1, 0, -1 ]
      block_num: 1
      args { tensor { tensor_id: 0 direction: INOUT } }
    }
  }
  records {
    submit {
      name: "r"
      kernel_ids: [ -1, 0, -1 ]
      block_num: 1
      deps: [ 1 ]
      args { tensor { tensor_id: 0 direction: INPUT } }
    }
  }
  records { launch_end {} }
)pb";

std::string SaveTrace(const std::string& name, const std::string& text) {
  const std::string path = ::pto::testing::FreshOutputDir(name) + "/trace.pbtxt";
  std::ofstream(path) << text;
  return path;
}

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result RunDeps(const std::string& path, EdgeMode mode) {
  std::ostringstream out, err;
  const int code = RunDepsCommand(path, mode, out, err);
  return {code, out.str(), err.str()};
}

TEST(DepsCommandTest, PrintsTasksAndEdgesWithSources) {
  const Result r = RunDeps(SaveTrace("deps_cmd_full", kTrace), EdgeMode::kFull);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("launch 'chain': 5 tasks, 8 edge reasons, 8 unique edges"));
  EXPECT_THAT(r.out, HasSubstr("t0  id 0  alloc  alloc"));
  EXPECT_THAT(r.out, HasSubstr("t4  id 4  r  AIV  blocks 1  scope auto"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t1  creator  arg 0"));
  EXPECT_THAT(r.out, HasSubstr("t1 -> t2  tensormap  arg 0"));
  EXPECT_THAT(r.out, HasSubstr("t1 -> t4  explicit\n"));
  EXPECT_THAT(r.out, HasSubstr("transitively redundant edges: 4 of 8; edge mode full drops 0"));
}

TEST(DepsCommandTest, ReducedKeepsCreatorEdges) {
  const Result r = RunDeps(SaveTrace("deps_cmd_reduced", kTrace), EdgeMode::kReduced);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("edge mode reduced drops 1, keeps 7"));
  EXPECT_THAT(r.out, HasSubstr("t1 -> t4  (explicit)  dropped"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t2  (creator)  kept: creator\n"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t3  (creator)  kept: creator\n"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t4  (creator)  kept: creator\n"));
}

TEST(DepsCommandTest, ReducedDataflowDropsTheProvenInoutCreatorEdge) {
  const Result r = RunDeps(SaveTrace("deps_cmd_dataflow", kTrace), EdgeMode::kReducedDataflow);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("edge mode reduced_dataflow drops 2, keeps 6"));
  EXPECT_THAT(r.out, HasSubstr("t1 -> t4  (explicit)  dropped"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t2  (creator)  dropped"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t3  (creator)  kept: creator, dataflow not proven"));
  EXPECT_THAT(r.out, HasSubstr("t0 -> t4  (creator)  kept: creator, dataflow not proven"));
}

TEST(DepsCommandTest, BadTraceExitsTwo) {
  const Result missing = RunDeps("/nonexistent/trace.pb", EdgeMode::kFull);
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("pto_sim deps: error:"));
  std::string bad = kTrace;
  const size_t deps = bad.find("deps: [ 1 ]");
  ASSERT_NE(deps, std::string::npos);
  bad.replace(deps, 11, "deps: [ 7 ]");  // a later task
  const Result later = RunDeps(SaveTrace("deps_cmd_bad", bad), EdgeMode::kFull);
  EXPECT_EQ(later.code, 2);
  EXPECT_THAT(later.out, Not(HasSubstr("launch 'chain'")));
}

}  // namespace
}  // namespace pto
