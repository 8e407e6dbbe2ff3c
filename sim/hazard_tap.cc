#include "sim/hazard_tap.h"

#include "common/dtype.h"

namespace pto {
HazardTap::HazardTap(const trace::StreamHeader& header, int64_t line_bytes) : header_(header) {
  HazardDetector::Options options;
  options.line_bytes = line_bytes;
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
  detector_->AddTask(task.seq, task.name);
  UniqueProducers(task.seq, edges, &producers_);
  for (TaskSeq producer : producers_) detector_->AddDependency(producer, task.seq);
  if (task.predicate.present) {
    detector_->AddPredicateRead(task.seq, task.predicate.addr, DTypeSize(task.predicate.dtype));
  }
}

void HazardTap::OnGmAccess(TaskSeq task, int64_t, int, GmAccess kind, uint64_t addr,
                           uint64_t size) {
  const GmAccessKind access = kind == GmAccess::kRead    ? GmAccessKind::kRead
                              : kind == GmAccess::kWrite ? GmAccessKind::kWrite
                                                         : GmAccessKind::kAtomicAdd;
  detector_->AddAccess(task, access, addr, size);
}

void HazardTap::OnTaskRetired(const Task& task) {
  detector_->EndTask(task.seq);
  detector_->RetireTask(task.seq);
}

void HazardTap::Finish(HazardOutput* output) {
  detector_->Flush();
  for (const HazardReport& report : detector_->TakeReports()) output->Add(report);
}

}  // namespace pto
