#include "models/aicpu/ready_queues.h"

namespace pto {

bool PredicatePasses(trace::Predicate::Op op, int64_t value, int64_t target) {
  switch (op) {
    case trace::Predicate::EQ:
      return value == target;
    case trace::Predicate::NE:
      return value != target;
    case trace::Predicate::GT:
      return value > target;
    case trace::Predicate::LT:
      return value < target;
    case trace::Predicate::GE:
      return value >= target;
    case trace::Predicate::LE:
      return value <= target;
    default:
      return true;  // OP_NONE: no predicate
  }
}

}  // namespace pto
