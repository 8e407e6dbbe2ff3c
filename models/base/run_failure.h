#ifndef PTO_MODELS_BASE_RUN_FAILURE_H_
#define PTO_MODELS_BASE_RUN_FAILURE_H_

#include <functional>
#include <utility>

#include "absl/status/status.h"

namespace pto {

// The run's first runtime fatal error: a deadlock the runtime would report,
// a kernel fault, a bad record. Every model reports its failures here and
// stops handling events once one is set. The first failure is kept and
// passed to the callback (the chip's stops the simulation); later ones are
// dropped, so the report names the cause, not its echoes.
class RunFailure {
 public:
  using Callback = std::function<void(const absl::Status&)>;

  explicit RunFailure(Callback on_first = nullptr) : on_first_(std::move(on_first)) {}
  RunFailure(const RunFailure&) = delete;
  RunFailure& operator=(const RunFailure&) = delete;

  // Keeps `status` if it is the first failure (an OK status is none).
  void Fail(absl::Status status);
  bool failed() const { return !status_.ok(); }
  const absl::Status& status() const { return status_; }

 private:
  Callback on_first_;
  absl::Status status_;
};

}  // namespace pto

#endif  // PTO_MODELS_BASE_RUN_FAILURE_H_
