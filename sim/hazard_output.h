#ifndef PTO_SIM_HAZARD_OUTPUT_H_
#define PTO_SIM_HAZARD_OUTPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "models/hazard/hazard_report.h"
#include "nlohmann/json.hpp"

namespace pto {

// The hazards of one run as pto_sim shows them: one `hazard: ...` stdout line
// each (FormatHazard) and a `hazards` array for stats.json, in report order.
// Reports that differ only in which instances of the same tasks they name (a
// loop repeating one race) are one entry with a `repeats` count and the seqs
// of the first kMaxAlso repeats. At most kMaxStored entries are kept (the
// rest are counted in not_stored()) and the first kMaxPrinted printed, so a
// racy trace's output stays linear in its length.
class HazardOutput {
 public:
  static constexpr size_t kMaxPrinted = 50;
  static constexpr size_t kMaxStored = 1000;
  static constexpr size_t kMaxAlso = 8;

  void Add(const HazardReport& report);

  bool empty() const { return total_ == 0; }
  size_t size() const { return total_; }  // every report, repeats included
  size_t entries() const { return entries_.size(); }
  size_t not_stored() const { return not_stored_; }
  // The first kMaxPrinted entries' lines, each ending in '\n', then one line
  // saying how many more there are.
  std::string Lines() const;
  // [{"kind": "RAW", "task": {"seq": 3, "name": "copy"}, "others": [...],
  //   "blocks": [{"block": 0, "core": 24}], "tensor": "scratch",
  //   "region": [0, 4096], "detail": "...", "fix": "...", "line": "hazard: ...",
  //   "repeats": 0, "also": []}]
  // Regions are byte offsets inside the tensor when it is known, else GM
  // addresses.
  nlohmann::json ToJson() const;

 private:
  struct Entry {
    HazardReport report;
    std::string line;
    int64_t repeats = 0;
    std::vector<TaskSeq> also;  // the first repeats' task seqs
  };
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, size_t> entry_of_;
  size_t total_ = 0;
  size_t not_stored_ = 0;
};

}  // namespace pto

#endif  // PTO_SIM_HAZARD_OUTPUT_H_
