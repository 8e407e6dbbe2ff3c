#ifndef PTO_SIM_DEPS_REDUCTION_H_
#define PTO_SIM_DEPS_REDUCTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"

namespace pto {

// deps_viewer's --edge-mode (runtime-semantics.md §4.9).
enum class EdgeMode { kFull, kReduced, kReducedDataflow };
absl::StatusOr<EdgeMode> ParseEdgeMode(absl::string_view text);
const char* EdgeModeName(EdgeMode mode);

// One reason for an edge, as deps.json lists them (the same pair may appear
// several times).
struct GraphEdge {
  uint32_t pred = 0;
  uint32_t succ = 0;
  EdgeSource source = EdgeSource::kExplicit;
  int arg = -1;  // the consumer's argument; -1 for explicit edges
  // Creator edges only: the consumer's argument is an INOUT whose every
  // element a TensorMap edge from another producer provably feeds (its view
  // contains the consumer's). OUTPUT_EXISTING and INPUT never qualify.
  bool dataflow_proven = false;
};

// The verdict on one unique (pred, succ) pair.
struct EdgePair {
  uint32_t pred = 0;
  uint32_t succ = 0;
  bool creator = false;  // some reason is a creator edge
  bool tensormap = false;
  bool explicit_dep = false;
  // pred reaches succ through another path: the transitive reduction drops it.
  bool redundant = false;
  // Dropped in the requested mode: `full` drops nothing; `reduced` drops
  // redundant pairs without a creator reason (protection is per pair);
  // `reduced_dataflow` also drops redundant pairs whose every creator reason
  // is dataflow_proven.
  bool dropped = false;
};

struct EdgeReduction {
  bool cyclic = false;          // then no pair is redundant or dropped
  std::vector<EdgePair> pairs;  // ascending by (succ, pred)
};

// Projects `edges` onto unique pairs and classifies them for `mode`. Node ids
// are below `nodes`. Reachability uses one bitset per node (nodes² / 8 bytes).
EdgeReduction ReduceEdges(size_t nodes, absl::Span<const GraphEdge> edges, EdgeMode mode);

}  // namespace pto

#endif  // PTO_SIM_DEPS_REDUCTION_H_
