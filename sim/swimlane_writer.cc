#include "sim/swimlane_writer.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace pto {
namespace {}  // namespace

SwimlaneWriter::SwimlaneWriter(std::string dir, int level, const OutputChip& chip,
                               const LaunchLog* log)
    : dir_(std::move(dir)),
      level_(std::clamp(level, 1, 4)),
      chip_(chip),
      log_(log),
      aicore_(absl::StrCat(dir_, "/.swimlane_aicore.tmp")),
      aicpu_(absl::StrCat(dir_, "/.swimlane_aicpu.tmp")),
      orchestrator_(absl::StrCat(dir_, "/.swimlane_orch.tmp")) {}

absl::Status SwimlaneWriter::Open() {
  for (SpooledArray* s : {&aicore_, &aicpu_, &orchestrator_}) {
    if (absl::Status st = s->Open(); !st.ok()) return st;
  }
  for (int t = 0; t < chip_.scheduler_threads; ++t) ThreadPhases(t);
  return status_;
}

SpooledArray& SwimlaneWriter::ThreadPhases(int thread) {
  thread = std::max(thread, 0);
  while (phases_.size() <= static_cast<size_t>(thread)) {
    auto spool = std::make_unique<SpooledArray>(
        absl::StrCat(dir_, "/.swimlane_phases_", phases_.size(), ".tmp"));
    if (absl::Status s = spool->Open(); !s.ok() && status_.ok()) status_ = s;
    phases_.push_back(std::move(spool));
  }
  return *phases_[thread];
}

void SwimlaneWriter::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge>, TimePs start,
                                     TimePs end) {
  const uint64_t idx = submit_idx_++;
  if (level_ < 4) return;
  line_ = absl::StrCat("{\"submit_idx\":", idx, ",\"task_id\":", task.runtime_id,
                       ",\"start_cycles\":", Cycles(start), ",\"end_cycles\":", Cycles(end), "}");
  orchestrator_.Append(line_);
}

void SwimlaneWriter::OnCoreInterval(const CoreInterval& interval) {
  const LaunchLog::TaskInfo* info = log_ ? log_->Find(interval.task) : nullptr;
  if (info == nullptr || !info->known) ++unknown_tasks_;
  const uint64_t token = info ? info->runtime_id : 0;
  const uint64_t receive = Cycles(interval.receive);
  const uint64_t start = Cycles(interval.start);
  // receive_to_start is a uint32 delta on the device.
  const uint64_t setup = std::min<uint64_t>(start >= receive ? start - receive : 0, UINT32_MAX);
  line_ = absl::StrCat("[", interval.core, ",", token, ",", interval.reg_task_id, ",", start, ",",
                       Cycles(interval.end), ",", setup, "]");
  aicore_.Append(line_);
  if (level_ < 2) return;
  line_ = absl::StrCat("[", interval.core, ",", interval.reg_task_id, ",",
                       Cycles(interval.dispatch), ",", Cycles(interval.finish), "]");
  aicpu_.Append(line_);
}

void SwimlaneWriter::OnSchedulerPhase(const SchedulerPhase& phase) {
  if (level_ < 3) return;
  const uint64_t start = Cycles(phase.start);
  const uint64_t end = Cycles(phase.end);
  line_ =
      absl::StrCat("{\"kind\":\"", SchedulerPhaseName(phase.kind), "\",\"start_cycles\":", start,
                   ",\"end_cycles\":", end, ",\"loop_iter\":", phase.loop_iter,
                   ",\"tasks_processed\":", phase.tasks_processed);
  if (phase.kind == SchedulerPhaseKind::kDispatch) {
    absl::StrAppend(&line_, ",\"pop_hit\":", phase.pop_hit, ",\"pop_miss\":", phase.pop_miss);
  }
  auto depths = [](const std::array<uint32_t, 3>& d) {
    return absl::StrCat("[", d[0], ",", d[1], ",", d[2], "]");
  };
  absl::StrAppend(&line_, ",\"shared_at_start\":", depths(phase.shared_at_start),
                  ",\"shared_at_end\":", depths(phase.shared_at_end), "}");
  ThreadPhases(phase.thread).Append(line_);
}

void SwimlaneWriter::OnInlineRetire(int thread, const Task& task, TimePs at) {
  if (level_ < 3) return;
  const uint64_t t = Cycles(at);
  line_ = absl::StrCat("{\"kind\":\"", task.predicated_skip ? "predicated_skip" : "dummy_task",
                       "\",\"start_cycles\":", t, ",\"end_cycles\":", t,
                       ",\"loop_iter\":0,\"tasks_processed\":1,\"task_id\":", task.runtime_id, "}");
  ThreadPhases(thread).Append(line_);
}

absl::Status SwimlaneWriter::Finalize() {
  if (!status_.ok()) return status_;
  if (unknown_tasks_ > 0) {
    return absl::InternalError(
        absl::StrCat(dir_, "/chip_swimlane_records.json: ", unknown_tasks_,
                     " core intervals belong to tasks never reported through OnTaskSubmitted"));
  }
  nlohmann::ordered_json metadata;
  metadata["clock_freq_hz"] = static_cast<uint64_t>(chip_.counter_hz);
  metadata["num_cores"] = chip_.core_count();
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (int core = 0; core < chip_.core_count(); ++core)
    types.push_back(chip_.is_aic(core) ? "aic" : "aiv");
  metadata["core_types"] = std::move(types);
  if (level_ >= 3) {
    nlohmann::ordered_json threads = nlohmann::ordered_json::array();
    for (int core = 0; core < chip_.core_count(); ++core) threads.push_back(chip_.thread_of(core));
    metadata["core_to_thread"] = std::move(threads);
  }
  AtomicFile file(absl::StrCat(dir_, "/chip_swimlane_records.json"));
  if (absl::Status s = file.Open(); !s.ok()) return s;
  std::ostream& out = file.out();
  out << "{\n\"chip_swimlane_level\": " << level_ << ",\n\"metadata\": " << metadata.dump()
      << ",\n\"aicore_tasks\": ";
  if (absl::Status s = aicore_.SpliceInto(out, "  "); !s.ok()) return s;
  if (level_ >= 2) {
    out << ",\n\"aicpu_tasks\": ";
    if (absl::Status s = aicpu_.SpliceInto(out, "  "); !s.ok()) return s;
  }
  if (level_ >= 3) {
    out << ",\n\"aicpu_scheduler_phases\": [";
    for (size_t t = 0; t < phases_.size(); ++t) {
      out << (t == 0 ? "\n" : ",\n");
      if (absl::Status s = phases_[t]->SpliceInto(out, "  "); !s.ok()) return s;
    }
    out << "\n]";
  }
  if (level_ >= 4) {
    out << ",\n\"aicpu_orchestrator_phases\": [";
    if (absl::Status s = orchestrator_.SpliceInto(out, "  "); !s.ok()) return s;
    out << "]";
  }
  out << "\n}\n";
  return file.Commit();
}

}  // namespace pto
