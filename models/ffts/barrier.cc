#include "models/ffts/barrier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto {
namespace {

// "aiv0 [core 24], aiv1 [core 25], ..." with at most `limit` entries named.
std::string NameCores(const std::vector<int>& ids, int64_t clusters, size_t limit) {
  std::string text;
  for (size_t i = 0; i < ids.size() && i < limit; ++i) {
    absl::StrAppend(&text, i == 0 ? "" : ", ", PhysicalCoreName(ids[i], clusters), " [core ",
                    ids[i], "]");
  }
  if (ids.size() > limit) absl::StrAppend(&text, ", ... (", ids.size() - limit, " more)");
  return text;
}

}  // namespace

const char* BarrierCoreTypeName(BarrierCoreType type) {
  switch (type) {
    case BarrierCoreType::kAiv:
      return "AIV";
    case BarrierCoreType::kAic:
      return "AIC";
    case BarrierCoreType::kMix:
      return "MIX";
  }
  return "?";
}

std::string PhysicalCoreName(int core_id, int64_t clusters) {
  if (core_id < clusters) return absl::StrCat("aic", core_id);
  return absl::StrCat("aiv", core_id - clusters);
}

HardBarrier::HardBarrier(BarrierCoreType type, int64_t clusters, int64_t release_latency_ps)
    : type_(type), clusters_(clusters), release_latency_ps_(release_latency_ps) {
  const int64_t cores = clusters * 3;
  arrived_.assign(static_cast<size_t>(cores), 0);
  const int64_t first = type == BarrierCoreType::kAiv ? clusters : 0;
  const int64_t last = type == BarrierCoreType::kAic ? clusters : cores;
  for (int64_t id = first; id < last; ++id) participant_ids_.push_back(static_cast<int>(id));
}

bool HardBarrier::IsParticipant(int core_id) const {
  return std::binary_search(participant_ids_.begin(), participant_ids_.end(), core_id);
}

absl::StatusOr<std::optional<int64_t>> HardBarrier::Arrive(int core_id, int64_t time_ps) {
  if (!IsParticipant(core_id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("core ", core_id, " is not a participant of a hard syncall with core_type ",
                     BarrierCoreTypeName(type_), " (participants: cores ", participant_ids_.front(),
                     "..", participant_ids_.back(), ")"));
  }
  if (arrived_[core_id]) {
    return absl::FailedPreconditionError(
        absl::StrCat(PhysicalCoreName(core_id, clusters_), " [core ", core_id,
                     "] arrived twice at one hard syncall before it released"));
  }
  arrived_[core_id] = 1;
  last_arrival_ps_ = arrived_count_ == 0 ? time_ps : std::max(last_arrival_ps_, time_ps);
  if (++arrived_count_ < participants()) return std::optional<int64_t>();
  // Everyone is here: release and re-arm for the next syncall.
  for (int id : participant_ids_) arrived_[id] = 0;
  arrived_count_ = 0;
  ++generation_;
  return std::optional<int64_t>(last_arrival_ps_ + release_latency_ps_);
}

std::vector<int> HardBarrier::Waiting() const {
  std::vector<int> ids;
  for (int id : participant_ids_) {
    if (arrived_[id]) ids.push_back(id);
  }
  return ids;
}

std::vector<int> HardBarrier::Missing() const {
  std::vector<int> ids;
  for (int id : participant_ids_) {
    if (!arrived_[id]) ids.push_back(id);
  }
  return ids;
}

std::string HardBarrier::Report(const std::string& task_name) const {
  constexpr size_t kNamed = 16;
  const std::vector<int> waiting = Waiting();
  const std::vector<int> missing = Missing();
  const char* type = BarrierCoreTypeName(type_);
  const char* query = type_ == BarrierCoreType::kAiv ? "pl.system.available_aiv_count()"
                                                     : "pl.system.available_cluster_count()";
  return absl::StrCat(
      "507018-style barrier deadlock: hard syncall (core_type ", type, ") in task '", task_name,
      "' waits for all ", participants(), " physical cores of that type; ", waiting.size(),
      " arrived and wait (", NameCores(waiting, clusters_, kNamed), "), ", missing.size(),
      " never arrived (", NameCores(missing, clusters_, kNamed),
      "). A hard syncall needs every physical core of its type: launch one block per core "
      "(sized with ",
      query, ") with sync_start=True, or use mode=pl.SyncAllMode.SOFT for partial occupancy.");
}

}  // namespace pto
