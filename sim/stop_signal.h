#ifndef PTO_SIM_STOP_SIGNAL_H_
#define PTO_SIM_STOP_SIGNAL_H_

namespace pto {

// SIGINT and SIGTERM during a run: the handler only records the signal; the
// run loop polls StopSignal() between simulation slices, stops cleanly (no
// partial file under a final name) and exits 128 + the signal number, as a
// shell reports a process killed by it. The handlers reset themselves, so a
// second Ctrl-C kills the process at once.
void InstallStopSignalHandlers();

// The signal that asked the run to stop, or 0.
int StopSignal();

// Forgets a recorded signal (tests).
void ClearStopSignal();

}  // namespace pto

#endif  // PTO_SIM_STOP_SIGNAL_H_
