#include "sim/hazard_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto {
namespace {

nlohmann::json TaskJson(const HazardTask& task) { return {{"seq", task.seq}, {"name", task.name}}; }

// What makes two reports the same race: kind, tensor, task names, blocks.
std::string ShapeOf(const HazardReport& r) {
  std::string key = absl::StrCat(static_cast<int>(r.kind), "|", r.tensor.name, "|", r.task.name,
                                 "|", r.more_others);
  for (const HazardTask& other : r.others) absl::StrAppend(&key, "|", other.name);
  for (const HazardBlock& block : r.blocks) absl::StrAppend(&key, "|b", block.block);
  return key;
}

}  // namespace

void HazardOutput::Add(const HazardReport& report) {
  ++total_;
  auto [it, inserted] = entry_of_.try_emplace(ShapeOf(report), entries_.size());
  if (!inserted) {
    Entry& entry = entries_[it->second];
    ++entry.repeats;
    if (entry.also.size() < kMaxAlso) entry.also.push_back(report.task.seq);
    return;
  }
  if (entries_.size() >= kMaxStored) {
    entry_of_.erase(it);
    ++not_stored_;
    return;
  }
  entries_.push_back({report, FormatHazard(report), 0, {}});
}

std::string HazardOutput::Lines() const {
  std::string out;
  const size_t shown = std::min(entries_.size(), kMaxPrinted);
  for (size_t i = 0; i < shown; ++i) {
    const Entry& entry = entries_[i];
    out += entry.line;
    if (entry.repeats > 0) {
      absl::StrAppend(&out, " (and ", entry.repeats, " more like it, on tasks #",
                      absl::StrJoin(entry.also, ", #"), entry.repeats > 8 ? ", ..." : "", ")");
    }
    out += '\n';
  }
  const size_t unprinted = entries_.size() - shown + not_stored_;
  if (unprinted > 0) {
    absl::StrAppend(&out, "hazard: ", unprinted, " more not printed (the first ", shown, " of ",
                    entries_.size() + not_stored_,
                    " distinct hazards are above; stats.json's \"hazards\" lists the first ",
                    kMaxStored, ", with --out)\n");
  }
  return out;
}

nlohmann::json HazardOutput::ToJson() const {
  nlohmann::json all = nlohmann::json::array();
  for (const Entry& entry : entries_) {
    const HazardReport& r = entry.report;
    nlohmann::json others = nlohmann::json::array();
    for (const HazardTask& t : r.others) others.push_back(TaskJson(t));
    nlohmann::json blocks = nlohmann::json::array();
    for (const HazardBlock& b : r.blocks) blocks.push_back({{"block", b.block}, {"core", b.core}});
    const bool known = r.tensor.id >= 0 && r.region_begin >= r.tensor.base;
    const uint64_t base = known ? r.tensor.base : 0;
    all.push_back({{"kind", HazardKindName(r.kind)},
                   {"task", TaskJson(r.task)},
                   {"others", others},
                   {"more_others", r.more_others},
                   {"blocks", blocks},
                   {"tensor", r.tensor.name},
                   {"region", {r.region_begin - base, r.region_end - base}},
                   {"detail", r.detail},
                   {"fix", r.fix},
                   {"line", entry.line},
                   {"repeats", entry.repeats}});
    if (!entry.also.empty()) all.back()["also"] = entry.also;
  }
  return all;
}

}  // namespace pto
