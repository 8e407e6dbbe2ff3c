// ShareKernelsAcrossOffsets on hand-built streams.
#include "frontend/kernel_sharing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {
namespace {

// A kernel loading a [1, 16] row of param 0 at (row, col_base + 16 * i) for
// i over a device loop, and storing it to param 1 at (row, 0).
trace::Kernel RowCopy(int64_t row, int64_t col_base, const std::string& name) {
  trace::Kernel k;
  k.set_name(name);
  k.set_core_type(trace::AIV);
  k.set_origin(name + ".py:1");
  trace::KernelProgram* p = k.mutable_program();
  for (const char* param : {"src", "dst"}) {
    trace::KernelParam* kp = p->add_params();
    kp->set_name(param);
    kp->set_kind(trace::KernelParam::TENSOR);
    kp->set_dtype(trace::FP32);
  }
  trace::TileDecl* tile = p->add_tiles();
  tile->add_shape(1), tile->add_shape(16);
  tile->set_dtype(trace::FP32);
  trace::Op* loop = p->add_ops();
  loop->set_kind(trace::Op::LOOP);
  loop->mutable_loop()->set_var(0);
  loop->mutable_loop()->mutable_start()->set_constant(0);
  loop->mutable_loop()->mutable_stop()->set_constant(4);
  loop->mutable_loop()->mutable_step()->set_constant(1);
  trace::Op* load = loop->mutable_loop()->add_body();
  load->set_kind(trace::Op::LOAD);
  load->set_param(0);
  load->add_offsets()->set_constant(row);
  trace::IntExpr::Binary* col = load->add_offsets()->mutable_binary();
  col->set_op(trace::IntExpr::ADD);
  col->mutable_lhs()->set_constant(col_base);
  trace::IntExpr::Binary* step = col->mutable_rhs()->mutable_binary();
  step->set_op(trace::IntExpr::MUL);
  step->mutable_lhs()->set_loop_var(0);
  step->mutable_rhs()->set_constant(16);
  trace::Op* store = p->add_ops();
  store->set_kind(trace::Op::STORE);
  store->add_srcs(0);
  store->set_param(1);
  store->add_offsets()->set_constant(row);
  store->add_offsets()->set_constant(0);
  return k;
}

trace::StreamRecord SubmitOf(int32_t kernel) {
  trace::StreamRecord r;
  trace::Submit* s = r.mutable_submit();
  s->add_kernel_ids(-1), s->add_kernel_ids(kernel), s->add_kernel_ids(-1);
  s->add_args()->mutable_tensor()->set_tensor_id(0);
  s->add_args()->mutable_tensor()->set_tensor_id(1);
  return r;
}

std::vector<int64_t> ScalarArgs(const trace::Submit& s) {
  std::vector<int64_t> out;
  for (const auto& a : s.args()) {
    if (a.has_scalar()) out.push_back(a.scalar().i());
  }
  return out;
}

TEST(KernelSharingTest, KernelsDifferingInOffsetConstantsShareOneWithScalarParams) {
  trace::TraceText text;
  // Rows 0..2, all with column base 32: only the row differs.
  for (int64_t row = 0; row < 3; ++row) {
    *text.mutable_header()->add_kernels() = RowCopy(row, 32, absl::StrCat("copy", row));
    text.mutable_header()->mutable_kernels()->rbegin()->set_id(static_cast<uint32_t>(row));
    *text.add_records() = SubmitOf(static_cast<int32_t>(row));
  }
  ShareKernelsAcrossOffsets(&text);
  ASSERT_EQ(text.header().kernels_size(), 1);
  const trace::Kernel& k = text.header().kernels(0);
  EXPECT_EQ(k.id(), 0u);
  EXPECT_EQ(k.name(), "copy0");  // the first member's name
  // One scalar param for the row (used by the load and the store, each
  // occurrence its own leaf: two params of equal values per submit).
  ASSERT_EQ(k.program().params_size(), 4);
  EXPECT_EQ(k.program().params(2).kind(), trace::KernelParam::SCALAR);
  EXPECT_EQ(k.program().params(2).dtype(), trace::INT64);
  const trace::Op& load = k.program().ops(0).loop().body(0);
  EXPECT_EQ(load.offsets(0).scalar_param(), 2u);
  // The unchanged constants stay constants, the loop var stays a var.
  EXPECT_EQ(load.offsets(1).binary().lhs().constant(), 32);
  EXPECT_EQ(load.offsets(1).binary().rhs().binary().rhs().constant(), 16);
  EXPECT_EQ(k.program().ops(1).offsets(0).scalar_param(), 3u);
  EXPECT_EQ(k.program().ops(1).offsets(1).constant(), 0);
  for (int row = 0; row < 3; ++row) {
    const trace::Submit& s = text.records(row).submit();
    EXPECT_THAT(s.kernel_ids(), ::testing::ElementsAre(-1, 0, -1));
    EXPECT_THAT(ScalarArgs(s), ::testing::ElementsAre(row, row));
  }
}

TEST(KernelSharingTest, DifferentBodiesKeepTheirOwnKernelsAndIdsStayDense) {
  trace::TraceText text;
  // Kernel 1 differs in its tile shape, not only in an offset.
  trace::Kernel wide = RowCopy(0, 0, "wide");
  wide.mutable_program()->mutable_tiles(0)->set_shape(1, 32);
  const std::vector<trace::Kernel> kernels = {RowCopy(0, 0, "a"), wide, RowCopy(0, 64, "b")};
  for (size_t i = 0; i < kernels.size(); ++i) {
    *text.mutable_header()->add_kernels() = kernels[i];
    text.mutable_header()->mutable_kernels()->rbegin()->set_id(static_cast<uint32_t>(i));
    *text.add_records() = SubmitOf(static_cast<int32_t>(i));
  }
  ShareKernelsAcrossOffsets(&text);
  ASSERT_EQ(text.header().kernels_size(), 2);
  EXPECT_EQ(text.header().kernels(0).name(), "a");
  EXPECT_EQ(text.header().kernels(1).name(), "wide");
  EXPECT_EQ(text.header().kernels(1).id(), 1u);
  // "a" and "b" differ in the column base only.
  EXPECT_EQ(text.header().kernels(0).program().params_size(), 3);
  EXPECT_THAT(text.records(0).submit().kernel_ids(), ::testing::ElementsAre(-1, 0, -1));
  EXPECT_THAT(ScalarArgs(text.records(0).submit()), ::testing::ElementsAre(0));
  EXPECT_THAT(text.records(1).submit().kernel_ids(), ::testing::ElementsAre(-1, 1, -1));
  EXPECT_THAT(ScalarArgs(text.records(1).submit()), ::testing::IsEmpty());
  EXPECT_THAT(text.records(2).submit().kernel_ids(), ::testing::ElementsAre(-1, 0, -1));
  EXPECT_THAT(ScalarArgs(text.records(2).submit()), ::testing::ElementsAre(64));
}

TEST(KernelSharingTest, KernelsSharingASubmitWithAnotherKernelAreLeftAlone) {
  trace::TraceText text;
  for (int i = 0; i < 3; ++i) {
    *text.mutable_header()->add_kernels() = RowCopy(i, 0, absl::StrCat("k", i));
    text.mutable_header()->mutable_kernels()->rbegin()->set_id(static_cast<uint32_t>(i));
  }
  // Kernel 0 runs beside kernel 2 in one submit: their argument lists are
  // one list, so neither can take parameters the other lacks.
  trace::StreamRecord both = SubmitOf(0);
  both.mutable_submit()->set_kernel_ids(2, 2);
  *text.add_records() = both;
  *text.add_records() = SubmitOf(1);
  ShareKernelsAcrossOffsets(&text);
  ASSERT_EQ(text.header().kernels_size(), 3);
  for (const auto& k : text.header().kernels()) EXPECT_EQ(k.program().params_size(), 2);
}

TEST(KernelSharingTest, ParamNamesDoNotClashWithTheKernels) {
  trace::TraceText text;
  for (int row = 0; row < 2; ++row) {
    trace::Kernel k = RowCopy(row, 0, "k");
    k.mutable_program()->mutable_params(0)->set_name("offset0");
    k.set_id(static_cast<uint32_t>(row));
    *text.mutable_header()->add_kernels() = k;
    *text.add_records() = SubmitOf(row);
  }
  ShareKernelsAcrossOffsets(&text);
  ASSERT_EQ(text.header().kernels_size(), 1);
  const auto& params = text.header().kernels(0).program().params();
  EXPECT_EQ(params[2].name(), "_offset0");
  EXPECT_EQ(params[3].name(), "offset1");
}

TEST(KernelSharingTest, TensorParamsNamedAfterDifferentTensorsGetANeutralName) {
  trace::TraceText text;
  for (int row = 0; row < 2; ++row) {
    trace::Kernel k = RowCopy(row, 0, "k");
    k.mutable_program()->mutable_params(1)->set_name(absl::StrCat("scratch", row));
    k.set_id(static_cast<uint32_t>(row));
    *text.mutable_header()->add_kernels() = k;
    *text.add_records() = SubmitOf(row);
  }
  ShareKernelsAcrossOffsets(&text);
  ASSERT_EQ(text.header().kernels_size(), 1);
  const auto& params = text.header().kernels(0).program().params();
  EXPECT_EQ(params[0].name(), "src");  // the same in every member
  EXPECT_EQ(params[1].name(), "arg1");
}

}  // namespace
}  // namespace pto::ptoc
