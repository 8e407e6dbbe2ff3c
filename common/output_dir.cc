#include "common/output_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace pto {
namespace fs = std::filesystem;

namespace {

// Locks `dir`'s marker for the rest of this process (the kernel drops the
// lock when the process ends, however it ends), creating the marker if
// needed: a second run into the same directory fails at once instead of
// both writing the same files.
absl::Status LockMarker(const std::string& dir, const std::string& where) {
  // Held, never closed: closing any descriptor of the file would drop the
  // lock. By canonical directory, so this process claims a directory again
  // (a test's second run) without locking itself out.
  static std::map<std::string, int>* held = new std::map<std::string, int>();
  std::error_code ec;
  const std::string key = fs::canonical(dir, ec).string();
  if (!ec && held->count(key) > 0) return absl::OkStatus();
  const std::string marker = (fs::path(dir) / kOutputMarker).string();
  const int fd = ::open(marker.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "cannot write into the directory: ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat(where, "another run is writing into it now (it holds the lock on ",
                       kOutputMarker, "); wait for it to end or give another directory"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat(where, "cannot lock ", marker, ": ", std::strerror(error)));
  }
  const std::string text =
      "pto_sim output: the next run with this directory as its output replaces all of it\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    const int error = errno;
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(where, "cannot write into the directory: ", std::strerror(error)));
  }
  if (!ec) held->emplace(key, fd);
  return absl::OkStatus();
}

}  // namespace

absl::Status ClaimOutputDir(const std::string& dir, const std::string& flag) {
  const std::string where = absl::StrCat(flag, " ", dir, ": ");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "exists and is not a directory; give a new or empty directory"));
  }
  if (!fs::is_directory(status)) {
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          absl::StrCat(where, "cannot create the directory: ", ec.message()));
    }
  }
  const fs::path marker = fs::path(dir) / kOutputMarker;
  const bool empty = fs::is_empty(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "cannot read the directory: ", ec.message()));
  }
  if (!empty && !fs::exists(marker, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, "the directory is not empty and has no ", kOutputMarker,
        " marker, so no earlier pto_sim run wrote it; pto_sim replaces only its own output: "
        "give a new or empty directory"));
  }
  // Locked before anything is removed: a run still writing keeps its files.
  if (absl::Status locked = LockMarker(dir, where); !locked.ok()) return locked;
  // An earlier run's files go; the marker stays, so an interrupted clean-up
  // is still recognised as ours.
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename() == kOutputMarker) continue;
    fs::remove_all(entry.path(), ec);
    if (ec) {
      return absl::FailedPreconditionError(absl::StrCat(
          where, "cannot remove ", entry.path().string(), " of an earlier run: ", ec.message()));
    }
  }
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "cannot read the directory: ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace pto
