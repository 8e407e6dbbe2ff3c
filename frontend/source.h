#ifndef PTO_FRONTEND_SOURCE_H_
#define PTO_FRONTEND_SOURCE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pto::ptoc {

// 1-based line and column of a character in a source file.
struct SourceLocation {
  int line = 0;
  int col = 0;
};

// A kernel description held in memory, so that every diagnostic can quote the
// offending line and point at the column.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The text of line `line` (1-based) without its newline; empty if out of range.
  std::string Line(int line) const;
  // "file:line".
  std::string Origin(SourceLocation loc) const;

  // "file:line:col: error: message", then the source line and a caret under
  // the column, as an InvalidArgument status.
  absl::Status Error(SourceLocation loc, absl::string_view message) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_SOURCE_H_
