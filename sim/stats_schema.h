#ifndef PTO_SIM_STATS_SCHEMA_H_
#define PTO_SIM_STATS_SCHEMA_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace pto {

// Every key of stats.json, in one table. The run driver writes the keys (a
// test checks that a real run writes exactly these), the printed summary,
// `pto_sim compare`, `sweep` and `regress` read them from here, and
// docs/stats.md is generated from it (a test keeps the page current), as
// docs/config.md is from the config schema. A new counter gets a row here;
// no reader spells a key of its own.

// kValue: an element value of a checked tensor (its dtype's unit).
enum class StatUnit {
  kMicroseconds,
  kNanoseconds,
  kCount,
  kBytes,
  kGigabytesPerSecond,
  kFraction,
  kText,
  kFlag,
  kValue,
};

// How the multi-launch DIR/stats.json and the run totals of `sweep` and
// `regress` combine a metric over the launches.
enum class StatTotal {
  kNone,              // not combined
  kSum,               // summed
  kMakespanWeighted,  // a share: weighted by each launch's makespan
  kOverheadWindow,    // scheduler_overhead's all-engine overhead over its windows
};

struct StatSpec {
  // '/'-separated, in a launch's stats.json; "[]" stands for every element
  // of an array, "*" for every key of an object, and a number for one
  // element (a `compare` row of one ring).
  absl::string_view path;
  StatUnit unit;
  absl::string_view meaning;
  // The flat name `regress` and `sweep` use (a sweep.csv column, a regress
  // expectation), or empty when the key is not such a metric. A count metric
  // at an array path counts its elements.
  absl::string_view metric = {};
  // The row label of `pto_sim compare`, or empty.
  absl::string_view compare = {};
  StatTotal total = StatTotal::kNone;
  // Summed into the multi-launch DIR/stats.json (beside per_launch).
  bool in_run_file = false;
  // Written only by some runs: with --out's analyses (scheduler_overhead),
  // for failed checks, for hazards found, ...
  bool conditional = false;
};

const std::vector<StatSpec>& StatsSchema();
// The row of `path`, or null.
const StatSpec* FindStat(absl::string_view path);
// The row of the metric `name` (a flat metric name), or null.
const StatSpec* FindMetric(absl::string_view name);
// The flat metric names, in sweep.csv column order.
const std::vector<std::string>& StatMetricNames();

// The number at a row's path (array elements by index when `path` has
// numbers, e.g. "rings/0/peak_task_window"; a count metric at an array path
// counts the elements); NaN when absent.
double StatNumber(const nlohmann::json& launch, absl::string_view path);

// docs/stats.md's key table: key, unit, metric name, compare label, meaning.
std::string StatsMarkdownTable();

// Every leaf path of a stats.json with array elements as "[]", skipping
// nothing, and whether a schema path (with its "*") covers such a leaf: for
// the test that the writer and the schema agree.
std::vector<std::string> StatLeafPaths(const nlohmann::json& stats);
bool StatPathCovers(absl::string_view schema_path, absl::string_view leaf);

// The keys code reads by name, spelled once.
inline constexpr absl::string_view kStatMakespanUs = "makespan_us";
inline constexpr absl::string_view kStatDeviceWallUs = "device_wall_us";
inline constexpr absl::string_view kStatAicBusyShare = "engine_busy_share/aic";
inline constexpr absl::string_view kStatAivBusyShare = "engine_busy_share/aiv";
inline constexpr absl::string_view kStatOrchestratorBusyUs = "orchestrator_busy_us";
inline constexpr absl::string_view kStatSchedulerBusyUs = "scheduler_busy_us";
inline constexpr absl::string_view kStatHbmGbPerS = "gm/hbm_gb_per_s";
inline constexpr absl::string_view kStatOverheadAllUs = "scheduler_overhead/overhead_us/all";
inline constexpr absl::string_view kStatOverheadWindowUs = "scheduler_overhead/makespan_us";

}  // namespace pto

#endif  // PTO_SIM_STATS_SCHEMA_H_
