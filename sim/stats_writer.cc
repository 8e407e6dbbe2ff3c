#include "sim/stats_writer.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"

namespace pto {
namespace {

nlohmann::json TimeOrNull(TimePs t) {
  return t == kNever ? nlohmann::json(nullptr) : nlohmann::json(Us(t));
}

}  // namespace

StatsWriter::StatsWriter(std::string dir, bool records) : dir_(std::move(dir)), records_(records) {
  tasks_.path = absl::StrCat(dir_, "/.tasks.jsonl.tmp");
  edges_.path = absl::StrCat(dir_, "/.edges.jsonl.tmp");
  intervals_.path = absl::StrCat(dir_, "/.core_intervals.jsonl.tmp");
  engine_intervals_.path = absl::StrCat(dir_, "/.engine_intervals.jsonl.tmp");
}

StatsWriter::~StatsWriter() {
  for (Stream* s : {&tasks_, &edges_, &intervals_, &engine_intervals_}) {
    if (s->out.is_open()) s->out.close();
    std::remove(s->path.c_str());
  }
}

absl::Status StatsWriter::Open() {
  if (!records_) return absl::OkStatus();
  for (Stream* s : {&tasks_, &edges_, &intervals_, &engine_intervals_}) {
    s->out.open(s->path, std::ios::trunc);
    if (!s->out) return absl::UnavailableError(absl::StrCat(s->path, ": cannot open for writing"));
  }
  return absl::OkStatus();
}

void StatsWriter::Append(Stream& stream, const std::string& line) {
  if (!stream.empty) stream.out << ",\n";
  stream.out << line;
  stream.empty = false;
}

void StatsWriter::OnEdge(const Task& consumer, const DepEdge& edge) {
  if (!records_) return;
  const TaskSeq launch_base = consumer.seq - consumer.index_in_launch;
  nlohmann::json j = {{"pred", edge.producer - launch_base},
                      {"succ", consumer.index_in_launch},
                      {"source", EdgeSourceName(edge.source)},
                      {"arg", edge.arg_index}};
  if (edge.source == EdgeSource::kTensorMap) j["overlap"] = OverlapName(edge.overlap);
  Append(edges_, j.dump());
}

void StatsWriter::OnCoreInterval(const CoreInterval& interval) {
  if (!records_) return;
  line_ =
      nlohmann::json::array({interval.core, interval.task, interval.block, Us(interval.dispatch),
                             Us(interval.receive), Us(interval.start), Us(interval.end)})
          .dump();
  Append(intervals_, line_);
}

void StatsWriter::OnEngineBusy(const EngineInterval& interval) {
  if (!records_) return;
  line_ = nlohmann::json::array({interval.core, interval.task, interval.block,
                                 interval.cube ? "cube" : "vector", Us(interval.start),
                                 Us(interval.end)})
              .dump();
  Append(engine_intervals_, line_);
}

void StatsWriter::AddGmBytes(TaskSeq task, GmAccess kind, uint64_t bytes) {
  if (!records_) return;
  GmBytes& sum = gm_bytes_[task];
  (kind == GmAccess::kRead ? sum.read : sum.write) += bytes;
}

void StatsWriter::OnGmAccess(TaskSeq task, int64_t, int, GmAccess kind, uint64_t, uint64_t size) {
  AddGmBytes(task, kind, size);
}

void StatsWriter::OnGmRows(TaskSeq task, int64_t, int, GmAccess kind, uint64_t, int64_t rows,
                           uint64_t row_bytes, uint64_t) {
  AddGmBytes(task, kind, static_cast<uint64_t>(rows) * row_bytes);
}

void StatsWriter::OnSummaryBytes(TaskSeq task, int64_t, int, GmAccess kind, uint64_t bytes) {
  AddGmBytes(task, kind, bytes);
}

void StatsWriter::OnTaskRetired(const Task& task) {
  const std::optional<Pipe> bound = pipes_.Retire(task.seq);
  if (!records_) return;
  GmBytes gm;
  if (const auto it = gm_bytes_.find(task.seq); it != gm_bytes_.end()) {
    gm = it->second;
    gm_bytes_.erase(it);
  }
  nlohmann::json j = {{"index", task.index_in_launch},
                      {"seq", task.seq},
                      {"task_id", std::to_string(task.runtime_id)},
                      {"name", task.name},
                      {"kind", TaskShapeName(task.shape)},
                      {"block_num", task.block_num},
                      {"scope_depth", task.scope_depth},
                      {"predicated_skip", task.predicated_skip},
                      {"producers", task.producers},
                      {"submit_us", TimeOrNull(task.times.submit)},
                      {"ready_us", TimeOrNull(task.times.ready)},
                      {"dispatch_us", TimeOrNull(task.times.first_dispatch)},
                      {"start_us", TimeOrNull(task.times.first_start)},
                      {"end_us", TimeOrNull(task.times.last_end)},
                      {"finish_us", TimeOrNull(task.times.finish)},
                      {"core", task.first_core},
                      {"bound_pipe", bound ? nlohmann::json(std::string(PipeName(*bound)))
                                           : nlohmann::json(nullptr)},
                      {"gm_read_bytes", gm.read},
                      {"gm_write_bytes", gm.write}};
  Append(tasks_, j.dump());
}

absl::Status StatsWriter::Splice(std::ostream& out, Stream& stream, const char* key) {
  stream.out.close();
  out << ",\n\"" << key << "\": [\n";
  if (!stream.empty) {  // streaming an empty buffer would set failbit
    std::ifstream in(stream.path);
    out << in.rdbuf();
  }
  out << "\n]";
  return absl::OkStatus();
}

absl::Status StatsWriter::Finalize(const nlohmann::json& summary) {
  AtomicFile file(absl::StrCat(dir_, "/stats.json"));
  if (absl::Status s = file.Open(); !s.ok()) return s;
  std::ostream& out = file.out();
  std::string head = summary.dump(2);
  head.pop_back();  // the closing brace; the arrays follow
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  out << head;
  if (records_) {
    for (auto [stream, key] : {std::pair<Stream*, const char*>{&tasks_, "task_records"},
                               {&edges_, "edge_records"},
                               {&intervals_, "core_intervals"},
                               {&engine_intervals_, "engine_intervals"}}) {
      if (absl::Status s = Splice(out, *stream, key); !s.ok()) return s;
    }
  }
  out << "\n}\n";
  return file.Commit();
}

}  // namespace pto
