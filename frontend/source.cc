#include "frontend/source.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string SourceFile::Line(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return "";
  const size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string result = text_.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.pop_back();
  return result;
}

void SourceFile::AddSegment(int first_line, int lines, std::string name, int original_first_line) {
  segments_.push_back({first_line, lines, std::move(name), original_first_line});
}

std::pair<const std::string*, int> SourceFile::Place(int line) const {
  for (const Segment& s : segments_) {
    if (line >= s.first_line && line < s.first_line + s.lines) {
      return {&s.name, s.original_first_line + (line - s.first_line)};
    }
  }
  return {&name_, line};
}

std::string SourceFile::Origin(SourceLocation loc) const {
  const auto [name, line] = Place(loc.line);
  return absl::StrCat(*name, ":", line);
}

absl::Status SourceFile::Error(SourceLocation loc, absl::string_view message) const {
  const auto [name, place] = Place(loc.line);
  std::string text = absl::StrCat(*name, ":", place, ":", loc.col, ": error: ", message);
  std::string line = Line(loc.line);
  int col = loc.col;
  // A very long line (generated code, hostile input) is quoted as a window
  // around the column, so the message stays readable.
  constexpr int kQuoteWidth = 160;
  if (static_cast<int>(line.size()) > kQuoteWidth) {
    const int begin = std::max(
        0, std::min(col - 1 - kQuoteWidth / 2, static_cast<int>(line.size()) - kQuoteWidth));
    line = absl::StrCat(begin > 0 ? "..." : "", line.substr(begin, kQuoteWidth),
                        begin + kQuoteWidth < static_cast<int>(line.size()) ? "..." : "");
    col = col - begin + (begin > 0 ? 3 : 0);
  }
  if (!line.empty()) {
    // Tabs stay tabs so the caret lines up in a terminal.
    std::string caret;
    for (int i = 0; i + 1 < col && i < static_cast<int>(line.size()); ++i) {
      caret.push_back(line[i] == '\t' ? '\t' : ' ');
    }
    absl::StrAppend(&text, "\n", line, "\n", caret, "^");
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace pto::ptoc
