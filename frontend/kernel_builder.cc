#include "frontend/kernel_builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontend/status_macros.h"
#include "frontend/verifiers.h"
#include "models/core/kernel_program.h"

namespace pto::ptoc {

const char* PlSpaceName(trace::MemSpace space) {
  switch (space) {
    case trace::MAT:
      return "Mat (L1)";
    case trace::LEFT:
      return "Left (L0A)";
    case trace::RIGHT:
      return "Right (L0B)";
    case trace::ACC:
      return "Acc (L0C)";
    case trace::BIAS:
      return "Bias (BT)";
    default:
      return "Vec (UB)";
  }
}

absl::StatusOr<trace::IntExpr> ToIntExpr(const Value& v) {
  trace::IntExpr e;
  if (v.is_integral()) {
    e.set_constant(v.i());
    return e;
  }
  if (auto* sym = v.As<SymInt>()) return sym->expr();
  return absl::InvalidArgumentError(
      absl::StrCat("expected an integer or a device integer, got ", v.TypeName()));
}

namespace {
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
}  // namespace

Value IntBinary(trace::IntExpr::BinOp op, const trace::IntExpr& a, const trace::IntExpr& b) {
  if (a.kind_case() == trace::IntExpr::kConstant && b.kind_case() == trace::IntExpr::kConstant) {
    const int64_t x = a.constant(), y = b.constant();
    switch (op) {
      case trace::IntExpr::ADD:
        return Value::Int(x + y);
      case trace::IntExpr::SUB:
        return Value::Int(x - y);
      case trace::IntExpr::MUL:
        return Value::Int(x * y);
      case trace::IntExpr::FLOOR_DIV:
        if (y != 0) return Value::Int(FloorDiv(x, y));
        break;
      case trace::IntExpr::MOD:
        if (y != 0) return Value::Int(x - FloorDiv(x, y) * y);
        break;
      case trace::IntExpr::MIN:
        return Value::Int(std::min(x, y));
      case trace::IntExpr::MAX:
        return Value::Int(std::max(x, y));
      case trace::IntExpr::EQ:
        return Value::Bool(x == y);
      case trace::IntExpr::NE:
        return Value::Bool(x != y);
      case trace::IntExpr::LT:
        return Value::Bool(x < y);
      case trace::IntExpr::LE:
        return Value::Bool(x <= y);
      case trace::IntExpr::GT:
        return Value::Bool(x > y);
      case trace::IntExpr::GE:
        return Value::Bool(x >= y);
      default:
        break;
    }
  }
  // (x + c1) - (x + c2), (x + c) - x and x - x are constants: the extent of
  // a window written as its two ends (`pl.load(t, [r, a + 8], [n, (a + 16)
  // - (a + 8)])`) is known to ptoc.
  if (op == trace::IntExpr::SUB) {
    auto split = [](const trace::IntExpr& e) -> std::pair<std::string, int64_t> {
      if (e.kind_case() == trace::IntExpr::kBinary && e.binary().op() == trace::IntExpr::ADD) {
        if (e.binary().rhs().kind_case() == trace::IntExpr::kConstant) {
          return {e.binary().lhs().SerializeAsString(), e.binary().rhs().constant()};
        }
        if (e.binary().lhs().kind_case() == trace::IntExpr::kConstant) {
          return {e.binary().rhs().SerializeAsString(), e.binary().lhs().constant()};
        }
      }
      return {e.SerializeAsString(), 0};
    };
    const auto [x, c1] = split(a);
    const auto [y, c2] = split(b);
    if (x == y && a.kind_case() != trace::IntExpr::kConstant) return Value::Int(c1 - c2);
  }
  // x * 1, x + 0 and friends keep the trees short.
  if (b.kind_case() == trace::IntExpr::kConstant) {
    if ((op == trace::IntExpr::ADD || op == trace::IntExpr::SUB) && b.constant() == 0) {
      return Value::Obj(std::make_shared<SymInt>(a));
    }
    if ((op == trace::IntExpr::MUL || op == trace::IntExpr::FLOOR_DIV) && b.constant() == 1) {
      return Value::Obj(std::make_shared<SymInt>(a));
    }
  }
  if (a.kind_case() == trace::IntExpr::kConstant && op == trace::IntExpr::MUL &&
      a.constant() == 1) {
    return Value::Obj(std::make_shared<SymInt>(b));
  }
  trace::IntExpr e;
  e.mutable_binary()->set_op(op);
  *e.mutable_binary()->mutable_lhs() = a;
  *e.mutable_binary()->mutable_rhs() = b;
  return Value::Obj(std::make_shared<SymInt>(std::move(e)));
}

KernelBuilder::KernelBuilder(std::string name) : name_(std::move(name)) {
  static uint64_t next_serial = 1;  // ptoc is single-threaded
  serial_ = next_serial++;
}

bool KernelBuilder::WritesTensor(uint32_t tensor_id) const {
  for (const auto& use : tensors_) {
    if (use.written && use.ref->tensor_id() == tensor_id) return true;
  }
  return false;
}

uint32_t KernelBuilder::UseTensor(const std::shared_ptr<TensorRef>& ref, bool read, bool write) {
  for (auto& use : tensors_) {
    if (use.ref->SameView(*ref)) {
      use.read |= read;
      use.written |= write;
      return use.param;
    }
  }
  KernelTensorUse use;
  use.ref = ref;
  use.param = program_.params_size();
  use.read = read;
  use.written = write;
  trace::KernelParam* p = program_.add_params();
  p->set_name(ref->name());
  p->set_kind(trace::KernelParam::TENSOR);
  p->set_dtype(ref->dtype());
  tensors_.push_back(use);
  return use.param;
}

void KernelBuilder::DeclareTensorDirection(uint32_t param,
                                           trace::KernelParam::Direction direction) {
  for (auto& use : tensors_) {
    if (use.param == param) {
      // In < Out < InOut when one tensor reaches two parameters.
      auto rank = [](trace::KernelParam::Direction d) {
        return d == trace::KernelParam::INOUT ? 3 : d == trace::KernelParam::OUT ? 2 : d ? 1 : 0;
      };
      if (rank(direction) > rank(use.declared)) use.declared = direction;
    }
  }
}

Value KernelBuilder::AddScalarParam(const std::string& name, trace::DType dtype, Value call_value) {
  const uint32_t index = program_.params_size();
  trace::KernelParam* p = program_.add_params();
  p->set_name(name);
  p->set_kind(trace::KernelParam::SCALAR);
  p->set_dtype(dtype);
  scalars_.push_back({index, std::move(call_value)});
  trace::IntExpr e;
  e.set_scalar_param(index);
  return Value::Obj(std::make_shared<SymInt>(std::move(e)));
}

std::shared_ptr<Tile> KernelBuilder::NewTile(const std::vector<int64_t>& shape, trace::DType dtype,
                                             trace::MemSpace space) {
  trace::TileDecl* decl = program_.add_tiles();
  for (int64_t d : shape) decl->add_shape(d);
  decl->set_dtype(dtype);
  decl->set_space(space);
  decl->set_name(absl::StrCat("t", program_.tiles_size() - 1));
  // Its own allocation until Finish plans them.
  decl->set_buffer(AllocateBuffers(1));
  tile_stages_.push_back(stage_stack_.empty() ? PipelineStage{} : stage_stack_.back());
  return std::make_shared<Tile>(serial_, program_.tiles_size() - 1, shape, dtype);
}

uint32_t KernelBuilder::AllocateBuffers(uint32_t n) {
  const uint32_t first = next_buffer_;
  next_buffer_ += n;
  return first;
}

void KernelBuilder::BindBuffer(const Tile& tile, uint32_t buffer, uint32_t slots,
                               const trace::IntExpr* slot) {
  trace::TileDecl* decl = program_.mutable_tiles(tile.index());
  decl->set_buffer(buffer);
  decl->set_slots(slots);
  if (slot != nullptr) *decl->mutable_slot() = *slot;
}

std::shared_ptr<Tile> KernelBuilder::NewTileLike(const Tile& like, const std::string& name) {
  auto tile = NewTile(like.shape(), like.dtype(), program_.tiles(like.index()).space());
  program_.mutable_tiles(tile->index())->set_name(name);
  if (auto it = placed_by_use_.find(like.index()); it != placed_by_use_.end()) {
    placed_by_use_[tile->index()] = it->second;
  }
  return tile;
}

void KernelBuilder::PlaceByUse(const Tile& tile, trace::MemSpace space) {
  const uint32_t root = placed_by_use_.at(tile.index());
  for (const auto& [member, member_root] : placed_by_use_) {
    trace::TileDecl* decl = program_.mutable_tiles(member);
    if (member_root == root && decl->space() == trace::MEM_SPACE_UNSPECIFIED) {
      decl->set_space(space);
    }
  }
}

trace::Op* KernelBuilder::Emit(trace::Op::Kind kind, const std::string& origin) {
  trace::Op* op = emit_stack_.empty() ? program_.add_ops() : emit_stack_.back()->Add();
  op->set_kind(kind);
  op->set_origin(origin);
  last_emitted_ = op;
  return op;
}

Value KernelBuilder::BeginLoop(trace::IntExpr start, trace::IntExpr stop, trace::IntExpr step,
                               const std::string& origin) {
  trace::Op* op = Emit(trace::Op::LOOP, origin);
  const uint32_t var = next_loop_var_++;
  op->mutable_loop()->set_var(var);
  *op->mutable_loop()->mutable_start() = std::move(start);
  *op->mutable_loop()->mutable_stop() = std::move(stop);
  *op->mutable_loop()->mutable_step() = std::move(step);
  loop_stack_.push_back(op);
  emit_stack_.push_back(op->mutable_loop()->mutable_body());
  trace::IntExpr e;
  e.set_loop_var(var);
  return Value::Obj(std::make_shared<SymInt>(std::move(e)));
}

void KernelBuilder::EndLoop() {
  loop_stack_.pop_back();
  emit_stack_.pop_back();
}

void KernelBuilder::BeginIf(trace::IntExpr cond, const std::string& origin) {
  trace::Op* op = Emit(trace::Op::IF, origin);
  *op->mutable_branch()->mutable_cond() = std::move(cond);
  if_stack_.push_back(op);
  emit_stack_.push_back(op->mutable_branch()->mutable_then_body());
}

void KernelBuilder::BeginElse() {
  emit_stack_.back() = if_stack_.back()->mutable_branch()->mutable_else_body();
}

void KernelBuilder::EndIf() {
  if_stack_.pop_back();
  emit_stack_.pop_back();
}

void KernelBuilder::AddPhi(uint32_t tile, uint32_t then_value, uint32_t else_value,
                           const std::string& name) {
  trace::Op::Branch::Phi* phi = if_stack_.back()->mutable_branch()->add_phis();
  phi->set_tile(tile);
  phi->set_then_value(then_value);
  phi->set_else_value(else_value);
  phi->set_name(name);
}

Value KernelBuilder::AddScalarPhi(trace::IntExpr then_expr, trace::IntExpr else_expr,
                                  const std::string& name) {
  const uint32_t reg = program_.scalar_count();
  program_.set_scalar_count(reg + 1);
  trace::Op::Branch::ScalarPhi* phi = if_stack_.back()->mutable_branch()->add_scalar_phis();
  phi->set_reg(reg);
  *phi->mutable_then_expr() = std::move(then_expr);
  *phi->mutable_else_expr() = std::move(else_expr);
  phi->set_name(name);
  trace::IntExpr e;
  e.set_scalar_reg(reg);
  return Value::Obj(std::make_shared<SymInt>(std::move(e)));
}

Value KernelBuilder::EmitRead(uint32_t param, const std::vector<trace::IntExpr>& offsets,
                              const std::string& origin) {
  const uint32_t reg = program_.scalar_count();
  program_.set_scalar_count(reg + 1);
  trace::Op* op = Emit(trace::Op::READ, origin);
  op->set_param(param);
  op->set_scalar_reg(reg);
  for (const trace::IntExpr& o : offsets) *op->add_offsets() = o;
  trace::IntExpr e;
  e.set_scalar_reg(reg);
  return Value::Obj(std::make_shared<SymInt>(std::move(e)));
}

int32_t KernelBuilder::BeginPipeline(int32_t depth, const std::string& origin) {
  pipelines_.push_back({depth, origin});
  return static_cast<int32_t>(pipelines_.size()) - 1;
}

void KernelBuilder::AddCarry(uint32_t tile, std::optional<uint32_t> init, uint32_t next,
                             const std::string& name) {
  trace::Op::Loop::Carry* c = loop_stack_.back()->mutable_loop()->add_carries();
  c->set_tile(tile);
  if (init) c->set_init(*init);
  c->set_next(next);
  c->set_name(name);
}

namespace {

using OpList = google::protobuf::RepeatedPtrField<trace::Op>;

void ForEachOp(OpList* ops, const std::function<void(trace::Op*)>& fn) {
  for (trace::Op& op : *ops) {
    fn(&op);
    if (op.kind() == trace::Op::LOOP) ForEachOp(op.mutable_loop()->mutable_body(), fn);
    if (op.kind() == trace::Op::IF) {
      ForEachOp(op.mutable_branch()->mutable_then_body(), fn);
      ForEachOp(op.mutable_branch()->mutable_else_body(), fn);
    }
  }
}

// Engine of a loop or branch: that of its body (arms) when uniform.
trace::Engine BodyEngine(const trace::Op& op) {
  trace::Engine engine = trace::ENGINE_UNSPECIFIED;
  bool mixed = false;
  const auto visit = [&](const OpList& body) {
    for (const trace::Op& inner : body) {
      if (inner.engine() == trace::ENGINE_UNSPECIFIED) continue;
      if (engine == trace::ENGINE_UNSPECIFIED) {
        engine = inner.engine();
      } else if (engine != inner.engine()) {
        mixed = true;  // both engines run parts of it
      }
    }
  };
  if (op.kind() == trace::Op::LOOP) visit(op.loop().body());
  if (op.kind() == trace::Op::IF) {
    visit(op.branch().then_body());
    visit(op.branch().else_body());
  }
  return mixed ? trace::ENGINE_UNSPECIFIED : engine;
}

void AssignLoopEngines(OpList* ops) {
  for (trace::Op& op : *ops) {
    if (op.kind() == trace::Op::LOOP) {
      AssignLoopEngines(op.mutable_loop()->mutable_body());
    } else if (op.kind() == trace::Op::IF) {
      AssignLoopEngines(op.mutable_branch()->mutable_then_body());
      AssignLoopEngines(op.mutable_branch()->mutable_else_body());
    } else {
      continue;
    }
    op.set_engine(BodyEngine(op));
  }
}

// A loop-carried tile is one buffer with its init and next tiles; an IF's
// phi with its two values.
struct CarryGroup {
  const trace::Op* loop;
  const trace::Op::Loop::Carry* carry;  // or
  const trace::Op::Branch::Phi* phi = nullptr;
  std::vector<uint32_t> members() const {
    if (phi != nullptr) return {phi->tile(), phi->then_value(), phi->else_value()};
    std::vector<uint32_t> m = {carry->tile(), carry->next()};
    if (carry->has_init()) m.push_back(carry->init());
    return m;
  }
};

// Adds every member of a group to `set` once one of them is in it.
void CloseOverCarries(const std::vector<CarryGroup>& groups, std::set<uint32_t>* set) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const CarryGroup& g : groups) {
      const std::vector<uint32_t> m = g.members();
      bool any = false;
      for (uint32_t t : m) any |= set->count(t) > 0;
      if (!any) continue;
      for (uint32_t t : m) changed |= set->insert(t).second;
    }
  }
}

}  // namespace

absl::StatusOr<trace::Kernel> KernelBuilder::Finish(const std::string& origin) {
  std::vector<CarryGroup> carries;
  std::vector<CarryGroup> phis;
  ForEachOp(program_.mutable_ops(), [&](trace::Op* op) {
    if (op->kind() == trace::Op::IF) {
      for (const auto& p : op->branch().phis()) phis.push_back({op, nullptr, &p});
    }
    if (op->kind() != trace::Op::LOOP) return;
    for (const auto& c : op->loop().carries()) carries.push_back({op, &c});
  });
  // A load without target_memory= goes to Mat (cube side) when a matmul reads
  // it, Vec otherwise; a carried tile's init and next are read wherever the
  // carried tile is. A pl.move's source has its space already.
  // A view (pl.reshape, pl.tile.transpose_view) is where its source is, so
  // its readers count for the source; an assemble's spaces are set already.
  std::set<uint32_t> cube_inputs, vector_inputs, vector_compute;
  std::vector<std::pair<uint32_t, uint32_t>> views;  // (view, source)
  ForEachOp(program_.mutable_ops(), [&](trace::Op* op) {
    if (op->kind() == trace::Op::MOVE || op->kind() == trace::Op::ASSEMBLE) return;
    // A window (pl.slice of a tile) is in its source's space like a view.
    if (op->kind() == trace::Op::RESHAPE || op->kind() == trace::Op::TRANSPOSE_VIEW ||
        op->kind() == trace::Op::EXTRACT) {
      views.emplace_back(op->dst(), op->srcs(0));
      return;
    }
    for (uint32_t s : op->srcs()) {
      (op->kind() == trace::Op::MATMUL ? cube_inputs : vector_inputs).insert(s);
      if (op->kind() != trace::Op::MATMUL && op->kind() != trace::Op::STORE) {
        vector_compute.insert(s);
      }
    }
  });
  std::vector<CarryGroup> groups = carries;
  groups.insert(groups.end(), phis.begin(), phis.end());
  for (std::set<uint32_t>* set : {&cube_inputs, &vector_inputs, &vector_compute}) {
    CloseOverCarries(groups, set);
    // Later views read earlier ones: from the last view back to the first.
    for (auto it = views.rbegin(); it != views.rend(); ++it) {
      if (set->count(it->first)) set->insert(it->second);
    }
  }
  absl::Status status;
  ForEachOp(program_.mutable_ops(), [&](trace::Op* op) {
    if (op->kind() != trace::Op::LOAD || !status.ok()) return;
    trace::TileDecl* tile = program_.mutable_tiles(op->dst());
    if (tile->space() == trace::MAT && vector_compute.count(op->dst())) {
      // Placed by an annotation after a vector op read it.
      status = absl::InvalidArgumentError(absl::StrCat(
          op->origin(),
          ": the tile loaded here is in Mat (L1) but a vector op reads it; vector ops read "
          "Vec (UB) tiles: load it with target_memory=pl.Mem.Vec"));
    }
    if (tile->space() != trace::MEM_SPACE_UNSPECIFIED) return;
    if (!cube_inputs.count(op->dst())) {
      tile->set_space(trace::VEC);
      return;
    }
    if (vector_inputs.count(op->dst())) {
      status = absl::InvalidArgumentError(
          absl::StrCat(op->origin(),
                       ": a loaded tile feeds both pl.matmul (cube) and a vector op; load it "
                       "once per engine"));
    }
    tile->set_space(trace::MAT);
  });
  if (!status.ok()) return status;
  for (const auto& [view, source] : views) {
    program_.mutable_tiles(view)->set_space(program_.tiles(source).space());
  }
  // A carried tile is where its next is; an outer carry's next may be an
  // inner loop's carried tile, a later loop's init an earlier one's, so this
  // runs to a fixed point (one pass per carry at most).
  for (size_t pass = 0; pass <= groups.size(); ++pass) {
    bool changed = false;
    for (const CarryGroup& g : groups) {
      if (g.phi != nullptr) {
        // A phi is where its values are (the then arm's, else the else's).
        trace::MemSpace space = program_.tiles(g.phi->then_value()).space();
        if (space == trace::MEM_SPACE_UNSPECIFIED) {
          space = program_.tiles(g.phi->else_value()).space();
        }
        trace::TileDecl* tile = program_.mutable_tiles(g.phi->tile());
        changed |= tile->space() != space;
        tile->set_space(space);
        continue;
      }
      trace::MemSpace space = program_.tiles(g.carry->next()).space();
      // A swap of two carried loads has no placed next: they stay with init.
      if (space == trace::MEM_SPACE_UNSPECIFIED && g.carry->has_init()) {
        space = program_.tiles(g.carry->init()).space();
      }
      trace::TileDecl* tile = program_.mutable_tiles(g.carry->tile());
      changed |= tile->space() != space;
      tile->set_space(space);
    }
    if (!changed) break;
  }
  for (const CarryGroup& g : carries) {
    const trace::Op::Loop::Carry& c = *g.carry;
    for (uint32_t t : {c.tile(), c.next(), c.has_init() ? c.init() : c.tile()}) {
      if (program_.tiles(t).has_slot()) {
        return absl::InvalidArgumentError(absl::StrCat(
            g.loop->origin(), ": the value carried as '", c.name(),
            "' is a pl.MemRef tile with a runtime slot; a carried value is one buffer, so give it "
            "a literal slot (buf[0]) or no pl.MemRef"));
      }
    }
    const trace::MemSpace next = program_.tiles(c.next()).space();
    if (c.has_init() && program_.tiles(c.init()).space() != next) {
      return absl::InvalidArgumentError(absl::StrCat(
          g.loop->origin(), ": the value carried as '", c.name(), "' enters the loop in ",
          PlSpaceName(program_.tiles(c.init()).space()), " but the loop body produces it in ",
          PlSpaceName(next),
          "; a carried value is one buffer, so compute its initial value on the same side as "
          "the body's result"));
    }
  }
  bool cube = false, vector = false;
  ForEachOp(program_.mutable_ops(), [&](trace::Op* op) {
    trace::Engine engine = trace::ENGINE_VECTOR;
    switch (op->kind()) {
      case trace::Op::MATMUL:
        engine = trace::ENGINE_CUBE;
        break;
      case trace::Op::LOAD:
      case trace::Op::CREATE:
      case trace::Op::ASSEMBLE:
      case trace::Op::EXTRACT:
      case trace::Op::RESHAPE:
      case trace::Op::TRANSPOSE_VIEW:
      case trace::Op::MOVE:  // a crossing runs where its value lands (the tpop)
        engine = IsCubeSpace(program_.tiles(op->dst()).space()) ? trace::ENGINE_CUBE
                                                                : trace::ENGINE_VECTOR;
        break;
      case trace::Op::STORE:
        engine = IsCubeSpace(program_.tiles(op->srcs(0)).space()) ? trace::ENGINE_CUBE
                                                                  : trace::ENGINE_VECTOR;
        break;
      case trace::Op::LOOP:
      case trace::Op::IF:
      case trace::Op::READ:
      case trace::Op::SYNCALL:
      case trace::Op::FENCE:
      case trace::Op::CACHE_INVALID:
        engine = trace::ENGINE_UNSPECIFIED;  // shared: whichever engines the kernel has
        break;
      default:
        break;
    }
    op->set_engine(engine);
    cube |= engine == trace::ENGINE_CUBE;
    vector |= engine == trace::ENGINE_VECTOR;
  });
  AssignLoopEngines(program_.mutable_ops());
  trace::CoreType core_type = cube && vector ? trace::MIX : cube ? trace::AIC : trace::AIV;
  if (core_type != trace::MIX) {
    ForEachOp(program_.mutable_ops(),
              [](trace::Op* op) { op->set_engine(trace::ENGINE_UNSPECIFIED); });
  }
  for (const auto& use : tensors_) {
    trace::KernelParam::Direction d = use.declared;
    if (d == trace::KernelParam::DIRECTION_UNSPECIFIED) {
      d = use.read && use.written ? trace::KernelParam::INOUT
          : use.written           ? trace::KernelParam::OUT
                                  : trace::KernelParam::IN;
    }
    program_.mutable_params(use.param)->set_direction(d);
  }
  // The pl.MemRef allocations are the author's: the planner packs the other
  // tiles around them, in what their slots leave of each space.
  std::vector<bool> pinned(program_.tiles_size(), false);
  std::map<trace::MemSpace, uint64_t> reserved;
  for (const auto& [name, alloc] : memrefs_) {
    uint64_t slot_bytes = 0;
    for (int t = 0; t < program_.tiles_size(); ++t) {
      const trace::TileDecl& decl = program_.tiles(t);
      if (decl.slots() == 0 || decl.buffer() < alloc.base ||
          decl.buffer() >= alloc.base + alloc.slots) {
        continue;
      }
      pinned[static_cast<size_t>(t)] = true;
      slot_bytes = std::max(slot_bytes, TileDeclBytes(decl));
    }
    reserved[alloc.space] += slot_bytes * alloc.slots;
  }
  BufferPlanOptions plan_options;
  plan_options.stages = tile_stages_;
  plan_options.groups = pipelines_;
  plan_options.pinned = pinned;
  plan_options.capacity = [&reserved](trace::MemSpace space) -> uint64_t {
    const uint64_t capacity = SpaceBudgetBytes(space);
    const uint64_t held = reserved.count(space) ? reserved.at(space) : 0;
    return capacity == 0 ? 0 : held < capacity ? capacity - held : 1;
  };
  absl::StatusOr<BufferPlan> planned = PlanBuffers(program_, plan_options, name_);
  if (!planned.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", planned.status().message()));
  }
  BufferPlan& plan = *planned;
  // Planned buffers first, then each allocation's slots, consecutive.
  uint32_t next = plan.count;
  std::map<uint32_t, uint32_t> moved;  // an allocation's old first id -> its new one
  for (const auto& entry : memrefs_) {
    moved[entry.second.base] = next;
    next += entry.second.slots;
  }
  for (int t = 0; t < program_.tiles_size(); ++t) {
    trace::TileDecl* decl = program_.mutable_tiles(t);
    const uint32_t buffer = plan.buffer[static_cast<size_t>(t)];
    if (buffer != BufferPlan::kPinned) {
      decl->set_buffer(buffer);
      continue;
    }
    for (const auto& entry : memrefs_) {
      const MemRefAlloc& alloc = entry.second;
      if (decl->buffer() >= alloc.base && decl->buffer() < alloc.base + alloc.slots) {
        decl->set_buffer(moved.at(alloc.base) + (decl->buffer() - alloc.base));
        break;
      }
    }
  }
  for (int t = 0; t < program_.tiles_size(); ++t) {
    const int32_t bound = plan.same_as[static_cast<size_t>(t)];
    if (bound >= 0) program_.mutable_tiles(t)->set_buffer(program_.tiles(bound).buffer());
  }
  next_buffer_ = next;
  warnings_ = std::move(plan.warnings);
  trace::Kernel kernel;
  kernel.set_name(name_);
  kernel.set_core_type(core_type);
  kernel.set_origin(origin);
  program_.set_buffer_count(next_buffer_);
  *kernel.mutable_program() = program_;
  return kernel;
}

}  // namespace pto::ptoc
