#include "sim/deps_command.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/dtype.h"
#include "models/aicpu/dep_inference.h"
#include "models/aicpu/tensor_view.h"
#include "sim/trace_reader.h"

namespace pto {
namespace {

struct GraphTask {
  uint64_t runtime_id = 0;
  std::string name;
  std::string kind;  // AIC / AIV / MIX / dummy / alloc
  std::string blocks;
  bool manual = false;
};

// One launch's graph as the orchestrator would infer it.
class LaunchGraph {
 public:
  LaunchGraph(const trace::StreamHeader& header, std::string name)
      : header_(header), name_(std::move(name)), creator_(header.tensors_size()) {
    scopes_.push_back(trace::ScopeBegin::AUTO);
  }

  void ScopeBegin(trace::ScopeBegin::Mode mode) { scopes_.push_back(mode); }
  void ScopeEnd() {
    if (scopes_.size() > 1) scopes_.pop_back();
  }

  void Alloc(const trace::Alloc& alloc) {
    const uint32_t index = NewTask("alloc", "alloc", "1");
    for (uint32_t id : alloc.tensor_ids()) creator_[id] = index;
  }

  absl::Status Submit(const trace::Submit& submit) {
    const int32_t* ids = submit.kernel_ids().data();
    const int active = (ids[0] >= 0) + (ids[1] >= 0) + (ids[2] >= 0);
    const char* kind = active >= 2 ? "MIX" : (ids[0] >= 0 ? "AIC" : "AIV");
    std::string blocks =
        submit.has_block_symbol()
            ? (submit.block_symbol() == trace::AVAILABLE_AIV ? "all AIVs" : "all clusters")
            : absl::StrCat(submit.block_num());
    const uint32_t index = NewTask(submit.name(), kind, blocks);
    return Infer(index, submit.args(), submit.deps());
  }

  absl::Status Dummy(const trace::Dummy& dummy) {
    const uint32_t index = NewTask(dummy.name().empty() ? "dummy" : dummy.name(), "dummy", "1");
    return Infer(index, dummy.args(), dummy.deps());
  }

  void Print(EdgeMode mode, std::ostream& out, std::ostream& err);

 private:
  uint32_t NewTask(const std::string& name, const char* kind, std::string blocks) {
    const uint32_t depth = static_cast<uint32_t>(scopes_.size() - 1);
    const uint64_t ring = std::min<uint32_t>(depth, 3);
    GraphTask& t = tasks_.emplace_back();
    t.runtime_id = (ring << 32) | next_local_[ring]++;
    t.name = name;
    t.kind = kind;
    t.blocks = std::move(blocks);
    t.manual = scopes_.back() == trace::ScopeBegin::MANUAL;
    return static_cast<uint32_t>(tasks_.size() - 1);
  }

  absl::Status Infer(uint32_t index, const google::protobuf::RepeatedPtrField<trace::Arg>& args,
                     const google::protobuf::RepeatedField<uint32_t>& deps) {
    std::vector<DepArg> dep_args;
    for (const trace::Arg& arg : args) {
      if (!arg.has_tensor()) continue;
      const trace::TensorArg& tensor_arg = arg.tensor();
      const trace::Tensor& tensor = header_.tensors(static_cast<int>(tensor_arg.tensor_id()));
      absl::StatusOr<TensorView> view = MakeView(tensor, tensor_arg);
      if (!view.ok()) return view.status();
      DepArg& dep = dep_args.emplace_back();
      dep.view = *view;
      dep.direction = tensor_arg.direction();
      dep.manual_dep = tensor.manual_dep();
      dep.creator = creator_[tensor.id()];
      if (tensor_arg.direction() == trace::OUTPUT) creator_[tensor.id()] = index;
    }
    std::vector<TaskSeq> explicit_deps(deps.begin(), deps.end());
    std::vector<DepEdge> edges;
    InferStats stats;
    inference_.Infer(index,
                     tasks_[index].manual ? trace::ScopeBegin::MANUAL : trace::ScopeBegin::AUTO,
                     dep_args, explicit_deps, &edges, &stats);
    for (const DepEdge& e : edges) {
      GraphEdge& g = edges_.emplace_back();
      g.pred = static_cast<uint32_t>(e.producer);
      g.succ = index;
      g.source = e.source;
      g.arg = e.arg_index;
      EdgeGeometry& geometry = geometry_.emplace_back();
      if (e.arg_index >= 0) {
        const DepArg& arg = dep_args[e.arg_index];
        geometry.consumer_direction = arg.direction;
        geometry.consumer_view = arg.view;
        geometry.producer_view = e.producer_view;
        const trace::Tensor& root = header_.tensors(static_cast<int>(arg.view.tensor_id));
        const size_t bytes = DTypeSize(root.dtype());
        geometry.buffer_numel = bytes > 0 ? root.size_bytes() / bytes : 0;
      }
    }
    return absl::OkStatus();
  }

  const trace::StreamHeader& header_;
  std::string name_;
  std::vector<std::optional<TaskSeq>> creator_;
  std::vector<trace::ScopeBegin::Mode> scopes_;
  uint32_t next_local_[4] = {0, 0, 0, 0};
  std::vector<GraphTask> tasks_;
  std::vector<GraphEdge> edges_;
  std::vector<EdgeGeometry> geometry_;  // parallel to edges_
  DependencyInference inference_;
};

std::string Sources(const EdgePair& p) {
  std::vector<const char*> s;
  if (p.creator) s.push_back("creator");
  if (p.tensormap) s.push_back("tensormap");
  if (p.explicit_dep) s.push_back("explicit");
  return absl::StrJoin(s, "+");
}

void LaunchGraph::Print(EdgeMode mode, std::ostream& out, std::ostream& err) {
  ProveCreatorDataflow(geometry_, &edges_);
  const EdgeReduction reduction = ReduceEdges(tasks_.size(), edges_, mode);
  out << absl::StrFormat("launch '%s': %d tasks, %d edge reasons, %d unique edges\n", name_,
                         tasks_.size(), edges_.size(), reduction.pairs.size());
  out << "tasks:\n";
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const GraphTask& t = tasks_[i];
    out << absl::StrFormat("  t%d  id %d  %s  %s  blocks %s  scope %s\n", i, t.runtime_id, t.name,
                           t.kind, t.blocks, t.manual ? "manual" : "auto");
  }
  out << "edges (reasons):\n";
  for (const GraphEdge& e : edges_) {
    out << absl::StrFormat("  t%d -> t%d  %s", e.pred, e.succ, EdgeSourceName(e.source));
    if (e.arg >= 0) out << absl::StrFormat("  arg %d", e.arg);
    out << "\n";
  }
  if (reduction.cyclic) {
    err << absl::StrFormat(
        "pto_sim deps: warning: launch '%s': the graph has a cycle; printing the full graph "
        "without redundancy analysis\n",
        name_);
    return;
  }
  int redundant = 0, dropped = 0;
  for (const EdgePair& p : reduction.pairs) {
    redundant += p.redundant;
    dropped += p.dropped;
  }
  out << absl::StrFormat("transitively redundant edges: %d of %d", redundant,
                         reduction.pairs.size());
  out << absl::StrFormat("; edge mode %s drops %d, keeps %d\n", EdgeModeName(mode), dropped,
                         reduction.pairs.size() - dropped);
  for (const EdgePair& p : reduction.pairs) {
    if (!p.redundant) continue;
    const char* verdict = "kept: creator";
    if (p.dropped) {
      verdict = "dropped";
    } else if (mode == EdgeMode::kFull) {
      verdict = "kept (full)";
    } else if (mode == EdgeMode::kReducedDataflow) {
      verdict = "kept: creator, dataflow not proven";
    }
    out << absl::StrFormat("  t%d -> t%d  (%s)  %s\n", p.pred, p.succ, Sources(p), verdict);
  }
}

}  // namespace

int RunDepsCommand(const std::string& trace_path, EdgeMode mode, std::ostream& out,
                   std::ostream& err) {
  absl::StatusOr<std::unique_ptr<TraceReader>> reader = TraceReader::Open(trace_path);
  if (!reader.ok()) {
    err << "pto_sim deps: error: " << reader.status().message() << "\n";
    return 2;
  }
  const trace::StreamHeader& header = (*reader)->header();
  std::unique_ptr<LaunchGraph> graph;
  trace::StreamRecord record;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    if (!more.ok()) {
      err << "pto_sim deps: error: " << more.status().message() << "\n";
      return 2;
    }
    if (!*more) break;
    absl::Status status;
    switch (record.kind_case()) {
      case trace::StreamRecord::kLaunchBegin:
        graph = std::make_unique<LaunchGraph>(header, record.launch_begin().name());
        break;
      case trace::StreamRecord::kLaunchEnd:
        if (graph) graph->Print(mode, out, err);
        graph.reset();
        break;
      case trace::StreamRecord::kScopeBegin:
        if (graph) graph->ScopeBegin(record.scope_begin().mode());
        break;
      case trace::StreamRecord::kScopeEnd:
        if (graph) graph->ScopeEnd();
        break;
      case trace::StreamRecord::kAlloc:
        if (graph) graph->Alloc(record.alloc());
        break;
      case trace::StreamRecord::kSubmit:
        if (graph) status = graph->Submit(record.submit());
        break;
      case trace::StreamRecord::kDummy:
        if (graph) status = graph->Dummy(record.dummy());
        break;
      default:
        break;  // host reads and checks do not change the graph
    }
    if (!status.ok()) {
      err << "pto_sim deps: error: " << (*reader)->Where() << ": " << status.message() << "\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace pto
