// The runtime's per-task bookkeeping on the stress trace's shape: the task
// table (create, wire 1-4 explicit producers among the last 64, complete,
// release, retire in ring order) and the ready queues (push and pop through
// the shape queues the schedulers poll). Items per second = tasks per second
// this part alone could sustain.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "models/aicpu/ready_queues.h"
#include "models/aicpu/task_table.h"

namespace pto {
namespace {

constexpr int kWindow = 64;

// Submit, wire, complete in submission order with a window of 64 live tasks.
void BM_TaskTableStressShape(benchmark::State& state) {
  TaskTable table([](Task&) {});
  std::mt19937_64 random(42);
  std::vector<Task*> ready;
  TaskSeq seq = 0;
  for (auto _ : state) {
    Task& task = table.Create(seq, 1);
    task.name = "aiv_work";
    const int preds = static_cast<int>(random() % 4) + 1;
    for (int p = 0; p < preds && seq > 0; ++p) {
      const TaskSeq back = 1 + random() % std::min<TaskSeq>(seq, kWindow);
      table.AddDependency(seq - back, task, /*retain=*/true);
    }
    TaskTable::ReleaseFanin(task);
    table.ReleaseScope(seq);
    if (seq >= kWindow) {
      // The oldest live task completes; its consumers release their pins.
      Task* done = table.Find(seq - kWindow);
      if (done != nullptr && !done->completed) {
        ready.clear();
        table.Complete(*done, &ready);
        table.ReleaseConsumer(*done);
      }
      table.AdvanceWatermarks();
    }
    ++seq;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TaskTableStressShape);

// One task through the ready queues: pushed on its shape's queue, visible,
// popped by a scheduler (two thirds AIV, one third AIC as in the stress trace).
void BM_ReadyQueuesPushPop(benchmark::State& state) {
  ReadyQueues queues;
  TaskSeq seq = 0;
  const int depth = static_cast<int>(state.range(0));
  for (int i = 0; i < depth; ++i) queues.Push(TaskShape::kAiv, seq++, 0);
  for (auto _ : state) {
    const TaskShape shape = seq % 3 == 0 ? TaskShape::kAic : TaskShape::kAiv;
    queues.Push(shape, seq, static_cast<TimePs>(seq));
    ++seq;
    benchmark::DoNotOptimize(queues.HasVisible(shape, static_cast<TimePs>(seq)));
    benchmark::DoNotOptimize(queues.Pop(shape));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReadyQueuesPushPop)->Arg(0)->Arg(1024);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
