#ifndef PTO_SIM_HAZARD_OUTPUT_H_
#define PTO_SIM_HAZARD_OUTPUT_H_

#include <string>
#include <vector>

#include "models/hazard/hazard_report.h"
#include "nlohmann/json.hpp"

namespace pto {

// The hazards of one run as pto_sim shows them: one `hazard: ...` stdout line
// each (FormatHazard) and a `hazards` array for stats.json, in report order.
// Stdout shows the first kMaxPrinted lines and then says how many it left
// out; stats.json holds them all.
class HazardOutput {
 public:
  static constexpr size_t kMaxPrinted = 50;

  void Add(const HazardReport& report);

  bool empty() const { return reports_.empty(); }
  size_t size() const { return reports_.size(); }
  // The first kMaxPrinted lines, each ending in '\n', then one line saying
  // how many more there are.
  std::string Lines() const;
  // [{"kind": "RAW", "task": {"seq": 3, "name": "copy"}, "others": [...],
  //   "blocks": [{"block": 0, "core": 24}], "tensor": "scratch",
  //   "region": [0, 4096], "detail": "...", "fix": "...", "line": "hazard: ..."}]
  // Regions are byte offsets inside the tensor when it is known, else GM
  // addresses.
  nlohmann::json ToJson() const;

 private:
  std::vector<HazardReport> reports_;
  std::vector<std::string> lines_;
};

}  // namespace pto

#endif  // PTO_SIM_HAZARD_OUTPUT_H_
