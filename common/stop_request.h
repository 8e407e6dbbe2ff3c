#ifndef PTO_COMMON_STOP_REQUEST_H_
#define PTO_COMMON_STOP_REQUEST_H_

#include <chrono>

namespace pto {

// Why a run must stop before it ends: a signal, or its wall-clock deadline.
// Polled wherever a run can spend long -- between simulation slices, while
// tensors are filled, inside a kernel's loops, before each output file is
// committed -- so that no phase of a run outlasts --max-wall-seconds or
// ignores Ctrl-C.
//
// SIGINT and SIGTERM: the handler only records the signal; the run stops
// cleanly (no partial file under a final name) and exits 128 + the signal
// number, as a shell reports a process killed by it. The handlers reset
// themselves, so a second Ctrl-C kills the process at once. SIGPIPE (the
// reader of stdout went away, as `| head` does) is recorded the same way,
// every time, so the run ends as cleanly, with 141.
void InstallStopSignalHandlers();

// "SIGINT", "SIGTERM", "SIGPIPE (stdout was closed)".
const char* StopSignalName(int signal);

// The signal that asked the run to stop, or 0.
int StopSignal();

// Forgets a recorded signal (tests).
void ClearStopSignal();

// The instant after which the run must stop (--max-wall-seconds); none
// until set.
void SetWallDeadline(std::chrono::steady_clock::time_point deadline);
void ClearWallDeadline();
bool WallDeadlinePassed();

// A signal came or the deadline passed. Cheap enough to poll every few
// thousand iterations of an inner loop (a load and, with a deadline set,
// one read of the monotonic clock).
inline bool StopRequested() { return StopSignal() != 0 || WallDeadlinePassed(); }

}  // namespace pto

#endif  // PTO_COMMON_STOP_REQUEST_H_
