#ifndef PTO_SIM_SWEEP_SWEEP_CHART_H_
#define PTO_SIM_SWEEP_SWEEP_CHART_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/sweep/sweep_table.h"

namespace pto {

// An SVG line chart of `metric` (a sweep.csv metric column) against the
// varied key `key`: one line per combination of the other keys (and trace,
// when there are several). A failed point is a gap in its line and a red
// cross on the x axis with its exit code. Numeric key values are placed to
// scale, others evenly in their given order; a tick label that would touch
// its neighbour is left out (never the last). The subtitle names the
// traces and says when points sum several launches. Deterministic text.
absl::StatusOr<std::string> RenderSweepChart(const SweepSpec& spec,
                                             const std::vector<SweepRow>& rows,
                                             const std::string& metric, const std::string& key);

}  // namespace pto

#endif  // PTO_SIM_SWEEP_SWEEP_CHART_H_
