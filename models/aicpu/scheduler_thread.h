#ifndef PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
#define PTO_MODELS_AICPU_SCHEDULER_THREAD_H_

#include <vector>

#include "models/aicpu/runtime_signals.h"
#include "models/chip_context.h"
#include "models/core/aicore.h"
#include "systemc"

namespace pto {

// One AICPU scheduler thread. It owns whole clusters (dealt round-robin) and
// runs the runtime's loop over them: complete (poll COND of every running
// core, serially), dummies, dispatch. Each loop iteration with work is one
// activation that charges its phases' costs; a thread with nothing to do
// sleeps until a FIN or ready work wakes it, so idle spinning costs no events.
class SchedulerThread : public sc_core::sc_module, public CoreOwner {
 public:
  SC_HAS_PROCESS(SchedulerThread);

  SchedulerThread(sc_core::sc_module_name name, int index, ChipContext* context,
                  RuntimeSignals* signals, std::vector<AiCore*> cores);

  // Ready work appears at `visible_at` (>= now).
  void Wake(TimePs visible_at);
  void OnFinVisible(int core_id) override;

  int index() const { return index_; }
  size_t running_cores() const;
  uint64_t loops() const { return loops_; }

 private:
  // Per-core bookkeeping the thread keeps (the runtime's CoreExecState).
  struct OwnedCore {
    AiCore* core;
    bool busy = false;
    TaskSeq task = kNoTask;
    bool fin_seen = false;
  };

  void Step();
  TimePs Now() const;
  // Phases; each adds its cost to `*cost` and returns whether it did work.
  bool CompletePhase(TimePs now, TimePs* cost);
  bool DummyPhase(TimePs now, TimePs* cost);
  bool DispatchPhase(TimePs now, TimePs* cost);
  bool DispatchShape(TaskShape shape, TimePs now, TimePs* cost);
  void FinishSubtask(OwnedCore& owned, TimePs when, TimePs* cost);
  void ChargeResolve(size_t consumers, TimePs* cost) const;
  // Idle units of `shape` this thread owns: cores, or whole clusters for MIX.
  std::vector<int> IdleUnits(TaskShape shape) const;

  int index_;
  ChipContext* context_;
  RuntimeSignals* signals_;
  std::vector<OwnedCore> cores_;      // AICs first, then AIVs
  std::vector<int> local_of_core_;    // chip core id -> index in cores_, or -1
  std::vector<int> cluster_members_;  // for MIX: [aic, aiv0, aiv1] local indices per cluster
  bool sleeping_ = true;
  TimePs wake_at_ = kNever;
  sc_core::sc_event wake_;
  uint64_t loops_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_AICPU_SCHEDULER_THREAD_H_
