#include "frontend/parser.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "frontend/lexer.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

// Keywords that start a construct outside the subset, with the reason.
const char* UnsupportedKeyword(const std::string& word) {
  if (word == "while") return "'while' loops are not supported; use 'for' over range/pl.range";
  if (word == "class") {
    return "a 'class' must be a @pl.program class (the program form); write "
           "@pl.program above it";
  }
  if (word == "try") return "'try' statements are not supported";
  if (word == "raise") return "'raise' is not supported; use 'assert'";
  if (word == "global") return "'global' is not supported; pass values as arguments";
  if (word == "nonlocal") return "'nonlocal' is not supported";
  if (word == "del") return "'del' is not supported";
  if (word == "yield") return "'yield' (generators) is not supported";
  if (word == "async" || word == "await") return "async code is not supported";
  if (word == "lambda") return "'lambda' is not supported; use a 'def'";
  if (word == "match") return nullptr;  // soft keyword, only an error as a statement
  return nullptr;
}

// Every level of nesting (brackets, operators, postfix chains, blocks, elif)
// costs a few stack frames here and in every later walk of the tree, so
// ptoc refuses descriptions deeper than this instead of overflowing the stack.
constexpr int kMaxNesting = 100;

class Parser {
 public:
  Parser(const SourceFile& source, std::vector<Token> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  absl::StatusOr<Module> ParseModule() {
    Module module;
    while (!At(TokenKind::kEnd)) {
      if (At(TokenKind::kNewline)) {
        Next();
        continue;
      }
      if (At(TokenKind::kIndent)) return Error(Peek().loc, "unexpected indent");
      PTOC_RETURN_IF_ERROR(ParseStatement(&module.body));
    }
    return module;
  }

 private:
  // ---- token helpers
  const Token& Peek(int ahead = 0) const {
    const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  bool AtOp(const char* op) const { return At(TokenKind::kOp) && Peek().text == op; }
  bool AtName(const char* word) const { return At(TokenKind::kName) && Peek().text == word; }
  const Token& Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }

  absl::Status Error(SourceLocation loc, absl::string_view message) const {
    return source_.Error(loc, message);
  }

  // Holds `levels` of nesting while alive; Enter() adds one more.
  class Nesting {
   public:
    explicit Nesting(Parser* parser) : parser_(parser) {}
    ~Nesting() { parser_->depth_ -= levels_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    absl::Status Enter(SourceLocation loc) {
      ++levels_;
      if (++parser_->depth_ <= kMaxNesting) return absl::OkStatus();
      return parser_->Error(
          loc, absl::StrCat("nested more than ", kMaxNesting,
                            " levels deep (brackets, operator chains, blocks); ptoc's limit "
                            "is ",
                            kMaxNesting, ": split the expression or the block"));
    }

   private:
    Parser* parser_;
    int levels_ = 0;
  };

  std::string Describe(const Token& t) const {
    if (t.kind == TokenKind::kOp || t.kind == TokenKind::kName)
      return absl::StrCat("'", t.text, "'");
    return TokenKindName(t.kind);
  }

  absl::Status ExpectOp(const char* op, const char* context) {
    if (!AtOp(op)) {
      return Error(Peek().loc,
                   absl::StrCat("expected '", op, "' ", context, ", found ", Describe(Peek())));
    }
    Next();
    return absl::OkStatus();
  }

  absl::Status ExpectNewline() {
    if (At(TokenKind::kNewline)) {
      Next();
      return absl::OkStatus();
    }
    if (At(TokenKind::kEnd)) return absl::OkStatus();
    return Error(Peek().loc,
                 absl::StrCat("expected the end of the statement, found ", Describe(Peek())));
  }

  bool IsReserved(const std::string& w) const {
    static const std::set<std::string> kReserved = {
        "and",    "as",     "assert", "break",   "class",    "continue", "def",    "del",
        "elif",   "else",   "except", "finally", "for",      "from",     "global", "if",
        "import", "in",     "is",     "lambda",  "nonlocal", "not",      "or",     "pass",
        "raise",  "return", "try",    "while",   "with",     "yield",    "async",  "await"};
    return kReserved.count(w) > 0;
  }

  // ---- statements
  absl::Status ParseStatement(Block* out) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kName) {
      if (const char* why = UnsupportedKeyword(t.text)) {
        if (t.text != "lambda" && t.text != "await") return Error(t.loc, why);
      }
      if (t.text == "if") return ParseIf(out);
      if (t.text == "for") return ParseFor(out);
      if (t.text == "with") return ParseWith(out);
      if (t.text == "def") return ParseDef(out, {});
    }
    if (AtOp("@")) return ParseDecorated(out);
    return ParseSimpleStatements(out);
  }

  absl::Status ParseSimpleStatements(Block* out) {
    while (true) {
      PTOC_RETURN_IF_ERROR(ParseSimpleStatement(out));
      if (AtOp(";")) {
        Next();
        if (At(TokenKind::kNewline) || At(TokenKind::kEnd)) break;
        continue;
      }
      break;
    }
    return ExpectNewline();
  }

  absl::StatusOr<Block> ParseBlock(const char* what) {
    Nesting nesting(this);
    PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
    PTOC_RETURN_IF_ERROR(ExpectOp(":", what));
    Block body;
    if (!At(TokenKind::kNewline)) {
      PTOC_RETURN_IF_ERROR(ParseSimpleStatements(&body));
      return body;
    }
    Next();
    if (!At(TokenKind::kIndent)) {
      return Error(Peek().loc, absl::StrCat("expected an indented block ", what));
    }
    Next();
    while (!At(TokenKind::kDedent) && !At(TokenKind::kEnd)) {
      if (At(TokenKind::kNewline)) {
        Next();
        continue;
      }
      PTOC_RETURN_IF_ERROR(ParseStatement(&body));
    }
    if (At(TokenKind::kDedent)) Next();
    return body;
  }

  StmtPtr NewStmt(StmtKind kind, SourceLocation loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->loc = loc;
    return s;
  }

  absl::Status ParseSimpleStatement(Block* out) {
    const Token& t = Peek();
    const SourceLocation loc = t.loc;
    if (t.kind == TokenKind::kName) {
      const std::string& w = t.text;
      if (w == "pass" || w == "break" || w == "continue") {
        Next();
        out->push_back(NewStmt(w == "pass"    ? StmtKind::kPass
                               : w == "break" ? StmtKind::kBreak
                                              : StmtKind::kContinue,
                               loc));
        return absl::OkStatus();
      }
      if (w == "return") {
        Next();
        auto s = NewStmt(StmtKind::kReturn, loc);
        if (!At(TokenKind::kNewline) && !At(TokenKind::kEnd) && !AtOp(";")) {
          PTOC_ASSIGN_OR_RETURN(value, ParseExprList());
          s->value = std::move(value);
        }
        out->push_back(std::move(s));
        return absl::OkStatus();
      }
      if (w == "import") return ParseImport(out);
      if (w == "from") return ParseFromImport(out);
      if (w == "assert") {
        Next();
        auto s = NewStmt(StmtKind::kAssert, loc);
        PTOC_ASSIGN_OR_RETURN(test, ParseTest());
        s->value = std::move(test);
        if (AtOp(",")) {
          Next();
          PTOC_ASSIGN_OR_RETURN(msg, ParseTest());
          s->message = std::move(msg);
        }
        out->push_back(std::move(s));
        return absl::OkStatus();
      }
      if (const char* why = UnsupportedKeyword(w)) return Error(loc, why);
      if (w == "elif" || w == "else") {
        return Error(loc, absl::StrCat("'", w, "' without a matching 'if'"));
      }
    }
    // Expression statement or assignment.
    PTOC_ASSIGN_OR_RETURN(first, ParseExprList());
    if (AtOp(":")) {
      Next();
      auto s = NewStmt(StmtKind::kAnnAssign, loc);
      PTOC_RETURN_IF_ERROR(CheckTarget(*first));
      PTOC_ASSIGN_OR_RETURN(annotation, ParseTest());
      s->annotation = std::move(annotation);
      s->targets.push_back(std::move(first));
      if (AtOp("=")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(value, ParseExprList());
        s->value = std::move(value);
      }
      out->push_back(std::move(s));
      return absl::OkStatus();
    }
    static const std::set<std::string> kAug = {
        "+=", "-=", "*=", "/=", "//=", "%=", "@=", "**=", "&=", "|=", "^=", "<<=", ">>="};
    if (At(TokenKind::kOp) && kAug.count(Peek().text)) {
      auto s = NewStmt(StmtKind::kAugAssign, loc);
      s->name = Next().text;
      s->name.pop_back();  // "+=" -> "+"
      PTOC_RETURN_IF_ERROR(CheckTarget(*first));
      PTOC_ASSIGN_OR_RETURN(value, ParseExprList());
      s->targets.push_back(std::move(first));
      s->value = std::move(value);
      out->push_back(std::move(s));
      return absl::OkStatus();
    }
    if (AtOp("=")) {
      auto s = NewStmt(StmtKind::kAssign, loc);
      std::vector<ExprPtr> chain;
      chain.push_back(std::move(first));
      while (AtOp("=")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(next, ParseExprList());
        chain.push_back(std::move(next));
      }
      s->value = std::move(chain.back());
      chain.pop_back();
      for (auto& target : chain) {
        PTOC_RETURN_IF_ERROR(CheckTarget(*target));
        s->targets.push_back(std::move(target));
      }
      out->push_back(std::move(s));
      return absl::OkStatus();
    }
    if (AtOp(":=")) return Error(Peek().loc, "the walrus operator ':=' is not supported");
    auto s = NewStmt(StmtKind::kExpr, loc);
    s->value = std::move(first);
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  absl::Status CheckTarget(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kName:
      case ExprKind::kAttribute:
      case ExprKind::kSubscript:
        return absl::OkStatus();
      case ExprKind::kTuple:
      case ExprKind::kList:
        for (const auto& elt : e.elts) PTOC_RETURN_IF_ERROR(CheckTarget(*elt));
        return absl::OkStatus();
      default:
        return Error(e.loc,
                     "cannot assign to this expression; the target must be a name, "
                     "a subscript, an attribute or a tuple of those");
    }
  }

  absl::StatusOr<std::string> ParseDottedName() {
    if (!At(TokenKind::kName)) {
      return Error(Peek().loc, absl::StrCat("expected a module name, found ", Describe(Peek())));
    }
    std::string name = Next().text;
    while (AtOp(".")) {
      Next();
      if (!At(TokenKind::kName)) return Error(Peek().loc, "expected a name after '.'");
      absl::StrAppend(&name, ".", Next().text);
    }
    return name;
  }

  absl::StatusOr<std::string> ParseAlias() {
    if (!AtName("as")) return std::string();
    Next();
    if (!At(TokenKind::kName)) return Error(Peek().loc, "expected a name after 'as'");
    return Next().text;
  }

  absl::Status ParseImport(Block* out) {
    auto s = NewStmt(StmtKind::kImport, Next().loc);
    while (true) {
      PTOC_ASSIGN_OR_RETURN(name, ParseDottedName());
      PTOC_ASSIGN_OR_RETURN(alias, ParseAlias());
      s->names.push_back(name);
      s->aliases.push_back(alias);
      if (!AtOp(",")) break;
      Next();
    }
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  absl::Status ParseFromImport(Block* out) {
    auto s = NewStmt(StmtKind::kImportFrom, Next().loc);
    if (AtOp(".")) return Error(Peek().loc, "relative imports are not supported");
    PTOC_ASSIGN_OR_RETURN(module, ParseDottedName());
    s->name = module;
    if (!AtName("import")) return Error(Peek().loc, "expected 'import' after the module name");
    Next();
    if (AtOp("*"))
      return Error(Peek().loc, "'from ... import *' is not supported; name what you import");
    const bool paren = AtOp("(");
    if (paren) Next();
    while (true) {
      if (!At(TokenKind::kName)) return Error(Peek().loc, "expected a name to import");
      s->names.push_back(Next().text);
      PTOC_ASSIGN_OR_RETURN(alias, ParseAlias());
      s->aliases.push_back(alias);
      if (!AtOp(",")) break;
      Next();
      if (paren && AtOp(")")) break;
    }
    if (paren) PTOC_RETURN_IF_ERROR(ExpectOp(")", "to close the import list"));
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  absl::Status ParseIf(Block* out) {
    auto s = NewStmt(StmtKind::kIf, Next().loc);
    PTOC_ASSIGN_OR_RETURN(test, ParseNamedTest());
    s->value = std::move(test);
    PTOC_ASSIGN_OR_RETURN(body, ParseBlock("after the 'if' condition"));
    s->body = std::move(body);
    if (AtName("elif")) {
      Block orelse;
      Nesting nesting(this);
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      PTOC_RETURN_IF_ERROR(ParseIf(&orelse));  // an elif is an if in the else branch
      s->orelse = std::move(orelse);
    } else if (AtName("else")) {
      Next();
      PTOC_ASSIGN_OR_RETURN(orelse, ParseBlock("after 'else'"));
      s->orelse = std::move(orelse);
    }
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  absl::StatusOr<ExprPtr> ParseNamedTest() {
    PTOC_ASSIGN_OR_RETURN(test, ParseTest());
    if (AtOp(":=")) return Error(Peek().loc, "the walrus operator ':=' is not supported");
    return test;
  }

  absl::Status ParseFor(Block* out) {
    auto s = NewStmt(StmtKind::kFor, Next().loc);
    PTOC_ASSIGN_OR_RETURN(target, ParseTargetList());
    if (!AtName("in")) return Error(Peek().loc, "expected 'in' after the loop variable");
    Next();
    PTOC_ASSIGN_OR_RETURN(iter, ParseExprList());
    s->targets.push_back(std::move(target));
    s->value = std::move(iter);
    PTOC_ASSIGN_OR_RETURN(body, ParseBlock("after the 'for' header"));
    s->body = std::move(body);
    if (AtName("else")) return Error(Peek().loc, "'for ... else' is not supported");
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  // Loop and comprehension targets: names, subscripts or tuples of them,
  // parsed below the comparison level so that `in` ends them.
  absl::StatusOr<ExprPtr> ParseTargetList() {
    const SourceLocation loc = Peek().loc;
    std::vector<ExprPtr> elts;
    bool trailing_comma = false;
    while (true) {
      PTOC_ASSIGN_OR_RETURN(e, ParseBitOr());
      PTOC_RETURN_IF_ERROR(CheckTarget(*e));
      elts.push_back(std::move(e));
      if (!AtOp(",")) break;
      Next();
      trailing_comma = true;
      if (AtName("in")) break;
      trailing_comma = false;
    }
    if (elts.size() == 1 && !trailing_comma) return std::move(elts[0]);
    auto t = NewExpr(ExprKind::kTuple, loc);
    t->elts = std::move(elts);
    return t;
  }

  absl::Status ParseWith(Block* out) {
    auto s = NewStmt(StmtKind::kWith, Next().loc);
    const bool paren = AtOp("(") && WithItemsParenthesized();
    if (paren) Next();
    while (true) {
      PTOC_ASSIGN_OR_RETURN(item, ParseTest());
      s->with_exprs.push_back(std::move(item));
      if (AtName("as")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(target, ParseBitOr());
        PTOC_RETURN_IF_ERROR(CheckTarget(*target));
        s->with_targets.push_back(std::move(target));
      } else {
        s->with_targets.push_back(nullptr);
      }
      if (!AtOp(",")) break;
      Next();
      if (paren && AtOp(")")) break;
    }
    if (paren) PTOC_RETURN_IF_ERROR(ExpectOp(")", "to close the 'with' items"));
    PTOC_ASSIGN_OR_RETURN(body, ParseBlock("after the 'with' header"));
    s->body = std::move(body);
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  // `with (a as x, b as y):` versus `with (expr).attr:`: the former has the
  // closing parenthesis right before the colon and an `as` inside.
  bool WithItemsParenthesized() const {
    int depth = 0;
    bool saw_as = false;
    for (size_t i = pos_; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::kOp && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
      if (t.kind == TokenKind::kOp && (t.text == ")" || t.text == "]" || t.text == "}")) {
        if (--depth == 0) {
          return saw_as && i + 1 < tokens_.size() && tokens_[i + 1].kind == TokenKind::kOp &&
                 tokens_[i + 1].text == ":";
        }
      }
      if (depth == 1 && t.kind == TokenKind::kName && t.text == "as") saw_as = true;
      if (t.kind == TokenKind::kNewline) return false;
    }
    return false;
  }

  absl::Status ParseDecorated(Block* out) {
    std::vector<ExprPtr> decorators;
    while (AtOp("@")) {
      Next();
      PTOC_ASSIGN_OR_RETURN(d, ParseTest());
      decorators.push_back(std::move(d));
      PTOC_RETURN_IF_ERROR(ExpectNewline());
      while (At(TokenKind::kNewline)) Next();
    }
    if (AtName("class")) return ParseClass(out, std::move(decorators));
    if (!AtName("def")) {
      return Error(Peek().loc,
                   absl::StrCat("expected 'def' after the decorator, found ", Describe(Peek())));
    }
    return ParseDef(out, std::move(decorators));
  }

  // `class Name:` with a body of defs (the @pl.program form); no bases.
  absl::Status ParseClass(Block* out, std::vector<ExprPtr> decorators) {
    auto s = NewStmt(StmtKind::kClassDef, Next().loc);
    s->decorators = std::move(decorators);
    if (!At(TokenKind::kName)) return Error(Peek().loc, "expected the class name after 'class'");
    s->name = Next().text;
    if (AtOp("(")) {
      Next();
      if (!AtOp(")")) return Error(Peek().loc, "a @pl.program class takes no base classes");
      Next();
    }
    PTOC_ASSIGN_OR_RETURN(body, ParseBlock("after the class header"));
    s->body = std::move(body);
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  absl::Status ParseDef(Block* out, std::vector<ExprPtr> decorators) {
    auto s = NewStmt(StmtKind::kFunctionDef, Next().loc);
    s->decorators = std::move(decorators);
    if (!At(TokenKind::kName)) return Error(Peek().loc, "expected the function name after 'def'");
    s->name = Next().text;
    PTOC_RETURN_IF_ERROR(ExpectOp("(", "after the function name"));
    bool seen_default = false;
    while (!AtOp(")")) {
      if (AtOp("*") || AtOp("**")) {
        return Error(Peek().loc, "star parameters (*args, **kwargs, bare *) are not supported");
      }
      if (AtOp("/")) return Error(Peek().loc, "positional-only parameters ('/') are not supported");
      if (!At(TokenKind::kName) || IsReserved(Peek().text)) {
        return Error(Peek().loc,
                     absl::StrCat("expected a parameter name, found ", Describe(Peek())));
      }
      Param p;
      p.loc = Peek().loc;
      p.name = Next().text;
      if (AtOp(":")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(annotation, ParseTest());
        p.annotation = std::move(annotation);
      }
      if (AtOp("=")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(def, ParseTest());
        p.default_value = std::move(def);
        seen_default = true;
      } else if (seen_default) {
        return Error(p.loc, "a parameter without a default follows one with a default");
      }
      s->params.push_back(std::move(p));
      if (!AtOp(",")) break;
      Next();
    }
    PTOC_RETURN_IF_ERROR(ExpectOp(")", "to close the parameter list"));
    if (AtOp("->")) {
      Next();
      PTOC_ASSIGN_OR_RETURN(ret, ParseTest());
      s->annotation = std::move(ret);
    }
    PTOC_ASSIGN_OR_RETURN(body, ParseBlock("after the function header"));
    s->body = std::move(body);
    if (!s->body.empty() && s->body[0]->kind == StmtKind::kExpr &&
        s->body[0]->value->kind == ExprKind::kString) {
      s->docstring = s->body[0]->value->name;
    }
    out->push_back(std::move(s));
    return absl::OkStatus();
  }

  // ---- expressions
  ExprPtr NewExpr(ExprKind kind, SourceLocation loc) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->loc = loc;
    return e;
  }

  bool AtExprEnd() const {
    return At(TokenKind::kNewline) || At(TokenKind::kEnd) || AtOp("=") || AtOp(")") || AtOp("]") ||
           AtOp("}") || AtOp(":") || AtOp(";") ||
           (At(TokenKind::kOp) && Peek().text.size() >= 2 && Peek().text.back() == '=' &&
            Peek().text != "==" && Peek().text != "!=" && Peek().text != "<=" &&
            Peek().text != ">=");
  }

  // A comma-separated list forms a tuple (as in `a, b = 1, 2`).
  absl::StatusOr<ExprPtr> ParseExprList() {
    const SourceLocation loc = Peek().loc;
    PTOC_ASSIGN_OR_RETURN(first, ParseTest());
    if (!AtOp(",")) return first;
    auto t = NewExpr(ExprKind::kTuple, loc);
    t->elts.push_back(std::move(first));
    while (AtOp(",")) {
      Next();
      if (AtExprEnd()) break;
      PTOC_ASSIGN_OR_RETURN(e, ParseTest());
      t->elts.push_back(std::move(e));
    }
    return t;
  }

  absl::StatusOr<ExprPtr> ParseTest() {
    Nesting nesting(this);
    PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
    if (AtName("lambda")) return Error(Peek().loc, UnsupportedKeyword("lambda"));
    if (AtName("yield")) return Error(Peek().loc, UnsupportedKeyword("yield"));
    if (AtName("await")) return Error(Peek().loc, UnsupportedKeyword("await"));
    if (AtOp("*") || AtOp("**")) {
      return Error(Peek().loc, "star expressions (*x, **x) are not supported");
    }
    PTOC_ASSIGN_OR_RETURN(body, ParseOr());
    if (!AtName("if")) return body;
    const SourceLocation loc = Next().loc;
    PTOC_ASSIGN_OR_RETURN(test, ParseOr());
    if (!AtName("else")) return Error(Peek().loc, "expected 'else' in the conditional expression");
    Next();
    PTOC_ASSIGN_OR_RETURN(orelse, ParseTest());
    auto e = NewExpr(ExprKind::kIfExp, loc);
    e->elts.push_back(std::move(body));
    e->elts.push_back(std::move(test));
    e->elts.push_back(std::move(orelse));
    return e;
  }

  absl::StatusOr<ExprPtr> ParseOr() { return ParseBoolOp("or", &Parser::ParseAnd); }
  absl::StatusOr<ExprPtr> ParseAnd() { return ParseBoolOp("and", &Parser::ParseNot); }

  absl::StatusOr<ExprPtr> ParseBoolOp(const char* word, absl::StatusOr<ExprPtr> (Parser::*sub)()) {
    PTOC_ASSIGN_OR_RETURN(first, (this->*sub)());
    if (!AtName(word)) return first;
    auto e = NewExpr(ExprKind::kBoolOp, first->loc);
    e->op = word;
    e->elts.push_back(std::move(first));
    Nesting nesting(this);
    while (AtName(word)) {
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      Next();
      PTOC_ASSIGN_OR_RETURN(next, (this->*sub)());
      e->elts.push_back(std::move(next));
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseNot() {
    if (AtName("not")) {
      Nesting nesting(this);
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      auto e = NewExpr(ExprKind::kUnary, Next().loc);
      e->op = "not";
      PTOC_ASSIGN_OR_RETURN(operand, ParseNot());
      e->elts.push_back(std::move(operand));
      return e;
    }
    return ParseComparison();
  }

  absl::StatusOr<ExprPtr> ParseComparison() {
    PTOC_ASSIGN_OR_RETURN(first, ParseBitOr());
    auto comparison_op = [&]() -> std::string {
      if (At(TokenKind::kOp)) {
        const std::string& t = Peek().text;
        if (t == "<" || t == ">" || t == "==" || t == ">=" || t == "<=" || t == "!=") return t;
      }
      if (AtName("in")) return "in";
      if (AtName("is")) return "is";
      if (AtName("not") && Peek(1).kind == TokenKind::kName && Peek(1).text == "in") {
        return "not in";
      }
      return "";
    };
    if (comparison_op().empty()) return first;
    auto e = NewExpr(ExprKind::kCompare, first->loc);
    e->elts.push_back(std::move(first));
    Nesting nesting(this);
    while (true) {
      std::string op = comparison_op();
      if (op.empty()) break;
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      Next();
      if (op == "not in") Next();
      if (op == "is" && AtName("not")) {
        Next();
        op = "is not";
      }
      PTOC_ASSIGN_OR_RETURN(rhs, ParseBitOr());
      e->ops.push_back(op);
      e->elts.push_back(std::move(rhs));
    }
    return e;
  }

  absl::StatusOr<ExprPtr> ParseBinaryLevel(std::initializer_list<const char*> ops,
                                           absl::StatusOr<ExprPtr> (Parser::*sub)()) {
    PTOC_ASSIGN_OR_RETURN(lhs, (this->*sub)());
    Nesting nesting(this);  // each operator makes the (left-deep) tree one deeper
    while (true) {
      const char* matched = nullptr;
      for (const char* op : ops) {
        if (AtOp(op)) matched = op;
      }
      if (!matched) return lhs;
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      auto e = NewExpr(ExprKind::kBinary, Next().loc);
      e->op = matched;
      PTOC_ASSIGN_OR_RETURN(rhs, (this->*sub)());
      e->elts.push_back(std::move(lhs));
      e->elts.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  absl::StatusOr<ExprPtr> ParseBitOr() { return ParseBinaryLevel({"|"}, &Parser::ParseBitXor); }
  absl::StatusOr<ExprPtr> ParseBitXor() { return ParseBinaryLevel({"^"}, &Parser::ParseBitAnd); }
  absl::StatusOr<ExprPtr> ParseBitAnd() { return ParseBinaryLevel({"&"}, &Parser::ParseShift); }
  absl::StatusOr<ExprPtr> ParseShift() {
    return ParseBinaryLevel({"<<", ">>"}, &Parser::ParseArith);
  }
  absl::StatusOr<ExprPtr> ParseArith() { return ParseBinaryLevel({"+", "-"}, &Parser::ParseTerm); }
  absl::StatusOr<ExprPtr> ParseTerm() {
    return ParseBinaryLevel({"*", "/", "//", "%", "@"}, &Parser::ParseFactor);
  }

  absl::StatusOr<ExprPtr> ParseFactor() {
    if (AtOp("-") || AtOp("+") || AtOp("~")) {
      Nesting nesting(this);
      PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      auto e = NewExpr(ExprKind::kUnary, Peek().loc);
      e->op = Next().text;
      PTOC_ASSIGN_OR_RETURN(operand, ParseFactor());
      // Fold literal signs so that `-1` is a constant (predicates need it).
      if (e->op == "-" && operand->kind == ExprKind::kInt) {
        operand->int_value = -operand->int_value;
        operand->loc = e->loc;
        return operand;
      }
      if (e->op == "-" && operand->kind == ExprKind::kFloat) {
        operand->float_value = -operand->float_value;
        operand->loc = e->loc;
        return operand;
      }
      e->elts.push_back(std::move(operand));
      return e;
    }
    return ParsePower();
  }

  absl::StatusOr<ExprPtr> ParsePower() {
    PTOC_ASSIGN_OR_RETURN(base, ParsePrimary());
    if (!AtOp("**")) return base;
    Nesting nesting(this);
    PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
    auto e = NewExpr(ExprKind::kBinary, Next().loc);
    e->op = "**";
    PTOC_ASSIGN_OR_RETURN(exponent, ParseFactor());
    e->elts.push_back(std::move(base));
    e->elts.push_back(std::move(exponent));
    return e;
  }

  absl::StatusOr<ExprPtr> ParsePrimary() {
    PTOC_ASSIGN_OR_RETURN(e, ParseAtom());
    Nesting nesting(this);  // each postfix makes the tree one deeper
    while (true) {
      if (AtOp(".") || AtOp("(") || AtOp("[")) PTOC_RETURN_IF_ERROR(nesting.Enter(Peek().loc));
      if (AtOp(".")) {
        Next();
        if (!At(TokenKind::kName)) return Error(Peek().loc, "expected an attribute name after '.'");
        auto a = NewExpr(ExprKind::kAttribute, Peek().loc);
        a->name = Next().text;
        a->elts.push_back(std::move(e));
        e = std::move(a);
      } else if (AtOp("(")) {
        auto call = NewExpr(ExprKind::kCall, Next().loc);
        call->loc = e->loc;
        call->elts.push_back(std::move(e));
        PTOC_RETURN_IF_ERROR(ParseCallArgs(call.get()));
        e = std::move(call);
      } else if (AtOp("[")) {
        const SourceLocation loc = Next().loc;
        auto sub = NewExpr(ExprKind::kSubscript, loc);
        PTOC_ASSIGN_OR_RETURN(index, ParseSubscriptList());
        PTOC_RETURN_IF_ERROR(ExpectOp("]", "to close the subscript"));
        sub->loc = e->loc;
        sub->elts.push_back(std::move(e));
        sub->elts.push_back(std::move(index));
        e = std::move(sub);
      } else {
        return e;
      }
    }
  }

  absl::Status ParseCallArgs(Expr* call) {
    bool seen_keyword = false;
    while (!AtOp(")")) {
      if (AtOp("*") || AtOp("**")) {
        return Error(Peek().loc, "star arguments (*args, **kwargs) are not supported in calls");
      }
      if (At(TokenKind::kName) && Peek(1).kind == TokenKind::kOp && Peek(1).text == "=") {
        Keyword kw;
        kw.loc = Peek().loc;
        kw.name = Next().text;
        Next();
        PTOC_ASSIGN_OR_RETURN(value, ParseTest());
        kw.value = std::move(value);
        for (const auto& other : call->keywords) {
          if (other.name == kw.name) {
            return Error(kw.loc, absl::StrCat("keyword argument '", kw.name, "' repeated"));
          }
        }
        call->keywords.push_back(std::move(kw));
        seen_keyword = true;
      } else {
        const SourceLocation loc = Peek().loc;
        PTOC_ASSIGN_OR_RETURN(arg, ParseTest());
        if (AtName("for")) {
          return Error(Peek().loc,
                       "generator expressions are not supported; use a list "
                       "comprehension [...]");
        }
        if (seen_keyword) return Error(loc, "positional argument follows keyword argument");
        call->elts.push_back(std::move(arg));
      }
      if (!AtOp(",")) break;
      Next();
    }
    return ExpectOp(")", "to close the argument list");
  }

  absl::StatusOr<ExprPtr> ParseSubscriptList() {
    const SourceLocation loc = Peek().loc;
    std::vector<ExprPtr> items;
    bool tuple = false;
    while (true) {
      PTOC_ASSIGN_OR_RETURN(item, ParseSliceItem());
      items.push_back(std::move(item));
      if (!AtOp(",")) break;
      Next();
      tuple = true;
      if (AtOp("]")) break;
    }
    if (!tuple) return std::move(items[0]);
    auto t = NewExpr(ExprKind::kTuple, loc);
    t->elts = std::move(items);
    return t;
  }

  absl::StatusOr<ExprPtr> ParseSliceItem() {
    const SourceLocation loc = Peek().loc;
    ExprPtr lower;
    if (!AtOp(":")) {
      PTOC_ASSIGN_OR_RETURN(e, ParseTest());
      if (!AtOp(":")) return e;
      lower = std::move(e);
    }
    auto slice = NewExpr(ExprKind::kSlice, loc);
    Next();  // ':'
    ExprPtr upper, step;
    if (!AtOp(":") && !AtOp("]") && !AtOp(",")) {
      PTOC_ASSIGN_OR_RETURN(e, ParseTest());
      upper = std::move(e);
    }
    if (AtOp(":")) {
      Next();
      if (!AtOp("]") && !AtOp(",")) {
        PTOC_ASSIGN_OR_RETURN(e, ParseTest());
        step = std::move(e);
      }
    }
    slice->elts.push_back(std::move(lower));
    slice->elts.push_back(std::move(upper));
    slice->elts.push_back(std::move(step));
    return slice;
  }

  absl::StatusOr<ExprPtr> ParseAtom() {
    const Token& t = Peek();
    const SourceLocation loc = t.loc;
    switch (t.kind) {
      case TokenKind::kInt: {
        auto e = NewExpr(ExprKind::kInt, loc);
        e->int_value = Next().int_value;
        return e;
      }
      case TokenKind::kFloat: {
        auto e = NewExpr(ExprKind::kFloat, loc);
        e->float_value = Next().float_value;
        return e;
      }
      case TokenKind::kString: {
        auto e = NewExpr(ExprKind::kString, loc);
        while (At(TokenKind::kString)) e->name += Next().text;  // adjacent literals join
        return e;
      }
      case TokenKind::kName: {
        const std::string& w = t.text;
        if (w == "True" || w == "False") {
          auto e = NewExpr(ExprKind::kBool, loc);
          e->int_value = w == "True";
          Next();
          return e;
        }
        if (w == "None") {
          Next();
          return NewExpr(ExprKind::kNone, loc);
        }
        if (const char* why = UnsupportedKeyword(w)) return Error(loc, why);
        if (IsReserved(w)) {
          return Error(loc, absl::StrCat("unexpected keyword '", w, "' in an expression"));
        }
        auto e = NewExpr(ExprKind::kName, loc);
        e->name = Next().text;
        return e;
      }
      case TokenKind::kOp:
        if (t.text == "(") return ParseParen();
        if (t.text == "[") return ParseListDisplay();
        if (t.text == "{") return ParseBraces();
        if (t.text == "...") {  // a body placeholder (`def k(...): ...`); evaluates to None
          Next();
          return NewExpr(ExprKind::kNone, loc);
        }
        break;
      default:
        break;
    }
    return Error(loc, absl::StrCat("expected an expression, found ", Describe(t)));
  }

  absl::StatusOr<ExprPtr> ParseParen() {
    const SourceLocation loc = Next().loc;
    if (AtOp(")")) {
      Next();
      return NewExpr(ExprKind::kTuple, loc);
    }
    PTOC_ASSIGN_OR_RETURN(first, ParseTest());
    if (AtName("for")) {
      return Error(Peek().loc,
                   "generator expressions are not supported; use a list "
                   "comprehension [...]");
    }
    if (AtOp(")")) {
      Next();
      return first;
    }
    auto t = NewExpr(ExprKind::kTuple, loc);
    t->elts.push_back(std::move(first));
    while (AtOp(",")) {
      Next();
      if (AtOp(")")) break;
      PTOC_ASSIGN_OR_RETURN(e, ParseTest());
      t->elts.push_back(std::move(e));
    }
    PTOC_RETURN_IF_ERROR(ExpectOp(")", "to close the parenthesis"));
    return t;
  }

  absl::StatusOr<ExprPtr> ParseListDisplay() {
    const SourceLocation loc = Next().loc;
    auto list = NewExpr(ExprKind::kList, loc);
    if (AtOp("]")) {
      Next();
      return list;
    }
    PTOC_ASSIGN_OR_RETURN(first, ParseTest());
    if (AtName("for")) {
      auto comp = NewExpr(ExprKind::kListComp, loc);
      comp->elts.push_back(std::move(first));
      while (AtName("for")) {
        Next();
        PTOC_ASSIGN_OR_RETURN(target, ParseTargetList());
        if (!AtName("in")) return Error(Peek().loc, "expected 'in' in the comprehension");
        Next();
        PTOC_ASSIGN_OR_RETURN(iter, ParseOr());
        comp->comp_targets.push_back(std::move(target));
        comp->comp_iters.push_back(std::move(iter));
        comp->comp_conds.emplace_back();
        while (AtName("if")) {
          Next();
          PTOC_ASSIGN_OR_RETURN(cond, ParseOr());
          comp->comp_conds.back().push_back(std::move(cond));
        }
      }
      PTOC_RETURN_IF_ERROR(ExpectOp("]", "to close the list comprehension"));
      return comp;
    }
    list->elts.push_back(std::move(first));
    while (AtOp(",")) {
      Next();
      if (AtOp("]")) break;
      PTOC_ASSIGN_OR_RETURN(e, ParseTest());
      list->elts.push_back(std::move(e));
    }
    PTOC_RETURN_IF_ERROR(ExpectOp("]", "to close the list"));
    return list;
  }

  absl::StatusOr<ExprPtr> ParseBraces() {
    const SourceLocation loc = Next().loc;
    auto dict = NewExpr(ExprKind::kDict, loc);
    while (!AtOp("}")) {
      PTOC_ASSIGN_OR_RETURN(key, ParseTest());
      if (!AtOp(":")) {
        return Error(key->loc, "set displays are not supported; use a list or a dict");
      }
      Next();
      PTOC_ASSIGN_OR_RETURN(value, ParseTest());
      if (AtName("for")) return Error(Peek().loc, "dict comprehensions are not supported");
      dict->elts.push_back(std::move(key));
      dict->extra.push_back(std::move(value));
      if (!AtOp(",")) break;
      Next();
    }
    PTOC_RETURN_IF_ERROR(ExpectOp("}", "to close the dict"));
    return dict;
  }

  const SourceFile& source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // current nesting, at most kMaxNesting
};

}  // namespace

absl::StatusOr<Module> Parse(const SourceFile& source) {
  auto tokens = Tokenize(source);
  if (!tokens.ok()) return tokens.status();
  return Parser(source, std::move(*tokens)).ParseModule();
}

}  // namespace pto::ptoc
