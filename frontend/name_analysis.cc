#include "frontend/name_analysis.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {
namespace {

// Yield statements of a loop body (YieldAssignment, BareYield).
// The body's own pl.yield_: one in an if's arms names that if's results
// (pypto's SSA form), not the loop's.
const Stmt* FindYield(const Block& body, StmtKind kind) {
  for (const auto& s : body) {
    if (s->kind == kind && IsYieldCall(*s->value)) return s.get();
  }
  return nullptr;
}

// A target binds `name` (kName, or inside a tuple / list target).
bool TargetBinds(const Expr& target, const std::string& name) {
  std::set<std::string> names;
  CollectTargetNames(target, &names);
  return names.count(name) > 0;
}

// Reads a target performs: subscript and attribute targets read their base
// and their index.
bool TargetReads(const Expr& target, const std::string& name) {
  switch (target.kind) {
    case ExprKind::kTuple:
    case ExprKind::kList:
      for (const auto& elt : target.elts) {
        if (TargetReads(*elt, name)) return true;
      }
      return false;
    case ExprKind::kSubscript:
    case ExprKind::kAttribute:
      return ExprReads(target, name);
    default:
      return false;
  }
}

bool OptionalReads(const ExprPtr& e, const std::string& name) {
  return e != nullptr && ExprReads(*e, name);
}

bool BlockReadsAnywhere(const Block& block, const std::string& name);

bool StmtReadsAnywhere(const Stmt& s, const std::string& name) {
  for (const auto& t : s.targets) {
    if (ExprReads(*t, name)) return true;
  }
  if (OptionalReads(s.value, name) || OptionalReads(s.annotation, name) ||
      OptionalReads(s.message, name)) {
    return true;
  }
  for (const auto& e : s.decorators) {
    if (ExprReads(*e, name)) return true;
  }
  for (const auto& e : s.with_exprs) {
    if (ExprReads(*e, name)) return true;
  }
  for (const Param& p : s.params) {
    if (OptionalReads(p.annotation, name) || OptionalReads(p.default_value, name)) return true;
  }
  return BlockReadsAnywhere(s.body, name) || BlockReadsAnywhere(s.orelse, name);
}

bool BlockReadsAnywhere(const Block& block, const std::string& name) {
  for (const auto& s : block) {
    if (StmtReadsAnywhere(*s, name)) return true;
  }
  return false;
}

// A nested def reads `name` when its body refers to it without binding it
// locally (a closure over the enclosing binding).
bool FunctionReadsFree(const Stmt& def, const std::string& name) {
  for (const Param& p : def.params) {
    if (p.name == name) return false;
  }
  std::set<std::string> locals;
  CollectAssignedNames(def.body, &locals);
  return !locals.count(name) && BlockReadsAnywhere(def.body, name);
}

NameUse StmtUse(const Stmt& s, const std::string& name) {
  switch (s.kind) {
    case StmtKind::kExpr:
    case StmtKind::kAssert:
      return StmtReadsAnywhere(s, name) ? NameUse::kRead : NameUse::kNone;
    case StmtKind::kAssign:
    case StmtKind::kAnnAssign: {
      if (OptionalReads(s.value, name) || OptionalReads(s.annotation, name)) return NameUse::kRead;
      if (!s.value) return NameUse::kNone;  // `x: T` binds nothing
      bool binds = false;
      for (const auto& t : s.targets) {
        if (TargetReads(*t, name)) return NameUse::kRead;
        binds |= TargetBinds(*t, name);
      }
      return binds ? NameUse::kDead : NameUse::kNone;
    }
    case StmtKind::kAugAssign:
      if (TargetBinds(*s.targets[0], name) || TargetReads(*s.targets[0], name) ||
          ExprReads(*s.value, name)) {
        return NameUse::kRead;
      }
      return NameUse::kNone;
    case StmtKind::kImport:
    case StmtKind::kImportFrom:
      for (size_t i = 0; i < s.names.size(); ++i) {
        const std::string bound = !s.aliases[i].empty() ? s.aliases[i]
                                  : s.kind == StmtKind::kImport
                                      ? s.names[i].substr(0, s.names[i].find('.'))
                                      : s.names[i];
        if (bound == name) return NameUse::kDead;
      }
      return NameUse::kNone;
    case StmtKind::kFunctionDef:
    case StmtKind::kClassDef: {
      for (const auto& e : s.decorators) {
        if (ExprReads(*e, name)) return NameUse::kRead;
      }
      for (const Param& p : s.params) {
        if (OptionalReads(p.annotation, name) || OptionalReads(p.default_value, name)) {
          return NameUse::kRead;
        }
      }
      if (s.kind == StmtKind::kClassDef ? BlockReadsAnywhere(s.body, name)
                                        : FunctionReadsFree(s, name)) {
        return NameUse::kRead;
      }
      return s.name == name ? NameUse::kDead : NameUse::kNone;
    }
    case StmtKind::kReturn:
      // The path ends here: a value not returned is dead.
      return OptionalReads(s.value, name) ? NameUse::kRead : NameUse::kDead;
    case StmtKind::kIf: {
      if (ExprReads(*s.value, name)) return NameUse::kRead;
      const NameUse body = FirstUse(s.body, 0, name);
      const NameUse orelse = FirstUse(s.orelse, 0, name);
      if (body == NameUse::kRead || orelse == NameUse::kRead) return NameUse::kRead;
      return body == NameUse::kDead && orelse == NameUse::kDead ? NameUse::kDead : NameUse::kNone;
    }
    case StmtKind::kFor:
      if (ExprReads(*s.value, name) || TargetReads(*s.targets[0], name)) return NameUse::kRead;
      // The body sees the loop's binding of its own target; it may not run.
      if (TargetBinds(*s.targets[0], name)) return NameUse::kNone;
      return FirstUse(s.body, 0, name) == NameUse::kRead ? NameUse::kRead : NameUse::kNone;
    case StmtKind::kWith: {
      for (const auto& e : s.with_exprs) {
        if (ExprReads(*e, name)) return NameUse::kRead;
      }
      for (const auto& t : s.with_targets) {
        if (t && TargetBinds(*t, name)) {
          // Bound on entry: the body's reads see the new value.
          return NameUse::kDead;
        }
      }
      return FirstUse(s.body, 0, name);  // a with body runs exactly once
    }
    case StmtKind::kPass:
    case StmtKind::kBreak:
    case StmtKind::kContinue:
      return NameUse::kNone;
  }
  return NameUse::kRead;
}

}  // namespace

void CollectTargetNames(const Expr& target, std::set<std::string>* names) {
  if (target.kind == ExprKind::kName) {
    names->insert(target.name);
  } else if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
    for (const auto& elt : target.elts) CollectTargetNames(*elt, names);
  }
}

bool IsYieldCall(const Expr& e) {
  return e.kind == ExprKind::kCall && e.elts[0]->kind == ExprKind::kAttribute &&
         e.elts[0]->name == "yield_";
}

const Stmt* YieldAssignment(const Block& body) { return FindYield(body, StmtKind::kAssign); }
const Stmt* BareYield(const Block& body) { return FindYield(body, StmtKind::kExpr); }

void CollectAssignedNames(const Block& block, std::set<std::string>* names) {
  for (const auto& s : block) {
    switch (s->kind) {
      case StmtKind::kAssign:
      case StmtKind::kAugAssign:
        for (const auto& t : s->targets) CollectTargetNames(*t, names);
        break;
      case StmtKind::kAnnAssign:
        if (s->value) CollectTargetNames(*s->targets[0], names);
        break;
      case StmtKind::kFor:
        CollectTargetNames(*s->targets[0], names);
        break;
      case StmtKind::kWith:
        for (const auto& t : s->with_targets) {
          if (t) CollectTargetNames(*t, names);
        }
        break;
      case StmtKind::kFunctionDef:
      case StmtKind::kClassDef:
        names->insert(s->name);
        continue;  // a nested body's bindings are its own
      case StmtKind::kImport:
      case StmtKind::kImportFrom:
        for (size_t i = 0; i < s->names.size(); ++i) {
          names->insert(!s->aliases[i].empty() ? s->aliases[i]
                        : s->kind == StmtKind::kImport
                            ? s->names[i].substr(0, s->names[i].find('.'))
                            : s->names[i]);
        }
        break;
      default:
        break;
    }
    CollectAssignedNames(s->body, names);
    CollectAssignedNames(s->orelse, names);
  }
}

NameUse FirstUse(const Block& block, size_t from, const std::string& name) {
  for (size_t i = from; i < block.size(); ++i) {
    const NameUse use = StmtUse(*block[i], name);
    if (use != NameUse::kNone) return use;
  }
  return NameUse::kNone;
}

bool ExprReads(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::kName) return e.name == name;
  if (e.kind == ExprKind::kListComp) {
    // Clause k's iterable is evaluated where clauses 0..k-1 bound their
    // targets; the element and the conditions see every clause's targets.
    bool shadowed = false;
    for (size_t k = 0; k < e.comp_iters.size(); ++k) {
      if (!shadowed && ExprReads(*e.comp_iters[k], name)) return true;
      shadowed |= TargetBinds(*e.comp_targets[k], name);
      for (const auto& c : e.comp_conds[k]) {
        if (!shadowed && ExprReads(*c, name)) return true;
      }
    }
    return !shadowed && ExprReads(*e.elts[0], name);
  }
  for (const auto& x : e.elts) {
    if (x && ExprReads(*x, name)) return true;
  }
  for (const auto& x : e.extra) {
    if (x && ExprReads(*x, name)) return true;
  }
  for (const Keyword& k : e.keywords) {
    if (k.value && ExprReads(*k.value, name)) return true;
  }
  return false;
}

namespace {

// Walks one function in strict-SSA mode: names bound in the function, with
// where they were bound first.
class StrictSsaChecker {
 public:
  explicit StrictSsaChecker(const SourceFile& source) : source_(source) {}

  absl::Status Check(const Stmt& def) {
    for (const Param& p : def.params) first_[p.name] = p.loc;
    return Block_(def.body);
  }

 private:
  absl::Status Bind(const Expr& target) {
    if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
      for (const auto& elt : target.elts) {
        if (absl::Status s = Bind(*elt); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    if (target.kind == ExprKind::kSubscript) {
      return source_.Error(target.loc,
                           "subscript-write syntax 'dst[...] = src' rebinds 'dst' in PyPTO, which "
                           "strict_ssa=True forbids; write the store explicitly (pl.store(tile, "
                           "offsets, dst)), or remove strict_ssa=True");
    }
    if (target.kind != ExprKind::kName) return absl::OkStatus();
    auto [it, fresh] = first_.emplace(target.name, target.loc);
    if (fresh) return absl::OkStatus();
    return source_.Error(
        target.loc,
        absl::StrCat("variable '", target.name, "' is already defined (line ", it->second.line,
                     "); strict_ssa=True binds every name once: use a different name "
                     "for each assignment, carry a loop value with init_values= and "
                     "pl.yield_, or remove strict_ssa=True"));
  }

  absl::Status Block_(const Block& block) {
    for (const auto& s : block) {
      absl::Status status;
      switch (s->kind) {
        case StmtKind::kAssign:
        case StmtKind::kAugAssign:
          for (const auto& t : s->targets) {
            if (status.ok()) status = Bind(*t);
          }
          break;
        case StmtKind::kAnnAssign:
          if (s->value) status = Bind(*s->targets[0]);
          break;
        case StmtKind::kFor:
          // The loop variable and the iter_args of `for i, (a,) in ...` are
          // the loop's own bindings, renewed every iteration.
          break;
        case StmtKind::kWith:
          for (const auto& t : s->with_targets) {
            if (t && status.ok()) status = Bind(*t);
          }
          break;
        default:
          break;
      }
      if (!status.ok()) return status;
      if (s->kind == StmtKind::kFunctionDef || s->kind == StmtKind::kClassDef) continue;
      if (s->kind == StmtKind::kIf) {
        // Each arm is its own scope: a name both arms bind is one value after
        // the branch (a phi), not a rebinding.
        const auto before = first_;
        if (absl::Status b = Block_(s->body); !b.ok()) return b;
        auto after_body = std::move(first_);
        first_ = before;
        if (absl::Status o = Block_(s->orelse); !o.ok()) return o;
        first_.insert(after_body.begin(), after_body.end());
        continue;
      }
      if (absl::Status b = Block_(s->body); !b.ok()) return b;
      if (absl::Status o = Block_(s->orelse); !o.ok()) return o;
    }
    return absl::OkStatus();
  }

  const SourceFile& source_;
  std::map<std::string, SourceLocation> first_;
};

}  // namespace

absl::Status CheckStrictSsa(const Stmt& def, const SourceFile& source) {
  return StrictSsaChecker(source).Check(def);
}

}  // namespace pto::ptoc
