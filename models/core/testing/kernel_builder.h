#ifndef PTO_MODELS_CORE_TESTING_KERNEL_BUILDER_H_
#define PTO_MODELS_CORE_TESTING_KERNEL_BUILDER_H_

// Builds small trace::Kernel protos for tests, e.g.
//   KernelBuilder b("add");
//   uint32_t x = b.TensorParam("x", trace::FP32);
//   uint32_t t = b.Tile("t", {32, 32}, trace::FP32);
//   b.Load(t, x, {C(0), C(0)});

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proto/task_stream.pb.h"

namespace pto::kernel_testing {

inline trace::IntExpr C(int64_t v) {
  trace::IntExpr e;
  e.set_constant(v);
  return e;
}
inline trace::IntExpr Var(trace::IntExpr::Var v) {
  trace::IntExpr e;
  e.set_var(v);
  return e;
}
inline trace::IntExpr BlockIdx() { return Var(trace::IntExpr::BLOCK_IDX); }
inline trace::IntExpr BlockNum() { return Var(trace::IntExpr::BLOCK_NUM); }
inline trace::IntExpr SubblockIdx() { return Var(trace::IntExpr::SUBBLOCK_IDX); }
inline trace::IntExpr LoopVar(uint32_t var) {
  trace::IntExpr e;
  e.set_loop_var(var);
  return e;
}
inline trace::IntExpr ScalarParam(uint32_t param) {
  trace::IntExpr e;
  e.set_scalar_param(param);
  return e;
}
inline trace::IntExpr Reg(uint32_t reg) {
  trace::IntExpr e;
  e.set_scalar_reg(reg);
  return e;
}
inline trace::IntExpr Bin(trace::IntExpr::BinOp op, trace::IntExpr lhs, trace::IntExpr rhs) {
  trace::IntExpr e;
  e.mutable_binary()->set_op(op);
  *e.mutable_binary()->mutable_lhs() = std::move(lhs);
  *e.mutable_binary()->mutable_rhs() = std::move(rhs);
  return e;
}
inline trace::IntExpr Plus(trace::IntExpr a, trace::IntExpr b) {
  return Bin(trace::IntExpr::ADD, std::move(a), std::move(b));
}
inline trace::IntExpr Times(trace::IntExpr a, trace::IntExpr b) {
  return Bin(trace::IntExpr::MUL, std::move(a), std::move(b));
}

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name, trace::CoreType core_type = trace::AIV) {
    kernel_.set_name(std::move(name));
    kernel_.set_core_type(core_type);
    bodies_.push_back(program()->mutable_ops());
  }

  // Copies continue at the top level of the copied program (open loops are
  // not carried over), so one base kernel can seed several variants.
  KernelBuilder(const KernelBuilder& other) : kernel_(other.kernel_), op_count_(other.op_count_) {
    bodies_.push_back(program()->mutable_ops());
  }
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  trace::KernelProgram* program() { return kernel_.mutable_program(); }

  uint32_t TensorParam(std::string name, trace::DType dtype,
                       trace::KernelParam::Direction dir = trace::KernelParam::INOUT) {
    trace::KernelParam* p = program()->add_params();
    p->set_name(std::move(name));
    p->set_kind(trace::KernelParam::TENSOR);
    p->set_dtype(dtype);
    p->set_direction(dir);
    return static_cast<uint32_t>(program()->params_size() - 1);
  }
  uint32_t ScalarParam(std::string name, trace::DType dtype = trace::INT64) {
    trace::KernelParam* p = program()->add_params();
    p->set_name(std::move(name));
    p->set_kind(trace::KernelParam::SCALAR);
    p->set_dtype(dtype);
    return static_cast<uint32_t>(program()->params_size() - 1);
  }
  uint32_t Tile(std::string name, std::vector<int64_t> shape, trace::DType dtype,
                trace::MemSpace space = trace::VEC) {
    trace::TileDecl* t = program()->add_tiles();
    t->set_name(std::move(name));
    for (int64_t d : shape) t->add_shape(d);
    t->set_dtype(dtype);
    t->set_space(space);
    // A buffer of its own, as a stream without a planned one has.
    t->set_buffer(static_cast<uint32_t>(program()->tiles_size() - 1));
    return static_cast<uint32_t>(program()->tiles_size() - 1);
  }
  // Puts tile `tile` into the buffer `buffer` (a planned reuse).
  void ShareBuffer(uint32_t tile, uint32_t buffer) {
    program()->mutable_tiles(static_cast<int>(tile))->set_buffer(buffer);
    // Buffers are used once buffer_count is set; ids stay below the tiles.
    program()->set_buffer_count(static_cast<uint32_t>(program()->tiles_size()));
  }

  // Appends an op of `kind` to the innermost open body, with an origin
  // "test.py:<n>" where n counts ops from 1.
  trace::Op& Add(trace::Op::Kind kind) {
    trace::Op* op = bodies_.back()->Add();
    op->set_kind(kind);
    op->set_origin("test.py:" + std::to_string(++op_count_));
    return *op;
  }

  trace::Op& Load(uint32_t dst, uint32_t param, std::vector<trace::IntExpr> offsets) {
    trace::Op& op = Add(trace::Op::LOAD);
    op.set_dst(dst);
    op.set_param(param);
    for (auto& o : offsets) *op.add_offsets() = std::move(o);
    return op;
  }
  trace::Op& Store(uint32_t src, uint32_t param, std::vector<trace::IntExpr> offsets,
                   bool atomic_add = false) {
    trace::Op& op = Add(trace::Op::STORE);
    op.add_srcs(src);
    op.set_param(param);
    op.set_atomic_add(atomic_add);
    for (auto& o : offsets) *op.add_offsets() = std::move(o);
    return op;
  }
  trace::Op& Binary(trace::Op::Kind kind, uint32_t dst, uint32_t a, uint32_t b) {
    trace::Op& op = Add(kind);
    op.set_dst(dst);
    op.add_srcs(a);
    op.add_srcs(b);
    return op;
  }
  trace::Op& WithScalar(trace::Op::Kind kind, uint32_t dst, uint32_t a, double literal) {
    trace::Op& op = Unary(kind, dst, a);
    op.mutable_scalar()->set_literal(literal);
    return op;
  }
  trace::Op& WithScalarParam(trace::Op::Kind kind, uint32_t dst, uint32_t a, uint32_t param) {
    trace::Op& op = Unary(kind, dst, a);
    op.mutable_scalar()->set_scalar_param(param);
    return op;
  }
  trace::Op& Unary(trace::Op::Kind kind, uint32_t dst, uint32_t a) {
    trace::Op& op = Add(kind);
    op.set_dst(dst);
    op.add_srcs(a);
    return op;
  }
  trace::Op& Full(uint32_t dst, double value) {
    trace::Op& op = Add(trace::Op::FULL);
    op.set_dst(dst);
    op.mutable_scalar()->set_literal(value);
    return op;
  }
  trace::Op& Matmul(uint32_t dst, uint32_t a, uint32_t b, bool a_trans = false,
                    bool b_trans = false) {
    trace::Op& op = Binary(trace::Op::MATMUL, dst, a, b);
    op.set_a_trans(a_trans);
    op.set_b_trans(b_trans);
    return op;
  }

  // dst <- acc + op(a) @ op(b) (pl.matmul_acc); set its init_cond to make it
  // overwrite on the instances where that holds.
  trace::Op& MatmulAcc(uint32_t dst, uint32_t a, uint32_t b, uint32_t acc) {
    trace::Op& op = Matmul(dst, a, b);
    op.add_srcs(acc);
    op.set_accumulate(true);
    return op;
  }
  // dst gets a buffer and no contents (pl.tile.create).
  trace::Op& Create(uint32_t dst) {
    trace::Op& op = Add(trace::Op::CREATE);
    op.set_dst(dst);
    return op;
  }
  // dst <- src, another memory space (pl.move).
  trace::Op& Move(uint32_t dst, uint32_t src) { return Unary(trace::Op::MOVE, dst, src); }

  // Opens `for var in range(start, stop, step)`; ops go into its body until
  // EndLoop().
  trace::Op& BeginLoop(uint32_t var, trace::IntExpr start, trace::IntExpr stop,
                       trace::IntExpr step = C(1)) {
    trace::Op& op = Add(trace::Op::LOOP);
    trace::Op::Loop* loop = op.mutable_loop();
    loop->set_var(var);
    *loop->mutable_start() = std::move(start);
    *loop->mutable_stop() = std::move(stop);
    *loop->mutable_step() = std::move(step);
    bodies_.push_back(loop->mutable_body());
    return op;
  }
  void EndLoop() { bodies_.pop_back(); }

  // Opens `if cond:`; ops go into the then arm until Else(), then into the
  // else arm until EndIf().
  trace::Op& BeginIf(trace::IntExpr cond) {
    trace::Op& op = Add(trace::Op::IF);
    *op.mutable_branch()->mutable_cond() = std::move(cond);
    bodies_.push_back(op.mutable_branch()->mutable_then_body());
    ifs_.push_back(&op);
    return op;
  }
  void Else() { bodies_.back() = ifs_.back()->mutable_branch()->mutable_else_body(); }
  void EndIf() {
    bodies_.pop_back();
    ifs_.pop_back();
  }
  static void Phi(trace::Op& branch, uint32_t tile, uint32_t then_value, uint32_t else_value) {
    trace::Op::Branch::Phi* phi = branch.mutable_branch()->add_phis();
    phi->set_tile(tile);
    phi->set_then_value(then_value);
    phi->set_else_value(else_value);
  }
  // A new scalar register (KernelProgram.scalar_count) and its IntExpr.
  uint32_t ScalarReg() {
    const uint32_t reg = program()->scalar_count();
    program()->set_scalar_count(reg + 1);
    return reg;
  }
  // reg <- param's element at `offsets` (pl.read).
  trace::Op& Read(uint32_t reg, uint32_t param, std::vector<trace::IntExpr> offsets) {
    trace::Op& op = Add(trace::Op::READ);
    op.set_scalar_reg(reg);
    op.set_param(param);
    for (auto& o : offsets) *op.add_offsets() = std::move(o);
    return op;
  }

  // Adds a loop-carried tile to `loop` (an op BeginLoop returned): `tile`
  // takes `init` at entry (none when kNoInit) and `next` after every
  // iteration.
  static constexpr int64_t kNoInit = -1;
  static trace::Op::Loop::Carry& Carry(trace::Op& loop, uint32_t tile, int64_t init, uint32_t next,
                                       std::string name = "") {
    trace::Op::Loop::Carry* carry = loop.mutable_loop()->add_carries();
    carry->set_tile(tile);
    if (init != kNoInit) carry->set_init(static_cast<uint32_t>(init));
    carry->set_next(next);
    carry->set_name(std::move(name));
    return *carry;
  }

  const trace::Kernel& kernel() const { return kernel_; }

 private:
  trace::Kernel kernel_;
  std::vector<google::protobuf::RepeatedPtrField<trace::Op>*> bodies_;
  std::vector<trace::Op*> ifs_;
  int op_count_ = 0;
};

}  // namespace pto::kernel_testing

#endif  // PTO_MODELS_CORE_TESTING_KERNEL_BUILDER_H_
