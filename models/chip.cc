#include "models/chip.h"

#include "absl/strings/str_cat.h"

namespace pto {

Chip::Chip(sc_core::sc_module_name name, ChipContext* context, RecordSource* source,
           LaunchListener* listener)
    : sc_module(name), context_(context), group_(context) {
  context->set_signals(this);
  gm_ = std::make_unique<GlobalMemory>("gm", &context->memory());
  const int clusters = static_cast<int>(context->config().chip.clusters);
  for (int c = 0; c < clusters; ++c) {
    cores_.push_back(
        std::make_unique<AiCore>(absl::StrCat("aic", c).c_str(), c, CoreKind::kAic, c, context));
  }
  for (int c = 0; c < clusters; ++c) {
    for (int lane = 0; lane < 2; ++lane) {
      const int id = clusters + 2 * c + lane;
      cores_.push_back(std::make_unique<AiCore>(absl::StrCat("aiv", id - clusters).c_str(), id,
                                                CoreKind::kAiv, c, context));
    }
  }
  for (auto& core : cores_) core->socket.bind(gm_->socket);

  const int threads = static_cast<int>(context->config().aicpu.scheduler_threads);
  owner_of_core_.assign(cores_.size(), nullptr);
  for (int t = 0; t < threads; ++t) {
    std::vector<AiCore*> owned;
    for (int c = t; c < clusters; c += threads) {
      owned.push_back(cores_[c].get());
      owned.push_back(cores_[clusters + 2 * c].get());
      owned.push_back(cores_[clusters + 2 * c + 1].get());
    }
    schedulers_.push_back(std::make_unique<SchedulerThread>(absl::StrCat("sched", t).c_str(), t,
                                                            context, this, &group_, owned));
    group_.Add(schedulers_.back().get());
    for (AiCore* core : owned) owner_of_core_[core->id()] = schedulers_.back().get();
  }
  orchestrator_ = std::make_unique<Orchestrator>("orch", context, this, source, listener);
}

void Chip::WakeSchedulers(TimePs visible_at) {
  for (auto& thread : schedulers_) thread->Wake(visible_at);
}

void Chip::WakeOrchestrator() { orchestrator_->Wake(); }

void Chip::RingDoorbell(int core, TaskSeq task, TimePs at) {
  cores_[core]->RingDoorbell(at - static_cast<TimePs>(sc_core::sc_time_stamp().value()));
  owner_of_core_[core]->Ungate(core, task);
}

std::string Chip::DescribeStall() const {
  std::string report =
      absl::StrCat("the orchestrator is waiting for ", orchestrator_->WaitingFor());
  const ReadyQueues& ready = context_->ready();
  for (TaskShape shape : {TaskShape::kAic, TaskShape::kAiv, TaskShape::kMix, TaskShape::kDummy}) {
    if (!ready.Empty(shape)) {
      absl::StrAppend(&report, "; ", ready.Size(shape), " ", TaskShapeName(shape),
                      " task(s) ready but never dispatched");
    }
  }
  for (const auto& thread : schedulers_) {
    if (thread->running_cores() > 0) {
      absl::StrAppend(&report, "; scheduler ", thread->index(), " has ", thread->running_cores(),
                      " core(s) that never finished");
    }
  }
  return report;
}

}  // namespace pto
