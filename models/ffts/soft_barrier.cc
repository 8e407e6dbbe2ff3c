#include "models/ffts/soft_barrier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto {

int64_t SoftSyncallExitPs(int64_t own_ready_ps, int64_t last_add_ps, int64_t poll_ps,
                          int64_t* polls) {
  // Poll k (k >= 1) starts at own_ready + (k - 1) × poll.
  int64_t k = 1;
  if (last_add_ps > own_ready_ps) k += (last_add_ps - own_ready_ps + poll_ps - 1) / poll_ps;
  if (polls != nullptr) *polls = k;
  return own_ready_ps + k * poll_ps;
}

SoftBarrier::SoftBarrier(int64_t used_cores, int64_t poll_ps)
    : used_cores_(used_cores), poll_ps_(poll_ps) {}

absl::StatusOr<std::vector<SoftBarrier::Release>> SoftBarrier::Arrive(int core,
                                                                      int64_t add_landed_ps) {
  for (const Arrival& arrival : arrivals_) {
    if (arrival.core == core) {
      return absl::FailedPreconditionError(absl::StrCat(
          "core ", core,
          " arrived twice at one soft syncall before it released (used_cores=", used_cores_, ")"));
    }
  }
  arrivals_.push_back({core, add_landed_ps});
  std::vector<Release> releases;
  if (static_cast<int64_t>(arrivals_.size()) < used_cores_) return releases;
  int64_t last_add = arrivals_.front().ready_ps;
  for (const Arrival& arrival : arrivals_) last_add = std::max(last_add, arrival.ready_ps);
  for (const Arrival& arrival : arrivals_) {
    Release release;
    release.core = arrival.core;
    release.exit_ps = SoftSyncallExitPs(arrival.ready_ps, last_add, poll_ps_, &release.polls);
    total_polls_ += release.polls;
    releases.push_back(release);
  }
  arrivals_.clear();
  ++generation_;
  return releases;
}

std::vector<int> SoftBarrier::Waiting() const {
  std::vector<int> cores;
  for (const Arrival& arrival : arrivals_) cores.push_back(arrival.core);
  std::sort(cores.begin(), cores.end());
  return cores;
}

std::string SoftBarrier::Report(const std::string& task_name) const {
  std::string waiting;
  for (int core : Waiting()) absl::StrAppend(&waiting, waiting.empty() ? "" : ", ", core);
  return absl::StrCat(
      "soft syncall in task '", task_name, "' waits for used_cores=", used_cores_,
      " participants; ", arrivals_.size(), " arrived and poll (cores ", waiting, "), ",
      used_cores_ - static_cast<int64_t>(arrivals_.size()),
      " never arrived. The pollers hold their cores, so blocks that would run in a later wave "
      "never start: launch at most as many blocks as can be resident at once (or set "
      "sync_start=True), and make used_cores match the blocks that call the syncall.");
}

}  // namespace pto
