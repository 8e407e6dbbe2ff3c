#include "frontend/memref.h"

#include "absl/strings/str_cat.h"
#include "frontend/arg_reader.h"
#include "frontend/status_macros.h"

namespace pto::ptoc {
namespace {

constexpr char kUpstream[] = "pypto@e2d0f78a python/pypto/language/typing/memref.py";

}  // namespace

void AddMemRef(Interpreter* interp, Namespace* pl) {
  Interpreter* I = interp;
  pl->AddFunction("MemRef", [I](const CallArgs& args) -> absl::StatusOr<Value> {
    ArgReader r(I, args, "pl.MemRef", {"name", "slots"});
    PTOC_RETURN_IF_ERROR(r.Check());
    if (I->in_pipeline_body()) {
      return I->Error(args.loc,
                      absl::StrCat("pl.MemRef cannot be declared inside a pl.pipeline(stage=F) "
                                   "body: the cloned stages would make a tile co-live with "
                                   "itself; declare it outside and drive the loop with pl.range (",
                                   kUpstream, ")"));
    }
    std::string name;
    if (r.Has(0)) {
      if (!r.Get(0)->is_str() || r.Get(0)->s().empty()) {
        return I->Error(r.Loc(0), absl::StrCat("pl.MemRef's name must be a non-empty string "
                                               "literal, e.g. pl.MemRef(\"scratch\"), got ",
                                               r.Get(0)->Repr()));
      }
      name = r.Get(0)->s();
    }
    uint32_t slots = 1;
    if (r.Has(1)) {
      const Value& v = *r.Get(1);
      if (!args.KeywordIsLiteral("slots") || !v.is_int() || v.i() < 1 || v.i() > 1024) {
        return I->Error(r.Loc(1), absl::StrCat("slots must be a positive integer literal (at most "
                                               "1024), e.g. pl.MemRef(\"scratch\", slots=2), got ",
                                               v.Repr(),
                                               args.KeywordIsLiteral("slots")
                                                   ? ""
                                                   : " (a computed value, not a literal)"));
      }
      slots = static_cast<uint32_t>(v.i());
    }
    return Value::Obj(std::make_shared<MemRefDecl>(std::move(name), slots, args.loc));
  });
}

absl::StatusOr<Value> MemRefSubscript(Interpreter* interp, const std::shared_ptr<MemRefDecl>& decl,
                                      const Value& index, SourceLocation loc) {
  const std::string name = decl->name().empty() ? "pl.MemRef()" : decl->name();
  if (decl->slots() <= 1) {
    return interp->Error(loc, absl::StrCat("'", name,
                                           "' was declared with a single slot, so it cannot be "
                                           "subscripted: declare pl.MemRef(slots=N) or use it "
                                           "without a subscript"));
  }
  if (index.is_integral()) {
    if (index.is_bool() || index.i() < 0 || index.i() >= decl->slots()) {
      return interp->Error(loc, absl::StrCat("slot index ", index.Repr(), " is out of range for '",
                                             name, "', declared with ", decl->slots(),
                                             " slots; subscript within [0, ", decl->slots(), ")"));
    }
  } else if (!index.As<SymInt>()) {
    return interp->Error(loc, absl::StrCat("a pl.MemRef slot index is an integer (or a device "
                                           "integer such as i % ",
                                           decl->slots(), "), got ", index.TypeName()));
  }
  return Value::Obj(std::make_shared<MemRefSlot>(decl, index, loc));
}

absl::Status NameMemRef(Interpreter* interp, MemRefDecl* decl, const std::string& name,
                        SourceLocation loc) {
  if (decl->bound_name().empty()) {
    decl->set_bound_name(name);
    return absl::OkStatus();
  }
  if (decl->bound_name() == name || !decl->explicit_name().empty()) return absl::OkStatus();
  return interp->Error(
      loc,
      absl::StrCat("the pl.MemRef() bound to '", decl->bound_name(), "' is also bound to '", name,
                   "'; an unnamed pl.MemRef() is named after its variable, so an alias is "
                   "ambiguous: use '",
                   decl->bound_name(),
                   "', declare a separate pl.MemRef(), or name it: "
                   "pl.MemRef(\"...\")"));
}

absl::Status BindTileToMemRef(Interpreter* interp, const Tile& tile, const Value& memref,
                              trace::MemSpace space, SourceLocation loc) {
  KernelBuilder* k = interp->kernel();
  if (interp->in_pipeline_body()) {
    return interp->Error(
        loc, absl::StrCat("a pl.MemRef tile cannot be bound inside a pl.pipeline(stage=F) body: "
                          "the cloned stages would share its slot; drive the loop with pl.range "
                          "and rotate the slots yourself (",
                          kUpstream, ")"));
  }
  std::shared_ptr<MemRefDecl> decl;
  Value index = Value::Int(0);
  if (auto* slot = memref.As<MemRefSlot>()) {
    decl = slot->decl();
    index = slot->index();
  } else {
    decl = memref.AsShared<MemRefDecl>();
    if (decl->slots() > 1) {
      return interp->Error(loc, absl::StrCat("'", decl->name(), "' has ", decl->slots(),
                                             " slots; pick one with a subscript, e.g. ",
                                             decl->name().empty() ? "buf" : decl->name(), "[i % ",
                                             decl->slots(), "]"));
    }
  }
  if (decl->name().empty()) {
    return interp->Error(loc,
                         "an unnamed pl.MemRef() takes the name of the variable it is bound to: "
                         "bind it to one (buf = pl.MemRef()) or name it: pl.MemRef(\"buf\")");
  }
  const trace::TileDecl& current = k->decl(tile);
  if (current.slots() > 0) {
    return interp->Error(loc, absl::StrCat("tile '", current.name(),
                                           "' is already in a pl.MemRef allocation; a tile lives "
                                           "in one allocation"));
  }
  const void* owner = decl->explicit_name().empty() ? decl.get() : nullptr;
  auto [it, inserted] = k->memrefs().try_emplace(decl->name());
  KernelBuilder::MemRefAlloc& alloc = it->second;
  if (inserted) {
    alloc.owner = owner;
    alloc.slots = decl->slots();
    alloc.space = space;
    alloc.loc = loc;
    alloc.base = k->AllocateBuffers(decl->slots());
  } else {
    const std::string first = absl::StrCat("line ", alloc.loc.line, ":", alloc.loc.col);
    if (alloc.owner != owner) {
      return interp->Error(loc, absl::StrCat("two separate pl.MemRef declarations both resolve to "
                                             "the name '",
                                             decl->name(), "' (the other is used at ", first,
                                             "); give one an explicit name: pl.MemRef(\"...\")"));
    }
    if (alloc.slots != decl->slots()) {
      return interp->Error(loc, absl::StrCat("'", decl->name(), "' is declared here with ",
                                             decl->slots(), " slots but with ", alloc.slots, " at ",
                                             first, "; one allocation has one slot count"));
    }
    if (alloc.space != space) {
      return interp->Error(loc,
                           absl::StrCat("tiles bound to the pl.MemRef allocation '", decl->name(),
                                        "' must share one memory space: this "
                                        "one is in ",
                                        PlSpaceName(space), " but the allocation is in ",
                                        PlSpaceName(alloc.space), " (", first, ")"));
    }
  }
  if (index.is_integral()) {
    k->BindBuffer(tile, alloc.base + static_cast<uint32_t>(index.i()), alloc.slots, nullptr);
    return absl::OkStatus();
  }
  PTOC_ASSIGN_OR_RETURN(expr, ToIntExpr(index));
  k->BindBuffer(tile, alloc.base, alloc.slots, &expr);
  return absl::OkStatus();
}

}  // namespace pto::ptoc
