#include "common/shell_quote.h"

#include "absl/strings/str_join.h"

namespace pto {

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string ShellCommandLine(const std::vector<std::string>& argv) {
  static constexpr char kSafe[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%";
  std::vector<std::string> words;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of(kSafe) == std::string::npos;
    words.push_back(plain ? a : ShellQuote(a));
  }
  return absl::StrJoin(words, " ");
}

}  // namespace pto
