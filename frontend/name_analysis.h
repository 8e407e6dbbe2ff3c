#ifndef PTO_FRONTEND_NAME_ANALYSIS_H_
#define PTO_FRONTEND_NAME_ANALYSIS_H_

#include <set>
#include <string>

#include "absl/status/status.h"
#include "frontend/ast.h"
#include "frontend/source.h"

namespace pto::ptoc {

// Syntactic facts about names that Python's rebinding rules need and that a
// tracing interpreter cannot see from one execution: which names a block
// binds, and whether a name's current value may still be read. PyPTO's
// parser answers the same questions on the AST (upstream hw-native-sys/pypto
// docs/en/dev/passes/04-convert_to_ssa.md), so loop carries and values that
// leave a task follow the source, not the path one trace happened to take.

// Every name `block` binds: assignment and augmented-assignment targets
// (tuples unpacked), for and with targets, defs, classes and imports, in
// nested blocks too; not the locals of nested function bodies. Subscript and
// attribute targets (`out[:] = t`) mutate, they do not bind.
void CollectAssignedNames(const Block& block, std::set<std::string>* names);

// How the statements block[from..] first use the value `name` holds on entry:
//   kRead  — some path may read it before rebinding it;
//   kDead  — every path rebinds it, or leaves the function, before any read;
//   kNone  — neither: it falls through the block untouched on some path.
// Conservative where the answer depends on data: a read inside a branch or a
// loop body counts as a read, a write there does not count as a rebinding,
// and a nested function that names it reads it.
enum class NameUse { kNone, kRead, kDead };
NameUse FirstUse(const Block& block, size_t from, const std::string& name);

// Whether evaluating `e` reads `name` (comprehension variables shadow it).
bool ExprReads(const Expr& e, const std::string& name);

// The names an assignment target binds (`a`, `a, (b, c)`; not `a[i]`).
void CollectTargetNames(const Expr& target, std::set<std::string>* names);

// `pl.yield_(...)`, whatever the module is called.
bool IsYieldCall(const Expr& e);
// A loop body's `x = pl.yield_(...)` / bare `pl.yield_(...)` statement at its
// top level (a nested loop's or an if's yield is that construct's); the
// first one, or null.
const Stmt* YieldAssignment(const Block& body);
const Stmt* BareYield(const Block& body);

// @pl.function(strict_ssa=True): every name is bound once. Rejects the second
// binding of a name in the function (parameters included), with the first
// binding's line, and the `dst[...] = src` write sugar, which rebinds `dst`
// in PyPTO (upstream python/pypto/language/parser/scope_manager.py).
absl::Status CheckStrictSsa(const Stmt& def, const SourceFile& source);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_NAME_ANALYSIS_H_
