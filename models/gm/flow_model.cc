#include "models/gm/flow_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pto {
namespace {

// ceil(x) for 0 <= x < 2^63, without std::ceil's call into libm on a
// baseline x86-64 build: this runs once per rate change.
TimePs CeilToPs(double x) {
  const auto whole = static_cast<TimePs>(x);
  return static_cast<double>(whole) < x ? whole + 1 : whole;
}

// EarliestEnd takes the unsigned minimum of the ends, kNever included.
static_assert(kNever == -1, "kNever must be the largest end as unsigned");

}  // namespace

FlowModel::ResourceId FlowModel::AddResource(double bytes_per_ns) {
  assert(bytes_per_ns > 0);
  capacity_.push_back(bytes_per_ns);
  residual_.push_back(0);
  unfrozen_users_.push_back(0);
  users_.push_back(0);
  load_.push_back(0);
  used_position_.push_back(-1);
  through_.emplace_back();
  return static_cast<ResourceId>(capacity_.size() - 1);
}

FlowModel::FlowId FlowModel::Start(TimePs now, int64_t bytes, absl::Span<const ResourceId> path) {
  assert(bytes > 0 && !path.empty());
  assert(now >= now_);
  // Stale rates are those of the flows started at now_: bring them up to
  // date before time moves on.
  if (now > now_) Flush();
  assert(earliest_end_ == kNever || earliest_end_ >= now);
  now_ = now;
  Flow& flow = flows_.emplace_back();
  flow.id = next_id_++;
  flow.path = Enter(path);
  Path& along = paths_[static_cast<size_t>(flow.path)];
  // A path that had no flow restarts its clock, which so stays small.
  if (along.flows == 1) {
    along.clock = 0;
    along.since = now;
    along.rate = 0;
    along.end = kNever;
  }
  flow.finish = ClockNow(along) + static_cast<double>(bytes);
  if (along.flows == 1 || flow.finish < along.first_finish) {
    along.first_finish = flow.finish;
    along.end = EndOf(along, flow.finish);
  }
  for (ResourceId r : path) {
    if (users_[r]++ == 0) {
      used_position_[r] = static_cast<int>(used_.size());
      used_.push_back(r);
    }
  }
  // A start that changes others' rates waits for the next query, so the
  // flows starting at this instant share one recompute.
  if (stale_ || !StartAlone(flow)) stale_ = true;
  return flow.id;
}

FlowModel::PathId FlowModel::Enter(absl::Span<const ResourceId> resources) {
  absl::InlinedVector<ResourceId, 4> key(resources.begin(), resources.end());
  const auto [it, inserted] = path_ids_.try_emplace(std::move(key), 0);
  if (inserted) {
    it->second = static_cast<PathId>(paths_.size());
    Path& made = paths_.emplace_back();
    made.begin = static_cast<uint32_t>(hops_.size());
    made.hops = static_cast<uint32_t>(resources.size());
    hops_.insert(hops_.end(), resources.begin(), resources.end());
  }
  Path& path = paths_[static_cast<size_t>(it->second)];
  if (path.flows++ == 0) {
    path.position = static_cast<int>(active_paths_.size());
    active_paths_.push_back(it->second);
    for (ResourceId r : resources) through_[r].push_back(it->second);
  }
  return it->second;
}

void FlowModel::Leave(PathId id) {
  Path& path = paths_[static_cast<size_t>(id)];
  if (--path.flows > 0) return;
  const PathId moved = active_paths_.back();
  active_paths_[static_cast<size_t>(path.position)] = moved;
  paths_[static_cast<size_t>(moved)].position = path.position;
  active_paths_.pop_back();
  path.position = -1;
  for (uint32_t h = 0; h < path.hops; ++h) {
    std::vector<PathId>& through = through_[hops_[path.begin + h]];
    *std::find(through.begin(), through.end(), id) = through.back();
    through.pop_back();
  }
}

bool FlowModel::Unsaturated(ResourceId resource, double load, double extra) const {
  // A margin far above rounding error: a resource this close to full takes
  // the exact path.
  return load + extra < capacity_[resource] * (1 - 1e-9);
}

bool FlowModel::StartAlone(const Flow& flow) {
  // Its own resources' tightest capacity: the rate it gets if the shared
  // ones still have that much to spare, in which case no one else's
  // bottleneck changes and a full recompute would give the same rates.
  double own = -1;
  for (ResourceId r : PathOf(flow)) {
    if (users_[r] == 1 && (own < 0 || capacity_[r] < own)) own = capacity_[r];
  }
  if (own < 0) return false;
  for (ResourceId r : PathOf(flow)) {
    if (users_[r] > 1 && !Unsaturated(r, load_[r], own)) return false;
  }
  // Alone on its resource: alone on its path too.
  Path& path = paths_[static_cast<size_t>(flow.path)];
  SetRate(path, own);
  for (ResourceId r : PathOf(flow)) load_[r] += own;
  if (earliest_end_ == kNever || path.end < earliest_end_) earliest_end_ = path.end;
  return true;
}

bool FlowModel::EndsAlone(const Flow& flow) const {
  // A flow that crossed no full shared resource was no one's bottleneck:
  // its end leaves every other rate as it was.
  for (ResourceId r : PathOf(flow)) {
    if (users_[r] > 1 && !Unsaturated(r, load_[r], 0)) return false;
  }
  return true;
}

TimePs FlowModel::EndOf(const Path& path, double finish) const {
  // Rounded up: the picosecond in which the last byte has moved.
  return path.rate > 0
             ? path.since + CeilToPs(std::max(0.0, finish - path.clock) / path.rate * 1000.0)
             : kNever;
}

double FlowModel::ClockNow(const Path& path) const {
  return path.clock + path.rate * (static_cast<double>(now_ - path.since) / 1000.0);
}

double FlowModel::RemainingNow(const Flow& flow) const {
  return std::max(0.0, flow.finish - ClockNow(paths_[static_cast<size_t>(flow.path)]));
}

void FlowModel::SetRate(Path& path, double rate) {
  if (rate == path.rate) return;  // its end stands
  path.clock = ClockNow(path);
  path.since = now_;
  path.rate = rate;
  path.end = EndOf(path, path.first_finish);
}

void FlowModel::UpdateFirstFinish(PathId id) {
  Path& path = paths_[static_cast<size_t>(id)];
  if (path.flows == 0) {
    path.end = kNever;
    return;
  }
  double first = -1;
  for (const Flow& flow : flows_) {
    if (flow.path == id && (first < 0 || flow.finish < first)) first = flow.finish;
  }
  path.first_finish = first;
  path.end = EndOf(path, first);
}

void FlowModel::AdvanceTo(TimePs now, std::vector<FlowId>* completed) {
  assert(now >= now_);
  Flush();
  for (TimePs end = next_completion(); end != kNever && end <= now; end = next_completion()) {
    now_ = end;
    // Every flow due now ends together (ids ascending), then the others
    // share, at new rates only if one of them was someone's bottleneck.
    // Only a path due now has flows due now.
    auto done = [this, end](const Flow& flow) {
      const Path& path = paths_[static_cast<size_t>(flow.path)];
      return path.end == end && EndOf(path, flow.finish) == end;
    };
    // (A resource only ending flows share is left to the last of them,
    // which then sees it as its own.)
    bool alone = true;
    left_.clear();
    for (Flow& flow : flows_) {
      if (!done(flow)) continue;
      completed->push_back(flow.id);
      alone = alone && EndsAlone(flow);
      const double rate = paths_[static_cast<size_t>(flow.path)].rate;
      for (ResourceId r : PathOf(flow)) {
        if (--users_[r] > 0) {
          load_[r] -= rate;
          continue;
        }
        // The last flow off a resource leaves it exactly idle, and unused.
        load_[r] = 0;
        const ResourceId moved = used_.back();
        used_[static_cast<size_t>(used_position_[r])] = moved;
        used_position_[moved] = used_position_[r];
        used_.pop_back();
        used_position_[r] = -1;
      }
      Leave(flow.path);
      if (std::find(left_.begin(), left_.end(), flow.path) == left_.end()) {
        left_.push_back(flow.path);
      }
      flow.path = -1;  // marks it for removal
    }
    flows_.erase(std::remove_if(flows_.begin(), flows_.end(),
                                [](const Flow& flow) { return flow.path < 0; }),
                 flows_.end());
    for (PathId path : left_) UpdateFirstFinish(path);
    if (alone) {
      earliest_end_ = EarliestEnd();
    } else {
      Recompute();
    }
  }
  now_ = now;
}

const FlowModel::Flow* FlowModel::Find(FlowId flow) const {
  auto it = std::lower_bound(flows_.begin(), flows_.end(), flow,
                             [](const Flow& f, FlowId id) { return f.id < id; });
  return it != flows_.end() && it->id == flow ? &*it : nullptr;
}

double FlowModel::rate(FlowId flow) {
  Flush();
  const Flow* found = Find(flow);
  return found == nullptr ? 0 : paths_[static_cast<size_t>(found->path)].rate;
}

int64_t FlowModel::remaining(FlowId flow) {
  Flush();
  const Flow* found = Find(flow);
  return found == nullptr ? 0 : static_cast<int64_t>(std::ceil(RemainingNow(*found)));
}

double FlowModel::resource_rate(ResourceId resource) {
  Flush();
  return load_[resource];
}

void FlowModel::Recompute() {
  // Progressive filling: raise every unfrozen flow's rate together until
  // resources saturate; their flows freeze at that rate; repeat. The
  // resources that saturate first are those with the smallest fair share of
  // what is left of them: all of them at once (N cores at their caps are
  // one round, not N). Only the resources some flow crosses are looked at;
  // a saturating resource freezes the unfrozen paths through it (a path's
  // flows all get one rate), and the loads are summed as paths freeze.
  //
  // The loops work on raw pointers: through the vectors every store would
  // reload their data pointers.
  double* const residual = residual_.data();
  int* const unfrozen_users = unfrozen_users_.data();
  double* const load = load_.data();
  const double* const capacity = capacity_.data();
  const int* const users = users_.data();
  const ResourceId* const used = used_.data();
  const size_t used_count = used_.size();
  for (size_t k = 0; k < used_count; ++k) {
    const ResourceId r = used[k];
    residual[r] = capacity[r];
    unfrozen_users[r] = users[r];
    load[r] = 0;
  }
  Path* const paths = paths_.data();
  const ResourceId* const all_hops = hops_.data();
  // A stamp per recompute marks the paths frozen in it (none to clear).
  const uint64_t stamp = ++recomputes_;
  size_t unfrozen_count = active_paths_.size();
  std::vector<ResourceId>& saturating = saturating_;
  while (unfrozen_count > 0) {
    // The smallest fair share, and the resources at it (in `used` order).
    double share = -1;
    saturating.clear();
    for (size_t k = 0; k < used_count; ++k) {
      const ResourceId r = used[k];
      if (unfrozen_users[r] == 0) continue;
      const double fair = std::max(0.0, residual[r]) / unfrozen_users[r];
      if (share < 0 || fair < share) {
        share = fair;
        saturating.clear();
      }
      if (fair == share) saturating.push_back(r);
    }
    // The resources at that share saturate: every path through them freezes.
    // (One whose paths all froze through another this round has none left.)
    for (const ResourceId r : saturating) {
      const std::vector<PathId>& through = through_[r];
      const PathId* const ids = through.data();
      const size_t count = through.size();
      for (size_t i = 0; i < count; ++i) {
        Path& path = paths[ids[i]];
        if (path.frozen == stamp) continue;
        path.frozen = stamp;
        path.share = share;
        --unfrozen_count;
        // Locals: an int store (unfrozen_users) may alias the path's fields.
        const int flows = path.flows;
        const double taken = share * flows;
        const ResourceId* const hop = all_hops + path.begin;
        const uint32_t hops = path.hops;
        for (uint32_t h = 0; h < hops; ++h) {
          const ResourceId on = hop[h];
          residual[on] -= taken;
          load[on] += taken;
          unfrozen_users[on] -= flows;  // back to 0 once every flow froze
        }
      }
    }
  }
  // kNever is -1: as unsigned it is above every end, so the earliest end is
  // the unsigned minimum.
  uint64_t earliest = static_cast<uint64_t>(kNever);
  for (PathId id : active_paths_) {
    Path& path = paths[id];
    SetRate(path, path.share);
    earliest = std::min(earliest, static_cast<uint64_t>(path.end));
  }
  earliest_end_ = static_cast<TimePs>(earliest);
}

TimePs FlowModel::EarliestEnd() const {
  // kNever is -1: as unsigned it is above every end.
  uint64_t earliest = static_cast<uint64_t>(kNever);
  for (PathId id : active_paths_) {
    earliest = std::min(earliest, static_cast<uint64_t>(paths_[static_cast<size_t>(id)].end));
  }
  return static_cast<TimePs>(earliest);
}

}  // namespace pto
