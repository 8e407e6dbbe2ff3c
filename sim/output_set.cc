#include "sim/output_set.h"

#include "sim/overhead_analysis.h"

namespace pto {

OutputSet::OutputSet(OutputOptions options, const OutputChip& chip,
                     const trace::StreamHeader& header)
    : options_(std::move(options)), chip_(chip) {
  if (options_.summary_only) return;
  swimlane_ = std::make_unique<SwimlaneWriter>(options_.dir, options_.swimlane_level, chip_, &log_);
  deps_ = std::make_unique<DepsWriter>(options_.dir, options_.case_name, header, &log_);
  perfetto_ = std::make_unique<PerfettoWriter>(options_.dir, chip_, &log_,
                                               options_.perfetto_overhead_counters);
  log_.set_keep_pipe_ops(options_.svg && options_.svg_options.pipe_strips);
}

absl::Status OutputSet::Open() {
  if (options_.summary_only) return absl::OkStatus();
  if (absl::Status s = swimlane_->Open(); !s.ok()) return s;
  if (absl::Status s = deps_->Open(); !s.ok()) return s;
  return perfetto_->Open();
}

// The log goes first: the writers resolve task sequence numbers through it.
void OutputSet::OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                                TimePs end) {
  if (options_.summary_only) return;
  log_.AddTask(task, edges, start, end);
  swimlane_->OnTaskSubmitted(task, edges, start, end);
  deps_->OnTaskSubmitted(task, edges, start, end);
  perfetto_->OnTaskSubmitted(task, edges, start, end);
}

void OutputSet::OnCoreInterval(const CoreInterval& interval) {
  if (options_.summary_only) return;
  log_.AddInterval(interval);
  swimlane_->OnCoreInterval(interval);
  perfetto_->OnCoreInterval(interval);
}

void OutputSet::OnSchedulerPhase(const SchedulerPhase& phase) {
  if (options_.summary_only) return;
  log_.AddPhase(phase);
  swimlane_->OnSchedulerPhase(phase);
  perfetto_->OnSchedulerPhase(phase);
}

void OutputSet::OnEngineBusy(const EngineInterval& interval) {
  if (options_.summary_only) return;
  log_.AddEngineBusy(interval);
  perfetto_->OnEngineBusy(interval);
}

void OutputSet::OnPipeOps(const PipeSegment& segment) {
  if (options_.summary_only) return;
  log_.AddPipeOps(segment);
  perfetto_->OnPipeOps(segment);
}

void OutputSet::OnHbmRate(TimePs at, double bytes_per_ns) {
  if (options_.summary_only) return;
  perfetto_->OnHbmRate(at, bytes_per_ns);
}

void OutputSet::OnInlineRetire(int thread, const Task& task, TimePs at) {
  if (options_.summary_only) return;
  log_.AddInlineRetire(thread, task, at);
  swimlane_->OnInlineRetire(thread, task, at);
  perfetto_->OnInlineRetire(thread, task, at);
}

absl::Status OutputSet::Finalize(nlohmann::json* overhead, std::string* overhead_text) {
  *overhead = nullptr;
  if (options_.summary_only) return absl::OkStatus();
  if (absl::Status s = swimlane_->Finalize(); !s.ok()) return s;
  if (absl::Status s = deps_->Finalize(); !s.ok()) return s;
  if (absl::Status s = perfetto_->Finalize(); !s.ok()) return s;
  if (options_.svg) {
    if (absl::Status s = WriteSwimlaneSvg(log_, chip_, options_.svg_options, options_.dir);
        !s.ok()) {
      return s;
    }
  }
  *overhead = AnalyzeOverhead(log_, chip_);
  if (overhead_text != nullptr) *overhead_text = DescribeOverhead(*overhead);
  return absl::OkStatus();
}

}  // namespace pto
