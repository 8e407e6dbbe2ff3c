#include "sim/sweep/child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <thread>

namespace pto {
namespace {

using Clock = std::chrono::steady_clock;

// Forks and execs one job; returns the child's pid, or -1 when fork failed.
pid_t Start(const ChildJob& job) {
  std::vector<char*> argv;
  for (const std::string& arg : job.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: only async-signal-safe calls from here on. If the parent dies
  // (even by SIGKILL), the kernel sends this child SIGTERM, on which
  // pto_sim stops cleanly: no point outlives its sweep. A parent that died
  // before the request took effect is checked for once it has.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);
  const int in = open("/dev/null", O_RDONLY);
  const int out = open(job.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = open(job.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0) _exit(127);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  execv(argv[0], argv.data());
  _exit(127);
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// How long a child asked to stop has before it is killed.
constexpr auto kKillGrace = std::chrono::seconds(10);

struct Running {
  size_t index;
  Clock::time_point started;
  Clock::time_point terminated = Clock::time_point::max();  // when sent SIGTERM
};

}  // namespace

std::vector<ChildResult> RunChildren(const std::vector<ChildJob>& jobs, int parallel,
                                     const std::function<void(size_t, const ChildResult&)>& on_done,
                                     const ChildLimits& limits, bool* stopped) {
  std::vector<ChildResult> results(jobs.size());
  std::map<pid_t, Running> running;
  size_t next = 0;
  parallel = std::max(parallel, 1);
  bool stopping = false;
  while ((!stopping && next < jobs.size()) || !running.empty()) {
    if (!stopping && limits.stop && limits.stop()) {
      // Stop every running child the way a user would (it removes its
      // own temporary files), and start no more.
      stopping = true;
      for (auto& [pid, child] : running) {
        kill(pid, SIGTERM);
        child.terminated = Clock::now();
      }
    }
    while (!stopping && next < jobs.size() && static_cast<int>(running.size()) < parallel) {
      const pid_t pid = Start(jobs[next]);
      if (pid < 0) {
        results[next].exit_code = 127;
        if (on_done) on_done(next, results[next]);
      } else {
        running[pid] = {next, Clock::now()};
      }
      ++next;
    }
    if (running.empty()) continue;
    // Over its time: SIGTERM, then SIGKILL after the grace period.
    const Clock::time_point now = Clock::now();
    for (auto& [pid, child] : running) {
      if (child.terminated == Clock::time_point::max()) {
        if (limits.max_seconds > 0 &&
            now - child.started > std::chrono::duration<double>(limits.max_seconds)) {
          kill(pid, SIGTERM);
          child.terminated = now;
        }
      } else if (now - child.terminated > kKillGrace) {
        kill(pid, SIGKILL);
      }
    }
    // Polled, so that limits and stop requests are noticed while children run.
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == ECHILD) {  // our children are gone: nothing to wait for
      for (const auto& [lost, child] : running) results[child.index].exit_code = 127;
      running.clear();
      continue;
    }
    auto it = running.find(pid);
    if (pid <= 0 || it == running.end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    const Running child = it->second;
    running.erase(it);
    results[child.index].exit_code = ExitCodeOf(status);
    results[child.index].wall_seconds =
        std::chrono::duration<double>(Clock::now() - child.started).count();
    if (on_done) on_done(child.index, results[child.index]);
  }
  if (stopped != nullptr) *stopped = stopping;
  return results;
}

std::string SelfExecutable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.string();
}

int AvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), 1);
}

}  // namespace pto
