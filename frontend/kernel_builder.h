#ifndef PTO_FRONTEND_KERNEL_BUILDER_H_
#define PTO_FRONTEND_KERNEL_BUILDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/buffer_planner.h"
#include "frontend/program_builder.h"
#include "frontend/source.h"
#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A tile inside a kernel being traced: one virtual register of the program.
class Tile : public Object {
 public:
  Tile(uint64_t kernel, uint32_t index, std::vector<int64_t> shape, trace::DType dtype)
      : kernel_(kernel), index_(index), shape_(std::move(shape)), dtype_(dtype) {}
  std::string TypeName() const override { return "pl.Tile"; }
  // The KernelBuilder (serial) whose program holds this register.
  uint64_t kernel() const { return kernel_; }
  uint32_t index() const { return index_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  trace::DType dtype() const { return dtype_; }

 private:
  uint64_t kernel_;
  uint32_t index_;
  std::vector<int64_t> shape_;
  trace::DType dtype_;
};

// An integer known only on the device (block index, device loop variable,
// scalar parameter, or arithmetic over them).
class SymInt : public Object {
 public:
  explicit SymInt(trace::IntExpr expr) : expr_(std::move(expr)) {}
  std::string TypeName() const override { return "device int"; }
  const trace::IntExpr& expr() const { return expr_; }

 private:
  trace::IntExpr expr_;
};

// pl.MemorySpace's name for a space and its buffer: "Mat (L1)".
const char* PlSpaceName(trace::MemSpace space);

// The IntExpr for a compile-time int or a SymInt value; error otherwise.
absl::StatusOr<trace::IntExpr> ToIntExpr(const Value& v);
// Folds constants; returns a SymInt value unless both sides are constants.
Value IntBinary(trace::IntExpr::BinOp op, const trace::IntExpr& a, const trace::IntExpr& b);

// One captured tensor (or tensor parameter) of a kernel and how the body used
// it.
struct KernelTensorUse {
  std::shared_ptr<TensorRef> ref;
  uint32_t param = 0;
  bool read = false;
  bool written = false;
  // Declared by an incore function's annotation (pl.Out / pl.InOut / In);
  // overrides what the body did.
  trace::KernelParam::Direction declared = trace::KernelParam::DIRECTION_UNSPECIFIED;
};

struct KernelScalarUse {
  uint32_t param = 0;
  Value value;  // the call-site value (int or float)
};

// Records the op program of one task while its body is being interpreted:
// tiles as virtual registers, integer expressions over the block index, device
// loops as Op.LOOP.
class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name);
  // Unique per builder, so a tile of a finished task is recognised.
  uint64_t serial() const { return serial_; }

  // Param index of `ref` (a view is its own param), recording the access.
  uint32_t UseTensor(const std::shared_ptr<TensorRef>& ref, bool read, bool write);
  void DeclareTensorDirection(uint32_t param, trace::KernelParam::Direction direction);
  // Adds a scalar parameter and returns the device int that reads it.
  Value AddScalarParam(const std::string& name, trace::DType dtype, Value call_value);

  // MEM_SPACE_UNSPECIFIED: a load's tile, placed by Finish (op affinity).
  std::shared_ptr<Tile> NewTile(const std::vector<int64_t>& shape, trace::DType dtype,
                                trace::MemSpace space);
  // A new register of `like`'s shape, dtype and memory space, named `name`.
  std::shared_ptr<Tile> NewTileLike(const Tile& like, const std::string& name);
  uint32_t tile_count() const { return program_.tiles_size(); }
  // TileDecl.buffer ids come from a counter: `n` consecutive ids, the first
  // returned (a tile takes one, an n-slot pl.MemRef allocation n).
  uint32_t AllocateBuffers(uint32_t n);
  // A pl.MemRef allocation of this kernel (memref.cc), by name.
  struct MemRefAlloc {
    const void* owner = nullptr;  // the variable-named declaration, else null
    uint32_t slots = 0;
    uint32_t base = 0;  // its first buffer id
    trace::MemSpace space = trace::MEM_SPACE_UNSPECIFIED;
    SourceLocation loc;  // the first tile bound to it
  };
  std::map<std::string, MemRefAlloc>& memrefs() { return memrefs_; }
  const trace::TileDecl& decl(const Tile& tile) const { return program_.tiles(tile.index()); }
  // Puts `tile` in buffer `buffer` of an allocation of `slots` slots; with
  // `slot`, the runtime slot added to it (TileDecl.slot).
  void BindBuffer(const Tile& tile, uint32_t buffer, uint32_t slots, const trace::IntExpr* slot);
  trace::MemSpace space(const Tile& tile) const { return program_.tiles(tile.index()).space(); }
  // A pl.create_tensor in a task body: a buffer its first placing use puts
  // in Vec or Acc (matmul_acc accumulates into it), as upstream's lowering.
  // The loop carries and phis made from it (NewTileLike) are the same value
  // under new names: placing one places them all.
  void MarkPlacedByUse(const Tile& tile) { placed_by_use_[tile.index()] = tile.index(); }
  bool placed_by_use(const Tile& tile) const { return placed_by_use_.count(tile.index()) != 0; }
  void PlaceByUse(const Tile& tile, trace::MemSpace space);
  // A tile that is a tensor-level value upstream (a tensor loaded whole, or
  // an elementwise op or cast of one): its reductions take no tmp_tile.
  void MarkTensorLevel(const Tile& tile) { tensor_level_.insert(tile.index()); }
  bool tensor_level(const Tile& tile) const { return tensor_level_.count(tile.index()) != 0; }
  void set_space(const Tile& tile, trace::MemSpace space) {
    program_.mutable_tiles(tile.index())->set_space(space);
  }
  trace::Op* Emit(trace::Op::Kind kind, const std::string& origin);
  // The op Emit returned last, to set a modifier on what a helper emitted.
  trace::Op* last_emitted() const { return last_emitted_; }

  // Device loops: ops emitted between Begin and End go into the loop body.
  Value BeginLoop(trace::IntExpr start, trace::IntExpr stop, trace::IntExpr step,
                  const std::string& origin);
  void EndLoop();
  bool in_device_loop() const { return !loop_stack_.empty(); }

  // Device branches (Op.IF): ops emitted between BeginIf and BeginElse go
  // into the then arm, from there to EndIf into the else arm.
  void BeginIf(trace::IntExpr cond, const std::string& origin);
  void BeginElse();
  void EndIf();
  bool in_device_if() const { return !if_stack_.empty(); }
  // A phi of the innermost open IF (Op.Branch.Phi / ScalarPhi).
  void AddPhi(uint32_t tile, uint32_t then_value, uint32_t else_value, const std::string& name);
  // A new scalar register set by the innermost IF's arms; returns the device
  // int that reads it.
  Value AddScalarPhi(trace::IntExpr then_expr, trace::IntExpr else_expr, const std::string& name);
  // READ: the element of `param` at `offsets` into a new scalar register;
  // returns the device int that reads it.
  Value EmitRead(uint32_t param, const std::vector<trace::IntExpr>& offsets,
                 const std::string& origin);
  // A loop-carried tile of the innermost open loop (Op.Loop.Carry).
  void AddCarry(uint32_t tile, std::optional<uint32_t> init, uint32_t next,
                const std::string& name);

  // The copies of a pl.pipeline body: tiles made between Begin and End
  // belong to copy `stage` of pipeline `group` (BeginPipeline's id), which
  // the buffer planner keeps apart from the other copies.
  int32_t BeginPipeline(int32_t depth, const std::string& origin);
  void BeginPipelineStage(int32_t group, int32_t stage) { stage_stack_.push_back({group, stage}); }
  void EndPipelineStage() { stage_stack_.pop_back(); }

  // Where each name was last bound inside the body, for messages about it.
  void NoteAssignment(const std::string& name, SourceLocation loc) { assigned_at_[name] = loc; }
  std::optional<SourceLocation> AssignedAt(const std::string& name) const {
    auto it = assigned_at_.find(name);
    if (it == assigned_at_.end()) return std::nullopt;
    return it->second;
  }
  // Tensors this task creates to pass a value to later tasks: runtime
  // allocated outputs (ArgDirection OUTPUT) of its submit.
  void AddIntermediate(uint32_t tensor_id) { intermediates_.insert(tensor_id); }
  bool IsIntermediate(uint32_t tensor_id) const { return intermediates_.count(tensor_id) > 0; }
  // Whether any op of the body wrote a view of the tensor.
  bool WritesTensor(uint32_t tensor_id) const;

  void set_split(trace::SplitMode split) { program_.set_split(split); }
  void set_slot_num(uint32_t n) { program_.set_slot_num(n); }
  void NoteBlockIdxRead() { reads_block_idx_ = true; }
  bool reads_block_idx() const { return reads_block_idx_; }
  int kernel_calls() const { return kernel_calls_; }
  void NoteKernelCall() { ++kernel_calls_; }

  const std::vector<KernelTensorUse>& tensors() const { return tensors_; }
  const std::vector<KernelScalarUse>& scalars() const { return scalars_; }
  const std::string& name() const { return name_; }

  // Assigns the memory spaces left unspecified and the engines by op affinity
  // (pypto@e2d0f78a docs/en/dev/passes/21-expand_mixed_kernel.md), decides
  // AIC / AIV / MIX, plans the buffers (buffer_planner.h) and returns the
  // kernel (id unset).
  absl::StatusOr<trace::Kernel> Finish(const std::string& origin);
  // The planner's warnings ("origin: warning: ..."), after Finish.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::string name_;
  trace::KernelProgram program_;
  trace::Op* last_emitted_ = nullptr;
  std::vector<KernelTensorUse> tensors_;
  std::map<uint32_t, uint32_t> placed_by_use_;  // tile -> the create_tensor tile it renames
  std::set<uint32_t> tensor_level_;
  std::vector<KernelScalarUse> scalars_;
  uint64_t serial_;
  std::vector<trace::Op*> loop_stack_;
  std::vector<trace::Op*> if_stack_;
  // Where Emit appends: the program, a loop body or an IF arm.
  std::vector<google::protobuf::RepeatedPtrField<trace::Op>*> emit_stack_;
  uint32_t next_loop_var_ = 0;
  uint32_t next_buffer_ = 0;
  std::map<std::string, MemRefAlloc> memrefs_;
  std::map<std::string, SourceLocation> assigned_at_;
  std::set<uint32_t> intermediates_;
  bool reads_block_idx_ = false;
  int kernel_calls_ = 0;
  std::vector<PipelineStage> stage_stack_;
  std::vector<PipelineStage> tile_stages_;  // per tile
  std::vector<PipelineGroup> pipelines_;
  std::vector<std::string> warnings_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_KERNEL_BUILDER_H_
