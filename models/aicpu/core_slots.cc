#include "models/aicpu/core_slots.h"

#include <algorithm>

namespace pto {

CoreSlots::CoreSlots(std::vector<CoreSpec> cores) {
  std::stable_sort(cores.begin(), cores.end(), [](const CoreSpec& a, const CoreSpec& b) {
    return a.kind == TaskShape::kAic && b.kind != TaskShape::kAic;
  });
  int max_id = 0;
  for (const CoreSpec& spec : cores) max_id = std::max(max_id, spec.id);
  local_of_core_.assign(max_id + 1, -1);
  for (const CoreSpec& spec : cores) {
    local_of_core_[spec.id] = static_cast<int>(cores_.size());
    Core core;
    core.spec = spec;
    cores_.push_back(core);
    if (spec.kind == TaskShape::kAic) first_aiv_ = cores_.size();
  }
  // A cluster is a MIX unit only when this thread owns all three of its cores.
  for (int aic = 0; aic < size(); ++aic) {
    if (kind(aic) != TaskShape::kAic) continue;
    Unit cluster{{aic, -1, -1}, 1};
    for (int aiv = 0; aiv < size() && cluster.count < 3; ++aiv) {
      if (kind(aiv) == TaskShape::kAiv && cores_[aiv].spec.cluster == cores_[aic].spec.cluster) {
        cluster.members[cluster.count++] = aiv;
      }
    }
    if (cluster.count == 3) clusters_.push_back(cluster);
  }
}

size_t CoreSlots::running_cores() const {
  return std::count_if(cores_.begin(), cores_.end(),
                       [](const Core& core) { return core.running.valid; });
}

bool CoreSlots::ClusterUsable(const Unit& cluster, bool pending) const {
  bool all_idle = true, usable = true;
  for (int m = 0; m < 3; ++m) {
    const int local = cluster.members[m];
    all_idle &= SlotFree(local, false);
    usable &= SlotFree(local, false) || SlotFree(local, true);
  }
  return pending ? (usable && !all_idle) : all_idle;
}

int CoreSlots::IdleUnitCount(TaskShape shape, int limit) const {
  int count = 0;
  if (shape == TaskShape::kMix) {
    for (const Unit& cluster : clusters_) {
      if (count >= limit) break;
      count += ClusterUsable(cluster, false);
    }
    return count;
  }
  for (const Core* core = KindBegin(shape); core != KindEnd(shape); ++core) {
    if (count >= limit) break;
    count += Free(*core, false);
  }
  return count;
}

void CoreSlots::AppendFreeUnits(TaskShape shape, bool pending, size_t limit,
                                std::vector<Unit>* units) const {
  size_t appended = 0;
  if (shape == TaskShape::kMix) {
    for (const Unit& cluster : clusters_) {
      if (appended >= limit) break;
      if (!ClusterUsable(cluster, pending)) continue;
      units->push_back(cluster);
      ++appended;
    }
    return;
  }
  const Core* const begin = cores_.data();
  for (const Core* core = KindBegin(shape); core != KindEnd(shape); ++core) {
    if (appended >= limit) break;
    if (!Free(*core, pending)) continue;
    units->push_back(Unit{{static_cast<int>(core - begin), -1, -1}, 1});
    ++appended;
  }
}

int CoreSlots::ReleaseGated(int local, TaskSeq task) {
  int released = 0;
  for (DispatchSlot* slot : {&cores_[local].running, &cores_[local].pending}) {
    if (!slot->valid || slot->task != task || !slot->gated) continue;
    slot->gated = false;
    ++released;
  }
  return released;
}

bool CoreSlots::HoldsGated(int local, TaskSeq task) const {
  for (const DispatchSlot* slot : {&cores_[local].running, &cores_[local].pending}) {
    if (slot->valid && slot->task == task && slot->gated) return true;
  }
  return false;
}

}  // namespace pto
