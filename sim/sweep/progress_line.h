#ifndef PTO_SIM_SWEEP_PROGRESS_LINE_H_
#define PTO_SIM_SWEEP_PROGRESS_LINE_H_

#include <chrono>
#include <ostream>
#include <string>

namespace pto {

// "sweep: 7/18 points (1 failed), 2.3 points/s, ETA 0:05": the text of the
// progress line after `done` of `total` units in `elapsed_seconds`.
std::string FormatProgress(const std::string& what, int done, int total, int failed,
                           double elapsed_seconds);

// Rewrites one line on a terminal as work proceeds; prints nothing when the
// stream is not a terminal (logs, pipes, CI), so output files stay clean.
class ProgressLine {
 public:
  // `is_terminal` is normally isatty(STDERR_FILENO).
  ProgressLine(std::ostream& out, bool is_terminal, std::string what, int total);
  void Update(int done, int failed);
  void Finish();  // ends the line

 private:
  std::ostream& out_;
  bool enabled_;
  std::string what_;
  int total_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace pto

#endif  // PTO_SIM_SWEEP_PROGRESS_LINE_H_
