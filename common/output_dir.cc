#include "common/output_dir.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace pto {
namespace fs = std::filesystem;

absl::Status ClaimOutputDir(const std::string& dir, const std::string& flag) {
  const std::string where = absl::StrCat(flag, " ", dir, ": ");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, "exists and is not a directory; give a new or empty directory"));
  }
  if (fs::is_directory(status)) {
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
    // An earlier run's: its files go, the marker last, so an interrupted
    // clean-up is still recognised as ours.
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
  } else {
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          absl::StrCat(where, "cannot create the directory: ", ec.message()));
    }
  }
  errno = 0;
  std::ofstream out(fs::path(dir) / kOutputMarker, std::ios::trunc);
  out << "pto_sim output: the next run with this directory as its output replaces all of it\n";
  out.close();
  if (!out) {
    return absl::FailedPreconditionError(absl::StrCat(
        where,
        "cannot write into the directory: ", errno != 0 ? std::strerror(errno) : "write failed"));
  }
  return absl::OkStatus();
}

}  // namespace pto
