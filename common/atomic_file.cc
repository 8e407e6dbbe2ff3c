#include "common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/stop_request.h"

namespace pto {

AtomicFile::~AtomicFile() {
  if (out_.is_open()) out_.close();
  if (!committed_) std::remove(tmp_.c_str());
}

absl::Status AtomicFile::Open() {
  out_.open(tmp_, std::ios::trunc | std::ios::binary);
  if (!out_) {
    return absl::UnavailableError(
        absl::StrCat(tmp_, ": cannot open for writing: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  // A stopped run commits nothing more: its files stay whole or absent.
  if (StopRequested()) {
    return absl::CancelledError(absl::StrCat(path_, ": not written: the run is stopping"));
  }
  out_.close();
  if (out_.fail()) return absl::DataLossError(absl::StrCat(tmp_, ": write failed"));
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    return absl::DataLossError(absl::StrCat(path_, ": cannot rename ", tmp_));
  }
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view content) {
  AtomicFile file(path);
  if (absl::Status s = file.Open(); !s.ok()) return s;
  file.out().write(content.data(), static_cast<std::streamsize>(content.size()));
  return file.Commit();
}

}  // namespace pto
