#include "sim/launch_log.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {

std::string OutputChip::CoreName(int core) const {
  return absl::StrCat(is_aic(core) ? "AIC_" : "AIV_", core);
}

uint64_t PsToCycles(TimePs ps, double hz) {
  if (ps <= 0) return 0;
  // ps * hz / 1e12 without overflow or double rounding for integral rates.
  const auto rate = static_cast<unsigned __int128>(hz);
  if (static_cast<double>(rate) == hz) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(ps) * rate /
                                 static_cast<unsigned __int128>(1000000000000ULL));
  }
  return static_cast<uint64_t>(static_cast<long double>(ps) * hz / 1e12L);
}

std::string FormatUs(TimePs ps) {
  const bool negative = ps < 0;
  const uint64_t magnitude = negative ? uint64_t(0) - static_cast<uint64_t>(ps) : ps;
  return absl::StrFormat("%s%d.%06d", negative ? "-" : "", magnitude / 1000000,
                         magnitude % 1000000);
}

std::string TaskLabel(const std::string& name, uint64_t runtime_id) {
  const uint64_t ring = runtime_id >> 32;
  const uint64_t local = runtime_id & 0xffffffffu;
  if (ring == 0) return absl::StrCat(name, "(t", local, ")");
  return absl::StrCat(name, "(r", ring, "t", local, ")");
}

void LaunchLog::AddPipeOps(const PipeSegment& segment) {
  const int64_t index = IndexOf(segment.task);
  if (index >= 0) {
    if (pipe_times_.size() <= static_cast<size_t>(index)) pipe_times_.resize(index + 1);
    PipeTime& time = pipe_times_[index];
    for (int p = 0; p < kPipeCount; ++p) time.busy[p] += segment.busy[p];
    time.span += segment.end - segment.start;
  }
  if (!keep_pipe_ops_) return;
  for (const PipeOpInterval& op : segment.ops) {
    if (op.end > op.start) {
      pipe_ops_.push_back(PipeOp{segment.core, op.pipe, op.kind, op.start, op.end});
    }
  }
}

int64_t LaunchLog::IndexOf(TaskSeq seq) const {
  if (base_seq_ == kNoTask || seq < base_seq_ || seq == kNoTask) return -1;
  const TaskSeq index = seq - base_seq_;
  return index < tasks_.size() ? static_cast<int64_t>(index) : -1;
}

const LaunchLog::TaskInfo* LaunchLog::Find(TaskSeq seq) const {
  const int64_t index = IndexOf(seq);
  return index < 0 ? nullptr : &tasks_[index];
}

absl::Span<const uint32_t> LaunchLog::producers(size_t index) const {
  if (index + 1 >= producer_offset_.size()) return {};
  return absl::MakeConstSpan(producer_list_.data() + producer_offset_[index],
                             producer_offset_[index + 1] - producer_offset_[index]);
}

uint32_t LaunchLog::Intern(const std::string& name) {
  auto [it, inserted] = name_ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(name);
  return it->second;
}

LaunchLog::TaskInfo& LaunchLog::Slot(TaskSeq seq) {
  const TaskSeq index = seq - base_seq_;
  while (tasks_.size() <= index) {
    tasks_.emplace_back();
    producer_offset_.push_back(static_cast<uint32_t>(producer_list_.size()));
  }
  return tasks_[index];
}

void LaunchLog::AddTask(const Task& task, absl::Span<const DepEdge> edges, TimePs submit_start,
                        TimePs submit_end) {
  if (base_seq_ == kNoTask) base_seq_ = task.seq - task.index_in_launch;
  const bool appending = task.seq - base_seq_ >= tasks_.size();
  if (appending) {
    // Unique producers, ascending: the fan-in as the orchestrator wires it.
    UniqueProducers(task.seq, edges, &scratch_);
    while (tasks_.size() < task.seq - base_seq_) Slot(base_seq_ + tasks_.size());
    for (TaskSeq producer : scratch_) {
      if (producer >= base_seq_)
        producer_list_.push_back(static_cast<uint32_t>(producer - base_seq_));
    }
  }
  TaskInfo& info = Slot(task.seq);
  if (appending) producer_offset_.back() = static_cast<uint32_t>(producer_list_.size());
  info.known = true;
  info.runtime_id = task.runtime_id;
  info.name_id = Intern(task.name);
  info.shape = task.shape;
  info.kernel = task.kernel;
  info.block_num = task.block_num;
  info.submit_start = submit_start;
  info.submit_end = submit_end;
}

void LaunchLog::AddInterval(const CoreInterval& interval) {
  intervals_.push_back(interval);
  if (base_seq_ == kNoTask || interval.task < base_seq_) return;
  TaskInfo& info = Slot(interval.task);
  auto min_time = [](TimePs& slot, TimePs t) {
    if (slot == kNever || t < slot) slot = t;
  };
  if (info.receive == kNever || interval.receive < info.receive) info.anchor_core = interval.core;
  min_time(info.dispatch, interval.dispatch);
  min_time(info.receive, interval.receive);
  min_time(info.start, interval.start);
  info.end = std::max(info.end, interval.end);
  info.finish = std::max(info.finish, interval.finish);
  ++info.intervals;
}

void LaunchLog::AddInlineRetire(int thread, const Task& task, TimePs at) {
  if (base_seq_ == kNoTask) base_seq_ = task.seq - task.index_in_launch;
  if (task.seq < base_seq_) return;
  TaskInfo& info = Slot(task.seq);
  info.inline_retired = true;
  info.predicated_skip = task.predicated_skip;
  info.inline_thread = thread;
  info.inline_at = at;
}

void LaunchLog::AddPhase(const SchedulerPhase& phase) { AccumulatePhase(phase, &threads_); }

void LaunchLog::AccumulatePhase(const SchedulerPhase& phase, std::vector<ThreadLoops>* threads) {
  if (phase.thread < 0) return;
  if (phase.kind != SchedulerPhaseKind::kComplete && phase.kind != SchedulerPhaseKind::kDispatch) {
    return;  // the analysis counts work records only
  }
  if (threads->size() <= static_cast<size_t>(phase.thread)) threads->resize(phase.thread + 1);
  ThreadLoops& t = (*threads)[phase.thread];
  if (t.last_end != kNever && phase.start > t.last_end) t.idle += phase.start - t.last_end;
  t.busy += std::max<TimePs>(phase.end - phase.start, 0);
  t.last_end = std::max(t.last_end, phase.end);
  t.max_iter = std::max(t.max_iter, phase.loop_iter);
  if (phase.kind == SchedulerPhaseKind::kDispatch) {
    t.pop_hit += phase.pop_hit;
    t.pop_miss += phase.pop_miss;
  } else {
    t.finishes += phase.tasks_processed;
  }
  ++t.records;
}

}  // namespace pto
