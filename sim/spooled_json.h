#ifndef PTO_SIM_SPOOLED_JSON_H_
#define PTO_SIM_SPOOLED_JSON_H_

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/atomic_file.h"  // the writers that use SpooledArray commit through it

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

}  // namespace pto

#endif  // PTO_SIM_SPOOLED_JSON_H_
