#include "sim/deps_writer.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "common/fnv1a.h"
#include "nlohmann/json.hpp"

namespace pto {

std::string NameMapFileName(const std::string& case_name) {
  std::string file_case = case_name.empty() ? "run" : case_name;
  for (char& c : file_case) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      c = '_';
  }
  // A file name is at most 255 bytes: a long case name keeps its start and
  // gains its hash, so two long names that share a start stay apart.
  constexpr size_t kMaxCaseChars = 100;
  if (file_case.size() > kMaxCaseChars) {
    Fnv1a64 hash;
    hash.Update(case_name);
    file_case =
        absl::StrCat(file_case.substr(0, 80), "-", absl::Hex(hash.value(), absl::kZeroPad16));
  }
  return absl::StrCat("name_map_", file_case, ".json");
}
namespace {

using Json = nlohmann::ordered_json;

Json Dims(const int64_t* values, int n) {
  Json out = Json::array();
  for (int i = 0; i < n; ++i) out.push_back(values[i]);
  return out;
}

// The consumer_* / producer_* geometry of an edge.
void AddGeometry(Json& j, const char* prefix, const TensorView& view, bool with_dtype) {
  if (with_dtype) j[absl::StrCat(prefix, "dtype")] = DTypeRuntimeName(view.dtype);
  j[absl::StrCat(prefix, "shape")] = Dims(view.shape, view.ndims);
  j[absl::StrCat(prefix, "start_offset")] = std::to_string(view.start_offset);
  j[absl::StrCat(prefix, "strides")] = Dims(view.strides, view.ndims);
}

}  // namespace

uint64_t DepsTensorId(uint64_t buffer_addr, uint32_t version) {
  Fnv1a64 hash;
  hash.UpdateLittleEndian(buffer_addr, 8);
  hash.UpdateLittleEndian(version, 4);
  return hash.value();
}

const char* DepsArgTypeName(trace::ArgDirection direction) {
  switch (direction) {
    case trace::INPUT:
      return "INPUT";
    case trace::OUTPUT:
      return "OUTPUT";
    case trace::INOUT:
      return "INOUT";
    case trace::OUTPUT_EXISTING:
      return "OUTPUT_EXISTING";
    default:
      return "UNKNOWN";
  }
}

DepsWriter::DepsWriter(std::string dir, std::string case_name, const trace::StreamHeader& header,
                       const LaunchLog* log)
    : dir_(std::move(dir)),
      case_name_(std::move(case_name)),
      header_(header),
      log_(log),
      tasks_(absl::StrCat(dir_, "/.deps_tasks.tmp")),
      tensors_(absl::StrCat(dir_, "/.deps_tensors.tmp")),
      edges_(absl::StrCat(dir_, "/.deps_edges.tmp")) {}

absl::Status DepsWriter::Open() {
  for (SpooledArray* s : {&tasks_, &tensors_, &edges_}) {
    if (absl::Status st = s->Open(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

void DepsWriter::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs,
                                 TimePs) {
  const bool on_cores = task.shape == TaskShape::kAic || task.shape == TaskShape::kAiv ||
                        task.shape == TaskShape::kMix;
  Json j;
  j["task_id"] = std::to_string(task.runtime_id);
  j["scope"] = task.manual_scope ? "manual" : "auto";
  // The orchestrator marks allocs early-resolvable for its own bookkeeping;
  // the runtime's alloc tasks carry no such attribute.
  j["early_dispatch"] = task.shape != TaskShape::kAlloc && task.allow_early_resolve;
  j["kernel_ids"] = on_cores
                        ? Json::array({task.kernel_ids[0], task.kernel_ids[1], task.kernel_ids[2]})
                        : Json::array({-1, -1, -1});
  j["block_num"] = task.block_num;
  Json args = Json::array();
  tensor_ordinal_.assign(task.args.size(), -1);
  int ordinal = 0;
  for (size_t i = 0; i < task.args.size(); ++i) {
    const TaskArg& arg = task.args[i];
    if (!arg.is_tensor) continue;
    tensor_ordinal_[i] = ordinal;
    const TensorView& view = arg.view;
    const uint64_t tensor_id = DepsTensorId(view.base_addr);
    Json a;
    a["idx"] = ordinal++;
    a["type"] = DepsArgTypeName(arg.direction);
    a["tensor_id"] = std::to_string(tensor_id);
    a["dtype"] = DTypeRuntimeName(view.dtype);
    a["shape"] = Dims(view.shape, view.ndims);
    a["start_offset"] = std::to_string(view.start_offset);
    a["strides"] = Dims(view.strides, view.ndims);
    args.push_back(std::move(a));
    if (tensors_seen_.insert(tensor_id).second) {
      uint64_t numel = 0;
      DType dtype = view.dtype;
      if (view.tensor_id < static_cast<uint32_t>(header_.tensors_size())) {
        const trace::Tensor& root = header_.tensors(static_cast<int>(view.tensor_id));
        dtype = root.dtype();
        if (DTypeSize(dtype) > 0) numel = root.size_bytes() / DTypeSize(dtype);
      }
      Json t;
      t["tensor_id"] = std::to_string(tensor_id);
      t["buffer_addr"] = std::to_string(view.base_addr);
      t["version"] = 0;
      t["dtype"] = DTypeRuntimeName(dtype);
      t["buffer_numel"] = std::to_string(numel);
      tensors_.Append(t.dump());
    }
  }
  j["args"] = std::move(args);
  tasks_.Append(j.dump());

  for (const DepEdge& edge : edges) {
    const LaunchLog::TaskInfo* producer = log_ ? log_->Find(edge.producer) : nullptr;
    Json e;
    if (producer == nullptr || !producer->known) ++unknown_producers_;
    e["pred"] = std::to_string(producer ? producer->runtime_id : 0);
    e["succ"] = std::to_string(task.runtime_id);
    const bool has_arg = edge.source != EdgeSource::kExplicit && edge.arg_index >= 0 &&
                         static_cast<size_t>(edge.arg_index) < task.args.size();
    e["arg"] = has_arg ? tensor_ordinal_[edge.arg_index] : -1;
    e["source"] = EdgeSourceName(edge.source);
    e["flags"] = edge.source == EdgeSource::kTensorMap ? Json::array({"wait"})
                                                       : Json::array({"wait", "retain"});
    if (has_arg) {
      const TensorView& consumer = task.args[edge.arg_index].view;
      if (edge.source == EdgeSource::kTensorMap) e["overlap"] = OverlapName(edge.overlap);
      e["tensor_id"] = std::to_string(DepsTensorId(consumer.base_addr));
      AddGeometry(e, "consumer_", consumer, /*with_dtype=*/true);
      if (edge.source == EdgeSource::kTensorMap) {
        AddGeometry(e, "producer_", edge.producer_view, /*with_dtype=*/false);
      }
    }
    edges_.Append(e.dump());
  }
}

absl::Status DepsWriter::Finalize() {
  if (unknown_producers_ > 0) {
    return absl::InternalError(absl::StrCat(
        dir_, "/deps.json: ", unknown_producers_,
        " edges name a producer never reported through OnTaskSubmitted; the driver must "
        "report every task, allocs and dummies included"));
  }
  {
    AtomicFile file(absl::StrCat(dir_, "/deps.json"));
    if (absl::Status s = file.Open(); !s.ok()) return s;
    std::ostream& out = file.out();
    out << "{\"tasks\": ";
    if (absl::Status s = tasks_.SpliceInto(out); !s.ok()) return s;
    out << ",\n\"tensors\": ";
    if (absl::Status s = tensors_.SpliceInto(out); !s.ok()) return s;
    out << ",\n\"edges\": ";
    if (absl::Status s = edges_.SpliceInto(out); !s.ok()) return s;
    out << "}\n";
    if (absl::Status s = file.Commit(); !s.ok()) return s;
  }
  Json names = Json::object();
  for (const trace::Kernel& kernel : header_.kernels()) {
    names[std::to_string(kernel.id())] = kernel.name();
  }
  Json map;
  map["level"] = 2;
  map["orchestrator_name"] = case_name_;
  map["callable_id_to_name"] = std::move(names);
  return WriteFileAtomically(absl::StrCat(dir_, "/", NameMapFileName(case_name_)),
                             map.dump(2) + "\n");
}

}  // namespace pto
