#ifndef PTO_COMMON_OUTPUT_DIR_H_
#define PTO_COMMON_OUTPUT_DIR_H_

#include <string>

#include "absl/status/status.h"

namespace pto {

// The file a run leaves in its output directory, so that the next run can
// tell a directory it may replace from one that holds someone else's files.
inline constexpr char kOutputMarker[] = ".pto_sim_out";

// Makes `dir` an empty directory of this run, marked as such: creates it
// (and its parents) when missing; empties it when it holds the marker of an
// earlier run, so no file of that run (a launch_<k>/ it had and this one has
// not) is left to be mistaken for this run's; refuses a path that is not a
// directory, a non-empty directory without the marker (`--out .` must not
// empty the user's working directory) and a directory it cannot write.
// `flag` names the option in messages ("--out"). Errors are
// FailedPrecondition, with the path and what to do.
absl::Status ClaimOutputDir(const std::string& dir, const std::string& flag);

}  // namespace pto

#endif  // PTO_COMMON_OUTPUT_DIR_H_
