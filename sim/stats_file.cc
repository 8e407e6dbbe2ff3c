#include "sim/stats_file.h"

#include <fstream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/input_file.h"

namespace pto {
namespace {

using Json = nlohmann::json;

// The per-record arrays StatsWriter appends; summaries never need them.
bool IsRecordArray(const std::string& key) {
  return key == "task_records" || key == "edge_records" || key == "core_intervals" ||
         key == "engine_intervals";
}

}  // namespace

absl::StatusOr<Json> LoadStatsSummary(const std::string& path) {
  // Streamed (its records are skipped), so any size will do; a FIFO or
  // device is refused before it could block.
  if (absl::Status status = CheckInputFile(path, std::numeric_limits<uint64_t>::max(),
                                           "a stats.json (as pto_sim --out writes)");
      !status.ok()) {
    return status;
  }
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  bool skipping = false;
  Json::parser_callback_t drop_records = [&skipping](int depth, Json::parse_event_t event,
                                                     Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key) {
      skipping = IsRecordArray(parsed.get<std::string>());
      return true;
    }
    return !(skipping && depth >= 2);
  };
  Json j = Json::parse(in, drop_records, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  if (!j.is_object() || !j.contains("makespan_us") || !j["makespan_us"].is_number()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a pto_sim stats.json (no numeric \"makespan_us\" at the top level)"));
  }
  return j;
}

}  // namespace pto
