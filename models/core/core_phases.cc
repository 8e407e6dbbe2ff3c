#include "models/core/core_phases.h"

#include <algorithm>
#include <cassert>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "models/core/block_pipes.h"
#include "models/core/mix_pipeline.h"
#include "models/core/op_cost.h"

namespace pto {
namespace {

template <typename T>
bool Later(const T& a, const T& b) {
  return a.at > b.at;
}

}  // namespace

void NoteStretch(const SummaryStretch& stretch, std::vector<SummaryStretch>* worst) {
  for (SummaryStretch& s : *worst) {
    if (s.kernel != stretch.kernel) continue;
    // The larger relative stretch (cross-multiplied: no rounding).
    if (static_cast<__int128>(stretch.took) * s.fixed >
        static_cast<__int128>(s.took) * stretch.fixed) {
      s = stretch;
    }
    return;
  }
  worst->push_back(stretch);
}

MixRingCounters& MixRingCounters::operator+=(const MixRingCounters& other) {
  blocks += other.blocks;
  pushes += other.pushes;
  cube_busy += other.cube_busy;
  vector_busy += other.vector_busy;
  overlap += other.overlap;
  slot_wait += other.slot_wait;
  data_wait += other.data_wait;
  return *this;
}

CorePhases::CorePhases(int id, CoreKind kind, int cluster, const CoreDeps& deps)
    : id_(id),
      kind_(kind),
      cluster_(cluster),
      deps_(deps),
      config_(*deps.config),
      backend_(this),
      cache_(&backend_, deps.config->gm.dcache_line_bytes),
      recorder_(&cache_, deps.observer),
      hooks_(this),
      pipes_(PipeLimitsOf(deps.config->core)),
      block_pipes_(*deps.config),
      executor_(*deps.config) {
  events_.reserve(8);
  cache_.set_keeps_data(deps.functional);
  executor_.set_scalar_memory(deps.scalars);
}

void CorePhases::Schedule(TimePs at, EventKind kind, uint32_t token) {
  events_.push_back(Event{at, kind, token});
  std::push_heap(events_.begin(), events_.end(), Later<Event>);
  if (wake_at_ == kNever || at < wake_at_) {
    wake_at_ = at;
    deps_.host->WakeAt(at);
  }
}

void CorePhases::Dispatch(TimePs now, const BlockWork& work, TimePs publish_delay) {
  now_ = now;
  if (!running_assigned_) {
    running_ = work;
    running_assigned_ = true;
  } else {
    pending_ = work;
    has_pending_ = true;
    pending_arrived_ = false;
  }
  TimePs propagation = Ns(config_.aicpu.dispatch_to_core_ns);
  if (!delivered_before_) {
    // The first dispatch a core sees takes longer to arrive, and much longer
    // on about half the cores (hw-native-sys/simpler@6ebaf771
    // docs/investigations/2026-06-aicore-cold-start-warmup.md; which half is an assumption).
    delivered_before_ = true;
    propagation += Ns(config_.core.cold_propagation_ns);
    if (2 * cluster_ >= config_.chip.clusters) {
      propagation += Ns(config_.core.cold_far_propagation_ns);
    }
  }
  const TimePs arrive = now + publish_delay + propagation;
  if (phase_ == Phase::kIdle && !has_pending_ && running_.token == work.token) {
    // An idle core takes the block up as it arrives, and nothing can reach
    // it before its setup ends but a doorbell (which a gated block counts
    // either way): one event at the setup's end, the arrival recorded.
    deferred_receive_at_ = arrive;
    Schedule(arrive + SetupOf(work, /*pending_pickup=*/false), EventKind::kSetupDone);
  } else {
    Schedule(arrive, EventKind::kArrive, work.token);
  }
  if (work.gated) {
    gated_prepared_at_ = now + publish_delay + propagation + Ns(config_.core.staged_setup_ns) +
                         (warmed_up_ ? 0 : Ns(config_.core.cold_start_ns));
  }
}

void CorePhases::RingDoorbell(TimePs now, TaskSeq task, TimePs delay) {
  now_ = now;
  // Both slots may hold gated blocks (of one task or two): the doorbell
  // belongs to the oldest one not yet rung.
  BlockWork* work = nullptr;
  if (running_assigned_ && running_.task == task && !running_.doorbell_sent) {
    work = &running_;
  } else if (has_pending_ && pending_.task == task && !pending_.doorbell_sent) {
    work = &pending_;
  }
  if (work == nullptr) return;
  work->doorbell_sent = true;
  Schedule(now + delay + Ns(config_.aicpu.dispatch_to_core_ns), EventKind::kDoorbell, work->token);
}

void CorePhases::ReleaseSyncall(TimePs now, TimePs at) {
  now_ = now;
  Schedule(std::max(at, now), EventKind::kSyncResume);
}

const CoreInterval* CorePhases::IntervalOf(uint32_t token) const {
  const CoreInterval& interval = recent_[token % recent_.size()];
  return interval.reg_task_id == token && interval.task != kNoTask ? &interval : nullptr;
}

void CorePhases::Advance(TimePs now) {
  now_ = now;
  wake_at_ = kNever;  // the wake that brought us here is spent
  while (!events_.empty() && events_.front().at <= now && !deps_.failure->failed()) {
    std::pop_heap(events_.begin(), events_.end(), Later<Event>);
    const Event event = events_.back();
    events_.pop_back();
    switch (event.kind) {
      case EventKind::kArrive:
        if (event.token == running_.token && phase_ == Phase::kIdle && running_assigned_) {
          Receive(running_, /*pending_pickup=*/false);
        } else if (event.token == running_.token && phase_ == Phase::kRecord && running_assigned_) {
          pickup_after_record_ = true;  // taken once the record is written back
        } else if (has_pending_ && event.token == pending_.token) {
          pending_arrived_ = true;
        }
        break;
      case EventKind::kSetupDone:
        if (deferred_receive_at_ != kNever) {
          const TimePs at = deferred_receive_at_;
          deferred_receive_at_ = kNever;
          BeginReceive(running_, at);
        }
        if (running_.gated) {
          if (!doorbell_rung_) {
            phase_ = Phase::kGated;  // prepared; waits for the doorbell
            break;
          }
          doorbell_rung_ = false;  // consumed
        }
        Start();
        break;
      case EventKind::kDoorbell:
        if (running_assigned_ && event.token == running_.token) {
          if (phase_ == Phase::kGated) {
            Start();
          } else if (phase_ == Phase::kSetup) {
            doorbell_rung_ = true;  // arrived while still setting up
          } else {
            running_.doorbell_rung = true;  // before the block arrived
          }
        } else if (has_pending_ && event.token == pending_.token) {
          pending_.doorbell_rung = true;  // the block waits behind the running one
        }
        break;
      case EventKind::kSyncArrive:
        at_syncall_ = true;
        if (barrier_ == nullptr) {
          deps_.failure->Fail(absl::InternalError(
              absl::StrCat("core ", id_, ": SYNCALL reached but no barrier block is wired")));
          break;
        }
        {
          TimePs at = now;
          const SyncallRequest& request = executor_.syncall();
          ReportSync(CoreObserver::BlockSync::kSyncall, 0);
          if (request.mode == trace::Op::SOFT && UsesCache() && charge_gm_) {
            // The soft counter: an atomic add past the cache; polling starts
            // once it landed.
            BeginSegment();
            const int32_t one = 1;
            cache_.AtomicAdd(request.workspace_addr, trace::INT32, &one, 1);
            if (flow_timing_) {
              // Timed on the shared memory system as a 4-byte write into
              // L2 (where the add happens); kSyncAdded arrives.
              syncall_add_ = deps_.host->StartTransfer(GmRuns{request.workspace_addr, 4, 1, 4},
                                                       GmDirection::kWrite);
              syncall_add_pending_ = true;
              break;
            }
            at = std::max(at, last_transfer_done_);
          }
          barrier_->Arrive(running_.task, request, at);
        }
        break;
      case EventKind::kSyncAdded:
        barrier_->Arrive(running_.task, executor_.syncall(), now);
        break;
      case EventKind::kSyncResume:
        at_syncall_ = false;
        BeginSegment();
        Continue(executor_.Resume());
        break;
      case EventKind::kPipeStart:
        StartPipes();
        break;
      case EventKind::kPipeTick:
        if (!pipes_active_) break;  // the segment ended before this compute end
        pipes_.RunUntil(now);
        AfterPipes();
        break;
      case EventKind::kPipeDone:
        pipes_.Complete(event.token, now);
        AfterPipes();
        break;
      case EventKind::kSummaryPhase:
        StartSummaryPhase(event.token);
        break;
      case EventKind::kMixIssue:
        IssueMixTransfer();
        break;
      case EventKind::kMixStep:
        MixStep();
        break;
      case EventKind::kSummaryBarrier:
        // Phases are told apart from program segments by a negative index.
        deps_.mix_board->Post(now,
                              MixTransferBoard::Segment{running_.task, running_.block,
                                                        -1 - static_cast<int32_t>(summary_phase_)},
                              this, {});
        break;
      case EventKind::kEnd:
        if (WriteBackBeforeFin()) End();
        break;
      case EventKind::kRecordDone:
        phase_ = Phase::kIdle;
        if (pickup_after_record_) {
          pickup_after_record_ = false;
          Receive(running_, pickup_is_pending_);
        }
        break;
    }
  }
  // The next event, unless it was asked for while handling these.
  if (!events_.empty() && events_.front().at != wake_at_) {
    wake_at_ = events_.front().at;
    deps_.host->WakeAt(wake_at_);
  }
}

TimePs CorePhases::SetupOf(const BlockWork& work, bool pending_pickup) const {
  const CoreParams& params = config_.core;
  // The payload dcci costs little on a core that idled since its last task
  // and more right after a kernel (local setup in hw-native-sys/simpler@6ebaf771
  // docs/investigations/2026-06-aicore-cold-start-warmup.md and
  // 2026-07-aicore-fills-all-args-ready-path.md).
  TimePs setup = Ns(work.gated       ? params.staged_setup_ns
                    : pending_pickup ? params.setup_ns
                                     : params.idle_setup_ns);
  if (!warmed_up_) setup += Ns(params.cold_start_ns);
  return setup;
}

void CorePhases::Receive(const BlockWork& work, bool pending_pickup) {
  const TimePs setup = SetupOf(work, pending_pickup);
  BeginReceive(work, now_);
  Schedule(now_ + setup, EventKind::kSetupDone);
}

void CorePhases::BeginReceive(const BlockWork& work, TimePs at) {
  current_ = CoreInterval{};
  current_.core = id_;
  current_.task = work.task;
  current_.block = work.block;
  current_.reg_task_id = work.token;
  current_.thread = work.thread;
  current_.dispatch = work.dispatch;
  current_.receive = at;
  warmed_up_ = true;
  doorbell_rung_ = work.doorbell_rung;
  phase_ = Phase::kSetup;
  // The runtime's pickup dcci: everything finished tasks published is
  // visible (its cost is in core.setup_ns).
  BeginSegment();
  cache_.OnTaskPickup();
  cache_.ClearWriteBacks();
}

void CorePhases::WriteCond(uint32_t token, bool fin, TimePs delay) {
  owner_->OnCondWritten(id_, CondValue{token, fin},
                        now_ + delay + Ns(config_.aicpu.fin_to_visible_ns));
}

void CorePhases::Start() {
  phase_ = Phase::kRunning;
  current_.start = now_;
  WriteCond(running_.token, /*fin=*/false);
  if (counters_.first_kernel_start == kNever) counters_.first_kernel_start = current_.start;
  deps_.tasks->StartBlock(running_.task, current_.start, &args_);
  const BlockContext block{running_.block, running_.block_num, running_.subblock};
  const bool functional = deps_.functional && running_.executes_data;
  kernel_ = &deps_.host->Kernel(running_.kernel);
  charge_gm_ = kernel_->core_type != trace::MIX;
  const bool times_transfers = deps_.host->times_transfers();
  // A cost summary without bytes keeps its one computed duration: no
  // phase events.
  summary_flows_ = kernel_->is_cost_summary && times_transfers &&
                   (kernel_->cost.bytes_in() > 0 || kernel_->cost.bytes_out() > 0);
  flow_timing_ = !kernel_->is_cost_summary && charge_gm_ && UsesCache() && times_transfers;
  mix_flow_ = RunsMixPipeline() && times_transfers && deps_.mix_board != nullptr;
  mix_segment_ = 0;
  executor_.set_stop_at_transfers(flow_timing_ || summary_flows_ || mix_flow_);
  if (summary_flows_) {
    SummarySpans(args_, GmDirection::kRead, &summary_reads_);
    SummarySpans(args_, GmDirection::kWrite, &summary_writes_);
    summary_stretch_ = 0;
    summary_at_barrier_ = false;
  }
  profile_.Clear();
  BeginSegment();
  stall_ps_ = Ns(config_.core.kernel_start_ns);
  recorder_.set_block(running_.task, running_.block, id_);
  // Timing-only with transfers timed on the shared memory system: DMA
  // bypasses the data cache and there are no bytes, so the tile transfers
  // skip it (scalar accesses still go through it).
  recorder_.set_forwards_transfers(deps_.functional || !(flow_timing_ || mix_flow_));
  Continue(executor_.Execute(*kernel_, block, args_, functional, UsesCache() ? &recorder_ : nullptr,
                             &profile_, &hooks_));
}

void CorePhases::Continue(const absl::Status& status) {
  if (status.ok() && summary_flows_) {
    // The phases start after the kernel's prologue.
    Schedule(segment_start_ + stall_ps_, EventKind::kSummaryPhase, 0);
    return;
  }
  if (status.ok() && mix_flow_) {
    // The segment runs at once; its transfers are noted for this lane to
    // time (FinishSegment).
    mix_timed_ = false;
    mix_lane_.Clear();
    absl::Status s = status;
    while (s.ok() && executor_.at_transfer()) {
      NoteMixTransfer();
      s = executor_.Resume();
    }
    FinishSegment(s);
    return;
  }
  if (!status.ok() || !flow_timing_) {
    FinishSegment(status);
    return;
  }
  RunOnPipes(status);
}

void CorePhases::RunOnPipes(const absl::Status& executed) {
  // The segment executes at once (its values and accesses in program
  // order); the stops before its transfers note what each moves.
  absl::Status status = executed;
  pipe_stop_runs_.clear();
  while (status.ok() && executor_.at_transfer()) {
    pipe_stop_runs_.push_back(executor_.transfer_runs());  // none at a FENCE
    status = executor_.Resume();
  }
  if (!status.ok()) {
    FinishSegment(status);
    return;
  }
  // The records onto the pipes: the k-th LOAD, STORE or FENCE record is the
  // op the k-th stop was before. Each pipe op notes its record and runs.
  pipes_.Clear();
  block_pipes_.Begin(*kernel_);
  pipe_transfers_.clear();
  pipe_record_.clear();
  size_t stop = 0;
  for (size_t i = segment_record_base_; i < profile_.records.size(); ++i) {
    const OpRecord& record = profile_.records[i];
    const trace::Op::Kind kind = kernel_->ops[record.op_index].kind;
    const bool stopped =
        kind == trace::Op::LOAD || kind == trace::Op::STORE || kind == trace::Op::FENCE;
    const GmRuns runs = stopped ? pipe_stop_runs_[stop++] : GmRuns{};
    block_pipes_.Add(record, runs, &pipes_);
    pipe_record_.resize(pipes_.size(), static_cast<uint32_t>(i));
  }
  // The ops start after what the segment stalled before them (the kernel
  // prologue).
  const TimePs start = segment_start_ + stall_ps_;
  if (start > now_) {
    Schedule(start, EventKind::kPipeStart);
  } else {
    StartPipes();
  }
}

void CorePhases::StartPipes() {
  pipes_active_ = true;
  pipe_wake_at_ = kNever;
  pipes_.Start(now_);
  AfterPipes();
}

void CorePhases::AfterPipes() {
  pipes_.TakeStarted(&pipe_started_);
  for (uint32_t op : pipe_started_) {
    const uint64_t id = deps_.host->StartTransfer(
        pipes_.gm_runs(op), pipes_.gm_write(op) ? GmDirection::kWrite : GmDirection::kRead);
    pipe_transfers_.emplace_back(id, op);
  }
  if (pipes_.finished()) {
    pipes_active_ = false;
    if (deps_.observer->wants_pipe_ops()) ReportPipeOps();
    FinishSegment(absl::OkStatus());
    return;
  }
  const TimePs next = pipes_.next_internal_at();
  if (next != kNever && next != pipe_wake_at_) {
    pipe_wake_at_ = next;
    Schedule(next, EventKind::kPipeTick);
  }
}

void CorePhases::ReportPipeOps() {
  pipe_ops_.clear();
  for (uint32_t op = 0; op < pipes_.size(); ++op) {
    // A matmul's MTE1 and CUBE steps are its record's, kind MATMUL.
    const OpRecord& record = profile_.records[pipe_record_[op]];
    const PipeOpTiming& timing = pipes_.timing(op);
    pipe_ops_.push_back(
        PipeOpInterval{pipes_.pipe_of(op), record.kind, record.op_index, timing.start, timing.end});
  }
  PipeSegment segment;
  segment.start = pipes_.end_time();
  for (const PipeOpInterval& op : pipe_ops_) segment.start = std::min(segment.start, op.start);
  segment.end = pipes_.end_time();
  segment.core = id_;
  segment.aic = kind_ == CoreKind::kAic;
  segment.task = running_.task;
  segment.block = running_.block;
  for (int p = 0; p < kPipeCount; ++p) segment.busy[p] = pipes_.busy(static_cast<Pipe>(p));
  segment.ops = pipe_ops_;
  deps_.observer->OnPipeOps(segment);
}

void CorePhases::StartSummaryPhase(int64_t phase) {
  const int64_t phases = static_cast<int64_t>(profile_.records.size() - segment_record_base_);
  if (phase == phases) {
    // The block's ops end now; what its phases waited beyond their compute
    // (and the prologue) is its stall.
    stall_ps_ =
        std::max<TimePs>(0, now_ - segment_start_ - Ns(profile_.op_ns() - segment_op_base_ns_));
    if (summary_stretch_ > 0 && kernel_->cost.fixed_cycles() > 0) {
      const TimePs fixed = Ns(profile_.op_ns() - segment_op_base_ns_);
      NoteStretch(SummaryStretch{kernel_->id, fixed, fixed + summary_stretch_},
                  &counters_.stretched);
    }
    FinishSegment(absl::OkStatus());
    return;
  }
  summary_phase_ = phase;
  summary_compute_end_ =
      now_ + Ns(profile_.records[segment_record_base_ + static_cast<size_t>(phase)].cost_ns);
  summary_landed_ = now_;
  summary_outstanding_ = 0;
  // A MIX kernel's bytes are moved by its cluster's lanes together, each
  // through its own caps.
  const bool mix = kernel_->core_type == trace::MIX;
  const int64_t lanes = mix ? 1 + config_.aiv_count() / config_.chip.clusters : 1;
  const int64_t lane = mix && kind_ == CoreKind::kAiv ? 1 + running_.subblock : 0;
  const SummaryShare share{
      running_.block, std::max<int64_t>(1, running_.block_num), phase, phases, lane, lanes};
  IssueSummaryBytes(summary_reads_, kernel_->cost.bytes_in(), share, GmDirection::kRead);
  IssueSummaryBytes(summary_writes_, kernel_->cost.bytes_out(), share, GmDirection::kWrite);
  if (summary_outstanding_ == 0) EndSummaryPhase();
}

void CorePhases::IssueSummaryBytes(const std::vector<GmSpan>& spans, uint64_t total,
                                   const SummaryShare& share, GmDirection direction) {
  const ByteSlice slice = SummarySlice(total, share);
  if (slice.bytes == 0) return;
  deps_.observer->OnSummaryBytes(running_.task, running_.block, id_,
                                 direction == GmDirection::kRead ? CoreObserver::GmAccess::kRead
                                                                 : CoreObserver::GmAccess::kWrite,
                                 slice.bytes);
  if (spans.empty()) {
    deps_.host->StartUnplacedTransfer(slice.bytes, direction);
    ++summary_outstanding_;
    return;
  }
  summary_runs_.clear();
  AppendStreamRuns(spans, slice, &summary_runs_);
  for (const GmRuns& runs : summary_runs_) {
    deps_.host->StartTransfer(runs, direction);
    ++summary_outstanding_;
  }
}

void CorePhases::EndSummaryPhase() {
  const TimePs end = std::max(summary_compute_end_, summary_landed_);
  const TimePs stretch = end - summary_compute_end_;
  counters_.gm_stall += stretch;
  summary_stretch_ += stretch;
  const int64_t phases = static_cast<int64_t>(profile_.records.size() - segment_record_base_);
  if (kernel_->core_type == trace::MIX && deps_.mix_board != nullptr &&
      summary_phase_ + 1 < phases) {
    // The phases are split by in-kernel hard barriers: the next starts
    // once every lane of the cluster ended this one (OnMixTransfersTimed).
    summary_at_barrier_ = true;
    Schedule(end, EventKind::kSummaryBarrier);
    return;
  }
  Schedule(end, EventKind::kSummaryPhase, static_cast<uint32_t>(summary_phase_ + 1));
}

void CorePhases::OnTransferDone(uint64_t transfer, TimePs done) {
  if (syncall_add_pending_ && transfer == syncall_add_) {
    syncall_add_pending_ = false;
    Schedule(done, EventKind::kSyncAdded);
    return;
  }
  if (mix_flow_) {
    if (mix_lane_.load_pending() && transfer == mix_load_id_) {
      mix_load_done_ = done;
    } else {
      mix_lane_.OnStoreLanded();
    }
    Schedule(done, EventKind::kMixStep);
    return;
  }
  if (summary_flows_) {
    summary_landed_ = std::max(summary_landed_, done);
    if (--summary_outstanding_ == 0) EndSummaryPhase();
    return;
  }
  if (flow_timing_) {
    auto it = std::find_if(pipe_transfers_.begin(), pipe_transfers_.end(),
                           [transfer](const auto& t) { return t.first == transfer; });
    assert(it != pipe_transfers_.end());
    const uint32_t op = it->second;
    pipe_transfers_.erase(it);
    // A transfer takes at least its core-side time (DescribePipeOp); a
    // load's time beyond it is the block's GM stall.
    const TimePs core_side_end = pipes_.timing(op).start + pipes_.duration(op);
    if (profile_.records[pipe_record_[op]].kind == trace::Op::LOAD && done > core_side_end) {
      counters_.gm_stall += done - core_side_end;
    }
    Schedule(std::max(done, core_side_end), EventKind::kPipeDone, op);
  }
}

void CorePhases::NoteMixTransfer() {
  const CompiledOp& op = kernel_->ops[executor_.transfer_op()];
  if (op.kind == trace::Op::FENCE) return;
  const bool cube = kind_ == CoreKind::kAic;
  if ((op.engine == EngineKind::kCube) != cube) return;  // the other engine's
  MixLaneTransfers::Transfer t{profile_.records.size() - segment_record_base_,
                               executor_.transfer_runs(), executor_.transfer_direction()};
  if (!cube && kernel_->split != trace::SPLIT_NONE) {
    // Each AIV moves its half: half the rows, or of a single row's bytes.
    GmRuns& r = t.runs;
    const bool second = running_.subblock % 2 == 1;
    if (r.rows >= 2) {
      const int64_t first_rows = r.rows / 2;
      if (second) r.base += static_cast<uint64_t>(first_rows) * r.stride;
      r.rows = second ? r.rows - first_rows : first_rows;
    } else {
      const uint64_t first_bytes = r.row_bytes / 2;
      if (second) r.base += first_bytes;
      r.row_bytes = second ? r.row_bytes - first_bytes : first_bytes;
      r.stride = r.row_bytes;
    }
    if (r.bytes() == 0) return;
  }
  mix_lane_.Add(t);
}

void CorePhases::BeginMixTiming() {
  const absl::Span<const OpRecord> segment =
      absl::MakeConstSpan(profile_.records).subspan(segment_record_base_);
  absl::StatusOr<MixTimeline> plan = ScheduleMixBlock(segment, *kernel_, MixRing());
  if (!plan.ok()) {
    // The ring deadlocks whatever GM does: fail now (FinishSegment).
    mix_durations_.clear();
    mix_timed_ = true;
    FinishSegment(absl::OkStatus());
    return;
  }
  mix_planned_lane_end_ = kind_ == CoreKind::kAic ? plan->cube_end_ns : plan->vector_end_ns;
  mix_lane_.Begin(segment_start_ + stall_ps_, std::move(plan->op_start_ns),
                  std::move(plan->op_end_ns));
  mix_issue_scheduled_ = false;
  mix_load_done_ = kNever;
  mix_posted_ = false;
  MixStep();
}

void CorePhases::IssueMixTransfer() {
  mix_issue_scheduled_ = false;
  const MixLaneTransfers::Transfer& t = mix_lane_.next();
  const uint64_t id = deps_.host->StartTransfer(t.runs, t.direction);
  if (t.direction == GmDirection::kRead) mix_load_id_ = id;
  mix_lane_.Issue(now_);
  MixStep();
}

void CorePhases::MixStep() {
  if (mix_load_done_ != kNever) {
    mix_lane_.OnLoadLanded(mix_load_done_);
    mix_load_done_ = kNever;
  }
  if (mix_issue_scheduled_) return;
  if (mix_lane_.has_next()) {
    mix_issue_scheduled_ = true;
    Schedule(std::max(now_, mix_lane_.next_due()), EventKind::kMixIssue);
    return;
  }
  if (!mix_lane_.all_landed() || mix_posted_) return;
  mix_posted_ = true;
  deps_.mix_board->Post(now_,
                        MixTransferBoard::Segment{running_.task, running_.block, mix_segment_},
                        this, mix_lane_.durations_ns());
}

void CorePhases::OnMixTransfersTimed(TimePs now, absl::Span<const double> durations_ns) {
  now_ = now;
  if (summary_at_barrier_) {
    // Every lane reached the cost summary's barrier: the next phase.
    summary_at_barrier_ = false;
    Schedule(now, EventKind::kSummaryPhase, static_cast<uint32_t>(summary_phase_ + 1));
    return;
  }
  mix_durations_.assign(durations_ns.begin(), durations_ns.end());
  mix_timed_ = true;
  ++mix_segment_;
  FinishSegment(absl::OkStatus());
}

void CorePhases::BeginSegment() {
  segment_start_ = now_;
  segment_op_base_ns_ = profile_.op_ns();
  segment_record_base_ = profile_.records.size();
  stall_ps_ = 0;
}

bool CorePhases::RunsMixPipeline() const {
  return kernel_->core_type == trace::MIX && !kernel_->is_cost_summary;
}

MixRingParams CorePhases::MixRing() const {
  const CoreParams& params = config_.core;
  MixRingParams ring;
  ring.slot_num = params.cross_core_slots > 0 ? params.cross_core_slots : kernel_->slot_num;
  ring.split = kernel_->split;
  ring.transfer_latency_ns = params.cross_core_latency_ns;
  const double clock_ghz = config_.chip.aicore_clock_hz / 1e9;
  ring.transfer_bytes_per_ns = params.cross_core_bytes_per_cycle * clock_ghz;
  const CoreGmRates aiv = CoreGmRatesOf(config_, /*cube=*/false);
  ring.gm_read_bytes_per_ns = aiv.read_bytes_per_ns;
  ring.gm_write_bytes_per_ns = aiv.write_bytes_per_ns;
  return ring;
}

absl::StatusOr<TimePs> CorePhases::MixSegmentEnd() {
  const CompiledKernel& kernel = *kernel_;
  const MixRingParams ring = MixRing();
  absl::Span<const OpRecord> segment =
      absl::MakeConstSpan(profile_.records).subspan(segment_record_base_);
  if (mix_flow_) {
    // Each transfer takes what it took on shared bandwidth, if longer than
    // its core-side cost. A split vector op's cost is its whole transfer,
    // halved by the schedule's OpNs; the measured half is put back whole.
    mix_records_.assign(segment.begin(), segment.end());
    for (size_t i = 0; i < mix_records_.size() && i < mix_durations_.size(); ++i) {
      const double measured = mix_durations_[i];
      if (measured < 0) continue;
      OpRecord& r = mix_records_[i];
      const bool halved = r.engine == EngineKind::kVector && ring.split != trace::SPLIT_NONE;
      const double whole = halved ? measured + GmBytesNs(r, ring) * 0.5 : measured;
      r.cost_ns = std::max(r.cost_ns, whole);
    }
    segment = mix_records_;
  }
  absl::StatusOr<MixTimeline> timeline = ScheduleMixBlock(segment, kernel, ring);
  if (!timeline.ok()) return timeline.status();
  // The ops start after what the segment stalled before them (the kernel
  // prologue); in-kernel dcci and fences push the lane's end.
  const TimePs ops_start = segment_start_ + stall_ps_;
  const bool cube = kind_ == CoreKind::kAic;
  if (mix_flow_) {
    const double lane_end = cube ? timeline->cube_end_ns : timeline->vector_end_ns;
    counters_.gm_stall += Ns(std::max(0.0, lane_end - mix_planned_lane_end_));
  }
  if (cube) {
    MixRingCounters& mix = counters_.mix;
    mix.blocks += segment_record_base_ == 0 ? 1 : 0;
    mix.pushes += static_cast<uint64_t>(timeline->pushes);
    mix.cube_busy += Ns(EngineBusyNs(*timeline, EngineKind::kCube));
    mix.vector_busy += Ns(EngineBusyNs(*timeline, EngineKind::kVector));
    mix.overlap += Ns(EngineOverlapNs(*timeline));
    mix.slot_wait += Ns(timeline->slot_wait_ns);
    mix.data_wait += Ns(timeline->data_wait_ns);
  }
  for (const EngineBusy& busy : timeline->busy) {
    if ((busy.engine == EngineKind::kCube) != cube) continue;
    deps_.observer->OnEngineBusy(EngineInterval{id_, running_.task, running_.block, cube,
                                                ops_start + Ns(busy.start_ns),
                                                ops_start + Ns(busy.end_ns)});
  }
  const TimePs end = ops_start + Ns(cube ? timeline->cube_end_ns : timeline->vector_end_ns);
  // MIX flow timing: not before this lane's transfers all landed.
  return mix_flow_ ? std::max(end, now_) : end;
}

TimePs CorePhases::SegmentEnd(absl::Status* status) {
  if (flow_timing_) return pipes_.end_time();
  if (!RunsMixPipeline()) return LocalPs();
  absl::StatusOr<TimePs> end = MixSegmentEnd();
  if (!end.ok()) {
    *status = end.status();
    return LocalPs();
  }
  return *end;
}

TimePs CorePhases::LocalPs() const {
  return segment_start_ + Ns(profile_.op_ns() - segment_op_base_ns_) + stall_ps_;
}

void CorePhases::FinishSegment(const absl::Status& executed) {
  if (executed.ok() && mix_flow_ && !mix_timed_) {
    BeginMixTiming();  // OnMixTransfersTimed finishes the segment
    return;
  }
  absl::Status status = executed;
  // MIX: the lane's engine ends where the cross-core ring lets it.
  const TimePs end = status.ok() ? SegmentEnd(&status) : 0;
  if (!status.ok() || !cache_.status().ok()) {
    const absl::Status& cause = status.ok() ? cache_.status() : status;
    deps_.failure->Fail(absl::Status(
        cause.code(), absl::StrCat("task '", deps_.tasks->Name(running_.task), "' block ",
                                   running_.block, " on core ", id_, ": ", cause.message())));
    return;
  }
  if (executor_.paused()) {
    cache_.ClearWriteBacks();
    Schedule(end, EventKind::kSyncArrive);
    return;
  }
  written_back_ = false;
  Schedule(end + Ns(config_.core.kernel_finish_ns), EventKind::kEnd);
}

bool CorePhases::WriteBackBeforeFin() {
  if (written_back_ || !UsesCache()) return true;
  // Everything is written back before FIN — at the block's end, so blocks
  // running side by side on one line lose updates as on silicon — and FIN
  // waits until the last write-back was accepted.
  written_back_ = true;
  BeginSegment();
  cache_.OnTaskEnd();
  cache_.ClearWriteBacks();
  if (charge_gm_ && last_write_done_ > now_) {
    Schedule(last_write_done_, EventKind::kEnd);
    return false;
  }
  return true;
}

void CorePhases::ReportSync(CoreObserver::BlockSync kind, uint64_t addr) {
  if (UsesCache()) {
    deps_.observer->OnBlockSync(running_.task, running_.block, id_, kind, addr);
  }
}

void CorePhases::Hooks::CleanInvalidateAll() {
  core_->ReportSync(CoreObserver::BlockSync::kCacheInvalidAll, 0);
  if (core_->UsesCache()) core_->cache_.CleanInvalidateAll();
  // On the pipes a dcci is a barrier op of its own (DescribePipeOp).
  if (!core_->flow_timing_) core_->stall_ps_ += Ns(core_->config_.core.dcci_ns);
}

void CorePhases::Hooks::CleanInvalidateLine(uint64_t addr) {
  core_->ReportSync(CoreObserver::BlockSync::kCacheInvalidLine, addr);
  if (core_->UsesCache()) core_->cache_.CleanInvalidateLine(addr);
  if (!core_->flow_timing_) core_->stall_ps_ += Ns(core_->config_.core.dcci_ns);
}

void CorePhases::Hooks::Fence() {
  core_->ReportSync(CoreObserver::BlockSync::kFence, 0);
  if (core_->flow_timing_) return;  // a barrier op on the pipes
  const TimePs local = core_->LocalPs();
  if (core_->last_write_done_ > local) core_->stall_ps_ += core_->last_write_done_ - local;
}

void CorePhases::End() {
  current_.end = now_;
  counters_.last_kernel_end = std::max(counters_.last_kernel_end, current_.end);
  counters_.busy += current_.end - current_.start;
  deps_.tasks->EndBlock(running_.task, current_.end);
  recent_[current_.reg_task_id % recent_.size()] = current_;
  const uint32_t finished_token = running_.token;
  running_assigned_ = false;
  bool pickup = false;
  if (has_pending_) {
    // The latched block is picked up right after FIN.
    running_ = pending_;
    running_assigned_ = true;
    has_pending_ = false;
    pickup = pending_arrived_;
  }
  const ProfilingParams& profiling = config_.profiling;
  if (profiling.enabled != 0) {
    // A profiled run reads the counter for end_time before FIN and writes
    // the swimlane record back after it; only then does the core look at
    // its next task (hw-native-sys/simpler@6ebaf771
    // docs/investigations/2026-07-aicore-swimlane-switch-overhead-and-ack-gate.md).
    const TimePs read = Ns(profiling.timestamp_read_ns);
    WriteCond(finished_token, /*fin=*/true, read);
    phase_ = Phase::kRecord;
    pickup_after_record_ = pickup;
    pickup_is_pending_ = pickup;
    Schedule(now_ + read + Ns(profiling.record_writeback_ns), EventKind::kRecordDone);
    return;
  }
  WriteCond(finished_token, /*fin=*/true);
  phase_ = Phase::kIdle;
  if (pickup) Receive(running_, /*pending_pickup=*/true);
}

void CorePhases::GmBackend::Transport(bool write, uint64_t addr, void* data, size_t size,
                                      DType atomic_dtype) {
  const TimePs now = core_->now_;
  if ((core_->flow_timing_ || core_->mix_flow_) && (in_transfer_ || write)) {
    // Timed elsewhere: a tile transfer as a whole (IssueTransfer; DMA does
    // not go through the data cache, whose fills and write-backs here only
    // keep its lines' contents right, so stale reads stay real) and the
    // soft syncall's counter add as a transfer of its own (kSyncArrive).
    GmTransaction untimed{write, addr, data, size, atomic_dtype, 0};
    untimed.untimed = true;
    if (ABSL_PREDICT_FALSE(!core_->deps_.host->Transport(untimed).ok)) {
      FailAccess(write, addr, size);
    }
    return;
  }
  const TimePs local = in_transfer_ ? transfer_start_ : std::max(core_->LocalPs(), now);
  const GmCompletion completion = core_->deps_.host->Transport(
      GmTransaction{write, addr, data, size, atomic_dtype, local - now});
  const TimePs done = now + completion.delay;
  core_->last_transfer_done_ = done;
  if (!core_->charge_gm_) {
    // MIX: first-order time (see charge_gm_).
  } else if (write) {
    // Posted: the core goes on; a fence or the FIN waits for it.
    core_->last_write_done_ = std::max(core_->last_write_done_, done);
  } else if (in_transfer_) {
    transfer_read_done_ = std::max(transfer_read_done_, done);
    transfer_read_bytes_ += size;
  } else {
    StallForRead(local, done, size);
  }
  if (ABSL_PREDICT_FALSE(!completion.ok)) FailAccess(write, addr, size);
}

void CorePhases::GmBackend::FailAccess(bool write, uint64_t addr, size_t size) {
  core_->deps_.failure->Fail(absl::InternalError(
      absl::StrCat("core ", core_->id_, ": GM ", write ? "write" : "read", " of ", size,
                   " bytes at 0x", absl::Hex(addr), " hit no tensor")));
}

void CorePhases::GmBackend::StallForRead(TimePs issued, TimePs done, uint64_t bytes) {
  // The op cost already holds the core-side transfer (latency + MTE rate);
  // the kernel stalls for whatever GM takes beyond that.
  const ChipConfig& config = core_->config_;
  const TimePs core_side =
      Ns(config.core.gm_latency_ns +
         static_cast<double>(bytes) /
             CoreGmRatesOf(config, core_->kind_ == CoreKind::kAic).read_bytes_per_ns);
  if (done > issued + core_side) {
    core_->stall_ps_ += done - issued - core_side;
    core_->counters_.gm_stall += done - issued - core_side;
  }
}

void CorePhases::GmBackend::BeginTransfer() {
  in_transfer_ = true;
  transfer_start_ = std::max(core_->LocalPs(), core_->now_);
  transfer_read_done_ = transfer_start_;
  transfer_read_bytes_ = 0;
}

void CorePhases::GmBackend::EndTransfer() {
  in_transfer_ = false;
  if (transfer_read_bytes_ > 0) {
    StallForRead(transfer_start_, transfer_read_done_, transfer_read_bytes_);
  }
}

void CorePhases::GmBackend::ReadLine(uint64_t addr, void* dst, size_t size) {
  Transport(/*write=*/false, addr, dst, size, trace::DTYPE_UNSPECIFIED);
}

void CorePhases::GmBackend::WriteLine(uint64_t addr, const void* src, size_t size) {
  Transport(/*write=*/true, addr, const_cast<void*>(src), size, trace::DTYPE_UNSPECIFIED);
}

void CorePhases::GmBackend::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  Transport(/*write=*/true, addr, const_cast<void*>(src), count * DTypeSize(dtype), dtype);
}

bool CorePhases::GmBackend::Contains(uint64_t addr, size_t size) const {
  return core_->deps_.host->Contains(addr, size);
}

}  // namespace pto
