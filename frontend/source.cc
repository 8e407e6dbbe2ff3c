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

std::string SourceFile::Origin(SourceLocation loc) const {
  return absl::StrCat(name_, ":", loc.line);
}

absl::Status SourceFile::Error(SourceLocation loc, absl::string_view message) const {
  std::string text = absl::StrCat(name_, ":", loc.line, ":", loc.col, ": error: ", message);
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
