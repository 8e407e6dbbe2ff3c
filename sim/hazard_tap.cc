#include "sim/hazard_tap.h"

#include "common/dtype.h"

namespace pto {
HazardTap::HazardTap(const trace::StreamHeader& header, int64_t line_bytes,
                     const std::array<int64_t, HazardDetector::kRings>& task_windows)
    : header_(header) {
  HazardDetector::Options options;
  options.line_bytes = line_bytes;
  options.task_window = task_windows;
  options.on_retire = [this](TaskSeq seq) { program_deps_.EraseProducer(seq); };
  detector_ =
      std::make_unique<HazardDetector>(options, [this](uint64_t addr, HazardTensor* tensor) {
        for (const trace::Tensor& t : header_.tensors()) {
          if (addr >= t.gm_addr() && addr < t.gm_addr() + t.size_bytes()) {
            tensor->id = t.id();
            tensor->name = t.name();
            tensor->base = t.gm_addr();
            return true;
          }
        }
        return false;
      });
}

void HazardTap::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs, TimePs) {
  // runtime_id: the ring in the high 32 bits, the ring-local id in the low.
  detector_->AddTask(task.seq, task.name, static_cast<int>(task.runtime_id >> 32),
                     static_cast<uint32_t>(task.runtime_id), task.origin);
  if (task.block_num > 1) multi_block_.insert(task.seq);
  // The runtime's edges, and the tensor-map edges the program implies
  // (also to producers the runtime had already retired).
  UniqueProducers(task.seq, edges, &producers_);
  dep_args_.clear();
  for (const TaskArg& arg : task.args) {
    if (!arg.is_tensor) continue;
    DepArg& dep = dep_args_.emplace_back();
    dep.view = arg.view;
    dep.direction = arg.direction;
    dep.manual_dep = ManualDep(arg.view.tensor_id);
  }
  InferStats stats;
  program_deps_.Infer(task.seq,
                      task.manual_scope ? trace::ScopeBegin::MANUAL : trace::ScopeBegin::AUTO,
                      dep_args_, {}, &program_edges_, &stats);
  for (const DepEdge& edge : program_edges_) {
    if (edge.source == EdgeSource::kTensorMap) producers_.push_back(edge.producer);
  }
  detector_->AddDependencies(producers_, task.seq);
  if (task.predicate.present) {
    detector_->AddPredicateRead(task.seq, task.predicate.addr, DTypeSize(task.predicate.dtype));
  }
}

bool HazardTap::ManualDep(uint32_t tensor_id) {
  // Tensor ids are small and dense: a flag per id, read off the header
  // whenever an id is new (a Declare record may add tensors mid-run).
  if (tensor_id >= manual_dep_.size() || manual_dep_[tensor_id] == kUnknown) {
    for (const trace::Tensor& t : header_.tensors()) {
      if (t.id() >= manual_dep_.size()) manual_dep_.resize(t.id() + 1, kUnknown);
      manual_dep_[t.id()] = t.manual_dep() ? 1 : 0;
    }
    if (tensor_id >= manual_dep_.size()) manual_dep_.resize(tensor_id + 1, kUnknown);
    if (manual_dep_[tensor_id] == kUnknown) manual_dep_[tensor_id] = 0;
  }
  return manual_dep_[tensor_id] == 1;
}

namespace {

GmAccessKind KindOf(CoreObserver::GmAccess kind) {
  return kind == CoreObserver::GmAccess::kRead    ? GmAccessKind::kRead
         : kind == CoreObserver::GmAccess::kWrite ? GmAccessKind::kWrite
                                                  : GmAccessKind::kAtomicAdd;
}

}  // namespace

void HazardTap::OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                         int64_t rows, uint64_t row_bytes, uint64_t stride) {
  const GmAccessKind access = KindOf(kind);
  detector_->AddRowsAccess(task, access, addr, rows, row_bytes, stride);
  if (!multi_block_.contains(task)) return;
  detector_->AddBlockRowsAccess(task, static_cast<int>(block), core, access, addr, rows, row_bytes,
                                stride);
}

void HazardTap::OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                           uint64_t size) {
  const GmAccessKind access = KindOf(kind);
  detector_->AddAccess(task, access, addr, size);
  if (multi_block_.contains(task)) {
    detector_->AddBlockAccess(task, static_cast<int>(block), core, access, addr, size);
  }
}

void HazardTap::OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) {
  if (!multi_block_.contains(task)) return;
  BlockEventKind event = BlockEventKind::kSyncall;
  switch (kind) {
    case BlockSync::kCacheInvalidAll:
      event = BlockEventKind::kCacheInvalidAll;
      break;
    case BlockSync::kCacheInvalidLine:
      event = BlockEventKind::kCacheInvalidLine;
      break;
    case BlockSync::kFence:
      event = BlockEventKind::kFence;
      break;
    case BlockSync::kSyncall:
      break;
  }
  detector_->AddBlockEvent(task, static_cast<int>(block), core, event, addr);
}

void HazardTap::OnTaskCompleted(const Task& task) {
  multi_block_.erase(task.seq);
  detector_->EndTask(task.seq);
}

void HazardTap::OnHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                           const std::string& origin) {
  detector_->AddHostRead(addr, size, waited, origin.empty() ? "a host read" : origin);
}

void HazardTap::Finish(HazardOutput* output) {
  detector_->Flush();
  for (const HazardReport& report : detector_->TakeReports()) output->Add(report);
}

}  // namespace pto
