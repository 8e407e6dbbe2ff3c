#include "common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {
namespace {

// What a non-regular file is, for the message.
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

absl::Status CheckStat(const std::string& path, const struct stat& info, uint64_t max_bytes,
                       absl::string_view expected) {
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is ", KindOf(info.st_mode), "; expected ", expected,
                     " (a regular file: pipes and devices could block or never end)"));
  }
  if (static_cast<uint64_t>(info.st_size) > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": is ", ByteSize(static_cast<uint64_t>(info.st_size)), ", more than the ",
        ByteSize(max_bytes), " pto_sim reads as ", expected, "; is it the right file?"));
  }
  return absl::OkStatus();
}

absl::Status OpenError(const std::string& path, int error, absl::string_view expected) {
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(
          absl::StrCat(path, ": no such file; expected ", expected, " (check the path)"));
    case EACCES:
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": permission denied; expected ", expected, " you may read"));
    case ELOOP:
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": too many levels of symbolic links (a symlink loop?); expected ", expected));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": cannot open: ", std::strerror(error), "; expected ", expected));
  }
}

}  // namespace

std::string ByteSize(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024;
  if (bytes < kKiB) return absl::StrCat(bytes, bytes == 1 ? " byte" : " bytes");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / kKiB;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.4g %s", value, units[unit]);
}

absl::Status CheckInputFile(const std::string& path, uint64_t max_bytes,
                            absl::string_view expected) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return OpenError(path, errno, expected);
  return CheckStat(path, info, max_bytes, expected);
}

absl::StatusOr<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                          absl::string_view expected) {
  if (absl::Status status = CheckInputFile(path, max_bytes, expected); !status.ok()) {
    return status;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno, expected);
  struct stat info;
  absl::Status status = ::fstat(fd, &info) == 0 ? CheckStat(path, info, max_bytes, expected)
                                                : OpenError(path, errno, expected);
  std::string text;
  if (status.ok()) {
    // One byte past the limit tells a file that grew since the check.
    text.resize(static_cast<size_t>(info.st_size) + 1);
    size_t size = 0;
    while (size < text.size()) {
      const ssize_t got = ::read(fd, text.data() + size, text.size() - size);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        status = absl::InvalidArgumentError(
            absl::StrCat(path, ": cannot read: ", std::strerror(errno), "; expected ", expected));
        break;
      }
      if (got == 0) break;
      size += static_cast<size_t>(got);
      if (size > max_bytes) {
        status = absl::InvalidArgumentError(absl::StrCat(path, ": grew past ", ByteSize(max_bytes),
                                                         " while read; expected ", expected));
        break;
      }
      if (size == text.size()) text.resize(std::min<uint64_t>(2 * size, max_bytes + 1));
    }
    text.resize(size);
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

}  // namespace pto
