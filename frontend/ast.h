#ifndef PTO_FRONTEND_AST_H_
#define PTO_FRONTEND_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace pto::ptoc {

// The syntax tree of the Python subset ptoc accepts (docs/ptoc.md). One node
// type per category with a kind tag keeps the tree small and easy to walk.

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

enum class ExprKind {
  kName,    // name
  kInt,     // int_value
  kFloat,   // float_value
  kString,  // name holds the value
  kBool,    // int_value 0/1
  kNone,
  kTuple,      // elts
  kList,       // elts
  kDict,       // elts = keys, extra = values
  kListComp,   // elts[0] element; comp_targets / comp_iters / comp_conds
  kAttribute,  // elts[0] . name
  kSubscript,  // elts[0] [ elts[1] ]  (a tuple index is a kTuple)
  kSlice,      // elts = lower, upper, step (nullptr when absent)
  kCall,       // elts[0] (elts[1..]) with keywords
  kBinary,     // elts[0] op elts[1]
  kUnary,      // op elts[0]
  kCompare,    // elts[0] ops[0] elts[1] ops[1] elts[2] ...
  kBoolOp,     // op ("and"/"or") over elts
  kIfExp,      // elts[0] if elts[1] else elts[2]
};

struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLocation loc;
};

struct Expr {
  ExprKind kind;
  SourceLocation loc;
  std::string name;  // identifier, attribute, string value
  std::string op;    // operator spelling
  int64_t int_value = 0;
  double float_value = 0.0;
  std::vector<ExprPtr> elts;
  std::vector<ExprPtr> extra;
  std::vector<std::string> ops;  // kCompare
  std::vector<Keyword> keywords;
  // kListComp: one entry per `for` clause; conditions attach to the clause
  // they follow.
  std::vector<ExprPtr> comp_targets;
  std::vector<ExprPtr> comp_iters;
  std::vector<std::vector<ExprPtr>> comp_conds;
};

enum class StmtKind {
  kExpr,         // value
  kAssign,       // targets = value  (a = b = c has two targets)
  kAugAssign,    // targets[0] op= value
  kAnnAssign,    // targets[0]: annotation [= value]
  kImport,       // names (dotted), aliases
  kImportFrom,   // module, names, aliases
  kFunctionDef,  // name, params, decorators, body
  kReturn,       // value (may be null)
  kIf,           // value test, body, orelse
  kFor,          // targets[0] in value: body
  kWith,         // items: with_exprs / with_targets, body
  kPass,
  kBreak,
  kContinue,
  kAssert,    // value, message
  kClassDef,  // name, decorators, body (the @pl.program form)
};

struct Param {
  std::string name;
  ExprPtr annotation;
  ExprPtr default_value;
  SourceLocation loc;
};

struct Stmt {
  StmtKind kind;
  SourceLocation loc;
  std::string name;  // function name, import-from module, augassign operator
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  ExprPtr message;
  std::vector<std::string> names;
  std::vector<std::string> aliases;  // "" when no alias
  std::vector<Param> params;
  std::vector<ExprPtr> decorators;
  std::vector<ExprPtr> with_exprs;
  std::vector<ExprPtr> with_targets;  // nullptr when no `as`
  Block body;
  Block orelse;
  std::string docstring;
};

struct Module {
  Block body;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_AST_H_
