#include "sim/pipe_stats.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/core_phases.h"
#include "models/core/testing/exp_loop.h"
#include "models/core/testing/fake_task_port.h"
#include "models/core/testing/kernel_builder.h"

namespace pto {
namespace {

using ::pto::core_testing::ExpLoop;
using ::pto::core_testing::FakeTaskPort;
using ::pto::core_testing::Row64;
using ::pto::kernel_testing::C;
using ::pto::kernel_testing::KernelBuilder;

// One tile loaded, 400 EXPs on it in place (4 ns each at 1 GHz), stored.
CompiledKernel ExpHeavy() {
  KernelBuilder kb("exp_heavy");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t t = kb.Tile("t", {1, 16}, trace::FP32);
  kb.Load(t, x, {C(0), C(0)});
  kb.BeginLoop(0, C(0), C(1600));
  kb.Unary(trace::Op::EXP, t, t);
  kb.EndLoop();
  kb.Store(t, y, {C(0), C(0)});
  return *CompileKernel(kb.kernel());
}

// One AIV core (CorePhases) running one block at a time at 1 GHz, its
// transfers timed by the test: a load lands `load` after it starts, a store
// `store` after (a transfer takes at least its core-side 123 ns). What the
// core reports on its pipes goes to `stats`.
class OneCore : public CoreHost, public CoreOwner, public CoreObserver {
 public:
  OneCore(TimePs load, TimePs store) : load_(load), store_(store) {
    config_.chip.aicore_clock_hz = 1e9;
  }

  // Runs `kernel` (one block) on a fresh core to its end; returns its task.
  TaskSeq Run(CompiledKernel kernel) {
    kernels_.push_back(std::move(kernel));
    const TaskSeq task =
        tasks_.Add("t", static_cast<int32_t>(kernels_.size() - 1), {Row64(0x1000), Row64(0x2000)});
    CoreDeps deps;
    deps.config = &config_;
    deps.tasks = &tasks_;
    deps.observer = this;
    deps.failure = &failure_;
    deps.host = this;
    core_ = std::make_unique<CorePhases>(/*id=*/0, CoreKind::kAiv, /*cluster=*/0, deps);
    core_->set_owner(this);
    BlockWork work;
    work.task = task;
    work.kernel = static_cast<int32_t>(kernels_.size() - 1);
    work.token = ++token_;
    core_->Dispatch(now_, work, /*publish_delay=*/0);
    while (!failure_.failed()) {
      // The earliest landing not yet told, else the next wake.
      size_t next = transfers_.size();
      for (size_t i = 0; i < transfers_.size(); ++i) {
        if (!transfers_[i].landed &&
            (next == transfers_.size() || transfers_[i].due < transfers_[next].due)) {
          next = i;
        }
      }
      const TimePs due = next < transfers_.size() ? transfers_[next].due : kNever;
      if (wake_ != kNever && (due == kNever || wake_ <= due)) {
        now_ = wake_;
        wake_ = kNever;
        core_->Advance(now_);
      } else if (due != kNever) {
        now_ = due;
        transfers_[next].landed = true;
        core_->OnTransferDone(next, due);
      } else {
        break;
      }
    }
    EXPECT_TRUE(failure_.status().ok()) << failure_.status();
    transfers_.clear();
    return task;
  }

  PipeStats stats;

  // CoreHost.
  void WakeAt(TimePs at) override {
    if (wake_ == kNever || at < wake_) wake_ = at;
  }
  const CompiledKernel& Kernel(int32_t id) const override { return kernels_[id]; }
  GmCompletion Transport(const GmTransaction& transaction) override {
    return GmCompletion{transaction.delay, true};
  }
  bool Contains(uint64_t, size_t) const override { return true; }
  bool times_transfers() const override { return true; }
  uint64_t StartTransfer(const GmRuns&, GmDirection direction) override {
    transfers_.push_back({now_ + (direction == GmDirection::kRead ? load_ : store_), false});
    return transfers_.size() - 1;
  }
  // CoreOwner.
  void OnCondWritten(int, CondValue, TimePs) override {}
  // CoreObserver.
  bool wants_pipe_ops() const override { return true; }
  void OnPipeOps(const PipeSegment& segment) override { stats.Add(segment); }

 private:
  struct Transfer {
    TimePs due;
    bool landed;
  };
  TimePs load_;
  TimePs store_;
  ChipConfig config_;
  std::vector<CompiledKernel> kernels_;
  FakeTaskPort tasks_;
  RunFailure failure_;
  std::unique_ptr<CorePhases> core_;
  std::vector<Transfer> transfers_;
  TimePs wake_ = kNever;
  TimePs now_ = 0;
  uint32_t token_ = 0;
};

TEST(PipeStatsTest, TwoBuffersStatsSumEachPipesUnionAndEachOpKindsOwnTime) {
  // The two-buffer loop of core_phases_test, every transfer taking 1000 ns:
  // LOADs 2265-3265 (twice), 3266-4266 and 3267-4267: MTE2 busy 1000 + 1001,
  // 4000 of LOAD; EXPs 3265-3266, 3266-3267, 4266-4267, 4267-4268: 4;
  // STOREs 3266-4266, 3267-4267, 4267-5267, 4268-5268: MTE3 busy 2002 (the
  // runs touch at 4267), 4000 of STORE. The bound pipe is MTE3 (2002).
  OneCore core(Ns(1000), Ns(1000));
  const TaskSeq task = core.Run(ExpLoop(2));
  const nlohmann::json j = core.stats.ToJson();
  EXPECT_EQ(j["busy_ns"]["aiv"]["mte2"], 2001.0);
  EXPECT_EQ(j["busy_ns"]["aiv"]["vector"], 4.0);
  EXPECT_EQ(j["busy_ns"]["aiv"]["mte3"], 2002.0);
  EXPECT_EQ(j["busy_ns"]["aiv"]["scalar"], 0.0);
  EXPECT_EQ(j["busy_ns"]["aic"]["mte2"], 0.0);
  EXPECT_EQ(j["op_ns"], nlohmann::json::parse(
                            R"({"mte2": {"LOAD": 4000.0}, "vector": {"EXP": 4.0},
                                "mte3": {"STORE": 4000.0}})"));
  EXPECT_EQ(j["bound_tasks"]["mte3"], 0);  // counted when the task retires
  EXPECT_EQ(core.stats.Retire(task), Pipe::kMte3);
  EXPECT_EQ(core.stats.ToJson()["bound_tasks"]["mte3"], 1);
  EXPECT_EQ(core.stats.Retire(task), std::nullopt);  // forgotten: counted once
}

TEST(PipeStatsTest, ALoadBoundAndAComputeBoundTaskAreCountedByTheirPipes) {
  // Single-buffered loop, loads 1000 ns, stores their core-side 122.98 (122 ns
  // of latency and 64 B at 65.3 B/cycle, 1 GHz): MTE2 busy 4000 against MTE3
  // 492 and vector 4 -> mte2. 1600 EXPs on one tile (1 ns each: 1600 ns)
  // between a 1000 ns load and a 123 ns store -> vector.
  OneCore core(Ns(1000), 0);
  const TaskSeq loads = core.Run(ExpLoop(1));
  const TaskSeq computes = core.Run(ExpHeavy());
  const nlohmann::json j = core.stats.ToJson();
  EXPECT_EQ(j["busy_ns"]["aiv"]["mte2"], 4000.0 + 1000.0);
  const double store_ns = 122 + 64 / 65.3;
  EXPECT_NEAR(j["busy_ns"]["aiv"]["mte3"].get<double>(), 5 * store_ns, 0.05);
  EXPECT_EQ(j["busy_ns"]["aiv"]["vector"], 4.0 + 1600.0);
  EXPECT_EQ(j["op_ns"]["vector"]["EXP"], 1604.0);
  EXPECT_EQ(core.stats.Retire(loads), Pipe::kMte2);
  EXPECT_EQ(core.stats.Retire(computes), Pipe::kVector);
  EXPECT_EQ(core.stats.ToJson()["bound_tasks"],
            nlohmann::json::parse(R"({"scalar": 0, "mte2": 1, "mte1": 0, "cube": 0,
                                      "fixpipe": 0, "vector": 1, "mte3": 0})"));
  EXPECT_EQ(DescribePipes(core.stats),
            "pipes: AIV busy mte2 5.000 us, vector 1.604 us, mte3 0.615 us; tasks bound by mte2 "
            "1, vector 1");
}

TEST(PipeStatsTest, BoundingPipeTakesTheFirstOnATieAndNoneWhenIdle) {
  PipeTimes busy{};
  EXPECT_EQ(BoundingPipe(busy), std::nullopt);
  busy[static_cast<int>(Pipe::kMte3)] = 5;
  busy[static_cast<int>(Pipe::kMte2)] = 5;
  EXPECT_EQ(BoundingPipe(busy), Pipe::kMte2);
  busy[static_cast<int>(Pipe::kCube)] = 6;
  EXPECT_EQ(BoundingPipe(busy), Pipe::kCube);
}

TEST(PipeStatsTest, AicAndAivSegmentsAddToTheirOwnCoreType) {
  PipeStats stats;
  EXPECT_TRUE(stats.empty());
  const PipeOpInterval ops[] = {{Pipe::kCube, trace::Op::MATMUL, 3, 0, 700},
                                {Pipe::kScalar, trace::Op::LOOP, 0, 700, 700}};  // no time
  PipeSegment aic;
  aic.aic = true;
  aic.task = 7;
  aic.busy[static_cast<int>(Pipe::kCube)] = 700;
  aic.ops = ops;
  stats.Add(aic);
  PipeSegment aiv;
  aiv.task = 7;
  aiv.busy[static_cast<int>(Pipe::kVector)] = 300;
  stats.Add(aiv);
  const nlohmann::json j = stats.ToJson();
  EXPECT_EQ(j["busy_ns"]["aic"]["cube"], 0.7);
  EXPECT_EQ(j["busy_ns"]["aiv"]["vector"], 0.3);
  EXPECT_EQ(j["busy_ns"]["aiv"]["cube"], 0.0);
  EXPECT_EQ(j["op_ns"], nlohmann::json::parse(R"({"cube": {"MATMUL": 0.7}})"));
  EXPECT_EQ(stats.Retire(7), Pipe::kCube);  // over the task's blocks on both core types
}

}  // namespace
}  // namespace pto
