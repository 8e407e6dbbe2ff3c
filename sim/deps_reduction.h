#ifndef PTO_SIM_DEPS_REDUCTION_H_
#define PTO_SIM_DEPS_REDUCTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/tensor_view.h"
#include "proto/task_stream.pb.h"

namespace pto {

// deps_viewer's --edge-mode (hw-native-sys/simpler@6ebaf771 simpler_setup/tools/deps_viewer.py).
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
  // Creator edges only: deps_viewer's reduced_dataflow proof holds for this
  // reason (see ProveCreatorDataflow).
  bool dataflow_proven = false;
};

// The geometry of one edge reason, parallel to a GraphEdge, for the proof.
struct EdgeGeometry {
  trace::ArgDirection consumer_direction = trace::INPUT;  // the consumer's arg
  TensorView consumer_view;
  TensorView producer_view;   // tensormap reasons
  uint64_t buffer_numel = 0;  // elements of the root buffer
};

// A view's bytes as sorted, merged [begin, end) intervals, as deps_viewer
// expands them (contiguous suffix dimensions collapse into one interval);
// nullopt when the view is degenerate, leaves its buffer, or would need more
// than 10 000 intervals (the viewer's cap). Such views never prove anything.
struct ByteInterval {
  uint64_t begin = 0;
  uint64_t end = 0;
};
std::optional<std::vector<ByteInterval>> ViewByteIntervals(const TensorView& view,
                                                           uint64_t buffer_numel);

// Sets `dataflow_proven` on the creator reasons (owner C -> task T) that
// deps_viewer's reduced_dataflow mode may drop: T's argument is an INOUT, and
// every byte of it arrives by a TensorMap edge from an earlier INOUT /
// OUTPUT_EXISTING user of the same creator C, and leaves by a TensorMap edge
// to a later INOUT user of C. OUTPUT_EXISTING starts a reuse generation and
// is never proven. `edges` and `geometry` are parallel, one launch's reasons.
void ProveCreatorDataflow(absl::Span<const EdgeGeometry> geometry, std::vector<GraphEdge>* edges);

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
// are below `nodes`. Reachability is worked out for a block of at most 4096
// targets at a time, not kept as one bitset per node (nodes² / 8 bytes):
// memory is O(nodes + edges) plus one block's bitsets, at most
// max(64 MiB, 8 bytes per node). Time is O((nodes + edges) * nodes / 64) at
// worst and O((nodes + edges) * (span + 64) / 64) when the edges that close no
// triangle span at most `span` positions of a topological order.
EdgeReduction ReduceEdges(size_t nodes, absl::Span<const GraphEdge> edges, EdgeMode mode);

}  // namespace pto

#endif  // PTO_SIM_DEPS_REDUCTION_H_
