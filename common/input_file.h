#ifndef PTO_COMMON_INPUT_FILE_H_
#define PTO_COMMON_INPUT_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pto {

// The one way pto_sim and ptoc take a file the user names: checked before
// anything opens or parses it, so that no input blocks (a FIFO nobody
// writes), never ends (/dev/zero) or outgrows memory.
//
// `path` must be a regular file (after symlinks) of at most `max_bytes`.
// Errors name the path and say what was expected (`expected`, e.g. "a YAML
// config file"): NotFound for a missing file; InvalidArgument for a
// directory, FIFO, device or socket, a symlink loop, a file over the limit,
// a path that is too long or runs through a non-directory; PermissionDenied
// for a file it may not read. Callers map all of them to "bad input".
absl::Status CheckInputFile(const std::string& path, uint64_t max_bytes,
                            absl::string_view expected);

// CheckInputFile, then the file's bytes. Opened without blocking and
// checked again once open, so a path swapped for a FIFO in between is
// refused too; reads at most `max_bytes`.
absl::StatusOr<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                          absl::string_view expected);

// "12.5 MiB", "640 bytes": a size in messages.
std::string ByteSize(uint64_t bytes);

}  // namespace pto

#endif  // PTO_COMMON_INPUT_FILE_H_
