#ifndef PTO_COMMON_ATOMIC_FILE_H_
#define PTO_COMMON_ATOMIC_FILE_H_

#include <fstream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pto {

// The one way pto_sim and ptoc write an output file: it appears complete or
// not at all. Written to `<path>.tmp` in the same directory (so the rename
// stays on one file system) and renamed over `path` by Commit(). Dropped
// without Commit() -- an error, a stopped run -- it removes the temporary
// and leaves nothing under the final name.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {}
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  absl::Status Open();
  std::ostream& out() { return out_; }
  const std::string& path() const { return path_; }
  absl::Status Commit();

 private:
  std::string path_;
  std::string tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Writes `content` to `path` through an AtomicFile.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view content);

}  // namespace pto

#endif  // PTO_COMMON_ATOMIC_FILE_H_
