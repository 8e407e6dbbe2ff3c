// Golden tests on the streams ptoc emits for every trace in traces/*.py.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "frontend/stream_summary.h"
#include "frontend/testing/compile.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;

// The build's recorded stream of traces/<name>.py (ptoc ran the script).
trace::TraceText CompileTrace(const std::string& name) {
  return LoadStream(std::string(PTO_BUILD_TRACES_DIR) + "/" + name + ".pb");
}

int CountSubmits(const LaunchSummary& l) {
  int n = 0;
  for (const auto& t : l.tasks) n += t.kind == "submit";
  return n;
}

TEST(GoldenTest, CompilationIsDeterministic) {
  for (const char* name : {"gated", "tensor_claim", "mixed_kernel"}) {
    EXPECT_EQ(CompileTrace(name).SerializeAsString(), CompileTrace(name).SerializeAsString())
        << name;
  }
}

TEST(GoldenTest, SpmdBlocksFile_PerBlockTasksThenOneSpmdTask) {
  auto launches = Summarize(CompileTrace("spmd_blocks"));
  ASSERT_EQ(launches.size(), 2u);
  const LaunchSummary& per_block = launches[0];
  EXPECT_EQ(per_block.name, "per_block_tasks");
  ASSERT_EQ(CountSubmits(per_block), 4);
  // Unrolled siblings in one scope: c is OUTPUT_EXISTING, then INOUT (R-prior).
  for (int i = 0; i < 4; ++i) {
    const TaskSummary& t = per_block.tasks[i];
    EXPECT_EQ(t.core_type, trace::AIV);
    EXPECT_EQ(t.block_num, 1);
    EXPECT_EQ(t.scope_depth, 1u);
    EXPECT_TRUE(t.deps.empty());
    ASSERT_EQ(t.directions.size(), 3u);
    EXPECT_EQ(t.directions[0], trace::INPUT);
    EXPECT_EQ(t.directions[1], trace::INPUT);
    EXPECT_EQ(t.directions[2], i == 0 ? trace::OUTPUT_EXISTING : trace::INOUT);
  }
  EXPECT_EQ(per_block.scope_shape, "A1 T T T T E1 ");

  const LaunchSummary& spmd = launches[1];
  EXPECT_EQ(spmd.name, "spmd_blocks");
  ASSERT_EQ(CountSubmits(spmd), 1);
  EXPECT_EQ(spmd.tasks[0].block_num, 4);
  EXPECT_THAT(spmd.tasks[0].directions,
              ElementsAre(trace::INPUT, trace::INPUT, trace::OUTPUT_EXISTING));
}

TEST(GoldenTest, SpmdKernelIndexesRowsByBlockIdxNotPerBlockCopies) {
  trace::TraceText t = CompileTrace("spmd_blocks");
  // The SPMD kernel is the last one; its load offsets are BLOCK_IDX * 64.
  const auto& program = Kernels(t).back()->program();
  ASSERT_GE(program.ops_size(), 1);
  const auto& load = program.ops(0);
  EXPECT_EQ(load.kind(), trace::Op::LOAD);
  ASSERT_EQ(load.offsets(0).kind_case(), trace::IntExpr::kBinary);
  EXPECT_EQ(load.offsets(0).binary().op(), trace::IntExpr::MUL);
  EXPECT_EQ(load.offsets(0).binary().lhs().var(), trace::IntExpr::BLOCK_IDX);
  EXPECT_EQ(load.offsets(0).binary().rhs().constant(), 64);
  EXPECT_EQ(load.offsets(1).constant(), 0);
}

TEST(GoldenTest, GatedTwoLaunchesWithPredicateAndExplicitDep) {
  trace::TraceText t = CompileTrace("gated");
  auto launches = Summarize(t);
  ASSERT_EQ(launches.size(), 2u);
  for (const LaunchSummary& l : launches) {
    EXPECT_EQ(l.scope_shape, "A1 M2 T T E2 E1 ");
    ASSERT_EQ(CountSubmits(l), 2);
    EXPECT_EQ(l.tasks[0].block_num, 4);
    EXPECT_FALSE(l.tasks[0].has_predicate);
    EXPECT_THAT(l.tasks[0].directions, ElementsAre(trace::INPUT, trace::OUTPUT_EXISTING));
    EXPECT_EQ(l.tasks[1].block_num, 4);
    EXPECT_TRUE(l.tasks[1].has_predicate);
    EXPECT_THAT(l.tasks[1].deps, ElementsAre(0u));
    EXPECT_THAT(l.tasks[1].directions, ElementsAre(trace::INOUT));
    EXPECT_EQ(l.tasks[1].scope_depth, 2u);
  }
  // The predicate reads gate[0, 0] > 0 of each launch's own gate tensor.
  int checks = 0;
  std::vector<uint32_t> gate_ids;
  for (const auto& r : t.records()) {
    if (r.has_submit() && r.submit().has_predicate()) {
      const auto& p = r.submit().predicate();
      EXPECT_EQ(p.op(), trace::Predicate::GT);
      EXPECT_EQ(p.target(), 0);
      EXPECT_THAT(p.indices(), ElementsAre(0, 0));
      gate_ids.push_back(p.tensor_id());
    }
    checks += r.has_check();
  }
  EXPECT_EQ(checks, 2);
  ASSERT_EQ(gate_ids.size(), 2u);
  const trace::Tensor* gate0 = TensorById(t, gate_ids[0]);
  const trace::Tensor* gate1 = TensorById(t, gate_ids[1]);
  ASSERT_NE(gate0, nullptr);
  ASSERT_NE(gate1, nullptr);
  EXPECT_EQ(gate0->dtype(), trace::INT32);
  EXPECT_TRUE(gate0->init().zeros());
  EXPECT_EQ(gate1->init().data(), std::string("\x01\x00\x00\x00", 4));
  // Each call declares the two kernels it runs.
  EXPECT_EQ(Kernels(t).size(), 4u);
}

// CPython made the inputs (torch.randn): they travel as the bytes it made,
// named as the script names them; the expected values of each check too.
TEST(GoldenTest, GatedInputsAndExpectedValuesTravelAsBytes) {
  trace::TraceText t = CompileTrace("gated");
  const auto& a = t.header().tensors(0);
  EXPECT_EQ(a.name(), "A");
  EXPECT_EQ(a.init().data().size(), a.size_bytes());
  for (const auto& tensor : t.header().tensors()) EXPECT_EQ(tensor.gm_addr() % 1024, 0u);
  for (const auto& r : t.records()) {
    if (!r.has_check()) continue;
    EXPECT_EQ(r.check().expected().data().size(), 256u * 128u * 4u);
    EXPECT_DOUBLE_EQ(r.check().rtol(), 1e-4);
  }
}

TEST(GoldenTest, EarlyResolveProducerFlaggedConsumerNot) {
  auto launches = Summarize(CompileTrace("early_resolve"));
  ASSERT_EQ(launches.size(), 1u);
  const LaunchSummary& l = launches[0];
  ASSERT_EQ(CountSubmits(l), 2);
  EXPECT_TRUE(l.tasks[0].allow_early_resolve);
  EXPECT_FALSE(l.tasks[1].allow_early_resolve);
  EXPECT_THAT(l.tasks[0].directions,
              ElementsAre(trace::INPUT, trace::INPUT, trace::OUTPUT_EXISTING));
  // The consumer reads scratch (RAW edge inferred by the runtime) and writes out.
  EXPECT_THAT(l.tasks[1].directions, ElementsAre(trace::INPUT, trace::OUTPUT_EXISTING));
  EXPECT_EQ(l.tasks[1].tensor_ids[0], l.tasks[0].tensor_ids[2]);
}

TEST(GoldenTest, SerializedRangeBodiesAreScopesAndOutIsInoutBySeq) {
  auto launches = Summarize(CompileTrace("serialized"));
  ASSERT_EQ(launches.size(), 1u);
  const LaunchSummary& l = launches[0];
  ASSERT_EQ(CountSubmits(l), 4);
  EXPECT_EQ(l.scope_shape, "A1 A2 T E2 A2 T E2 A2 T E2 A2 T E2 E1 ");
  for (const auto& t : l.tasks) {
    EXPECT_EQ(t.scope_depth, 2u);
    EXPECT_THAT(t.directions, ElementsAre(trace::INPUT, trace::INOUT));
  }
}

TEST(GoldenTest, NarrowClaimMarksOutNoDep) {
  auto launches = Summarize(CompileTrace("narrow_claim"));
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(CountSubmits(launches[0]), 4);
  for (const auto& t : launches[0].tasks) {
    EXPECT_THAT(t.directions, ElementsAre(trace::INPUT, trace::NO_DEP));
    EXPECT_TRUE(t.deps.empty());
  }
}

TEST(GoldenTest, RegionClaimOpensNoScopeInsideTheManualScope) {
  auto launches = Summarize(CompileTrace("region_claim"));
  ASSERT_EQ(launches.size(), 1u);
  const LaunchSummary& l = launches[0];
  ASSERT_EQ(CountSubmits(l), 4);
  EXPECT_EQ(l.scope_shape, "A1 M2 T T T T E2 E1 ");
  for (const auto& t : l.tasks) EXPECT_EQ(t.scope_depth, 2u);
}

TEST(GoldenTest, TensorClaimCopyDependsOnTheWholeWritersArray) {
  trace::TraceText trace = CompileTrace("tensor_claim");
  auto launches = Summarize(trace);
  ASSERT_EQ(launches.size(), 1u);
  const LaunchSummary& l = launches[0];
  ASSERT_EQ(CountSubmits(l), 5);
  ASSERT_EQ(l.tasks.size(), 6u);
  EXPECT_EQ(l.tasks[0].kind, "alloc");
  EXPECT_EQ(l.tasks[0].scope_depth, 1u);
  const TaskSummary& copy = l.tasks[5];
  EXPECT_THAT(copy.deps, ElementsAre(1u, 2u, 3u, 4u));
  EXPECT_EQ(copy.scope_depth, 1u);
  EXPECT_THAT(copy.directions, ElementsAre(trace::INPUT, trace::OUTPUT_EXISTING));
  // The scratch tensor is manual_dep and created by the alloc.
  const uint32_t scratch = copy.tensor_ids[0];
  EXPECT_TRUE(trace.header().tensors(scratch).manual_dep());
  // The copy's kernel is one device loop over the four bands.
  for (const auto& r : trace.records()) {
    if (!r.has_submit() || r.submit().deps_size() == 0) continue;
    const auto& program = trace.header().kernels(r.submit().kernel_ids(1)).program();
    ASSERT_EQ(program.ops_size(), 1);
    EXPECT_EQ(program.ops(0).kind(), trace::Op::LOOP);
    EXPECT_EQ(program.ops(0).loop().stop().constant(), 4);
    EXPECT_EQ(program.ops(0).loop().body_size(), 2);
  }
}

// traces/loop_carry.py writes one accumulation twice, by rebinding and with
// init_values= + pl.yield_: both are the same op program with one carry.
TEST(GoldenTest, LoopCarrySpellingsCompileToOneProgram) {
  trace::TraceText t = CompileTrace("loop_carry");
  const std::vector<const trace::Kernel*> kernels = Kernels(t);
  ASSERT_EQ(kernels.size(), 2u);
  // Equal but for the source lines each op came from.
  std::function<void(google::protobuf::RepeatedPtrField<trace::Op>*)> clear_origins =
      [&](auto* ops) {
        for (trace::Op& op : *ops) {
          op.clear_origin();
          clear_origins(op.mutable_loop()->mutable_body());
        }
      };
  trace::KernelProgram rebound = kernels[0]->program();
  trace::KernelProgram yielded = kernels[1]->program();
  clear_origins(rebound.mutable_ops());
  clear_origins(yielded.mutable_ops());
  EXPECT_EQ(rebound.SerializeAsString(), yielded.SerializeAsString());
  const trace::Op* loop = nullptr;
  for (const trace::Op& op : rebound.ops()) {
    if (op.kind() == trace::Op::LOOP) loop = &op;
  }
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->loop().carries_size(), 1);
  const trace::Op::Loop::Carry& carry = loop->loop().carries(0);
  EXPECT_TRUE(carry.has_init());
  EXPECT_EQ(rebound.tiles(carry.tile()).shape(0), 16);
  EXPECT_EQ(rebound.tiles(carry.tile()).shape(1), 1);
  // The body's last op (the add) makes the next value.
  EXPECT_EQ(loop->loop().body(loop->loop().body_size() - 1).dst(), carry.next());
}

TEST(GoldenTest, MixedKernelStagedIsTwoTasksMixedFormsAreOneMixTask) {
  trace::TraceText t = CompileTrace("mixed_kernel");
  auto launches = Summarize(t);
  ASSERT_EQ(launches.size(), 3u);
  const LaunchSummary& staged = launches[0];
  ASSERT_EQ(CountSubmits(staged), 2);
  ASSERT_EQ(staged.tasks.size(), 2u);
  EXPECT_EQ(staged.tasks[0].name, "cube_only");
  EXPECT_EQ(staged.tasks[0].core_type, trace::AIC);
  EXPECT_EQ(staged.tasks[1].name, "vector_only");
  EXPECT_EQ(staged.tasks[1].core_type, trace::AIV);
  // The edge cube -> vector goes through the intermediate `acc`: a
  // runtime-allocated output of the cube task, an input of the vector task.
  EXPECT_EQ(staged.tasks[0].directions.back(), trace::OUTPUT);
  const trace::Tensor* acc = TensorById(t, staged.tasks[0].tensor_ids.back());
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->name(), "acc");
  EXPECT_EQ(staged.tasks[1].directions[0], trace::INPUT);
  EXPECT_EQ(staged.tasks[1].tensor_ids[0], staged.tasks[0].tensor_ids.back());
  const trace::SplitMode splits[] = {trace::SPLIT_UP_DOWN, trace::SPLIT_LEFT_RIGHT};
  for (int i = 1; i <= 2; ++i) {
    ASSERT_EQ(CountSubmits(launches[i]), 1);
    const TaskSummary& mix = launches[i].tasks[0];
    EXPECT_EQ(mix.core_type, trace::MIX);
    EXPECT_THAT(mix.directions,
                ElementsAre(trace::INPUT, trace::INPUT, trace::INPUT, trace::OUTPUT_EXISTING));
  }
  int mix_kernels = 0;
  for (const trace::Kernel* k : Kernels(t)) {
    if (k->core_type() != trace::MIX) continue;
    EXPECT_EQ(k->program().split(), splits[mix_kernels]);
    EXPECT_EQ(k->program().slot_num(), 2u);
    ++mix_kernels;
  }
  EXPECT_EQ(mix_kernels, 2);
}

TEST(GoldenTest, SlicedTasksWriteDisjointViews) {
  auto launches = Summarize(CompileTrace("sliced"));
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(CountSubmits(launches[0]), 4);
  trace::TraceText t = CompileTrace("sliced");
  int i = 0;
  for (const auto& r : t.records()) {
    if (!r.has_submit()) continue;
    const auto& part = r.submit().args(1).tensor();
    EXPECT_EQ(part.direction(), trace::INOUT);  // R-seq; disjoint regions keep them unordered
    EXPECT_THAT(part.offsets(), ElementsAre(64 * i, 0));
    EXPECT_THAT(part.shape(), ElementsAre(64, 128));
    EXPECT_TRUE(r.submit().deps().empty());
    ++i;
  }
}

// The barrier op of the only kernel of a trace.
trace::Op FindSyncall(const trace::TraceText& t) {
  for (const auto& op : t.header().kernels(0).program().ops()) {
    if (op.kind() == trace::Op::SYNCALL) return op;
  }
  ADD_FAILURE() << "no SYNCALL";
  return trace::Op();
}

TEST(GoldenTest, SoftBarrierIsOneSpmdTaskWithAGmPollingSyncall) {
  trace::TraceText t = CompileTrace("soft_barrier");
  auto launches = Summarize(t);
  ASSERT_EQ(CountSubmits(launches[0]), 1);
  const TaskSummary& task = launches[0].tasks[0];
  EXPECT_EQ(task.block_num, 4);
  EXPECT_FALSE(task.sync_start);
  EXPECT_THAT(task.directions, ElementsAre(trace::INPUT, trace::INOUT, trace::OUTPUT_EXISTING));
  const trace::Op sync = FindSyncall(t);
  EXPECT_EQ(sync.sync().mode(), trace::Op::SOFT);
  EXPECT_EQ(sync.sync().core_type(), trace::AIV);
  EXPECT_EQ(sync.sync().workspace_param(), 1u);
  EXPECT_EQ(sync.sync().used_cores().constant(), 4);
  EXPECT_EQ(t.header().tensors(task.tensor_ids[1]).dtype(), trace::INT32);
}

TEST(GoldenTest, HardBarrierFillsEveryAivSymbolicallyWithSyncStart) {
  trace::TraceText t = CompileTrace("hard_barrier");
  auto launches = Summarize(t);
  ASSERT_EQ(CountSubmits(launches[0]), 1);
  const TaskSummary& task = launches[0].tasks[0];
  EXPECT_EQ(task.block_num, 0);
  EXPECT_EQ(task.block_symbol, trace::AVAILABLE_AIV);
  EXPECT_TRUE(task.sync_start);
  const trace::Op sync = FindSyncall(t);
  EXPECT_EQ(sync.sync().mode(), trace::Op::HARD);
  EXPECT_EQ(sync.sync().core_type(), trace::AIV);
}

TEST(GoldenTest, CrossCoreRingStreamsFourTilesInOneDeviceLoop) {
  trace::TraceText t = CompileTrace("cross_core_ring");
  auto launches = Summarize(t);
  ASSERT_EQ(CountSubmits(launches[0]), 1);
  EXPECT_EQ(launches[0].tasks[0].core_type, trace::MIX);
  const auto& program = t.header().kernels(0).program();
  EXPECT_EQ(program.slot_num(), 2u);
  const trace::Op* loop = nullptr;
  for (const auto& op : program.ops()) {
    if (op.kind() == trace::Op::LOOP) loop = &op;
  }
  ASSERT_NE(loop, nullptr);
  EXPECT_GE(loop->loop().stop().constant(), 3);
  bool cube = false, vector = false;
  for (const auto& op : loop->loop().body()) {
    cube |= op.kind() == trace::Op::MATMUL && op.engine() == trace::ENGINE_CUBE;
    vector |= op.kind() == trace::Op::ADD && op.engine() == trace::ENGINE_VECTOR;
  }
  EXPECT_TRUE(cube && vector);
}

TEST(GoldenTest, CubeSpacesMoveIntoL0AndAccumulateOverK) {
  trace::TraceText t = CompileTrace("cube_spaces");
  auto launches = Summarize(t);
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].tasks[0].core_type, trace::AIC);
  EXPECT_EQ(launches[1].tasks[0].core_type, trace::AIC);
  EXPECT_EQ(launches[2].tasks[0].core_type, trace::MIX);  // the Acc -> Vec move
  const std::vector<const trace::Kernel*> kernels = Kernels(t);
  ASSERT_EQ(kernels.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const auto& program = kernels[k]->program();
    int moves = 0, accumulating = 0, with_init = 0;
    std::function<void(const google::protobuf::RepeatedPtrField<trace::Op>&)> count =
        [&](const auto& ops) {
          for (const trace::Op& op : ops) {
            moves += op.kind() == trace::Op::MOVE;
            accumulating += op.kind() == trace::Op::MATMUL && op.accumulate();
            with_init += op.has_init_cond();
            if (op.kind() == trace::Op::LOOP) count(op.loop().body());
          }
        };
    count(program.ops());
    EXPECT_EQ(moves, k == 2 ? 5 : 4) << k;
    EXPECT_EQ(accumulating, 1) << k;
    EXPECT_EQ(with_init, k == 0 ? 0 : 1) << k;
  }
}

}  // namespace
}  // namespace pto::ptoc
