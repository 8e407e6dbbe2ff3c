#include "sim/stop_signal.h"

#include <csignal>

namespace pto {
namespace {

volatile std::sig_atomic_t stop_signal = 0;

extern "C" void RecordStopSignal(int signal) { stop_signal = signal; }

}  // namespace

void InstallStopSignalHandlers() {
  struct sigaction action = {};
  action.sa_handler = RecordStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal takes the default action
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int StopSignal() { return stop_signal; }

void ClearStopSignal() { stop_signal = 0; }

}  // namespace pto
