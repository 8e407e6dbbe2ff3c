#include "sim/deps_command.h"

#include <fstream>
#include <sstream>

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
