#ifndef PTO_SIM_PROVENANCE_H_
#define PTO_SIM_PROVENANCE_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace pto {

// What a result file came from, as the "provenance" block of stats.json and
// sweep.json: the tool's version and git revision, the config file (path as
// given, FNV-1a 64 of its bytes), the --set overrides in order, and the
// traces (path as given -- never made absolute, so two checkouts agree --
// and hash). A file that cannot be read, or is not a regular file (a pipe),
// hashes as null. Comparisons of
// results (compare, regress, sweep-merge's byte-identical shards) skip this
// block: it says why two results differ, it is not one.
struct ProvenanceInputs {
  std::string config_path;
  std::vector<std::string> overrides;
  std::vector<std::string> trace_paths;
};
nlohmann::json Provenance(const ProvenanceInputs& inputs);

inline constexpr char kProvenanceKey[] = "provenance";

}  // namespace pto

#endif  // PTO_SIM_PROVENANCE_H_
