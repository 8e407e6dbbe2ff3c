#ifndef PTO_FRONTEND_REFERENCE_H_
#define PTO_FRONTEND_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// Evaluates a launch sequentially (tasks in program order) on ptoc's own copy
// of GM, so the harness can use device results at compile time.
class ReferenceEvaluator {
 public:
  virtual ~ReferenceEvaluator() = default;
  // Whether this evaluator can execute kernels at all.
  virtual bool available() const = 0;
  // Runs the submits of `launch` (records of one launch) against GM whose
  // tensors are described by `header`; `gm` holds every tensor's bytes at its
  // gm_addr and is updated in place.
  virtual absl::Status RunLaunch(const trace::StreamHeader& header,
                                 const std::vector<trace::StreamRecord>& launch,
                                 std::vector<uint8_t>* gm) = 0;
};

// The evaluator used until the functional tile executor can be linked: it
// executes nothing, so device-written tensors stay unknown to the harness.
class UnavailableReference : public ReferenceEvaluator {
 public:
  bool available() const override { return false; }
  absl::Status RunLaunch(const trace::StreamHeader&, const std::vector<trace::StreamRecord>&,
                         std::vector<uint8_t>*) override {
    return absl::UnimplementedError("reference evaluation is not available");
  }
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_REFERENCE_H_
