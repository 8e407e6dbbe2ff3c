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
  Recompute();
  return flow.id;
}

void FlowModel::AdvanceTo(TimePs now, std::vector<FlowId>* completed) {
  assert(now >= now_);
  for (TimePs end = next_completion(); end != kNever && end <= now; end = next_completion()) {
    Progress(end);
    // Every flow due now ends together (ids ascending), then the others share.
    auto done = [end](const Flow& flow) { return flow.end == end; };
    for (const Flow& flow : flows_) {
      if (done(flow)) completed->push_back(flow.id);
    }
    flows_.erase(std::remove_if(flows_.begin(), flows_.end(), done), flows_.end());
    Recompute();
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

double FlowModel::resource_rate(ResourceId resource) const {
  double sum = 0;
  for (const Flow& flow : flows_) {
    if (std::find(flow.path.begin(), flow.path.end(), resource) != flow.path.end()) {
      sum += flow.rate;
    }
  }
  return sum;
}

void FlowModel::Progress(TimePs to) {
  const double ns = static_cast<double>(to - now_) / 1000.0;
  if (ns > 0) {
    for (Flow& flow : flows_) flow.remaining = std::max(0.0, flow.remaining - flow.rate * ns);
  }
  now_ = to;
}

void FlowModel::Recompute() {
  // Progressive filling: raise every unfrozen flow's rate together until a
  // resource saturates; its flows freeze at that rate; repeat. The resource
  // that saturates first is the one with the smallest fair share of what is
  // left of it (ties: the lowest id). Only the resources some flow crosses
  // are looked at.
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
    ResourceId bottleneck = -1;
    double share = 0;
    for (ResourceId r : used_) {
      if (unfrozen_users_[r] == 0) continue;
      const double fair = std::max(0.0, residual_[r]) / unfrozen_users_[r];
      if (bottleneck < 0 || fair < share || (fair == share && r < bottleneck)) {
        bottleneck = r;
        share = fair;
      }
    }
    for (size_t i = 0; i < flows_.size(); ++i) {
      Flow& flow = flows_[i];
      if (frozen_[i] ||
          std::find(flow.path.begin(), flow.path.end(), bottleneck) == flow.path.end()) {
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
  earliest_end_ = kNever;
  for (Flow& flow : flows_) {
    // Rounded up: the picosecond in which the last byte has moved.
    flow.end = flow.rate > 0
                   ? now_ + static_cast<TimePs>(std::ceil(flow.remaining / flow.rate * 1000.0))
                   : kNever;
    if (flow.end != kNever && (earliest_end_ == kNever || flow.end < earliest_end_)) {
      earliest_end_ = flow.end;
    }
  }
}

}  // namespace pto
