#ifndef PTO_FRONTEND_SOURCE_H_
#define PTO_FRONTEND_SOURCE_H_

#include <string>
#include <utility>
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
  // Lines [first_line, first_line + lines) of the text stand for lines
  // original_first_line, ... of the file `name` (ptoc --call hands the
  // kernels of several files over in one text): their messages and origins
  // name that file and line.
  void AddSegment(int first_line, int lines, std::string name, int original_first_line);

  // "file:line".
  std::string Origin(SourceLocation loc) const;

  // "file:line:col: error: message", then the source line and a caret under
  // the column, as an InvalidArgument status.
  absl::Status Error(SourceLocation loc, absl::string_view message) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
  struct Segment {
    int first_line;
    int lines;
    std::string name;
    int original_first_line;
  };
  std::vector<Segment> segments_;
  // The file and line `line` stands for.
  std::pair<const std::string*, int> Place(int line) const;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_SOURCE_H_
