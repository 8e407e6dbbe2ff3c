#ifndef PTO_SIM_DEPS_COMMAND_H_
#define PTO_SIM_DEPS_COMMAND_H_

#include <ostream>
#include <string>

#include "sim/deps_reduction.h"

namespace pto {

// `pto_sim deps FILE.pb [--edge-mode full|reduced|reduced_dataflow]`: reads
// the trace with TraceReader and runs DependencyInference over every launch's
// submits, dummies and allocs in order, without simulating (nothing retires,
// so the tensor map holds every registration until the launch ends — the
// graph dep_gen would record). Prints per launch the tasks, the edges with
// their sources, and the transitively redundant pairs (hw-native-sys/simpler@6ebaf771
// simpler_setup/tools/deps_viewer.py --edge-mode): `full` lists them, `reduced` drops those without
// a creator reason, `reduced_dataflow` also drops creator pairs whose INOUT bytes provably flow
// through the tensor map from an earlier to a later user of the same creator
// (ProveCreatorDataflow, deps_viewer's rule). A cycle is warned about on `err`
// and the full graph printed. Returns 0, or 2 for an unreadable or invalid
// trace.
int RunDepsCommand(const std::string& trace_path, EdgeMode mode, std::ostream& out,
                   std::ostream& err);

}  // namespace pto

#endif  // PTO_SIM_DEPS_COMMAND_H_
