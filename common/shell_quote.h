#ifndef PTO_COMMON_SHELL_QUOTE_H_
#define PTO_COMMON_SHELL_QUOTE_H_

#include <string>
#include <vector>

namespace pto {

// `s` single-quoted for a POSIX shell: every byte literal, a ' as '\''.
std::string ShellQuote(const std::string& s);

// `argv` as one command line a reader can copy: words of only safe
// characters (letters, digits, _-+=./,:@%) as they are, the others quoted.
std::string ShellCommandLine(const std::vector<std::string>& argv);

}  // namespace pto

#endif  // PTO_COMMON_SHELL_QUOTE_H_
