#ifndef PTO_FRONTEND_LEXER_H_
#define PTO_FRONTEND_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/source.h"

namespace pto::ptoc {

enum class TokenKind {
  kName,
  kInt,
  kFloat,
  kString,
  kOp,  // punctuation and operators, spelled in `text`
  kNewline,
  kIndent,
  kDedent,
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string text;  // identifier, operator spelling, or decoded string value
  int64_t int_value = 0;
  double float_value = 0.0;
  SourceLocation loc;
};

const char* TokenKindName(TokenKind kind);

// Splits Python source into tokens the way CPython's tokenizer does for the
// subset ptoc accepts: logical lines (implicit joining inside brackets,
// backslash continuation), INDENT/DEDENT from leading whitespace, comments
// dropped, string literals (incl. triple-quoted docstrings) and numbers
// (1e-4, 0x1f, 1_000) decoded.
absl::StatusOr<std::vector<Token>> Tokenize(const SourceFile& source);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_LEXER_H_
