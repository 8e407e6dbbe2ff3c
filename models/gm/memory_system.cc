#include "models/gm/memory_system.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace pto {
namespace {

// The bandwidth a part's bytes take: narrow rows cost more than their bytes.
int64_t FlowBytes(int64_t bytes, double bandwidth_factor) {
  return bandwidth_factor == 1.0
             ? bytes
             : static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * bandwidth_factor));
}

}  // namespace

MemorySystemParams MemorySystemParams::Of(const ChipConfig& config) {
  const GmParams& gm = config.gm;
  const double cores_ghz =
      static_cast<double>(config.chip.clusters) * config.chip.aicore_clock_hz / 1e9;
  MemorySystemParams params;
  params.hbm_bytes_per_ns = gm.hbm_bandwidth_bytes_per_s * gm.hbm_efficiency / 1e9;
  params.l2_read_bytes_per_ns = gm.l2_read_bytes_per_cycle * cores_ghz;
  params.l2_write_bytes_per_ns = gm.l2_write_bytes_per_cycle * cores_ghz;
  params.l2_hit_latency = Ns(gm.l2_hit_latency_ns);
  params.l2_miss_latency = Ns(gm.l2_miss_latency_ns);
  return params;
}

MemorySystem::MemorySystem(const MemorySystemParams& params)
    : params_(params),
      hbm_(flows_.AddResource(params.hbm_bytes_per_ns)),
      l2_read_(flows_.AddResource(params.l2_read_bytes_per_ns)),
      l2_write_(flows_.AddResource(params.l2_write_bytes_per_ns)) {
  assert(params.l2_hit_latency >= 0 && params.l2_miss_latency >= 0);
}

MemorySystem::RequesterId MemorySystem::AddRequester(const RequesterCaps& caps) {
  requesters_.push_back(
      {flows_.AddResource(caps.read_bytes_per_ns), flows_.AddResource(caps.write_bytes_per_ns)});
  return static_cast<RequesterId>(requesters_.size() - 1);
}

MemorySystem::TransferId MemorySystem::Start(TimePs now, RequesterId requester,
                                             GmDirection direction, const L2Split& split,
                                             double bandwidth_factor) {
  assert(requester >= 0 && requester < static_cast<RequesterId>(requesters_.size()));
  assert(split.hit_bytes >= 0 && split.miss_bytes >= 0 && split.bytes() > 0);
  assert(bandwidth_factor >= 1.0);
  const Requester& who = requesters_[static_cast<size_t>(requester)];
  const TransferId id = next_transfer_++;
  Transfer& transfer = transfers_[id];
  transfer.requester = requester;
  ++counters_.transfers;
  if (direction == GmDirection::kWrite) {
    assert(split.miss_bytes == 0);
    transfer.latency = params_.l2_hit_latency;
    counters_.l2_write_bytes += split.hit_bytes;
    StartPart(now, id, FlowBytes(split.hit_bytes, bandwidth_factor), {who.write, l2_write_});
    NoteHbmRateAfterStart(now);
    return id;
  }
  transfer.latency = split.miss_bytes > 0 ? params_.l2_miss_latency : params_.l2_hit_latency;
  counters_.l2_read_hit_bytes += split.hit_bytes;
  counters_.l2_read_miss_bytes += split.miss_bytes;
  // The rest of the missed lines comes from HBM alongside: the transfer
  // ends once its lines are in.
  const int64_t fill_rest = std::max<int64_t>(0, split.fill_bytes - split.miss_bytes);
  counters_.hbm_read_bytes += split.miss_bytes + fill_rest;
  if (split.hit_bytes > 0) {
    StartPart(now, id, FlowBytes(split.hit_bytes, bandwidth_factor), {who.read, l2_read_});
  }
  if (split.miss_bytes > 0) {
    StartPart(now, id, FlowBytes(split.miss_bytes, bandwidth_factor), {who.read, l2_read_, hbm_});
  }
  if (fill_rest > 0) StartPart(now, id, fill_rest, {hbm_});
  NoteHbmRateAfterStart(now);
  return id;
}

void MemorySystem::StartPart(TimePs now, TransferId transfer, int64_t bytes,
                             absl::Span<const FlowModel::ResourceId> path) {
  const FlowModel::FlowId flow = flows_.Start(now, bytes, path);
  owner_[flow] = transfer;
  if (transfer != kWriteBack) {
    Transfer& t = transfers_[transfer];
    t.part[t.parts++] = flow;
    ++t.parts_left;
  }
}

void MemorySystem::StartWriteBack(TimePs now, int64_t bytes) {
  assert(bytes > 0);
  counters_.hbm_write_bytes += bytes;
  const FlowModel::ResourceId path[] = {hbm_};
  StartPart(now, kWriteBack, bytes, path);
  NoteHbmRateAfterStart(now);
}

void MemorySystem::NoteHbmRateAfterStart(TimePs at) {
  if (!hbm_listener_) return;
  // Stale rates are recomputed once for all the starts of this instant, at
  // the AdvanceTo that follows: the note waits for it.
  if (flows_.stale()) {
    hbm_note_at_ = at;
    return;
  }
  NoteHbmRate(at);
}

void MemorySystem::NoteHbmRate(TimePs at) {
  if (!hbm_listener_) return;
  const double rate = flows_.resource_rate(hbm_);
  if (rate == hbm_rate_) return;
  hbm_rate_ = rate;
  hbm_listener_(at, rate);
}

void MemorySystem::AdvanceTo(TimePs now, std::vector<Completion>* completed) {
  if (hbm_note_at_ != kNever) {
    const TimePs at = hbm_note_at_;
    hbm_note_at_ = kNever;
    NoteHbmRate(at);
  }
  for (TimePs end = flows_.next_completion(); end != kNever && end <= now;
       end = flows_.next_completion()) {
    ended_.clear();
    flows_.AdvanceTo(end, &ended_);
    const size_t first = completed->size();
    for (FlowModel::FlowId flow : ended_) {
      const auto owner = owner_.find(flow);
      const TransferId id = owner->second;
      owner_.erase(owner);
      if (id == kWriteBack) continue;
      const auto it = transfers_.find(id);
      if (--it->second.parts_left > 0) continue;
      completed->push_back(Completion{id, it->second.requester, end + it->second.latency});
      transfers_.erase(it);
    }
    // Transfers ending together are told in the order they started.
    std::sort(completed->begin() + static_cast<std::ptrdiff_t>(first), completed->end(),
              [](const Completion& a, const Completion& b) { return a.transfer < b.transfer; });
    NoteHbmRate(end);
  }
  ended_.clear();
  flows_.AdvanceTo(now, &ended_);
  assert(ended_.empty());
}

double MemorySystem::rate(TransferId transfer) {
  const auto it = transfers_.find(transfer);
  if (it == transfers_.end()) return 0;
  double sum = 0;
  for (int i = 0; i < it->second.parts; ++i) sum += flows_.rate(it->second.part[i]);
  return sum;
}

}  // namespace pto
