#include "models/chip.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/base/sc_time.h"

namespace pto {

Chip::Chip(sc_core::sc_module_name name, const ChipSetup& setup)
    : sc_module(name),
      config_(*setup.config),
      observer_(setup.observer),
      listener_(setup.listener),
      calendar_process_("calendar", &calendar_),
      failure_([this](const absl::Status&) {
        calendar_.Stop();
        sc_core::sc_stop();
      }),
      tasks_([this](Task& task) { OnRetire(task); }),
      task_port_(&tasks_),
      lifecycle_(TaskLifecycle::Env{&tasks_, &ready_, this,
                                    setup.functional ? setup.memory : nullptr,
                                    Ns(setup.config->aicpu.doorbell_ns), setup.observer}),
      group_(&tasks_, &lifecycle_) {
  // Before any module builds a time: SystemC refuses to change the
  // resolution once a non-zero sc_time exists.
  UsePicosecondResolution();
  gm_ = std::make_unique<GlobalMemory>("gm", setup.memory, config_.gm);
  memory_service_ = std::make_unique<MemoryService>(&calendar_, MemorySystemParams::Of(config_));
  AiCoreEnv core_env{&config_,     &calendar_,  setup.functional, setup.kernels,
                     setup.memory, &task_port_, observer_,        &failure_};
  core_env.memory_service = memory_service_.get();
  memory_service_->set_hbm_rate_listener(
      [this](TimePs at, double bytes_per_ns) { observer_->OnHbmRate(at, bytes_per_ns); });
  core_env.l2 = &gm_->timing().l2();
  const int clusters = static_cast<int>(config_.chip.clusters);
  for (int c = 0; c < clusters; ++c) {
    mix_boards_.push_back(std::make_unique<MixTransferBoard>(/*lanes=*/3));
  }
  for (int c = 0; c < clusters; ++c) {
    core_env.mix_board = mix_boards_[c].get();
    cores_.push_back(
        std::make_unique<AiCore>(absl::StrCat("aic", c).c_str(), c, CoreKind::kAic, c, core_env));
  }
  for (int c = 0; c < clusters; ++c) {
    core_env.mix_board = mix_boards_[c].get();
    for (int lane = 0; lane < 2; ++lane) {
      const int id = clusters + 2 * c + lane;
      cores_.push_back(std::make_unique<AiCore>(absl::StrCat("aiv", id - clusters).c_str(), id,
                                                CoreKind::kAiv, c, core_env));
    }
  }
  for (auto& core : cores_) {
    core->socket.bind(gm_->socket);
    core->set_sync_fabric(this);
  }

  const SchedulerEnv scheduler_env{&calendar_, &config_.aicpu, config_.core.dispatch_slots,
                                   &tasks_,    &ready_,        &lifecycle_,
                                   this,       observer_,      &failure_};
  const int threads = static_cast<int>(config_.aicpu.scheduler_threads);
  owner_of_core_.assign(cores_.size(), nullptr);
  for (int t = 0; t < threads; ++t) {
    std::vector<AiCore*> owned;
    for (int c = t; c < clusters; c += threads) {
      owned.push_back(cores_[c].get());
      owned.push_back(cores_[clusters + 2 * c].get());
      owned.push_back(cores_[clusters + 2 * c + 1].get());
    }
    schedulers_.push_back(std::make_unique<SchedulerThread>(absl::StrCat("sched", t).c_str(), t,
                                                            scheduler_env, &group_, owned));
    group_.Add(schedulers_.back().get());
    for (AiCore* core : owned) owner_of_core_[core->id()] = schedulers_.back().get();
  }
  OrchestratorEnv orchestrator_env;
  orchestrator_env.calendar = &calendar_;
  orchestrator_env.config = &config_;
  for (const trace::Tensor& tensor : setup.header->tensors()) {
    orchestrator_env.tensors.push_back(&tensor);
  }
  orchestrator_env.ring_limits = setup.ring_limits;
  orchestrator_env.launch_ring_limits = setup.launch_ring_limits;
  orchestrator_env.tasks = &tasks_;
  orchestrator_env.deps = &deps_;
  orchestrator_env.lifecycle = &lifecycle_;
  orchestrator_env.signals = this;
  orchestrator_env.observer = observer_;
  orchestrator_env.failure = &failure_;
  orchestrator_env.source = setup.source;
  orchestrator_env.events = this;
  orchestrator_ = std::make_unique<Orchestrator>("orch", orchestrator_env);
}

void Chip::OnRetire(Task& task) {
  deps_.EraseProducer(task.seq);
  WakeOrchestrator();
  lifecycle_.OnRetired(task);
  observer_->OnTaskRetired(task);
}

void CoreTotals::Add(CoreKind kind, const CoreCounters& core) {
  if (core.first_kernel_start != kNever &&
      (first_kernel_start == kNever || core.first_kernel_start < first_kernel_start)) {
    first_kernel_start = core.first_kernel_start;
  }
  last_kernel_end = std::max(last_kernel_end, core.last_kernel_end);
  (kind == CoreKind::kAic ? aic_busy : aiv_busy) += core.busy;
  (kind == CoreKind::kAic ? aic_gm_stall : aiv_gm_stall) += core.gm_stall;
  mix += core.mix;
  for (const SummaryStretch& stretch : core.stretched) NoteStretch(stretch, &stretched);
}

void Chip::OnLaunchBegin(int launch, const std::string& name) {
  group_.BeginLaunch();
  for (auto& core : cores_) core->BeginLaunch();
  lifecycle_.BeginLaunch();
  gm_at_launch_begin_ = memory_service_->system().counters();
  listener_->OnLaunchBegin(launch, name);
}

void Chip::OnLaunchEnd(int launch) {
  LaunchCounters counters;
  counters.orchestrator = orchestrator_->counters();
  for (int ring = 0; ring < kNumRings; ++ring) {
    counters.rings[ring] = orchestrator_->rings().stats(ring);
  }
  counters.schedulers = group_.Totals();
  for (const auto& thread : schedulers_) counters.threads.push_back(thread->counters());
  counters.sync_drains = group_.sync_drains();
  for (const auto& core : cores_) counters.cores.Add(core->core_kind(), core->counters());
  counters.lifecycle = lifecycle_.counters();
  counters.gm = memory_service_->system().counters() - gm_at_launch_begin_;
  listener_->OnLaunchEnd(launch, counters);
}

void Chip::WakeSchedulers(TimePs visible_at) {
  for (auto& thread : schedulers_) thread->Wake(visible_at);
}

void Chip::WakeOrchestrator() { orchestrator_->Wake(); }

void Chip::RingDoorbell(int core, TaskSeq task, TimePs at) {
  cores_[core]->RingDoorbell(task, at - calendar_.now());
  owner_of_core_[core]->Ungate(core, task);
}

void Chip::ArriveAtSyncall(AiCore* core, TaskSeq task, const SyncallRequest& request, TimePs at) {
  const ChipConfig& config = config_;
  if (request.mode == trace::Op::SOFT) {
    auto& barrier = soft_barriers_[{task, request.workspace_addr}];
    if (barrier == nullptr) {
      barrier =
          std::make_unique<SoftBarrier>(request.used_cores, Ns(config.core.soft_syncall_poll_ns));
    }
    absl::StatusOr<std::vector<SoftBarrier::Release>> releases = barrier->Arrive(core->id(), at);
    if (!releases.ok()) return failure_.Fail(releases.status());
    if (releases->empty()) return;
    for (const SoftBarrier::Release& release : *releases) {
      cores_[release.core]->ReleaseSyncall(release.exit_ps);
    }
    soft_barriers_.erase({task, request.workspace_addr});
    return;
  }
  const BarrierCoreType type = request.core_type == trace::AIC   ? BarrierCoreType::kAic
                               : request.core_type == trace::MIX ? BarrierCoreType::kMix
                                                                 : BarrierCoreType::kAiv;
  HardWait& wait = hard_barriers_[{task, static_cast<int>(type)}];
  if (wait.barrier == nullptr) {
    wait.barrier =
        std::make_unique<HardBarrier>(type, config.chip.clusters, Ns(config.core.hard_syncall_ns));
  }
  absl::StatusOr<std::optional<int64_t>> release = wait.barrier->Arrive(core->id(), at);
  if (!release.ok()) return failure_.Fail(release.status());
  wait.waiting.push_back(core);
  if (!release->has_value()) return;
  for (AiCore* waiting : wait.waiting) waiting->ReleaseSyncall(**release);
  hard_barriers_.erase({task, static_cast<int>(type)});
}

std::string Chip::DescribeStall() const {
  std::string report =
      absl::StrCat("the orchestrator is waiting for ", orchestrator_->WaitingFor());
  const ReadyQueues& ready = ready_;
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
  // The oldest live tasks and why each is still there.
  int listed = 0;
  tasks_.ForEachLive([&](const Task& t) {
    const char* why = !t.completed
                          ? (t.fanin_pending > 0 ? "waiting for producers" : "not finished")
                      : !t.scope_released ? "its scope is still open"
                      : t.retain_pins > 0 ? "still retained by consumers"
                                          : "behind an older task of its ring";
    absl::StrAppend(&report, listed == 0 ? "; live tasks: " : ", ", "'", t.name, "' (launch index ",
                    t.index_in_launch, ", ring ", t.ring, ": ", why, ")");
    return ++listed < 8;
  });
  const auto task_name = [&](TaskSeq task) -> std::string {
    const Task* t = tasks_.Find(task);
    return t != nullptr ? t->name : absl::StrCat("#", task);
  };
  for (const auto& [key, wait] : hard_barriers_) {
    absl::StrAppend(&report, "; ", wait.barrier->Report(task_name(key.first)));
  }
  for (const auto& [key, barrier] : soft_barriers_) {
    absl::StrAppend(&report, "; ", barrier->Report(task_name(key.first)));
  }
  return report;
}

}  // namespace pto
