#include "sim/hazard_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto {
namespace {

nlohmann::json TaskJson(const HazardTask& task) { return {{"seq", task.seq}, {"name", task.name}}; }

}  // namespace

void HazardOutput::Add(const HazardReport& report) {
  reports_.push_back(report);
  lines_.push_back(FormatHazard(report));
}

std::string HazardOutput::Lines() const {
  std::string out;
  const size_t shown = std::min(lines_.size(), kMaxPrinted);
  for (size_t i = 0; i < shown; ++i) {
    out += lines_[i];
    out += '\n';
  }
  if (shown < lines_.size()) {
    absl::StrAppend(&out, "hazard: ", lines_.size() - shown, " more not printed (the first ", shown,
                    " of ", lines_.size(),
                    " are above; stats.json's \"hazards\" lists "
                    "every one, with --out)\n");
  }
  return out;
}

nlohmann::json HazardOutput::ToJson() const {
  nlohmann::json all = nlohmann::json::array();
  for (size_t i = 0; i < reports_.size(); ++i) {
    const HazardReport& r = reports_[i];
    nlohmann::json others = nlohmann::json::array();
    for (const HazardTask& t : r.others) others.push_back(TaskJson(t));
    nlohmann::json blocks = nlohmann::json::array();
    for (const HazardBlock& b : r.blocks) blocks.push_back({{"block", b.block}, {"core", b.core}});
    const bool known = r.tensor.id >= 0 && r.region_begin >= r.tensor.base;
    const uint64_t base = known ? r.tensor.base : 0;
    all.push_back({{"kind", HazardKindName(r.kind)},
                   {"task", TaskJson(r.task)},
                   {"others", others},
                   {"blocks", blocks},
                   {"tensor", r.tensor.name},
                   {"region", {r.region_begin - base, r.region_end - base}},
                   {"detail", r.detail},
                   {"fix", r.fix},
                   {"line", lines_[i]}});
  }
  return all;
}

}  // namespace pto
