#include "sim/sweep/child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>

namespace pto {
namespace {

using Clock = std::chrono::steady_clock;

// Forks and execs one job; returns the child's pid, or -1 when fork failed.
pid_t Start(const ChildJob& job) {
  std::vector<char*> argv;
  for (const std::string& arg : job.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: only async-signal-safe calls from here on.
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

}  // namespace

std::vector<ChildResult> RunChildren(
    const std::vector<ChildJob>& jobs, int parallel,
    const std::function<void(size_t, const ChildResult&)>& on_done) {
  std::vector<ChildResult> results(jobs.size());
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
  size_t next = 0;
  parallel = std::max(parallel, 1);
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && static_cast<int>(running.size()) < parallel) {
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
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    auto it = running.find(pid);
    if (pid < 0 && errno == ECHILD) {  // our children are gone: nothing to wait for
      for (const auto& [lost, job] : running) results[job.first].exit_code = 127;
      running.clear();
      continue;
    }
    if (pid < 0 || it == running.end()) continue;  // interrupted, or not ours
    const auto [index, started] = it->second;
    running.erase(it);
    results[index].exit_code = ExitCodeOf(status);
    results[index].wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (on_done) on_done(index, results[index]);
  }
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
