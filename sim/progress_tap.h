#ifndef PTO_SIM_PROGRESS_TAP_H_
#define PTO_SIM_PROGRESS_TAP_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "models/run_observer.h"

namespace pto {

// The progress line of a long run (README, "What a run prints"): on a terminal, after the first
// second, "launch 0 'stress': 412000 tasks retired, 95.1 k tasks/s,
// simulated 352.1 us, 4 s" rewritten in place about twice a second. The run
// driver attaches it only when stderr is a terminal, and erases the line
// before the launch's summary is printed.
class ProgressTap : public RunObserver {
 public:
  // `now_seconds` is a monotonic wall clock (injectable for tests).
  ProgressTap(std::ostream& out, std::string label, std::function<double()> now_seconds);

  void OnTaskRetired(const Task& task) override;

  // Clears the line if one is shown.
  void Erase();

 private:
  std::ostream& out_;
  std::string label_;
  std::function<double()> now_;
  double start_ = 0;
  double last_print_ = 0;
  int64_t retired_ = 0;
  int64_t latest_finish_ps_ = 0;
  bool shown_ = false;
};

// A steady-clock reading in seconds.
double SteadySeconds();

}  // namespace pto

#endif  // PTO_SIM_PROGRESS_TAP_H_
