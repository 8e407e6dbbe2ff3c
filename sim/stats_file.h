#ifndef PTO_SIM_STATS_FILE_H_
#define PTO_SIM_STATS_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace pto {

// Loads a pto_sim stats.json without its per-record arrays (task_records,
// edge_records, core_intervals), so large files stay cheap. Errors name the
// file: missing, not JSON, or not a stats.json (no numeric "makespan_us").
absl::StatusOr<nlohmann::json> LoadStatsSummary(const std::string& path);

}  // namespace pto

#endif  // PTO_SIM_STATS_FILE_H_
