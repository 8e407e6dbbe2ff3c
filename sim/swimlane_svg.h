#ifndef PTO_SIM_SWIMLANE_SVG_H_
#define PTO_SIM_SWIMLANE_SVG_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "sim/launch_log.h"

namespace pto {

struct SwimlaneSvgOptions {
  int plot_width_px = 1400;  // the time axis
  int lane_height_px = 16;
  // Consecutive bars on a lane narrower than this are merged into one grey
  // aggregate bar (class "agg") that says how many records it holds.
  double min_bar_px = 1.0;
  // Dependency arrows are drawn when the launch has at most this many unique
  // producer pairs between tasks that ran on cores.
  int max_arrows = 200;
  // --swimlane-detail pipes: under each core's lane a strip per pipe it
  // used, its busy runs drawn (needs LaunchLog::set_keep_pipe_ops).
  bool pipe_strips = false;
  // The title names what is drawn: the trace as given and the launch
  // ("launch 1 'gated'"); empty parts are left out.
  std::string trace;
  std::string launch;
  // The kernel legend lists this many names at most (then "+N more").
  int max_legend_entries = 24;
};

// Renders one launch as a self-contained SVG (no scripts, no external files):
//   * one lane (<g class="lane" data-core="N">) per used core, grouped by
//     cluster (<g class="cluster" data-cluster="ci">: AIC, AIV0, AIV1);
//   * one <rect class="bar ..."> per core record [start, end], filled by
//     kernel name (a stable colour: FNV-1a of the name picks it from a
//     20-colour palette), with a <title> of the task label, block and times; SPMD blocks have class
//     "spmd" and a dashed outline, MIX halves class "mix" and a dark outline on every core of the
//     cluster they occupy; a thin grey <rect class="wait"> before a bar marks
//     a visible receive-to-start wait (a staged early dispatch);
//   * predicated skips (class "marker skip", a red cross) and dummies (class
//     "marker dummy", a grey diamond) on an "AICPU_t" lane per scheduler thread;
//   * with pipe_strips, under a core's lane one strip per pipe the core
//     used (<g class="pipes" data-core="N">, a <text> with the pipe's name
//     and a <rect class="pipe NAME"> per busy run: ops merged where they
//     overlap, touch or are closer than min_bar_px, the title saying how
//     many);
//   * a title naming the trace and launch, a time axis in µs (its title on
//     its own row), a legend with one entry per kernel name (<g
//     class="legend">, <g class="entry" data-name="...">) and, when drawn,
//     the MIX engine strips and the pipe colours, and dependency arrows
//     (<line class="dep">) for small graphs.
void RenderSwimlaneSvg(const LaunchLog& log, const OutputChip& chip,
                       const SwimlaneSvgOptions& options, std::ostream& out);

// Renders to DIR/swimlane.svg through a temporary file and rename.
absl::Status WriteSwimlaneSvg(const LaunchLog& log, const OutputChip& chip,
                              const SwimlaneSvgOptions& options, const std::string& dir);

}  // namespace pto

#endif  // PTO_SIM_SWIMLANE_SVG_H_
