#include "frontend/reference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "common/dtype.h"

namespace pto::ptoc {
namespace {

// out[0:4] += 1.0 as one AIV kernel.
trace::Kernel AddOneKernel() {
  trace::Kernel k;
  k.set_name("add_one");
  k.set_core_type(trace::AIV);
  auto* p = k.mutable_program();
  auto* param = p->add_params();
  param->set_name("out");
  param->set_kind(trace::KernelParam::TENSOR);
  param->set_dtype(trace::FP32);
  param->set_direction(trace::KernelParam::INOUT);
  for (int i = 0; i < 2; ++i) {
    auto* t = p->add_tiles();
    t->add_shape(1);
    t->add_shape(4);
    t->set_dtype(trace::FP32);
    t->set_space(trace::VEC);
  }
  auto* load = p->add_ops();
  load->set_kind(trace::Op::LOAD);
  load->set_dst(0);
  load->add_offsets()->set_constant(0);
  load->add_offsets()->set_constant(0);
  auto* add = p->add_ops();
  add->set_kind(trace::Op::ADD);
  add->set_dst(1);
  add->add_srcs(0);
  add->mutable_scalar()->set_literal(1.0);
  auto* store = p->add_ops();
  store->set_kind(trace::Op::STORE);
  store->add_srcs(1);
  store->add_offsets()->set_constant(0);
  store->add_offsets()->set_constant(0);
  return k;
}

trace::StreamRecord Submit(trace::Predicate::Op op, int64_t target) {
  trace::StreamRecord r;
  auto* s = r.mutable_submit();
  s->set_name("bump");
  s->add_kernel_ids(-1);
  s->add_kernel_ids(0);
  s->add_kernel_ids(-1);
  s->set_block_num(2);  // two blocks: each adds one
  auto* arg = s->add_args()->mutable_tensor();
  arg->set_tensor_id(0);
  arg->set_direction(trace::INOUT);
  s->mutable_predicate()->set_tensor_id(1);
  s->mutable_predicate()->add_indices(0);
  s->mutable_predicate()->set_op(op);
  s->mutable_predicate()->set_target(target);
  return r;
}

TEST(ReferenceTest, RunsBlocksInOrderAndSkipsFalsePredicatesReadSignExtended) {
  trace::StreamHeader header;
  auto* out = header.add_tensors();
  out->set_dtype(trace::FP32);
  out->add_shape(1);
  out->add_shape(4);
  out->set_size_bytes(16);
  auto* gate = header.add_tensors();
  gate->set_id(1);
  gate->set_dtype(trace::INT8);
  gate->add_shape(1);
  gate->set_gm_addr(1024);
  gate->set_size_bytes(1);
  *header.add_kernels() = AddOneKernel();

  std::vector<uint8_t> gm(1025, 0);
  gm[1024] = 0xff;  // gate = -1 as INT8
  auto reference = MakeTileExecutorReference();
  // -1 > -2 holds (a zero-extended read would see 255 and also pass; -1 < 0
  // tells them apart).
  std::vector<trace::StreamRecord> launch = {Submit(trace::Predicate::GT, -2),
                                             Submit(trace::Predicate::LT, 0),
                                             Submit(trace::Predicate::GE, 0)};
  ASSERT_TRUE(reference->RunLaunch(header, launch, &gm).ok());
  float v;
  std::memcpy(&v, gm.data() + 12, 4);
  EXPECT_FLOAT_EQ(v, 4.0f);  // two predicated tasks ran, two blocks each; the third skipped
}

}  // namespace
}  // namespace pto::ptoc
