#ifndef PTO_FRONTEND_VERIFIERS_H_
#define PTO_FRONTEND_VERIFIERS_H_

#include <memory>
#include <vector>

#include "frontend/verifier.h"

namespace pto::ptoc {

// a2a3 (Ascend910B) numbers the verifiers check against (hw-native-sys/pypto@e2d0f78a
// src/backend/common/soc.cpp, src/ir/verifier/verify_hard_syncall_occupancy.cpp): physical
// cores and the usable on-chip budgets.
inline constexpr int kPhysicalAivCores = 48;
inline constexpr int kPhysicalAicCores = 24;
inline constexpr uint64_t kVecBudgetBytes = 188416;   // 184 KB usable UB
inline constexpr uint64_t kMatBudgetBytes = 524288;   // 512 KB L1
inline constexpr uint64_t kLeftBudgetBytes = 65536;   // 64 KB L0A
inline constexpr uint64_t kRightBudgetBytes = 65536;  // 64 KB L0B
inline constexpr uint64_t kAccBudgetBytes = 131072;   // 128 KB L0C
inline constexpr uint64_t kBiasBudgetBytes = 1024;    // 1 KB BT
// What one memory space holds of the budgets above; 0 for no space.
inline uint64_t SpaceBudgetBytes(trace::MemSpace space) {
  switch (space) {
    case trace::VEC:
      return kVecBudgetBytes;
    case trace::MAT:
      return kMatBudgetBytes;
    case trace::LEFT:
      return kLeftBudgetBytes;
    case trace::RIGHT:
      return kRightBudgetBytes;
    case trace::ACC:
      return kAccBudgetBytes;
    case trace::BIAS:
      return kBiasBudgetBytes;
    default:
      return 0;
  }
}
// kDefaultAutoPipeSlotNum of hw-native-sys/pypto@e2d0f78a
// include/pypto/ir/transforms/utils/cross_core_pipe.h; the "8 slots" of
// docs/en/user/performance/02-runtime-overhead.md is stale.
inline constexpr uint32_t kDefaultSlotNum = 2;

// The task-level verifiers of pypto's compile-time checks (hw-native-sys/pypto@e2d0f78a
// python/pypto/language/parser/ast_parser.py, src/ir/verifier/verify_hard_syncall_occupancy.cpp,
// src/ir/transforms/allocate_memory_addr_pass.cpp) that look at a whole
// traced task: HardSyncallOccupancy, the cross-core ring against the on-chip
// budget, the SPMD body rules, the predicate's rank and producer, and the
// no_dep_args entries. (Argument-level rules are checked where the argument
// is read, in pl_module.cc and interpreter.cc.)
std::vector<std::unique_ptr<TaskVerifier>> StandardVerifiers();

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_VERIFIERS_H_
