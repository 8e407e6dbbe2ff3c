#ifndef PTO_SIM_SWEEP_SWEEP_GRID_H_
#define PTO_SIM_SWEEP_SWEEP_GRID_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pto {

// One varied config key and its values, as given: `--vary key=v1,v2,v3`.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// Parses "key=v1,v2,...". Values stay text: the config loader validates them
// per point, so a bad value is a failed point, not a failed sweep.
absl::StatusOr<SweepAxis> ParseVary(const std::string& spec);

// One simulation of the grid: a trace and one value per axis.
struct SweepPoint {
  int index = 0;  // position in the grid: traces outermost, then axes in order
  std::string trace;
  std::vector<std::string> values;  // values[i] belongs to axes[i]
};

// Every combination, in a fixed order: for each trace, the axes vary like
// nested loops with the first axis outermost and the last innermost.
std::vector<SweepPoint> ExpandGrid(const std::vector<std::string>& traces,
                                   const std::vector<SweepAxis>& axes);

// A deterministic slice of the grid: point p belongs to shard p % count.
struct Shard {
  int index = 0;
  int count = 1;
};

// Parses "I/N" with 0 <= I < N.
absl::StatusOr<Shard> ParseShard(const std::string& spec);

inline bool InShard(int point, const Shard& shard) { return point % shard.count == shard.index; }

}  // namespace pto

#endif  // PTO_SIM_SWEEP_SWEEP_GRID_H_
