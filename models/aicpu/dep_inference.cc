#include "models/aicpu/dep_inference.h"

#include <algorithm>

namespace pto {
namespace {

bool IsLookedUp(trace::ArgDirection direction) {
  return direction == trace::INPUT || direction == trace::INOUT;
}

bool IsRegistered(trace::ArgDirection direction) {
  return direction == trace::INOUT || direction == trace::OUTPUT_EXISTING;
}

}  // namespace

const char* EdgeSourceName(EdgeSource source) {
  switch (source) {
    case EdgeSource::kCreator:
      return "creator";
    case EdgeSource::kTensorMap:
      return "tensormap";
    case EdgeSource::kExplicit:
      return "explicit";
  }
  return "explicit";
}

void DependencyInference::Infer(TaskSeq self, ScopeMode mode, absl::Span<const DepArg> args,
                                absl::Span<const TaskSeq> explicit_deps,
                                std::vector<DepEdge>* edges, InferStats* stats) {
  edges->clear();
  *stats = InferStats();
  stats->tensor_args = static_cast<int>(args.size());

  // STEP 1: explicit deps, in every scope mode.
  for (TaskSeq producer : explicit_deps) {
    DepEdge& edge = edges->emplace_back();
    edge.producer = producer;
    edge.source = EdgeSource::kExplicit;
  }

  // A MANUAL scope skips the whole fan-in computation and registration.
  if (mode != trace::ScopeBegin::MANUAL) {
    // STEP 3, arg by arg: a covered entry removed by one INOUT arg is already
    // gone for the next arg, as in the runtime.
    for (size_t i = 0; i < args.size(); ++i) {
      const DepArg& arg = args[i];
      if (arg.direction == trace::OUTPUT) continue;
      const int arg_index = static_cast<int>(i);

      // Step A: creator retention, whatever the direction. A task cannot
      // retain itself (the runtime stamps owners after this step).
      if (arg.creator.has_value() && *arg.creator != self) {
        DepEdge& edge = edges->emplace_back();
        edge.producer = *arg.creator;
        edge.source = EdgeSource::kCreator;
        edge.arg_index = arg_index;
      }

      // Step B: the registered writers of any overlapping region.
      if (!IsLookedUp(arg.direction) || arg.manual_dep) continue;
      ++stats->lookups;
      stats->entries_probed += tensor_map_.Lookup(arg.view, &matches_);
      for (const TensorMapMatch& match : matches_) {
        DepEdge& edge = edges->emplace_back();
        edge.producer = match.producer;
        edge.source = EdgeSource::kTensorMap;
        edge.arg_index = arg_index;
        edge.overlap = match.overlap;
        edge.producer_view = tensor_map_.view(match.entry);
      }
      // Removing after the walk matches the runtime's remove-inside-callback:
      // removal never changes which other entries overlap.
      if (arg.direction == trace::INOUT) {
        for (const TensorMapMatch& match : matches_) {
          if (match.overlap != Overlap::kCovered) continue;
          tensor_map_.Remove(match.entry);
          ++stats->removals;
        }
      }
    }

    // STEP 4: this task becomes the registered writer of what it writes.
    for (const DepArg& arg : args) {
      if (!IsRegistered(arg.direction) || arg.manual_dep) continue;
      tensor_map_.Insert(arg.view, self);
      ++stats->registrations;
    }
  }
  stats->edges = static_cast<int>(edges->size());
}

void UniqueProducers(TaskSeq self, absl::Span<const DepEdge> edges,
                     std::vector<TaskSeq>* producers) {
  producers->clear();
  for (const DepEdge& edge : edges) {
    if (edge.producer != self) producers->push_back(edge.producer);
  }
  std::sort(producers->begin(), producers->end());
  producers->erase(std::unique(producers->begin(), producers->end()), producers->end());
}

}  // namespace pto
