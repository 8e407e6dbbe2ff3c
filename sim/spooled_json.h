#ifndef PTO_SIM_SPOOLED_JSON_H_
#define PTO_SIM_SPOOLED_JSON_H_

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pto {

// The streaming half of every output writer: the elements of one JSON array,
// spooled to a temporary file as the run produces them and copied into the
// final file at the end, so memory stays bounded by one element. (The same
// approach as StatsWriter, which could move onto this class.)
class SpooledArray {
 public:
  // `path` is the temporary file; it is removed when the spool is destroyed.
  explicit SpooledArray(std::string path) : path_(std::move(path)) {}
  ~SpooledArray();
  SpooledArray(const SpooledArray&) = delete;
  SpooledArray& operator=(const SpooledArray&) = delete;

  absl::Status Open();
  // Appends one serialised JSON value.
  void Append(absl::string_view element);
  int64_t size() const { return size_; }

  // Writes `[`, the elements separated by `separator`, then `]` to `out`,
  // with `indent` before every element. Closes and removes the spool.
  absl::Status SpliceInto(std::ostream& out, absl::string_view indent = "",
                          absl::string_view separator = ",\n");

 private:
  std::string path_;
  std::ofstream out_;
  int64_t size_ = 0;
};

// A file that appears complete or not at all: written to `<path>.tmp` and
// renamed over `path` by Commit(). Dropped without Commit(), it leaves nothing.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {}
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  absl::Status Open();
  std::ostream& out() { return out_; }
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

#endif  // PTO_SIM_SPOOLED_JSON_H_
