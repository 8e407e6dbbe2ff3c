#ifndef PTO_FRONTEND_VERIFIERS_H_
#define PTO_FRONTEND_VERIFIERS_H_

#include <memory>
#include <vector>

#include "frontend/verifier.h"

namespace pto::ptoc {

// a2a3 (Ascend910B) numbers the verifiers check against (frontend-semantics.md
// §2.2, §3.2): physical cores and the usable on-chip budgets.
inline constexpr int kPhysicalAivCores = 48;
inline constexpr int kPhysicalAicCores = 24;
inline constexpr uint64_t kVecBudgetBytes = 188416;  // 184 KB usable UB
inline constexpr uint64_t kMatBudgetBytes = 524288;  // 512 KB L1
inline constexpr uint32_t kDefaultSlotNum = 2;       // §1.4: the "8 slots" page is stale

// The task-level verifiers of frontend-semantics.md §2 that look at a whole
// traced task: HardSyncallOccupancy, the cross-core ring against the on-chip
// budget, the SPMD body rules, the predicate's rank and producer, and the
// no_dep_args entries. (Argument-level rules are checked where the argument
// is read, in pl_module.cc and interpreter.cc.)
std::vector<std::unique_ptr<TaskVerifier>> StandardVerifiers();

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_VERIFIERS_H_
