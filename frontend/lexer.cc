#include "frontend/lexer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"

namespace pto::ptoc {

const char* TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
      return "name";
    case TokenKind::kInt:
      return "integer";
    case TokenKind::kFloat:
      return "float";
    case TokenKind::kString:
      return "string";
    case TokenKind::kOp:
      return "operator";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "dedent";
    case TokenKind::kEnd:
      return "end of file";
  }
  return "?";
}

namespace {

// Longest first, so "**=" wins over "**" and "*".
constexpr const char* kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=", "<=", ">=",
    "<<",  ">>",  "+=",  "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", ":=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

class Lexer {
 public:
  explicit Lexer(const SourceFile& source) : source_(source), text_(source.text()) {}

  absl::StatusOr<std::vector<Token>> Run() {
    // Python source is UTF-8 (PEP 3120); say so at the first bad byte
    // instead of tripping over it later as an odd character.
    if (const size_t bad = FirstInvalidUtf8(text_); bad < text_.size()) {
      const size_t line_start = text_.rfind('\n', bad == 0 ? 0 : bad - 1);
      const size_t col = line_start == std::string::npos || bad == 0 ? bad : bad - line_start - 1;
      const int line = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + bad, '\n'));
      return source_.Error(
          {line, static_cast<int>(col) + 1},
          absl::StrCat("byte 0x", absl::Hex(static_cast<unsigned char>(text_[bad])),
                       " is not valid UTF-8; save the kernel description as UTF-8"));
    }
    indents_.push_back(0);
    bool at_line_start = true;
    while (pos_ < text_.size()) {
      if (at_line_start && depth_ == 0) {
        auto blank_or_status = HandleIndentation();
        if (!blank_or_status.ok()) return blank_or_status.status();
        at_line_start = false;
        if (*blank_or_status) {
          at_line_start = true;
          continue;
        }
      }
      const char c = text_[pos_];
      if (c == '\n') {
        if (depth_ == 0 && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline) {
          Emit(TokenKind::kNewline, "\n", Here());
        }
        Advance();
        at_line_start = depth_ == 0;  // inside brackets lines join implicitly
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        Advance();
        continue;
      }
      if (c == '#') {
        SkipComment();
        continue;
      }
      if (c == '\\') {
        const SourceLocation loc = Here();
        Advance();
        if (pos_ < text_.size() && text_[pos_] == '\r') Advance();
        if (pos_ >= text_.size() || text_[pos_] != '\n') {
          return source_.Error(loc, "a backslash must end the line (line continuation)");
        }
        Advance();
        continue;
      }
      absl::Status status = LexToken();
      if (!status.ok()) return status;
    }
    const SourceLocation end = Here();
    if (depth_ > 0) {
      return source_.Error(bracket_locs_.back(),
                           absl::StrCat("this '", std::string(1, brackets_.back()),
                                        "' is never closed; add the matching bracket"));
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline) {
      Emit(TokenKind::kNewline, "\n", end);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokenKind::kDedent, "", end);
    }
    Emit(TokenKind::kEnd, "", end);
    return std::move(tokens_);
  }

 private:
  SourceLocation Here() const { return {line_, col_}; }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void Emit(TokenKind kind, std::string text, SourceLocation loc) {
    tokens_.push_back(Token{kind, std::move(text), 0, 0.0, loc});
  }

  void SkipComment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
  }

  // Measures the leading whitespace of a line; returns true for a blank or
  // comment-only line (which produces no tokens).
  absl::StatusOr<bool> HandleIndentation() {
    int width = 0;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      width = text_[pos_] == '\t' ? (width / 8 + 1) * 8 : width + 1;
      Advance();
    }
    if (pos_ >= text_.size()) return true;
    const char c = text_[pos_];
    if (c == '\n' || c == '#' || c == '\r') {
      if (c == '#') SkipComment();
      if (pos_ < text_.size() && text_[pos_] == '\r') Advance();
      if (pos_ < text_.size()) Advance();
      return true;
    }
    const SourceLocation loc = Here();
    if (width > indents_.back()) {
      indents_.push_back(width);
      Emit(TokenKind::kIndent, "", loc);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        Emit(TokenKind::kDedent, "", loc);
      }
      if (width != indents_.back()) {
        return source_.Error(
            loc,
            "unindent does not match any outer indentation level; align this line with "
            "the block it belongs to");
      }
    }
    return false;
  }

  absl::Status LexToken() {
    const SourceLocation loc = Here();
    const char c = text_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      // String prefixes (r, b, f, u) glue onto a following quote.
      size_t end = pos_;
      while (end < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
        ++end;
      }
      const std::string word = text_.substr(pos_, end - pos_);
      if (end < text_.size() && (text_[end] == '"' || text_[end] == '\'') && word.size() <= 2) {
        std::string lower;
        for (char w : word) lower.push_back(std::tolower(static_cast<unsigned char>(w)));
        if (lower == "r" || lower == "u" || lower == "b" || lower == "rb" || lower == "br") {
          const bool raw = lower.find('r') != std::string::npos;
          while (pos_ < end) Advance();
          return LexString(loc, raw);
        }
        if (lower == "f" || lower == "rf" || lower == "fr") {
          return source_.Error(loc, "f-strings are not supported by ptoc; use a plain string");
        }
      }
      while (pos_ < end) Advance();
      Emit(TokenKind::kName, word, loc);
      return absl::OkStatus();
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      return LexNumber(loc);
    }
    if (c == '"' || c == '\'') return LexString(loc, /*raw=*/false);
    for (const char* op : kOperators) {
      const size_t n = std::char_traits<char>::length(op);
      if (text_.compare(pos_, n, op) == 0) {
        for (size_t i = 0; i < n; ++i) Advance();
        if (n == 1 && (c == '(' || c == '[' || c == '{')) {
          ++depth_;
          brackets_.push_back(c);
          bracket_locs_.push_back(loc);
        } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
          const char open = c == ')' ? '(' : c == ']' ? '[' : '{';
          if (depth_ == 0 || brackets_.back() != open) {
            return source_.Error(loc, absl::StrCat("unmatched '", std::string(1, c),
                                                   "'; remove it or add the opening bracket"));
          }
          --depth_;
          brackets_.pop_back();
          bracket_locs_.pop_back();
        }
        Emit(TokenKind::kOp, op, loc);
        return absl::OkStatus();
      }
    }
    return source_.Error(loc, absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  absl::Status LexNumber(SourceLocation loc) {
    std::string digits;
    bool is_float = false;
    int base = 10;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        std::string("xXoObB").find(text_[pos_ + 1]) != std::string::npos) {
      const char b = std::tolower(static_cast<unsigned char>(text_[pos_ + 1]));
      base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
      Advance();
      Advance();
      while (pos_ < text_.size() &&
             (std::isxdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        if (text_[pos_] != '_') digits.push_back(text_[pos_]);
        Advance();
      }
    } else {
      auto take_digits = [&] {
        while (pos_ < text_.size() &&
               (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
          if (text_[pos_] != '_') digits.push_back(text_[pos_]);
          Advance();
        }
      };
      take_digits();
      if (pos_ < text_.size() && text_[pos_] == '.') {
        is_float = true;
        digits.push_back('.');
        Advance();
        take_digits();
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        is_float = true;
        digits.push_back('e');
        Advance();
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
          digits.push_back(text_[pos_]);
          Advance();
        }
        const size_t before = digits.size();
        take_digits();
        if (digits.size() == before) {
          return source_.Error(loc, "malformed number: the exponent has no digits");
        }
      }
    }
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      return source_.Error(Here(), "malformed number literal");
    }
    Token token{is_float ? TokenKind::kFloat : TokenKind::kInt, digits, 0, 0.0, loc};
    if (is_float) {
      token.float_value = std::strtod(digits.c_str(), nullptr);
    } else {
      if (digits.empty()) return source_.Error(loc, "malformed number: no digits after prefix");
      errno = 0;
      token.int_value = static_cast<int64_t>(std::strtoull(digits.c_str(), nullptr, base));
      if (errno == ERANGE) return source_.Error(loc, "integer literal does not fit in 64 bits");
    }
    tokens_.push_back(std::move(token));
    return absl::OkStatus();
  }

  absl::Status LexString(SourceLocation loc, bool raw) {
    const char quote = text_[pos_];
    const bool triple = text_.compare(pos_, 3, std::string(3, quote)) == 0;
    for (int i = 0; i < (triple ? 3 : 1); ++i) Advance();
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) {
        return source_.Error(loc, "this string literal is never closed; add the closing quote");
      }
      const char c = text_[pos_];
      if (!triple && c == '\n') {
        return source_.Error(loc, "this string literal is never closed on its line");
      }
      if (c == quote) {
        if (!triple) {
          Advance();
          break;
        }
        if (text_.compare(pos_, 3, std::string(3, quote)) == 0) {
          for (int i = 0; i < 3; ++i) Advance();
          break;
        }
      }
      if (c == '\\' && !raw && pos_ + 1 < text_.size()) {
        Advance();
        const char e = text_[pos_];
        Advance();
        switch (e) {
          case 'n':
            value.push_back('\n');
            break;
          case 't':
            value.push_back('\t');
            break;
          case '\\':
          case '\'':
          case '"':
            value.push_back(e);
            break;
          case '\n':
            break;
          default:
            value.push_back('\\');
            value.push_back(e);
        }
        continue;
      }
      value.push_back(c);
      Advance();
    }
    Emit(TokenKind::kString, std::move(value), loc);
    return absl::OkStatus();
  }

  const SourceFile& source_;
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  int depth_ = 0;
  std::vector<char> brackets_;
  std::vector<SourceLocation> bracket_locs_;
  std::vector<int> indents_;
  std::vector<Token> tokens_;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(const SourceFile& source) {
  return Lexer(source).Run();
}

}  // namespace pto::ptoc
