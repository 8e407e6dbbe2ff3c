#include "sim/sweep/progress_line.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {

std::string FormatProgress(const std::string& what, int done, int total, int failed,
                           double elapsed_seconds) {
  std::string line = absl::StrFormat("%s: %d/%d points", what, done, total);
  if (failed > 0) absl::StrAppendFormat(&line, " (%d failed)", failed);
  if (done > 0 && elapsed_seconds > 0) {
    const double rate = done / elapsed_seconds;
    const long eta = std::lround((total - done) / rate);
    absl::StrAppendFormat(&line, ", %.2f points/s, ETA %d:%02d", rate, eta / 60, eta % 60);
  }
  return line;
}

ProgressLine::ProgressLine(std::ostream& out, bool is_terminal, std::string what, int total)
    : out_(out),
      enabled_(is_terminal),
      what_(std::move(what)),
      total_(total),
      start_(std::chrono::steady_clock::now()) {}

void ProgressLine::Update(int done, int failed) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // \r and "erase to end of line" keep it on one terminal line.
  out_ << "\r" << FormatProgress(what_, done, total_, failed, elapsed) << "\x1b[K" << std::flush;
  shown_ = true;
}

void ProgressLine::Finish() {
  if (enabled_ && shown_) out_ << "\n" << std::flush;
  shown_ = false;
}

}  // namespace pto
