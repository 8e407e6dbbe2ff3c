#include "common/version.h"

#include "absl/strings/str_cat.h"
#include "git_revision.h"
#include "proto/stream_version.h"

namespace pto {

const char* ToolVersion() { return PTO_VERSION; }

const char* GitRevision() { return PTO_GIT_REVISION; }

std::string VersionLine(const std::string& tool) {
  return absl::StrCat(tool, " ", ToolVersion(), " (git ", GitRevision(), "), task stream version ",
                      kTaskStreamVersion);
}

}  // namespace pto
