// Unit tests of the stream-building pieces: kernel programs, launch records
// and direction rules, header tensors and kernel deduplication.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/kernel_builder.h"
#include "frontend/launch_builder.h"
#include "frontend/program_builder.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;

trace::IntExpr Const(int64_t v) {
  trace::IntExpr e;
  e.set_constant(v);
  return e;
}

TEST(IntBinaryTest, FoldsConstantsWithPythonFloorSemantics) {
  EXPECT_EQ(IntBinary(trace::IntExpr::FLOOR_DIV, Const(-7), Const(2)).i(), -4);
  EXPECT_EQ(IntBinary(trace::IntExpr::MOD, Const(-7), Const(3)).i(), 2);
  EXPECT_EQ(IntBinary(trace::IntExpr::MUL, Const(6), Const(7)).i(), 42);
  trace::IntExpr block;
  block.set_var(trace::IntExpr::BLOCK_IDX);
  // x * 1 and x + 0 stay the bare variable; anything else builds a tree.
  const Value same_value = IntBinary(trace::IntExpr::MUL, block, Const(1));
  auto* same = same_value.As<SymInt>();
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->expr().var(), trace::IntExpr::BLOCK_IDX);
  const Value tree_value = IntBinary(trace::IntExpr::ADD, block, Const(3));
  auto* tree = tree_value.As<SymInt>();
  ASSERT_NE(tree, nullptr);
  EXPECT_EQ(tree->expr().binary().op(), trace::IntExpr::ADD);
}

TEST(KernelBuilderTest, ParamDirectionsFromUseAndCoreTypeFromAffinity) {
  auto a = std::make_shared<TensorRef>(0, "a", trace::FP32, std::vector<int64_t>{16, 16});
  auto out = std::make_shared<TensorRef>(1, "out", trace::FP32, std::vector<int64_t>{16, 16});
  KernelBuilder k("k");
  EXPECT_EQ(k.UseTensor(a, true, false), 0u);
  EXPECT_EQ(k.UseTensor(out, false, true), 1u);
  EXPECT_EQ(k.UseTensor(out, true, false), 1u);  // same view, same param
  auto t = k.NewTile({16, 16}, trace::FP32, trace::VEC);
  k.Emit(trace::Op::LOAD, "x:1")->set_dst(t->index());
  auto kernel = k.Finish("x:1");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->core_type(), trace::AIV);
  EXPECT_EQ(kernel->program().params(0).direction(), trace::KernelParam::IN);
  EXPECT_EQ(kernel->program().params(1).direction(), trace::KernelParam::INOUT);
  // Non-MIX kernels carry no engine tags.
  EXPECT_EQ(kernel->program().ops(0).engine(), trace::ENGINE_UNSPECIFIED);
}

TEST(KernelBuilderTest, MatmulOperandsMoveToMatAndMixedBodiesAreMix) {
  KernelBuilder k("mix");
  // Loads without target_memory= are placed by what reads them.
  auto a = k.NewTile({16, 16}, trace::FP16, trace::MEM_SPACE_UNSPECIFIED);
  auto b = k.NewTile({16, 16}, trace::FP16, trace::MEM_SPACE_UNSPECIFIED);
  k.Emit(trace::Op::LOAD, "")->set_dst(a->index());
  k.Emit(trace::Op::LOAD, "")->set_dst(b->index());
  auto acc = k.NewTile({16, 16}, trace::FP32, trace::ACC);
  trace::Op* mm = k.Emit(trace::Op::MATMUL, "");
  mm->set_dst(acc->index());
  mm->add_srcs(a->index());
  mm->add_srcs(b->index());
  auto sum = k.NewTile({16, 16}, trace::FP32, trace::VEC);
  trace::Op* add = k.Emit(trace::Op::ADD, "");
  add->set_dst(sum->index());
  add->add_srcs(acc->index());
  add->mutable_scalar()->set_literal(1.0);
  auto kernel = k.Finish("");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->core_type(), trace::MIX);
  EXPECT_EQ(kernel->program().tiles(0).space(), trace::MAT);
  EXPECT_EQ(kernel->program().ops(0).engine(), trace::ENGINE_CUBE);
  EXPECT_EQ(kernel->program().ops(3).engine(), trace::ENGINE_VECTOR);
}

TEST(KernelBuilderTest, DeviceLoopsNestOpsAndNumberTheirVariables) {
  KernelBuilder k("loop");
  Value v0 = k.BeginLoop(Const(0), Const(4), Const(1), "");
  Value v1 = k.BeginLoop(Const(0), Const(2), Const(1), "");
  k.Emit(trace::Op::FENCE, "");
  k.EndLoop();
  k.EndLoop();
  EXPECT_EQ(v0.As<SymInt>()->expr().loop_var(), 0u);
  EXPECT_EQ(v1.As<SymInt>()->expr().loop_var(), 1u);
  auto kernel = k.Finish("");
  ASSERT_TRUE(kernel.ok());
  ASSERT_EQ(kernel->program().ops_size(), 1);
  const auto& outer = kernel->program().ops(0).loop();
  ASSERT_EQ(outer.body_size(), 1);
  EXPECT_EQ(outer.body(0).loop().body(0).kind(), trace::Op::FENCE);
}

TEST(LaunchBuilderTest, ScopesDepthsIndicesAndDirectionRules) {
  LaunchBuilder l(0, "f");
  l.BeginScope(trace::ScopeBegin::AUTO);
  EXPECT_EQ(l.depth(), 1u);
  // First writer of tensor 7 in the scope: OUTPUT_EXISTING; then R-prior.
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 7, false), trace::OUTPUT_EXISTING);
  l.NoteWrites({7});
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 7, false), trace::INOUT);
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 8, false), trace::OUTPUT_EXISTING);
  // R-seq inside a sequential loop, R-enclosing for InOut jit params.
  l.EnterSequentialLoop();
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 8, false), trace::INOUT);
  l.ExitSequentialLoop();
  l.AddInOutRoot(9);
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 9, false), trace::INOUT);
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::IN, 9, true), trace::NO_DEP);
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::IN, 9, false), trace::INPUT);
  // A new scope forgets the prior writers.
  l.BeginScope(trace::ScopeBegin::MANUAL);
  EXPECT_TRUE(l.in_manual_scope());
  EXPECT_EQ(l.CallSiteDirection(trace::KernelParam::OUT, 7, false), trace::OUTPUT_EXISTING);
  EXPECT_EQ(l.AddAlloc(trace::Alloc()), 0);
  EXPECT_EQ(l.AddSubmit(trace::Submit()), 1);
  EXPECT_EQ(l.AddDummy(trace::Dummy()), 2);
  l.EndScope();
  l.EndScope();
  std::vector<int> depths;
  for (const auto& r : l.records()) {
    if (r.has_submit()) depths.push_back(r.submit().scope_depth());
    if (r.has_scope_end()) depths.push_back(-static_cast<int>(r.scope_end().depth()));
  }
  EXPECT_THAT(depths, ElementsAre(2, -2, -1));
}

TEST(ProgramBuilderTest, TensorsAre1KiBAlignedAndKernelsDeduplicated) {
  ProgramBuilder p("x.py");
  auto host = std::make_shared<HostTensor>(std::vector<int64_t>{3}, trace::FP32);
  EXPECT_EQ(p.TensorForHost(host, "h", ""), 0u);
  EXPECT_EQ(p.TensorForHost(host, "h", ""), 0u);  // same object, same tensor
  trace::TensorInit init;
  const uint32_t dev = p.NewDeviceTensor("d", trace::FP16, {1000}, true, init, "");
  EXPECT_EQ(p.tensor(dev).gm_addr(), 1024u);
  EXPECT_TRUE(p.tensor(dev).manual_dep());
  EXPECT_EQ(p.NewDeviceTensor("e", trace::FP32, {1}, false, init, ""), 2u);
  EXPECT_EQ(p.tensor(2).gm_addr(), 3072u);
  trace::Kernel k;
  k.set_name("one");
  k.set_core_type(trace::AIV);
  k.mutable_program()->add_tiles()->add_shape(4);
  EXPECT_EQ(p.AddKernel(k), 0u);
  k.set_name("other name, same program");
  EXPECT_EQ(p.AddKernel(k), 0u);
  k.mutable_program()->add_tiles()->add_shape(8);
  EXPECT_EQ(p.AddKernel(k), 1u);
}

}  // namespace
}  // namespace pto::ptoc
