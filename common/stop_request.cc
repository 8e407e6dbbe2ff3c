#include "common/stop_request.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>

namespace pto {
namespace {

volatile std::sig_atomic_t stop_signal = 0;

extern "C" void RecordStopSignal(int signal) { stop_signal = signal; }

// steady_clock ticks since its epoch; 0 = no deadline.
std::atomic<int64_t> wall_deadline{0};

}  // namespace

void InstallStopSignalHandlers() {
  struct sigaction action = {};
  action.sa_handler = RecordStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal takes the default action
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  action.sa_flags = 0;  // every write to the closed pipe raises it again
  sigaction(SIGPIPE, &action, nullptr);
}

const char* StopSignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGPIPE:
      return "SIGPIPE (stdout was closed)";
    default:
      return "a signal";
  }
}

int StopSignal() { return stop_signal; }

void ClearStopSignal() { stop_signal = 0; }

void SetWallDeadline(std::chrono::steady_clock::time_point deadline) {
  wall_deadline.store(std::max<int64_t>(1, deadline.time_since_epoch().count()),
                      std::memory_order_relaxed);
}

void ClearWallDeadline() { wall_deadline.store(0, std::memory_order_relaxed); }

bool WallDeadlinePassed() {
  const int64_t deadline = wall_deadline.load(std::memory_order_relaxed);
  return deadline != 0 && std::chrono::steady_clock::now().time_since_epoch().count() >= deadline;
}

}  // namespace pto
