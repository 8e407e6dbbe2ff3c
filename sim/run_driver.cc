#include "sim/run_driver.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/output_dir.h"
#include "common/plural.h"
#include "common/stop_request.h"
#include "common/tensor_fill.h"
#include "models/base/sc_time.h"
#include "models/chip.h"
#include "models/core/buffer_capacity.h"
#include "models/core/kernel_program.h"
#include "nlohmann/json.hpp"
#include "sim/check_runner.h"
#include "sim/config_loader.h"
#include "sim/hazard_output.h"
#include "sim/hazard_tap.h"
#include "sim/output_set.h"
#include "sim/overhead_analysis.h"
#include "sim/overhead_tap.h"
#include "sim/progress_tap.h"
#include "sim/provenance.h"
#include "sim/stats_schema.h"
#include "sim/stats_writer.h"
#include "sim/tensor_dump.h"
#include "sim/trace_reader.h"
#include "systemc"

namespace pto {
namespace {

// The chip as the output writers and analyses see it.
OutputChip OutputChipOf(const ChipConfig& config) {
  OutputChip chip;
  chip.clusters = config.chip.clusters;
  chip.scheduler_threads = config.aicpu.scheduler_threads;
  chip.counter_hz = config.chip.counter_hz;
  return chip;
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kFailedPrecondition:
      return kExitBadInput;
    default:
      return kExitRuntime;
  }
}

// Forwards the chip's observations to the current launch's writers.
class ForwardingObserver : public RunObserver {
 public:
  void set_targets(std::vector<RunObserver*> targets) {
    targets_ = std::move(targets);
    submitted_ = retired_ = 0;
    pipe_targets_.clear();
    for (RunObserver* t : targets_) {
      if (t->wants_pipe_ops()) pipe_targets_.push_back(t);
    }
  }
  // Tasks of the current launch so far, for the report of a stopped run.
  int64_t submitted() const { return submitted_; }
  int64_t retired() const { return retired_; }

  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override {
    ++submitted_;
    for (RunObserver* t : targets_) t->OnTaskSubmitted(task, edges, start, end);
  }
  void OnEdge(const Task& consumer, const DepEdge& edge) override {
    for (RunObserver* t : targets_) t->OnEdge(consumer, edge);
  }
  void OnCoreInterval(const CoreInterval& interval) override {
    for (RunObserver* t : targets_) t->OnCoreInterval(interval);
  }
  void OnSchedulerPhase(const SchedulerPhase& phase) override {
    for (RunObserver* t : targets_) t->OnSchedulerPhase(phase);
  }
  void OnEngineBusy(const EngineInterval& interval) override {
    for (RunObserver* t : targets_) t->OnEngineBusy(interval);
  }
  bool wants_pipe_ops() const override { return !pipe_targets_.empty(); }
  void OnPipeOps(const PipeSegment& segment) override {
    for (RunObserver* t : pipe_targets_) t->OnPipeOps(segment);
  }
  void OnHbmRate(TimePs at, double bytes_per_ns) override {
    for (RunObserver* t : targets_) t->OnHbmRate(at, bytes_per_ns);
  }
  void OnInlineRetire(int thread, const Task& task, TimePs at) override {
    for (RunObserver* t : targets_) t->OnInlineRetire(thread, task, at);
  }
  void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                  uint64_t size) override {
    for (RunObserver* t : targets_) t->OnGmAccess(task, block, core, kind, addr, size);
  }
  void OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr, int64_t rows,
                uint64_t row_bytes, uint64_t stride) override {
    for (RunObserver* t : targets_) {
      t->OnGmRows(task, block, core, kind, addr, rows, row_bytes, stride);
    }
  }
  void OnSummaryBytes(TaskSeq task, int64_t block, int core, GmAccess kind,
                      uint64_t bytes) override {
    for (RunObserver* t : targets_) t->OnSummaryBytes(task, block, core, kind, bytes);
  }
  void OnBlockSync(TaskSeq task, int64_t block, int core, BlockSync kind, uint64_t addr) override {
    for (RunObserver* t : targets_) t->OnBlockSync(task, block, core, kind, addr);
  }
  void OnTaskRetired(const Task& task) override {
    ++retired_;
    for (RunObserver* t : targets_) t->OnTaskRetired(task);
  }
  void OnTaskCompleted(const Task& task) override {
    for (RunObserver* t : targets_) t->OnTaskCompleted(task);
  }
  void OnHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                  const std::string& origin) override {
    for (RunObserver* t : targets_) t->OnHostRead(addr, size, waited, origin);
  }

 private:
  std::vector<RunObserver*> targets_;
  std::vector<RunObserver*> pipe_targets_;  // the targets that want OnPipeOps
  int64_t submitted_ = 0;
  int64_t retired_ = 0;
};

// Hands the orchestrator the trace's records. A Declare record goes to
// `declare` instead (the session gives its tensors GM and compiles its
// kernels) and a LaunchBegin to `begin` as well, before the orchestrator's.
class ReaderSource : public RecordSource {
 public:
  ReaderSource(TraceReader* reader, std::function<absl::Status(const trace::Declare&)> declare,
               std::function<void(const trace::LaunchBegin&)> begin)
      : reader_(reader), declare_(std::move(declare)), begin_(std::move(begin)) {}
  absl::StatusOr<bool> Next(trace::StreamRecord* record) override {
    while (true) {
      absl::StatusOr<bool> more = reader_->Next(record);
      if (!more.ok() || !*more) return more;
      if (record->has_launch_begin()) begin_(record->launch_begin());
      if (!record->has_declare()) return true;
      if (absl::Status s = declare_(record->declare()); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat(reader_->Where(), ": ", s.message()));
      }
    }
  }
  std::string Where() const override { return reader_->Where(); }

 private:
  TraceReader* reader_;
  std::function<absl::Status(const trace::Declare&)> declare_;
  std::function<void(const trace::LaunchBegin&)> begin_;
};

struct LaunchReport {
  int index = 0;
  std::string name;
  LaunchCounters counters;
  nlohmann::json thread_loops = nlohmann::json::array();  // per scheduler thread
  std::vector<CheckResult> checks;
  std::unique_ptr<StatsWriter> writer;
  std::unique_ptr<OutputSet> outputs;  // swimlane, deps.json, Perfetto, SVG
  // The overhead analysis when no OutputSet keeps the launch's records.
  std::unique_ptr<OverheadTap> overhead;
  std::unique_ptr<HazardTap> hazards;
  std::unique_ptr<ProgressTap> progress;          // only when stderr is a terminal
  std::array<RingLimits, kNumRings> ring_limits;  // the launch's
  std::vector<uint32_t> arg_tensor_ids;           // LaunchBegin's
};

// Runs the launches and owns everything that outlives one of them.
class Session : public LaunchListener {
 public:
  Session(const RunOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err) {}

  int Run();

  void OnLaunchBegin(int launch, const std::string& name) override;
  void OnLaunchEnd(int launch, const LaunchCounters& counters) override;
  void OnCheck(const trace::Check& check) override;

 private:
  absl::Status Prepare();
  // GM for a tensor (its region, and its initial contents in a functional
  // run), and a kernel compiled and checked against the chip's buffers:
  // the header's, and those Declare records add.
  absl::Status AddTensor(const trace::Tensor& tensor);
  absl::Status FillTensor(const trace::Tensor& tensor, const trace::TensorInit& init);
  absl::Status AddKernel(const trace::Kernel& kernel);
  absl::Status ApplyDeclare(const trace::Declare& declare);
  bool Overridden(const std::string& key) const;
  // The rings' limits for `sizes` (RunConfig's ring sizes: the header's, or
  // a launch's own over them), under the config file and any --set.
  std::array<RingLimits, kNumRings> RingLimitsFor(const trace::RingSizes& sizes) const;
  // --serve: the launch's report is out; its tensors go to the serve dir.
  absl::Status ServeLaunch(int launch);
  absl::Status FinishLaunch();
  nlohmann::json Summary(const LaunchReport& report) const;
  void PrintLaunch(const LaunchReport& report);
  // What the simulation kernel did for the run: process activations and
  // delta cycles, in all and per simulated task.
  void PrintEngineStats();
  absl::Status WriteRunSummary();
  int Fail(const absl::Status& status, int code);
  // Runs the simulation in slices, between which it notices a stop signal
  // and the wall-clock and simulated-time limits. Returns 0 when the
  // simulation ended by itself, else the exit code after reporting why it
  // stopped and where it stood.
  int Simulate();
  // A signal or the wall-clock deadline stopped the run (StopRequested()):
  // says why and where it stood, drops the unfinished launch, and returns
  // the exit code (128 + the signal, or 3 for the deadline).
  int Stopped();
  // Drops the unfinished launch: its writers remove their temporary files,
  // and its directory goes with whatever it committed.
  void AbandonLaunch();
  std::string DescribeProgress(double wall_seconds) const;
  double WallSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  }

  const RunOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  ChipConfig config_;
  std::unique_ptr<TraceReader> reader_;
  std::unique_ptr<ReaderSource> source_;
  // What the chip is built from: the compiled kernels, GM's contents (filled
  // from the tensors' initializers, read by the checks) and the rings' sizes.
  std::deque<CompiledKernel> kernels_;
  MemoryImage memory_;
  uint64_t contents_bytes_ = 0;             // the functional run's tensor contents so far
  uint32_t tensors_added_ = 0;              // tensors given GM (by id, from 0)
  uint32_t header_tensors_ = 0;             // of them, the header's
  std::vector<uint32_t> next_launch_args_;  // the LaunchBegin read last
  std::vector<uint32_t> served_args_;       // the finished launch's, for --serve
  std::array<RingLimits, kNumRings> ring_limits_;
  ForwardingObserver observer_;
  std::unique_ptr<LaunchReport> current_;
  Chip* chip_ = nullptr;
  std::vector<nlohmann::json> launch_summaries_;
  nlohmann::json provenance_;  // of every stats.json this run writes
  size_t hazards_found_ = 0;
  absl::flat_hash_set<uint32_t> warned_stretch_;  // kernels warned of a stretch
  uint64_t tasks_run_ = 0;                        // submits over every finished launch
  int checks_passed_ = 0;
  int checks_failed_ = 0;
  bool functional_ = true;
};

int Session::Fail(const absl::Status& status, int code) {
  if (current_ && current_->progress) current_->progress->Erase();
  err_ << "pto_sim: error: " << status.message() << "\n";
  return code;
}

absl::Status Session::Prepare() {
  absl::StatusOr<ChipConfig> config = LoadChipConfig(options_.config_path, options_.overrides);
  if (!config.ok()) return config.status();
  config_ = *std::move(config);

  absl::StatusOr<std::unique_ptr<TraceReader>> reader = TraceReader::Open(options_.trace_path);
  if (!reader.ok()) return reader.status();
  reader_ = *std::move(reader);
  source_ = std::make_unique<ReaderSource>(
      reader_.get(), [this](const trace::Declare& declare) { return ApplyDeclare(declare); },
      [this](const trace::LaunchBegin& begin) {
        next_launch_args_.assign(begin.arg_tensor_ids().begin(), begin.arg_tensor_ids().end());
      });
  const trace::StreamHeader& header = reader_->header();
  functional_ = !header.timing_only() && !options_.timing_only;
  header_tensors_ = static_cast<uint32_t>(header.tensors_size());
  if (functional_) {
    for (const trace::Tensor& tensor : header.tensors()) contents_bytes_ += tensor.size_bytes();
    if (contents_bytes_ > kMaxTensorContentsBytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: header: tensors: the tensors hold %d bytes of contents; expected at most %d "
          "(pto_sim keeps every tensor in memory): run with --timing-only, or use smaller "
          "tensors",
          options_.trace_path, contents_bytes_, kMaxTensorContentsBytes));
    }
  }
  for (const trace::Kernel& kernel : header.kernels()) {
    if (absl::Status s = AddKernel(kernel); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(options_.trace_path, ": ", s.message()));
    }
  }
  for (const trace::Tensor& tensor : header.tensors()) {
    if (absl::Status s = AddTensor(tensor); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(options_.trace_path, ": ", s.message()));
    }
  }
  ring_limits_ = RingLimitsFor(header.ring_sizes());
  if (!options_.out_dir.empty()) {
    if (absl::Status s = ClaimOutputDir(options_.out_dir, "--out"); !s.ok()) return s;
    provenance_ = Provenance({options_.config_path, options_.overrides, {options_.trace_path}});
  }
  return absl::OkStatus();
}

absl::Status Session::AddKernel(const trace::Kernel& kernel) {
  absl::StatusOr<CompiledKernel> compiled = CompileKernel(kernel);
  if (!compiled.ok()) return compiled.status();
  if (absl::Status fits = CheckTileCapacities(*compiled, config_.core); !fits.ok()) return fits;
  kernels_.push_back(*std::move(compiled));
  return absl::OkStatus();
}

absl::Status Session::AddTensor(const trace::Tensor& tensor) {
  if (functional_ && tensors_added_ >= header_tensors_) {
    // A declared one (the header's are counted in Prepare); the reader
    // bounds each tensor, so this cannot wrap.
    contents_bytes_ += tensor.size_bytes();
    if (contents_bytes_ > kMaxTensorContentsBytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor '%s': the tensors hold %d bytes of contents with it; expected at most %d "
          "(pto_sim keeps every tensor in memory): run with --timing-only, or use smaller "
          "tensors",
          tensor.name(), contents_bytes_, kMaxTensorContentsBytes));
    }
  }
  // A timing-only run keeps the host's values of the tensors that decide
  // control (Tensor.control) when the stream has them.
  const bool keeps_values = !functional_ && tensor.control() &&
                            tensor.init().contents_case() != trace::TensorInit::CONTENTS_NOT_SET;
  if (keeps_values) {
    memory_.AddControlRegion(tensor.gm_addr(), tensor.size_bytes(), tensor.name());
  } else {
    memory_.AddRegion(tensor.gm_addr(), tensor.size_bytes(), tensor.name(), functional_);
  }
  ++tensors_added_;
  return FillTensor(tensor, tensor.init());
}

absl::Status Session::FillTensor(const trace::Tensor& tensor, const trace::TensorInit& init) {
  if (!functional_ && !tensor.control()) return absl::OkStatus();
  if (init.contents_case() == trace::TensorInit::CONTENTS_NOT_SET && !functional_) {
    return absl::OkStatus();
  }
  const size_t count = tensor.size_bytes() / DTypeSize(tensor.dtype());
  uint8_t* dst = memory_.Span(tensor.gm_addr(), tensor.size_bytes());
  if (dst == nullptr) {
    return absl::InternalError(absl::StrCat("tensor '", tensor.name(), "' has no GM image"));
  }
  if (absl::Status s = pto::FillTensor(init, tensor.dtype(), count, dst); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor.name(), "': ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status Session::ApplyDeclare(const trace::Declare& declare) {
  // The reader has appended the new ones to the header; the chip is idle
  // between launches, so GM and the kernel table may change.
  const trace::StreamHeader& header = reader_->header();
  for (const trace::Tensor& declared : declare.tensors()) {
    const trace::Tensor& tensor = header.tensors(static_cast<int>(declared.id()));
    if (declared.id() >= tensors_added_) {
      if (absl::Status s = AddTensor(tensor); !s.ok()) return s;
      chip_->AddTensor(&tensor);
    } else if (declared.init().contents_case() != trace::TensorInit::CONTENTS_NOT_SET) {
      // Re-declared: the host's new contents.
      if (absl::Status s = FillTensor(tensor, declared.init()); !s.ok()) return s;
    }
  }
  for (const trace::Kernel& kernel : declare.kernels()) {
    if (absl::Status s = AddKernel(kernel); !s.ok()) return s;
  }
  return absl::OkStatus();
}

bool Session::Overridden(const std::string& key) const {
  for (const std::string& text : options_.overrides) {
    if (absl::StartsWith(text, key + "=")) return true;
  }
  return false;
}

std::array<RingLimits, kNumRings> Session::RingLimitsFor(const trace::RingSizes& sizes) const {
  // RunConfig's ring sizes (one value for every ring, or one per ring) win
  // over the config file; an explicit --set wins over both. A launch's own
  // sizes replace the header's field by field.
  const trace::RingSizes& header = reader_->header().ring_sizes();
  using Values = google::protobuf::RepeatedField<uint64_t>;
  auto either = [](const Values& own, const Values& base) -> const Values& {
    return own.empty() ? base : own;
  };
  const Values& task_window = either(sizes.task_window(), header.task_window());
  const Values& heap_bytes = either(sizes.heap_bytes(), header.heap_bytes());
  const Values& dep_pool = either(sizes.dep_pool(), header.dep_pool());
  auto pick = [](const google::protobuf::RepeatedField<uint64_t>& values, int ring) {
    return static_cast<int64_t>(values.size() == 1 ? values[0] : values[ring]);
  };
  std::array<RingLimits, kNumRings> out;
  for (int ring = 0; ring < kNumRings; ++ring) {
    RingLimits limits{config_.ring.task_window, config_.ring.heap_bytes, config_.ring.dep_pool};
    if (!task_window.empty() && !Overridden("ring.task_window")) {
      limits.task_window = pick(task_window, ring);
    }
    if (!heap_bytes.empty() && !Overridden("ring.heap_bytes")) {
      limits.heap_bytes = pick(heap_bytes, ring);
    }
    if (!dep_pool.empty() && !Overridden("ring.dep_pool")) {
      limits.dep_pool = pick(dep_pool, ring);
    }
    out[ring] = limits;
  }
  return out;
}

void Session::OnLaunchBegin(int launch, const std::string& name) {
  if (current_) {
    if (absl::Status s = FinishLaunch(); !s.ok()) chip_->Fail(s);
  }
  current_ = std::make_unique<LaunchReport>();
  current_->index = launch;
  current_->name = name;
  for (int r = 0; r < kNumRings; ++r) {
    current_->ring_limits[r] = chip_->orchestrator().rings().limits(r);
  }
  current_->arg_tensor_ids = next_launch_args_;
  if (!options_.out_dir.empty()) {
    const std::string dir = absl::StrCat(options_.out_dir, "/launch_", launch);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    current_->writer = std::make_unique<StatsWriter>(dir, !options_.summary_only);
    if (absl::Status s = current_->writer->Open(); !s.ok()) chip_->Fail(s);
    OutputOptions output_options;
    output_options.dir = dir;
    output_options.case_name = name;
    output_options.swimlane_level = options_.swimlane_level;
    output_options.svg_options.pipe_strips = options_.swimlane_detail == "pipes";
    output_options.svg_options.trace = options_.trace_path;
    output_options.svg_options.launch = absl::StrCat("launch ", launch, " '", name, "'");
    output_options.summary_only = options_.summary_only;
    current_->outputs =
        std::make_unique<OutputSet>(output_options, OutputChipOf(config_), reader_->header());
    if (absl::Status s = current_->outputs->Open(); !s.ok()) chip_->Fail(s);
  }
  if (!current_->outputs || options_.summary_only) {
    // Every run prints where time went; without the records that --out
    // keeps, the online analysis. The pipes only where they are collected
    // anyway (--summary-only): they cost time.
    current_->overhead =
        std::make_unique<OverheadTap>(OutputChipOf(config_), options_.summary_only);
  }
  if (options_.hazards) {
    std::array<int64_t, HazardDetector::kRings> windows = {};
    for (int r = 0; r < kNumRings && r < HazardDetector::kRings; ++r) {
      windows[r] = current_->ring_limits[r].task_window;
    }
    current_->hazards =
        std::make_unique<HazardTap>(reader_->header(), config_.gm.dcache_line_bytes, windows);
  }
  if (isatty(STDERR_FILENO) == 1) {
    current_->progress = std::make_unique<ProgressTap>(
        err_, absl::StrCat("launch ", launch, " '", name, "'"), SteadySeconds);
  }
  std::vector<RunObserver*> targets;
  for (RunObserver* target : std::initializer_list<RunObserver*>{
           current_->writer.get(), current_->outputs.get(), current_->overhead.get(),
           current_->hazards.get(), current_->progress.get()}) {
    if (target != nullptr) targets.push_back(target);
  }
  observer_.set_targets(std::move(targets));
}

void Session::OnLaunchEnd(int launch, const LaunchCounters& counters) {
  current_->counters = counters;
  for (const SummaryStretch& stretch : counters.cores.stretched) {
    if (!warned_stretch_.insert(stretch.kernel).second) continue;  // once per kernel
    err_ << absl::StrFormat(
        "pto_sim: warning: launch %d: extern kernel '%s' (id %d) takes fixed_cycles = %.3f us "
        "per block, but its bytes_in/bytes_out could not move in that time over shared GM: a "
        "block took %.3f us (%.2fx); its blocks stretched to fit. Check fixed_cycles, bytes_in "
        "and bytes_out.\n",
        launch, kernels_[stretch.kernel].name, stretch.kernel, Us(stretch.fixed), Us(stretch.took),
        static_cast<double>(stretch.took) / static_cast<double>(stretch.fixed));
  }
  for (size_t t = 0; t < counters.threads.size(); ++t) {
    const uint64_t loops = counters.threads[t].loops;
    const TimePs busy = counters.threads[t].busy;
    current_->thread_loops.push_back(
        {{"thread", t},
         {"loops", loops},
         {"busy_us", Us(busy)},
         {"ns_per_loop", loops > 0 ? static_cast<double>(busy) / 1000.0 / loops : 0.0}});
  }
  if (!options_.serve_dir.empty()) {
    // The writer waits for this launch's results before it sends the next.
    if (absl::Status s = FinishLaunch(); !s.ok()) return chip_->Fail(s);
    if (absl::Status s = ServeLaunch(launch); !s.ok()) return chip_->Fail(s);
  }
}

absl::Status Session::ServeLaunch(int launch) {
  const std::string dir = absl::StrCat(options_.serve_dir, "/launch_", launch);
  absl::Status s = WriteTensorDump(dir, reader_->header(), memory_, functional_, served_args_);
  if (!s.ok()) return s;
  out_ << "served launch " << launch << " " << dir << std::endl;  // flushed: the writer waits
  return absl::OkStatus();
}

void Session::OnCheck(const trace::Check& check) {
  if (!functional_) return;  // timing-only: nothing to compare
  CheckResult result = RunCheck(check, reader_->header().tensors(check.tensor_id()), memory_);
  (result.passed ? checks_passed_ : checks_failed_)++;
  if (current_) {
    current_->checks.push_back(std::move(result));
  } else {
    out_ << "  " << DescribeCheck(result) << "\n";  // --serve: its launch is reported
  }
}

nlohmann::json Session::Summary(const LaunchReport& report) const {
  const OrchestratorCounters& orch = report.counters.orchestrator;
  const SchedulerCounters& sched = report.counters.schedulers;
  const CoreTotals& cores = report.counters.cores;
  const LifecycleCounters& lifecycle = report.counters.lifecycle;
  const MemorySystem::Counters& gm = report.counters.gm;
  const TimePs makespan =
      cores.first_kernel_start == kNever ? 0 : cores.last_kernel_end - cores.first_kernel_start;
  // Bytes per ps x 1000 = GB/s.
  const double hbm_gb_per_s = makespan > 0
                                  ? static_cast<double>(gm.hbm_read_bytes + gm.hbm_write_bytes) *
                                        1e3 / static_cast<double>(makespan)
                                  : 0.0;
  const double aic_share =
      makespan > 0 ? static_cast<double>(cores.aic_busy) / (makespan * config_.aic_count()) : 0.0;
  const double aiv_share =
      makespan > 0 ? static_cast<double>(cores.aiv_busy) / (makespan * config_.aiv_count()) : 0.0;
  nlohmann::json checks = nlohmann::json::array();
  int passed = 0, failed = 0;
  for (const CheckResult& r : report.checks) {
    (r.passed ? passed : failed)++;
    checks.push_back(CheckToJson(r));
  }
  nlohmann::json rings = nlohmann::json::array();
  for (int r = 0; r < kNumRings; ++r) {
    const RingPool::Stats& ring = report.counters.rings[r];
    const RingLimits& limits = report.ring_limits[r];
    rings.push_back({{"task_window", limits.task_window},
                     {"heap_bytes", limits.heap_bytes},
                     {"dep_pool", limits.dep_pool},
                     {"peak_task_window", ring.peak_tasks},
                     {"peak_heap_bytes", ring.peak_heap_bytes},
                     {"peak_dep_pool", ring.peak_dep_entries},
                     {"orchestrator_blocked_us", Us(ring.blocked)}});
  }
  const double submits = orch.submits > 0 ? static_cast<double>(orch.submits) : 1.0;
  const SubmitCost& submit = orch.submit;
  nlohmann::json orchestrator = {{"busy_us", Us(orch.busy)},
                                 {"submit_us_per_task", Us(submit.total()) / submits},
                                 {"submit_split_us_per_task",
                                  {{"base", Us(submit.base) / submits},
                                   {"param_copy", Us(submit.param_copy) / submits},
                                   {"lookup", Us(submit.lookup) / submits},
                                   {"tensormap_insert", Us(submit.insert) / submits}}}};
  nlohmann::json schedulers = {
      {"busy_us", Us(sched.busy)},
      {"loops", sched.loops},
      {"ns_per_loop",
       sched.loops > 0 ? static_cast<double>(sched.busy) / 1000.0 / static_cast<double>(sched.loops)
                       : 0.0},
      {"inline_retires", sched.inline_retires},
      {"pop_hit", sched.pop_hit},
      {"pop_miss", sched.pop_miss},
      {"per_thread", report.thread_loops}};
  return {{"launch", report.index},
          {"name", report.name},
          {"makespan_us", Us(makespan)},
          {"device_wall_us", Us(lifecycle.last_retire - orch.launch_start)},
          {"tasks", orch.tasks},
          {"dummy_tasks", orch.dummy_tasks},
          {"alloc_tasks", orch.alloc_tasks},
          {"task_dispatches", sched.task_dispatches},
          {"block_dispatches", sched.block_dispatches},
          {"predicated_skips", lifecycle.predicated_skips},
          {"edges", orch.edges},
          {"engine_busy_share", {{"aic", aic_share}, {"aiv", aiv_share}}},
          {"early_dispatched_blocks", sched.early_blocks},
          {"sync_drains", report.counters.sync_drains},
          {"orchestrator_busy_us", Us(orch.busy)},
          {"scheduler_busy_us", Us(sched.busy)},
          {"orchestrator", orchestrator},
          {"schedulers", schedulers},
          {"rings", rings},
          {"gm",
           {{"transfers", gm.transfers},
            {"l2_read_hit_bytes", gm.l2_read_hit_bytes},
            {"l2_read_miss_bytes", gm.l2_read_miss_bytes},
            {"l2_write_bytes", gm.l2_write_bytes},
            {"hbm_read_bytes", gm.hbm_read_bytes},
            {"hbm_write_bytes", gm.hbm_write_bytes},
            {"hbm_gb_per_s", hbm_gb_per_s},
            {"aic_stall_us", Us(cores.aic_gm_stall)},
            {"aiv_stall_us", Us(cores.aiv_gm_stall)}}},
          {"mix_ring",
           {{"blocks", cores.mix.blocks},
            {"pushes", cores.mix.pushes},
            {"cube_busy_us", Us(cores.mix.cube_busy)},
            {"vector_busy_us", Us(cores.mix.vector_busy)},
            {"overlap_us", Us(cores.mix.overlap)},
            {"slot_wait_us", Us(cores.mix.slot_wait)},
            {"data_wait_us", Us(cores.mix.data_wait)}}},
          {"checks", {{"passed", passed}, {"failed", failed}, {"results", checks}}}};
}

void Session::PrintEngineStats() {
  const double tasks = static_cast<double>(std::max<uint64_t>(1, tasks_run_));
  const uint64_t activations = chip_->activations();
  const Calendar& calendar = chip_->calendar();
  const uint64_t deltas = sc_core::sc_delta_count();
  out_ << absl::StrFormat(
      "engine: %d process activations (%.2f per task), %d calendar events (%.2f per task), "
      "%d delta cycles (%.2f per task)\n",
      activations, static_cast<double>(activations) / tasks, calendar.events(),
      static_cast<double>(calendar.events()) / tasks, deltas, static_cast<double>(deltas) / tasks);
  // The calendar's events by kind of component: "chip.aic3" and "chip.aic7"
  // are both "aic".
  std::map<std::string, uint64_t> by_kind;
  for (Calendar::ClientId id = 0; id < calendar.clients(); ++id) {
    absl::string_view name = calendar.name(id);
    name = name.substr(name.rfind('.') + 1);
    while (!name.empty() && absl::ascii_isdigit(name.back())) name.remove_suffix(1);
    by_kind[std::string(name)] += calendar.events(id);
  }
  out_ << "engine: calendar events per task by component:";
  for (const auto& [kind, events] : by_kind) {
    out_ << absl::StrFormat(" %s %.2f", kind, static_cast<double>(events) / tasks);
  }
  out_ << "\n";
}

void Session::PrintLaunch(const LaunchReport& report) {
  const OrchestratorCounters& orch = report.counters.orchestrator;
  const SchedulerCounters& sched = report.counters.schedulers;
  tasks_run_ += orch.tasks;
  const nlohmann::json s = Summary(report);
  out_ << absl::StrFormat("launch %d '%s': makespan %.3f us, device wall %.3f us\n", report.index,
                          report.name, StatNumber(s, kStatMakespanUs),
                          StatNumber(s, kStatDeviceWallUs));
  out_ << absl::StrFormat(
      "  tasks %d (+%d dummies, %d allocs), task dispatches %d, block dispatches %d, "
      "predicated skips %d\n",
      orch.tasks, orch.dummy_tasks, orch.alloc_tasks, sched.task_dispatches, sched.block_dispatches,
      report.counters.lifecycle.predicated_skips);
  out_ << absl::StrFormat(
      "  busy: AIC %.1f%%, AIV %.1f%%; orchestrator %.3f us, schedulers %.3f us\n",
      100 * StatNumber(s, kStatAicBusyShare), 100 * StatNumber(s, kStatAivBusyShare),
      StatNumber(s, kStatOrchestratorBusyUs), StatNumber(s, kStatSchedulerBusyUs));
  if (const MemorySystem::Counters& gm = report.counters.gm; gm.transfers > 0) {
    out_ << absl::StrFormat(
        "  GM: %d transfers; loads %.3f MB from HBM, %.3f MB hit in L2; stores %.3f MB into L2, "
        "%.3f MB evicted to HBM; HBM at %.1f GB/s; GM stalls AIC %.3f us, AIV %.3f us\n",
        gm.transfers, static_cast<double>(gm.hbm_read_bytes) / 1e6,
        static_cast<double>(gm.l2_read_hit_bytes) / 1e6,
        static_cast<double>(gm.l2_write_bytes) / 1e6, static_cast<double>(gm.hbm_write_bytes) / 1e6,
        StatNumber(s, kStatHbmGbPerS), Us(report.counters.cores.aic_gm_stall),
        Us(report.counters.cores.aiv_gm_stall));
  }
  if (report.counters.cores.mix.blocks > 0) {
    const MixRingCounters& mix = report.counters.cores.mix;
    out_ << absl::StrFormat(
        "  MIX ring: %d pushes over %d blocks; cube %.3f us, vector %.3f us busy, %.3f us of it "
        "overlapped; producers waited %.3f us for slots, consumers %.3f us for data\n",
        mix.pushes, mix.blocks, Us(mix.cube_busy), Us(mix.vector_busy), Us(mix.overlap),
        Us(mix.slot_wait), Us(mix.data_wait));
  }
  if (report.writer && !report.writer->pipes().empty()) {
    out_ << "  " << DescribePipes(report.writer->pipes()) << "\n";
  }
  for (const CheckResult& r : report.checks) out_ << "  " << DescribeCheck(r) << "\n";
  // Out before the launch's files are written: a reader that went away
  // (SIGPIPE) stops the run before it commits them.
  out_ << std::flush;
}

absl::Status Session::FinishLaunch() {
  LaunchReport& report = *current_;
  if (report.progress) report.progress->Erase();
  PrintLaunch(report);
  nlohmann::json summary = Summary(report);
  if (report.writer) summary["pipes"] = report.writer->pipes().ToJson();
  if (report.hazards) {
    HazardOutput hazards;
    report.hazards->Finish(&hazards);
    out_ << hazards.Lines();
    summary["hazards"] = hazards.ToJson();
    if (hazards.not_stored() > 0) summary["hazards_not_stored"] = hazards.not_stored();
    if (const int64_t unchecked = report.hazards->unchecked_tasks(); unchecked > 0) {
      out_ << "  hazards: " << unchecked
           << " tasks past the detector's 2^32 - 1 per launch were not checked\n";
      summary["hazards_unchecked_tasks"] = unchecked;
    }
    hazards_found_ += hazards.size();
  }
  if (report.outputs) {
    nlohmann::json overhead;
    std::string text;
    if (absl::Status s = report.outputs->Finalize(&overhead, &text); !s.ok()) return s;
    if (!overhead.is_null()) {
      summary["scheduler_overhead"] = std::move(overhead);
      out_ << text;
    }
  }
  if (report.overhead) {
    nlohmann::json overhead = report.overhead->Finish();
    out_ << DescribeOverhead(overhead);
    summary["scheduler_overhead"] = std::move(overhead);
  }
  if (report.writer) {
    // The launch's file says where it came from; the run file's per_launch
    // entries do not repeat it.
    nlohmann::json file = summary;
    file[kProvenanceKey] = provenance_;
    if (absl::Status s = report.writer->Finalize(file); !s.ok()) return s;
  }
  observer_.set_targets({});
  launch_summaries_.push_back(std::move(summary));
  served_args_ = std::move(report.arg_tensor_ids);
  current_.reset();
  return absl::OkStatus();
}

absl::Status Session::WriteRunSummary() {
  if (options_.out_dir.empty()) return absl::OkStatus();
  // One layout for any number of launches: each launch's files in
  // DIR/launch_<k>/, and DIR/stats.json over the run (also for one launch).
  const std::string dir = options_.out_dir;
  nlohmann::json total = {{"launches", launch_summaries_.size()}};
  // The launch keys the schema sums into this file (the checks are counted
  // below, over the whole run).
  for (const StatSpec& spec : StatsSchema()) {
    if (!spec.in_run_file || spec.path.find('/') != absl::string_view::npos) continue;
    const std::string key(spec.path);
    if (spec.unit == StatUnit::kCount) {
      uint64_t sum = 0;
      for (const auto& s : launch_summaries_) sum += s[key].get<uint64_t>();
      total[key] = sum;
    } else {
      double sum = 0;
      for (const auto& s : launch_summaries_) sum += s[key].get<double>();
      total[key] = sum;
    }
  }
  total["checks"] = {{"passed", checks_passed_}, {"failed", checks_failed_}};
  total["per_launch"] = launch_summaries_;
  total[kProvenanceKey] = provenance_;
  StatsWriter writer(dir, /*records=*/false);
  return writer.Finalize(total);
}

std::string Session::DescribeProgress(double wall_seconds) const {
  std::string where = chip_ == nullptr
                          ? absl::StrFormat(
                                "while preparing the run (the config, the trace's kernels and "
                                "tensors), after %.1f s of wall time",
                                wall_seconds)
                          : absl::StrFormat("at simulated time %.3f us, after %.1f s of wall time",
                                            Us(chip_->calendar().now()), wall_seconds);
  if (current_) {
    absl::StrAppendFormat(&where, ", in launch %d '%s' (%d tasks submitted, %d retired)",
                          current_->index, current_->name, observer_.submitted(),
                          observer_.retired());
  }
  absl::StrAppend(&where, "; ",
                  CountOf(static_cast<int64_t>(launch_summaries_.size()), "launch", "launches"),
                  " completed");
  if (!options_.out_dir.empty() && !launch_summaries_.empty()) {
    absl::StrAppend(&where, " (their files are in ", options_.out_dir, "/launch_<k>)");
  }
  if (current_) absl::StrAppend(&where, "; the unfinished launch wrote no files");
  return where;
}

void Session::AbandonLaunch() {
  if (!current_) return;
  observer_.set_targets({});
  const int index = current_->index;
  current_.reset();
  if (!options_.out_dir.empty()) {
    // This run's own directory (ClaimOutputDir emptied --out): a launch
    // stopped while it wrote its files leaves none of them.
    std::error_code ec;
    std::filesystem::remove_all(absl::StrCat(options_.out_dir, "/launch_", index), ec);
  }
}

int Session::Stopped() {
  std::string stopped;
  int code = kExitRuntime;
  if (const int signal = StopSignal(); signal != 0) {
    stopped = absl::StrCat("stopped by ", StopSignalName(signal));
    code = 128 + signal;
  } else {
    stopped = absl::StrCat("error: wall-clock limit of ", options_.max_wall_seconds,
                           " s reached (--max-wall-seconds)");
  }
  if (current_ && current_->progress) current_->progress->Erase();
  err_ << "pto_sim: " << stopped << " " << DescribeProgress(WallSeconds()) << "\n";
  AbandonLaunch();
  return code;
}

int Session::Simulate() {
  // A slice long enough that its fixed cost is noise, short enough that a
  // dense simulation notices a signal or a limit within milliseconds.
  const sc_core::sc_time slice(10, sc_core::SC_US);
  const sc_core::sc_time max_sim_time(options_.max_sim_seconds, sc_core::SC_SEC);
  for (bool first = true;; first = false) {
    // Jump straight over idle stretches instead of stepping through them
    // (before the first slice nothing is scheduled yet).
    sc_core::sc_start(first ? slice : std::max(slice, sc_core::sc_time_to_pending_activity()),
                      sc_core::SC_EXIT_ON_STARVATION);
    if (!chip_->fatal().ok() || !sc_core::sc_pending_activity()) return 0;
    if (StopRequested()) return Stopped();
    if (sc_core::sc_time_stamp() < max_sim_time) continue;
    if (current_ && current_->progress) current_->progress->Erase();
    err_ << "pto_sim: error: simulated-time limit of " << options_.max_sim_seconds
         << " s reached (--max-sim-seconds) " << DescribeProgress(WallSeconds()) << "\n";
    AbandonLaunch();
    return kExitRuntime;
  }
}

int Session::Run() {
  // From the start: tensor fills and output writing are bounded too.
  InstallStopSignalHandlers();
  if (options_.serve_dir.empty()) {
    SetWallDeadline(wall_start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options_.max_wall_seconds)));
  }
  if (absl::Status s = Prepare(); !s.ok()) {
    return StopRequested() ? Stopped() : Fail(s, ExitCodeFor(s));
  }
  out_ << absl::StrFormat("pto_sim: %s on %s (%s, %s)%s\n", options_.trace_path, config_.chip.name,
                          CountOf(config_.chip.clusters, "cluster"),
                          CountOf(config_.aicpu.scheduler_threads, "scheduler thread"),
                          functional_ ? "" : ", timing only")
       << std::flush;  // a reader of stdout sees the run start (and a closed pipe shows now)
  ChipSetup setup;
  setup.config = &config_;
  setup.header = &reader_->header();
  setup.kernels = &kernels_;
  setup.memory = &memory_;
  setup.functional = functional_;
  setup.ring_limits = ring_limits_;
  setup.launch_ring_limits = [this](const trace::RingSizes& sizes) { return RingLimitsFor(sizes); };
  setup.observer = &observer_;
  setup.source = source_.get();
  setup.listener = this;
  Chip chip("chip", setup);
  chip_ = &chip;
  if (int stopped = Simulate(); stopped != 0) return stopped;
  // A kernel, or a launch's files, stopped part-way (StopRequested()).
  if (StopRequested()) return Stopped();
  if (!chip.fatal().ok()) {
    const int code = Fail(chip.fatal(), ExitCodeFor(chip.fatal()));
    AbandonLaunch();  // no launch_<k>/ of a launch that wrote nothing
    return code;
  }
  if (!chip.orchestrator().done()) {
    const int code = Fail(absl::DeadlineExceededError(absl::StrCat(
                              "simulated deadlock at ", Us(chip.calendar().now()),
                              " us: nothing left to happen, but ", chip.DescribeStall())),
                          kExitRuntime);
    AbandonLaunch();
    return code;
  }
  if (current_) {
    if (absl::Status s = FinishLaunch(); !s.ok()) {
      return StopRequested() ? Stopped() : Fail(s, kExitRuntime);
    }
  }
  if (absl::Status s = WriteRunSummary(); !s.ok()) {
    return StopRequested() ? Stopped() : Fail(s, kExitRuntime);
  }
  if (!options_.tensors_dir.empty()) {
    absl::Status s = WriteTensorDump(options_.tensors_dir, reader_->header(), memory_, functional_);
    if (!s.ok()) return StopRequested() ? Stopped() : Fail(s, kExitRuntime);
  }
  // Its files are whole, but whoever read stdout went away before the
  // report: say so (on stderr) rather than exit 0.
  if (StopSignal() == SIGPIPE) return Stopped();
  out_ << absl::StrFormat("checks: %d passed, %d failed\n", checks_passed_, checks_failed_);
  if (options_.hazards) out_ << absl::StrFormat("hazards: %d\n", hazards_found_);
  if (options_.engine_stats) PrintEngineStats();
  if (checks_failed_ > 0) return kExitCheckFailed;
  return options_.fail_on_hazard && hazards_found_ > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

int RunSimulation(const RunOptions& options, std::ostream& out, std::ostream& err) {
  Session session(options, out, err);
  return session.Run();
}

}  // namespace pto
