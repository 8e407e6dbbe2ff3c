#ifndef PTO_FRONTEND_MEMREF_H_
#define PTO_FRONTEND_MEMREF_H_

// pl.MemRef: an on-chip allocation the author declares, with `slots`
// equally-sized slots picked by subscript (hw-native-sys/pypto@e2d0f78a
// python/pypto/language/typing/memref.py and
// python/pypto/language/parser/type_resolver.py). Two spellings:
//
//   x: pl.Tile[[64, 64], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = ...
//   ub = pl.MemRef(slots=2)   # named after its variable
//   x: pl.Tile[[64, 64], pl.FP32, ub[i % 2], pl.Mem.Vec] = ...
//
// A tile bound to slot k of an allocation whose first buffer id is B lives
// in buffer B + k (TileDecl.buffer, .slots); a runtime subscript becomes
// TileDecl.slot, which the simulator evaluates and range-checks per op.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontend/interpreter.h"
#include "frontend/kernel_builder.h"
#include "frontend/pl_values.h"

namespace pto::ptoc {

// pl.MemRef("name", slots=N) or pl.MemRef(slots=N): the declaration.
class MemRefDecl : public Object {
 public:
  MemRefDecl(std::string name, uint32_t slots, SourceLocation loc)
      : name_(std::move(name)), slots_(slots), loc_(loc) {}
  std::string TypeName() const override { return "pl.MemRef"; }
  // The name given to pl.MemRef(...); empty when it takes its variable's.
  const std::string& explicit_name() const { return name_; }
  // The variable it was first bound to (Interpreter::Assign).
  const std::string& bound_name() const { return bound_; }
  void set_bound_name(std::string name) { bound_ = std::move(name); }
  // The allocation's name: the explicit one, else its variable's.
  const std::string& name() const { return name_.empty() ? bound_ : name_; }
  uint32_t slots() const { return slots_; }
  SourceLocation loc() const { return loc_; }

 private:
  std::string name_;
  std::string bound_;
  uint32_t slots_;
  SourceLocation loc_;
};

// decl[k]: one slot; `index` is a compile-time int or a device int.
class MemRefSlot : public Object {
 public:
  MemRefSlot(std::shared_ptr<MemRefDecl> decl, Value index, SourceLocation loc)
      : decl_(std::move(decl)), index_(std::move(index)), loc_(loc) {}
  std::string TypeName() const override { return "pl.MemRef slot"; }
  const std::shared_ptr<MemRefDecl>& decl() const { return decl_; }
  const Value& index() const { return index_; }
  SourceLocation loc() const { return loc_; }

 private:
  std::shared_ptr<MemRefDecl> decl_;
  Value index_;
  SourceLocation loc_;
};

// Adds pl.MemRef to the pl module.
void AddMemRef(Interpreter* interp, Namespace* pl);

// decl[index]: a located error unless decl has several slots and a
// compile-time index is in [0, slots).
absl::StatusOr<Value> MemRefSubscript(Interpreter* interp, const std::shared_ptr<MemRefDecl>& decl,
                                      const Value& index, SourceLocation loc);

// `name = pl.MemRef(...)`: names an unnamed declaration after its variable;
// a declaration reached through a second name (b = a) is an error.
absl::Status NameMemRef(Interpreter* interp, MemRefDecl* decl, const std::string& name,
                        SourceLocation loc);

// `t: pl.Tile[..., <memref>, pl.Mem.X] = value`: binds the tile to its slot
// of the allocation in space X (annotation: a MemRefDecl or MemRefSlot).
absl::Status BindTileToMemRef(Interpreter* interp, const Tile& tile, const Value& memref,
                              trace::MemSpace space, SourceLocation loc);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_MEMREF_H_
