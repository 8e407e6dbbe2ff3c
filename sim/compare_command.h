#ifndef PTO_SIM_COMPARE_COMMAND_H_
#define PTO_SIM_COMPARE_COMMAND_H_

#include <ostream>
#include <string>

namespace pto {

struct CompareOptions {
  bool all = false;  // every metric, not only those that changed
};

// `pto_sim compare A/stats.json B/stats.json`: first what differed in the two
// runs' provenance (build, config, --set overrides, trace), then what answers
// "did this change pay off?" -- the metrics that changed (all of them with
// `all`, else a count of the unchanged): makespan, device wall, dispatches, busy and scheduler-
// overhead shares, head/tail overhead, loop cost, and the critical path
// (compute vs scheduler-injected, then hop by hop), each as A, B, delta and
// delta % (B relative to A). Works on single-launch files (summary keys at the
// top) and multi-launch ones (totals at the top, then "per_launch", compared
// launch by launch). The per-record arrays are skipped while parsing, so
// large stats.json files stay cheap. Returns 0, or 2 when a file is missing,
// unparsable or not a stats.json.
int RunCompareCommand(const std::string& a_stats_json, const std::string& b_stats_json,
                      const CompareOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pto

#endif  // PTO_SIM_COMPARE_COMMAND_H_
