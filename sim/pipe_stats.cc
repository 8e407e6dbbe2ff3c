#include "sim/pipe_stats.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {
namespace {

// Picoseconds as nanoseconds.
double NsOf(TimePs ps) { return static_cast<double>(ps) / 1e3; }

std::string NameOf(Pipe pipe) { return std::string(PipeName(pipe)); }

}  // namespace

std::optional<Pipe> BoundingPipe(const PipeTimes& busy) {
  int best = -1;
  for (int p = 0; p < kPipeCount; ++p) {
    if (busy[p] > 0 && (best < 0 || busy[p] > busy[best])) best = p;
  }
  if (best < 0) return std::nullopt;
  return static_cast<Pipe>(best);
}

void PipeStats::Add(const PipeSegment& segment) {
  any_ = true;
  PipeTimes& core_type = busy_[segment.aic ? 0 : 1];
  PipeTimes& task = in_flight_[segment.task];
  for (int p = 0; p < kPipeCount; ++p) {
    core_type[p] += segment.busy[p];
    task[p] += segment.busy[p];
  }
  for (const PipeOpInterval& op : segment.ops) {
    if (op.end <= op.start) continue;  // no time: loop markers, empty barriers
    std::vector<TimePs>& kinds = op_time_[static_cast<int>(op.pipe)];
    const size_t kind = static_cast<size_t>(op.kind);
    if (kinds.size() <= kind) kinds.resize(kind + 1, -1);
    kinds[kind] = (kinds[kind] < 0 ? 0 : kinds[kind]) + (op.end - op.start);
  }
}

std::optional<Pipe> PipeStats::Retire(TaskSeq task) {
  auto it = in_flight_.find(task);
  if (it == in_flight_.end()) return std::nullopt;
  const std::optional<Pipe> bound = BoundingPipe(it->second);
  in_flight_.erase(it);
  if (bound) ++bound_tasks_[static_cast<int>(*bound)];
  return bound;
}

nlohmann::json PipeStats::ToJson() const {
  nlohmann::json busy = nlohmann::json::object();
  nlohmann::json ops = nlohmann::json::object();
  nlohmann::json bound = nlohmann::json::object();
  for (int p = 0; p < kPipeCount; ++p) {
    const std::string pipe = NameOf(static_cast<Pipe>(p));
    busy["aic"][pipe] = NsOf(busy_[0][p]);
    busy["aiv"][pipe] = NsOf(busy_[1][p]);
    bound[pipe] = bound_tasks_[p];
    const std::vector<TimePs>& kinds = op_time_[p];
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (kinds[k] < 0) continue;  // never seen
      ops[pipe][trace::Op::Kind_Name(static_cast<trace::Op::Kind>(k))] = NsOf(kinds[k]);
    }
  }
  return {{"busy_ns", std::move(busy)}, {"op_ns", std::move(ops)}, {"bound_tasks", bound}};
}

std::string DescribePipes(const PipeStats& stats) {
  std::string out = "pipes:";
  const char* sep = " ";
  for (bool aic : {true, false}) {
    std::string busy;
    for (int p = 0; p < kPipeCount; ++p) {
      const TimePs t = stats.busy(aic)[p];
      if (t == 0) continue;
      absl::StrAppendFormat(&busy, "%s%s %.3f us", busy.empty() ? "" : ", ",
                            PipeName(static_cast<Pipe>(p)), static_cast<double>(t) / 1e6);
    }
    if (busy.empty()) continue;
    absl::StrAppend(&out, sep, aic ? "AIC" : "AIV", " busy ", busy);
    sep = "; ";
  }
  std::string bound;
  for (int p = 0; p < kPipeCount; ++p) {
    const uint64_t n = stats.bound_tasks(static_cast<Pipe>(p));
    if (n == 0) continue;
    absl::StrAppend(&bound, bound.empty() ? "" : ", ", PipeName(static_cast<Pipe>(p)), " ", n);
  }
  if (!bound.empty()) absl::StrAppend(&out, sep, "tasks bound by ", bound);
  return out;
}

}  // namespace pto
