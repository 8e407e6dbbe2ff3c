#include "sim/progress_tap.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_format.h"

namespace pto {
namespace {

constexpr double kFirstAfterSeconds = 1.0;  // short runs never show a line
constexpr double kEverySeconds = 0.5;
constexpr int64_t kCheckEveryTasks = 1024;  // keeps the clock off the hot path

}  // namespace

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressTap::ProgressTap(std::ostream& out, std::string label, std::function<double()> now_seconds)
    : out_(out), label_(std::move(label)), now_(std::move(now_seconds)) {
  start_ = now_();
  last_print_ = start_;
}

void ProgressTap::OnTaskRetired(const Task& task) {
  ++retired_;
  if (task.times.finish != kNever) {
    latest_finish_ps_ = std::max<int64_t>(latest_finish_ps_, task.times.finish);
  }
  if (retired_ % kCheckEveryTasks != 0) return;
  const double now = now_();
  const double elapsed = now - start_;
  if (elapsed < kFirstAfterSeconds || now - last_print_ < kEverySeconds) return;
  last_print_ = now;
  const double rate = retired_ / elapsed;
  out_ << "\r"
       << absl::StrFormat("%s: %d tasks retired, %.1f k tasks/s, simulated %.1f us, %.0f s", label_,
                          retired_, rate / 1000, latest_finish_ps_ / 1e6, elapsed)
       << "\x1b[K" << std::flush;
  shown_ = true;
}

void ProgressTap::Erase() {
  if (!shown_) return;
  out_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace pto
