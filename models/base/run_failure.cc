#include "models/base/run_failure.h"

#include <utility>

namespace pto {

void RunFailure::Fail(absl::Status status) {
  if (status.ok() || failed()) return;
  status_ = std::move(status);
  if (on_first_) on_first_(status_);
}

}  // namespace pto
