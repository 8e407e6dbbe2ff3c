#include "models/gm/flow_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pto {

FlowModel::ResourceId FlowModel::AddResource(double bytes_per_ns) {
  assert(bytes_per_ns > 0);
  capacity_.push_back(bytes_per_ns);
  residual_.push_back(0);
  unfrozen_users_.push_back(0);
  saturating_.push_back(0);
  users_.push_back(0);
  return static_cast<ResourceId>(capacity_.size() - 1);
}

FlowModel::FlowId FlowModel::Start(TimePs now, int64_t bytes, absl::Span<const ResourceId> path) {
  assert(bytes > 0 && !path.empty());
  assert(now >= now_);
  assert(next_completion() == kNever || next_completion() >= now);
  Progress(now);
  Flow& flow = flows_.emplace_back();
  flow.id = next_id_++;
  flow.path.assign(path.begin(), path.end());
  flow.remaining = static_cast<double>(bytes);
  for (ResourceId r : path) ++users_[r];
  if (!StartAlone(flow)) Recompute();
  return flow.id;
}

double FlowModel::Load(ResourceId resource, size_t skip) const {
  double sum = 0;
  for (size_t i = 0; i < flows_.size(); ++i) {
    const Flow& flow = flows_[i];
    if (i != skip && std::find(flow.path.begin(), flow.path.end(), resource) != flow.path.end()) {
      sum += flow.rate;
    }
  }
  return sum;
}

bool FlowModel::Unsaturated(ResourceId resource, double load, double extra) const {
  // A margin far above rounding error: a resource this close to full takes
  // the exact path.
  return load + extra < capacity_[resource] * (1 - 1e-9);
}

bool FlowModel::StartAlone(Flow& flow) {
  // Its own resources' tightest capacity: the rate it gets if the shared
  // ones still have that much to spare, in which case no one else's
  // bottleneck changes and a full recompute would give the same rates.
  double own = -1;
  for (ResourceId r : flow.path) {
    if (users_[r] == 1 && (own < 0 || capacity_[r] < own)) own = capacity_[r];
  }
  if (own < 0) return false;
  const size_t self = flows_.size() - 1;
  for (ResourceId r : flow.path) {
    if (users_[r] > 1 && !Unsaturated(r, Load(r, self), own)) return false;
  }
  flow.rate = own;
  flow.end = EndOf(flow);
  if (earliest_end_ == kNever || flow.end < earliest_end_) earliest_end_ = flow.end;
  return true;
}

bool FlowModel::EndsAlone(const Flow& flow) const {
  // A flow that crossed no full shared resource was no one's bottleneck:
  // its end leaves every other rate as it was.
  for (ResourceId r : flow.path) {
    if (users_[r] > 1 && !Unsaturated(r, Load(r, flows_.size()), 0)) return false;
  }
  return true;
}

TimePs FlowModel::EndOf(const Flow& flow) const {
  // Rounded up: the picosecond in which the last byte has moved.
  return flow.rate > 0 ? now_ + static_cast<TimePs>(std::ceil(flow.remaining / flow.rate * 1000.0))
                       : kNever;
}

void FlowModel::AdvanceTo(TimePs now, std::vector<FlowId>* completed) {
  assert(now >= now_);
  for (TimePs end = next_completion(); end != kNever && end <= now; end = next_completion()) {
    Progress(end);
    // Every flow due now ends together (ids ascending), then the others
    // share, at new rates only if one of them was someone's bottleneck.
    auto done = [end](const Flow& flow) { return flow.end == end; };
    // (A resource only ending flows share is left to the last of them,
    // which then sees it as its own.)
    bool alone = true;
    for (const Flow& flow : flows_) {
      if (!done(flow)) continue;
      completed->push_back(flow.id);
      alone = alone && EndsAlone(flow);
      for (ResourceId r : flow.path) --users_[r];
    }
    flows_.erase(std::remove_if(flows_.begin(), flows_.end(), done), flows_.end());
    if (alone) {
      earliest_end_ = EarliestEnd();
    } else {
      Recompute();
    }
  }
  Progress(now);
}

const FlowModel::Flow* FlowModel::Find(FlowId flow) const {
  auto it = std::lower_bound(flows_.begin(), flows_.end(), flow,
                             [](const Flow& f, FlowId id) { return f.id < id; });
  return it != flows_.end() && it->id == flow ? &*it : nullptr;
}

double FlowModel::rate(FlowId flow) const {
  const Flow* found = Find(flow);
  return found == nullptr ? 0 : found->rate;
}

int64_t FlowModel::remaining(FlowId flow) const {
  const Flow* found = Find(flow);
  return found == nullptr ? 0 : static_cast<int64_t>(std::ceil(found->remaining));
}

double FlowModel::resource_rate(ResourceId resource) const { return Load(resource, flows_.size()); }

void FlowModel::Progress(TimePs to) {
  const double ns = static_cast<double>(to - now_) / 1000.0;
  if (ns > 0) {
    for (Flow& flow : flows_) flow.remaining = std::max(0.0, flow.remaining - flow.rate * ns);
  }
  now_ = to;
}

void FlowModel::Recompute() {
  // Progressive filling: raise every unfrozen flow's rate together until
  // resources saturate; their flows freeze at that rate; repeat. The
  // resources that saturate first are those with the smallest fair share of
  // what is left of them: all of them at once (N cores at their caps are
  // one round, not N). Only the resources some flow crosses are looked at.
  used_.clear();
  for (const Flow& flow : flows_) {
    for (ResourceId r : flow.path) {
      if (unfrozen_users_[r]++ == 0) {
        used_.push_back(r);
        residual_[r] = capacity_[r];
      }
    }
  }
  frozen_.assign(flows_.size(), 0);
  size_t left = flows_.size();
  while (left > 0) {
    double share = -1;
    for (ResourceId r : used_) {
      if (unfrozen_users_[r] == 0) continue;
      const double fair = std::max(0.0, residual_[r]) / unfrozen_users_[r];
      if (share < 0 || fair < share) share = fair;
    }
    for (ResourceId r : used_) {
      saturating_[r] =
          unfrozen_users_[r] > 0 && std::max(0.0, residual_[r]) / unfrozen_users_[r] == share;
    }
    for (size_t i = 0; i < flows_.size(); ++i) {
      Flow& flow = flows_[i];
      if (frozen_[i] || std::none_of(flow.path.begin(), flow.path.end(),
                                     [&](ResourceId r) { return saturating_[r] != 0; })) {
        continue;
      }
      flow.rate = share;
      frozen_[i] = 1;
      --left;
      for (ResourceId r : flow.path) {
        residual_[r] -= share;
        --unfrozen_users_[r];  // back to 0 once every flow froze
      }
    }
  }
  for (ResourceId r : used_) saturating_[r] = 0;
  for (Flow& flow : flows_) flow.end = EndOf(flow);
  earliest_end_ = EarliestEnd();
}

TimePs FlowModel::EarliestEnd() const {
  TimePs earliest = kNever;
  for (const Flow& flow : flows_) {
    if (flow.end != kNever && (earliest == kNever || flow.end < earliest)) earliest = flow.end;
  }
  return earliest;
}

}  // namespace pto
