#include "models/aicpu/submitter.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr TimePs kNs = 1000;  // picoseconds

// Four FP32 [4, 8] tensors (128 bytes each) and an INT32 [4, 8] flag tensor,
// each at its own GM address; the default a2a3 chip (24 clusters, 48 AIV).
class SubmitterTest : public ::testing::Test {
 protected:
  SubmitterTest()
      : tasks_([this](Task& t) {
          deps_.EraseProducer(t.seq);
          retired_.push_back(t.seq);
        }) {
    for (const char* name : {"x", "y", "z", "w", "flag"}) {
      trace::Tensor& t = tensors_.emplace_back();
      t.set_id(static_cast<uint32_t>(tensors_.size() - 1));
      t.set_name(name);
      t.set_dtype(std::string(name) == "flag" ? trace::INT32 : trace::FP32);
      t.add_shape(4);
      t.add_shape(8);
      t.set_gm_addr(0x1000 * (t.id() + 1));
      t.set_size_bytes(128);
    }
    std::vector<const trace::Tensor*> pointers;
    for (const trace::Tensor& t : tensors_) pointers.push_back(&t);
    submitter_ = std::make_unique<Submitter>(config_, pointers, tasks_, deps_);
    submitter_->BeginLaunch(0);
  }

  static trace::Arg Use(uint32_t id, trace::ArgDirection direction) {
    trace::Arg arg;
    arg.mutable_tensor()->set_tensor_id(id);
    arg.mutable_tensor()->set_direction(direction);
    return arg;
  }
  static trace::Arg Scalar(int64_t value) {
    trace::Arg arg;
    arg.mutable_scalar()->set_i(value);
    return arg;
  }
  // An AIV kernel task of one block with `args` and explicit `deps`.
  static trace::Submit Aiv(const std::string& name, std::vector<trace::Arg> args,
                           std::vector<uint32_t> deps = {}) {
    trace::Submit s;
    s.set_name(name);
    for (int32_t id : {-1, 0, -1}) s.add_kernel_ids(id);
    s.set_block_num(1);
    for (trace::Arg& a : args) *s.add_args() = a;
    for (uint32_t d : deps) s.add_deps(d);
    return s;
  }
  Submission SubmitOk(const trace::Submit& s) {
    absl::StatusOr<Submission> submission = submitter_->Submit(s);
    EXPECT_TRUE(submission.ok()) << submission.status();
    return submission.ok() ? *submission : Submission{};
  }
  void Complete(Task& task) {
    std::vector<Task*> ready;
    tasks_.Complete(task, &ready);
  }

  ChipConfig config_;
  std::deque<trace::Tensor> tensors_;
  DependencyInference deps_;
  std::vector<TaskSeq> retired_;
  TaskTable tasks_;
  std::unique_ptr<Submitter> submitter_;
};

// ---------------------------------------------------------------------------
// Decoding

TEST_F(SubmitterTest, KernelSlotsGiveTheShapeAndTheKernelCoresRun) {
  trace::Submit mix = Aiv("mix", {});
  mix.set_kernel_ids(0, 4);  // [4, 0, -1]: AIC and AIV0
  const Submission m = SubmitOk(mix);
  EXPECT_EQ(m.task->shape, TaskShape::kMix);
  EXPECT_EQ(m.task->kernel, 4);
  EXPECT_EQ(m.task->subtasks_per_block, 3);
  EXPECT_THAT(m.task->kernel_ids, ElementsAre(4, 0, -1));

  trace::Submit aiv1 = Aiv("aiv1", {});
  aiv1.set_kernel_ids(1, -1);
  aiv1.set_kernel_ids(2, 6);  // [-1, -1, 6]: AIV1 only
  const Submission v = SubmitOk(aiv1);
  EXPECT_EQ(v.task->shape, TaskShape::kAiv);
  EXPECT_EQ(v.task->kernel, 6);
  EXPECT_EQ(v.task->subtasks_per_block, 1);

  trace::Submit aic = Aiv("aic", {});
  aic.set_kernel_ids(0, 2);
  aic.set_kernel_ids(1, -1);
  const Submission c = SubmitOk(aic);
  EXPECT_EQ(c.task->shape, TaskShape::kAic);
  EXPECT_EQ(c.task->kernel, 2);
  EXPECT_EQ(c.task->name, "aic");
  EXPECT_EQ(c.task->index_in_launch, 2u);
}

TEST_F(SubmitterTest, BlockSymbolsCountTheConfiguredCores) {
  trace::Submit all_aiv = Aiv("all_aiv", {});
  all_aiv.set_block_symbol(trace::AVAILABLE_AIV);
  EXPECT_EQ(SubmitOk(all_aiv).task->block_num, 48);  // 24 clusters x 2
  trace::Submit all_clusters = Aiv("all_clusters", {});
  all_clusters.set_block_symbol(trace::AVAILABLE_CLUSTER);
  EXPECT_EQ(SubmitOk(all_clusters).task->block_num, 24);
  trace::Submit seven = Aiv("seven", {});
  seven.set_block_num(7);
  EXPECT_EQ(SubmitOk(seven).task->block_num, 7);
}

TEST_F(SubmitterTest, PredicateResolvesToTheElementsAddress) {
  trace::Submit s = Aiv("gated", {});
  trace::Predicate* p = s.mutable_predicate();
  p->set_tensor_id(4);  // flag: INT32 [4, 8] at 0x5000
  p->add_indices(2);
  p->add_indices(3);
  p->set_op(trace::Predicate::NE);
  p->set_target(-9);
  const ResolvedPredicate& resolved = SubmitOk(s).task->predicate;
  EXPECT_TRUE(resolved.present);
  EXPECT_EQ(resolved.addr, 0x5000u + (2 * 8 + 3) * 4);  // 0x504c
  EXPECT_EQ(resolved.dtype, trace::INT32);
  EXPECT_EQ(resolved.op, trace::Predicate::NE);
  EXPECT_EQ(resolved.target, -9);
  EXPECT_FALSE(SubmitOk(Aiv("plain", {})).task->predicate.present);
}

TEST_F(SubmitterTest, SyncStartCohortMustFitTheChip) {
  trace::Submit fits = Aiv("fits", {});
  fits.set_sync_start(true);
  fits.set_block_num(48);  // every AIV
  EXPECT_TRUE(SubmitOk(fits).task->sync_start);

  trace::Submit wide = Aiv("wide", {});
  wide.set_sync_start(true);
  wide.set_block_num(49);
  absl::StatusOr<Submission> refused = submitter_->Submit(wide);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(refused.status().message(),
            "submit 'wide': sync_start with 49 blocks, but the chip has only 48 AIV cores "
            "(REQUIRE_SYNC_START_INVALID): every block must be co-resident");

  trace::Submit mix = Aiv("mix", {});
  mix.set_kernel_ids(0, 1);
  mix.set_sync_start(true);
  mix.set_block_num(25);  // MIX blocks take whole clusters: 24
  EXPECT_THAT(submitter_->Submit(mix).status().message(),
              HasSubstr("sync_start with 25 blocks, but the chip has only 24 clusters"));

  trace::Submit one = Aiv("one", {});
  one.set_sync_start(true);  // a single block is always co-resident
  EXPECT_TRUE(submitter_->Submit(one).ok());
}

TEST_F(SubmitterTest, DummyAndAllocTasks) {
  trace::Dummy dummy;
  dummy.set_allow_early_resolve(true);
  absl::StatusOr<Submission> d = submitter_->SubmitDummy(dummy);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->task->shape, TaskShape::kDummy);
  EXPECT_EQ(d->task->name, "dummy");
  EXPECT_TRUE(d->task->allow_early_resolve);
  EXPECT_EQ(d->cost.total(), 197 * kNs);  // base only: no arguments

  trace::Alloc alloc;
  alloc.add_tensor_ids(2);
  alloc.add_tensor_ids(3);
  EXPECT_EQ(submitter_->AllocHeapBytes(alloc), 256);
  Task& a = submitter_->Alloc(alloc);
  EXPECT_EQ(a.shape, TaskShape::kAlloc);
  EXPECT_EQ(a.heap_bytes, 256);
  EXPECT_EQ(a.fanin_pending, 0);  // completed inline, never published
  EXPECT_TRUE(a.fully_published);
  EXPECT_EQ(a.index_in_launch, 1u);
}

// ---------------------------------------------------------------------------
// Inference, wiring and cost

TEST_F(SubmitterTest, CostSplitFollowsTheInferenceCounts) {
  // w writes x (OUTPUT_EXISTING): 1 tensor arg, no lookup, 1 registration.
  const Submission w = SubmitOk(Aiv("w", {Use(0, trace::OUTPUT_EXISTING)}));
  EXPECT_EQ(w.cost.base, 197 * kNs);
  EXPECT_EQ(w.cost.param_copy, 32 * kNs);
  EXPECT_EQ(w.cost.lookup, 0);
  EXPECT_EQ(w.cost.insert, 113 * kNs);
  EXPECT_EQ(w.cost.total(), 342 * kNs);
  EXPECT_TRUE(w.edges.empty());

  // r reads x and updates y, after a scalar: 2 tensor args, 2 lookups
  // probing x's one entry (y has none), 1 registration (y).
  const Submission r = SubmitOk(Aiv("r", {Scalar(3), Use(0, trace::INPUT), Use(1, trace::INOUT)}));
  EXPECT_EQ(r.cost.base, 197 * kNs);
  EXPECT_EQ(r.cost.param_copy, 64 * kNs);
  EXPECT_EQ(r.cost.lookup, (2 * 125 + 1 * 20) * kNs);
  EXPECT_EQ(r.cost.insert, 113 * kNs);
  EXPECT_EQ(r.cost.total(), 644 * kNs);
  ASSERT_EQ(r.edges.size(), 1u);
  EXPECT_EQ(r.edges[0].producer, w.task->seq);
  EXPECT_EQ(r.edges[0].source, EdgeSource::kTensorMap);
  EXPECT_EQ(r.edges[0].arg_index, 1);  // the task's arg 1: x, behind the scalar
  EXPECT_EQ(r.task->args.size(), 3u);
  EXPECT_FALSE(r.task->args[0].is_tensor);
  EXPECT_EQ(r.task->args[0].scalar_i, 3);

  // Each part is rounded to picoseconds once, after summing: 0.0003 ns per
  // lookup and 0.0004 ns per probe are 0.7 ps together (1 ps), though either
  // alone would round to 0.
  config_.aicpu.submit_per_probe_ns = 0.0004;
  config_.aicpu.submit_per_lookup_ns = 0.0003;
  const Submission q = SubmitOk(Aiv("q", {Use(0, trace::INPUT)}));
  EXPECT_EQ(q.cost.lookup, 1);  // 0.0003 + 0.0004 = 0.0007 ns = 0.7 ps -> 1 ps
}

TEST_F(SubmitterTest, WiringWaitsOnUnfinishedProducersAndRetainsCreatorsAndExplicitDeps) {
  const Submission t0 = SubmitOk(Aiv("t0", {Use(0, trace::OUTPUT_EXISTING)}));
  const Submission t1 = SubmitOk(Aiv("t1", {Use(1, trace::OUTPUT_EXISTING)}));
  // t2: explicit dep on t0; reads y (t1) and updates x (t0).
  const Submission t2 = SubmitOk(Aiv("t2", {Use(1, trace::INPUT), Use(0, trace::INOUT)}, {0}));
  ASSERT_EQ(t2.edges.size(), 3u);
  EXPECT_EQ(t2.edges[0].source, EdgeSource::kExplicit);
  EXPECT_EQ(t2.edges[0].producer, t0.task->seq);
  EXPECT_EQ(t2.edges[1].producer, t1.task->seq);
  EXPECT_EQ(t2.edges[1].arg_index, 0);
  EXPECT_EQ(t2.edges[2].producer, t0.task->seq);
  EXPECT_EQ(t2.edges[2].arg_index, 1);
  // Two unique producers, both unfinished: two dep-list entries.
  EXPECT_EQ(t2.task->producers, 2);
  EXPECT_EQ(t2.task->fanin_pending, 3);  // + the publish hold
  EXPECT_EQ(Submitter::DepListEntries(*t2.task), 2);
  EXPECT_EQ(t2.dep_entries_needed, 2);
  EXPECT_THAT(t0.task->consumers, ElementsAre(t2.task));
  EXPECT_THAT(t1.task->consumers, ElementsAre(t2.task));
  // The explicit edge retains t0; tensor-map edges only wait.
  EXPECT_EQ(t0.task->retain_pins, 1);
  EXPECT_EQ(t1.task->retain_pins, 0);
  EXPECT_THAT(t2.task->retained, ElementsAre(t0.task));
  // lookup: 2 lookups probing 1 entry each; x's entry is covered and
  // replaced by t2's.
  EXPECT_EQ(t2.cost.lookup, (2 * 125 + 2 * 20) * kNs);

  // A completed producer is waited on no more. (Completion follows the
  // edges: a consumer never completes before its producers.)
  Complete(*t0.task);
  Complete(*t2.task);
  const Submission t3 = SubmitOk(Aiv("t3", {Use(0, trace::INPUT), Use(1, trace::INPUT)}));
  EXPECT_EQ(t3.task->producers, 2);  // t2 (x) and t1 (y)
  EXPECT_EQ(t3.task->fanin_pending, 2);
  EXPECT_EQ(Submitter::DepListEntries(*t3.task), 1);  // only t1 is unfinished
  // The runtime reserves room for every claimed producer, completed or not.
  EXPECT_EQ(t3.dep_entries_needed, 2);
}

TEST_F(SubmitterTest, RetiredProducersAreNotClaimedAndCompletedOnesNeedNoEntries) {
  submitter_->OpenScope(trace::ScopeBegin::AUTO, 1);
  Task& gone = *SubmitOk(Aiv("gone", {Use(0, trace::OUTPUT_EXISTING)})).task;
  Complete(gone);
  submitter_->CloseScope();
  ASSERT_TRUE(tasks_.IsRetired(0));
  Task& live = *SubmitOk(Aiv("live", {Use(1, trace::OUTPUT_EXISTING)})).task;
  // An explicit edge to the retired task and a tensor-map edge to `live`.
  const Submission both = SubmitOk(Aiv("both", {Use(1, trace::INPUT)}, {0}));
  EXPECT_EQ(both.task->producers, 2);
  EXPECT_EQ(both.dep_entries_needed, 1);
  EXPECT_EQ(Submitter::DepListEntries(*both.task), 1);
  // Every claimed producer has completed: no dep-list entry at all.
  Complete(live);
  const Submission done = SubmitOk(Aiv("done", {Use(1, trace::INPUT)}));
  EXPECT_EQ(done.task->producers, 1);
  EXPECT_EQ(done.dep_entries_needed, 0);
  EXPECT_EQ(Submitter::DepListEntries(*done.task), 0);
}

TEST_F(SubmitterTest, AllocCreatesItsTensorsForCreatorRetention) {
  trace::Alloc alloc;
  alloc.add_tensor_ids(2);
  Task& a = submitter_->Alloc(alloc);
  Complete(a);
  const Submission use = SubmitOk(Aiv("use", {Use(2, trace::INPUT)}));
  ASSERT_EQ(use.edges.size(), 1u);
  EXPECT_EQ(use.edges[0].source, EdgeSource::kCreator);
  EXPECT_EQ(use.edges[0].producer, a.seq);
  // Retained though completed; nothing to wait for.
  EXPECT_EQ(a.retain_pins, 1);
  EXPECT_EQ(Submitter::DepListEntries(*use.task), 0);
  EXPECT_EQ(use.dep_entries_needed, 0);
  // An OUTPUT arg makes its task the creator.
  const Submission out = SubmitOk(Aiv("out", {Use(3, trace::OUTPUT)}));
  const Submission reader = SubmitOk(Aiv("reader", {Use(3, trace::INPUT)}));
  ASSERT_EQ(reader.edges.size(), 1u);
  EXPECT_EQ(reader.edges[0].source, EdgeSource::kCreator);
  EXPECT_EQ(reader.edges[0].producer, out.task->seq);
}

TEST_F(SubmitterTest, EarlyDispatchFlagsFollowTheProducers) {
  trace::Submit flagged = Aiv("flagged", {Use(0, trace::OUTPUT_EXISTING)});
  flagged.set_allow_early_resolve(true);
  SubmitOk(flagged);
  const Submission waits = SubmitOk(Aiv("waits", {Use(0, trace::INPUT)}));
  EXPECT_EQ(waits.task->early_waiting, 1);
  EXPECT_FALSE(waits.task->early_blocked);

  SubmitOk(Aiv("unflagged", {Use(1, trace::OUTPUT_EXISTING)}));
  const Submission blocked = SubmitOk(Aiv("blocked", {Use(1, trace::INPUT)}));
  EXPECT_TRUE(blocked.task->early_blocked);
}

TEST_F(SubmitterTest, ExplicitDepsCountFromTheLaunchsFirstTask) {
  SubmitOk(Aiv("a", {}));
  const Submission b = SubmitOk(Aiv("b", {}, {0}));
  ASSERT_EQ(b.edges.size(), 1u);
  EXPECT_EQ(b.edges[0].producer, 0u);
  for (TaskSeq seq : {TaskSeq{0}, TaskSeq{1}}) Complete(*tasks_.Find(seq));
  tasks_.ReleaseConsumer(*b.task);  // b's explicit edge retained a
  submitter_->CloseScope();         // the launch's outer scope: both retire
  EXPECT_EQ(tasks_.live_tasks(), 0u);

  submitter_->BeginLaunch(1);
  const Submission c = SubmitOk(Aiv("c", {}));
  const Submission d = SubmitOk(Aiv("d", {}, {0}));
  EXPECT_EQ(c.task->launch, 1u);
  EXPECT_EQ(c.task->index_in_launch, 0u);
  EXPECT_EQ(d.edges[0].producer, c.task->seq);  // seq 2, index 0 of launch 1
  EXPECT_EQ(d.task->index_in_launch, 1u);
}

// ---------------------------------------------------------------------------
// Scopes and host reads

TEST_F(SubmitterTest, ScopesChooseTheRingAndReleaseTheirTasksWhenTheyEnd) {
  EXPECT_EQ(submitter_->ring(), 0);
  submitter_->OpenScope(trace::ScopeBegin::AUTO, 1);
  EXPECT_EQ(submitter_->ring(), 1);
  Task& first = *SubmitOk(Aiv("first", {})).task;
  Task& second = *SubmitOk(Aiv("second", {})).task;
  EXPECT_EQ(first.ring, 1);
  EXPECT_EQ(first.scope_depth, 1u);
  EXPECT_EQ(submitter_->scope_depth(), 1u);
  EXPECT_EQ(submitter_->scope_tasks(), 2u);
  for (uint32_t depth : {2u, 3u, 4u, 5u}) submitter_->OpenScope(trace::ScopeBegin::AUTO, depth);
  EXPECT_EQ(submitter_->ring(), 3);  // min(depth, 3)
  for (int i = 0; i < 4; ++i) submitter_->CloseScope();

  Complete(first);
  Complete(second);
  EXPECT_TRUE(retired_.empty());  // scope still open
  submitter_->CloseScope();
  EXPECT_THAT(retired_, ElementsAre(0, 1));
  EXPECT_TRUE(submitter_->scope_open());  // the outer scope
  submitter_->CloseScope();
  EXPECT_FALSE(submitter_->scope_open());
}

TEST_F(SubmitterTest, ManualScopeSkipsTheTensorMap) {
  SubmitOk(Aiv("w", {Use(0, trace::OUTPUT_EXISTING)}));
  submitter_->OpenScope(trace::ScopeBegin::MANUAL, 1);
  const Submission r = SubmitOk(Aiv("r", {Use(0, trace::INPUT)}, {0}));
  EXPECT_TRUE(r.task->manual_scope);
  ASSERT_EQ(r.edges.size(), 1u);  // the explicit dep only
  EXPECT_EQ(r.edges[0].source, EdgeSource::kExplicit);
  EXPECT_EQ(r.cost.lookup, 0);
}

TEST_F(SubmitterTest, HostReadWaitsForTheElementsProducer) {
  Task& w = *SubmitOk(Aiv("w", {Use(0, trace::OUTPUT_EXISTING)})).task;
  trace::HostRead read;
  read.set_tensor_id(0);
  read.add_indices(1);
  read.add_indices(2);
  EXPECT_FALSE(submitter_->HostReadReady(read));
  trace::HostRead other = read;
  other.set_tensor_id(1);  // nobody writes y
  EXPECT_TRUE(submitter_->HostReadReady(other));
  Complete(w);
  EXPECT_TRUE(submitter_->HostReadReady(read));
}

}  // namespace
}  // namespace pto
