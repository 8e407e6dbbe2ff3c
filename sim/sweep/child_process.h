#ifndef PTO_SIM_SWEEP_CHILD_PROCESS_H_
#define PTO_SIM_SWEEP_CHILD_PROCESS_H_

#include <functional>
#include <string>
#include <vector>

namespace pto {

// One program run in its own process (SystemC elaborates once per process,
// so every simulated point or case is a child of its own).
struct ChildJob {
  std::vector<std::string> argv;  // argv[0] is the program path
  std::string stdout_path;        // files the child's output goes to
  std::string stderr_path;
};

struct ChildResult {
  int exit_code = -1;  // 128 + signal number when the child was killed
  double wall_seconds = 0;
};

struct ChildLimits {
  // A child running longer is sent SIGTERM (pto_sim's clean stop), and
  // SIGKILL 10 s later; 0: no limit.
  double max_seconds = 0;
  // Polled while children run: once true, every running child is sent
  // SIGTERM (SIGKILL 10 s later) and reaped, and no further job starts.
  std::function<bool()> stop;
};

// Runs `jobs` with at most `parallel` children alive at once, in index order
// of start. `on_done(index, result)` is called in the parent as each child
// ends (in completion order). Returns the results in job order; a job never
// started (after a stop) has exit_code -1, and `*stopped` says whether the
// batch was stopped. Every child gets SIGTERM when this process dies, by
// any death (PR_SET_PDEATHSIG): none outlives its parent.
std::vector<ChildResult> RunChildren(
    const std::vector<ChildJob>& jobs, int parallel,
    const std::function<void(size_t, const ChildResult&)>& on_done = nullptr,
    const ChildLimits& limits = {}, bool* stopped = nullptr);

// The path of the running executable (to start more of itself).
std::string SelfExecutable();

// The number of cores this process may use (at least 1).
int AvailableCores();

}  // namespace pto

#endif  // PTO_SIM_SWEEP_CHILD_PROCESS_H_
