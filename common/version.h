#ifndef PTO_COMMON_VERSION_H_
#define PTO_COMMON_VERSION_H_

#include <string>

namespace pto {

// The project's version (CMake's PROJECT_VERSION).
const char* ToolVersion();
// The source tree's commit when it was built, "-dirty" when it had
// uncommitted changes ("unknown" outside a git checkout).
const char* GitRevision();
// What `--version` prints: "TOOL VERSION (git REVISION), task stream
// version N".
std::string VersionLine(const std::string& tool);

}  // namespace pto

#endif  // PTO_COMMON_VERSION_H_
