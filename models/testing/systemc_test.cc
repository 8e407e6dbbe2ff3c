#include "models/testing/systemc_test.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest-spi.h"
#include "models/base/calendar_process.h"
#include "models/base/sc_time.h"
#include "systemc"

namespace pto::testing {
namespace {

using ::testing::TestPartResult;

// The child's side: where its results go and what the body allowed. Set in
// the child only; the parent never elaborates.
struct Child {
  int fd = -1;
  ::testing::TestPartResultArray results;
  std::vector<std::string> allowed_warnings;
  // The modules' calendar and its process, made on first use.
  std::unique_ptr<Calendar> calendar;
  std::unique_ptr<CalendarProcess> process;
  // CallAt's functions: calendar clients, alive until the child exits.
  struct Call : Calendar::Client {
    void OnWake(TimePs /*now*/) override { fn(); }
    std::function<void()> fn;
  };
  std::vector<std::unique_ptr<Call>> calls;
};
Child* child = nullptr;

// The pipe carries one record per non-success result (type, line, file,
// message), then an end marker: a child that dies before it wrote the marker
// did not finish its body.
constexpr int32_t kEndMarker = -1;

void WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; nothing to report to
    p += n;
    size -= static_cast<size_t>(n);
  }
}
void WriteInt(int fd, int32_t value) { WriteAll(fd, &value, sizeof(value)); }
void WriteString(int fd, const std::string& s) {
  WriteInt(fd, static_cast<int32_t>(s.size()));
  WriteAll(fd, s.data(), s.size());
}

[[noreturn]] void FinishChild() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  for (int i = 0; i < child->results.size(); ++i) {
    const TestPartResult& result = child->results.GetTestPartResult(i);
    if (result.type() == TestPartResult::kSuccess) continue;
    WriteInt(child->fd, static_cast<int32_t>(result.type()));
    WriteInt(child->fd, result.line_number());
    WriteString(child->fd, result.file_name() != nullptr ? result.file_name() : "");
    WriteString(child->fd, result.message());
  }
  WriteInt(child->fd, kEndMarker);
  close(child->fd);
  _exit(0);
}

bool WarningAllowed(const char* msg_type) {
  const std::string type = msg_type != nullptr ? msg_type : "";
  // SystemC's own notices of deprecated IEEE 1666 features are not mistakes
  // of the test or the model.
  if (type.rfind("/IEEE_Std_1666/deprecated", 0) == 0) return true;
  for (const std::string& allowed : child->allowed_warnings) {
    if (type == allowed) return true;
  }
  return false;
}

void ReportHandler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (actions == sc_core::SC_DO_NOTHING) return;  // silenced on purpose
  const sc_core::sc_severity severity = report.get_severity();
  if (severity == sc_core::SC_INFO ||
      (severity == sc_core::SC_WARNING && WarningAllowed(report.get_msg_type()))) {
    sc_core::sc_report_handler::default_handler(report,
                                                actions & (sc_core::SC_DISPLAY | sc_core::SC_LOG));
    return;
  }
  const char* file = report.get_file_name();
  GTEST_MESSAGE_AT_(file != nullptr && *file != '\0' ? file : nullptr, report.get_line_number(),
                    sc_core::sc_report_compose_message(report).c_str(),
                    TestPartResult::kNonFatalFailure);
  // After an error the simulation's state is not to be trusted: the body
  // ends here.
  if (severity != sc_core::SC_WARNING) FinishChild();
}

void RunChild(int fd, const std::function<void()>& body, int timeout_seconds) {
  child = new Child;  // lives until _exit
  child->fd = fd;
  alarm(static_cast<unsigned>(timeout_seconds));
  // Every assertion of the body lands in child->results: this thread's
  // reporter comes first (the parent's, when the body is run inside
  // EXPECT_NONFATAL_FAILURE, is forked along), the global one serves any
  // other thread.
  ::testing::ScopedFakeTestPartResultReporter all_threads(
      ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ALL_THREADS, &child->results);
  ::testing::ScopedFakeTestPartResultReporter this_thread(
      ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &child->results);
  sc_core::sc_report_handler::set_handler(&ReportHandler);
  // The kernel's own notes ("Simulation stopped by user") are noise here.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  try {
    // The chip's resolution, before the body builds any time.
    UsePicosecondResolution();
    body();
  } catch (const sc_core::sc_report& report) {
    ADD_FAILURE() << "uncaught SystemC report: " << report.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "uncaught exception: " << e.what();
  } catch (...) {
    ADD_FAILURE() << "uncaught exception of unknown type";
  }
  FinishChild();
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}
bool ReadInt(int fd, int32_t* value) { return ReadAll(fd, value, sizeof(*value)); }
bool ReadString(int fd, std::string* s) {
  int32_t size = 0;
  if (!ReadInt(fd, &size) || size < 0) return false;
  s->resize(static_cast<size_t>(size));
  return ReadAll(fd, s->data(), s->size());
}

}  // namespace

void RunInFreshSimulation(const std::function<void()>& body, int timeout_seconds) {
  if (child != nullptr) {
    ADD_FAILURE() << "RunInFreshSimulation inside a body: a body is one simulation";
    return;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return;
  }
  // Buffered output would be written twice, once by each process.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return;
  }
  if (pid == 0) {
    close(fds[0]);
    RunChild(fds[1], body, timeout_seconds);  // never returns
  }
  close(fds[1]);

  bool finished = false;
  std::vector<std::string> skips;
  for (int32_t type; ReadInt(fds[0], &type);) {
    if (type == kEndMarker) {
      finished = true;
      break;
    }
    int32_t line = -1;
    std::string file, message;
    if (!ReadInt(fds[0], &line) || !ReadString(fds[0], &file) || !ReadString(fds[0], &message)) {
      break;
    }
    const auto kind = static_cast<TestPartResult::Type>(type);
    if (kind == TestPartResult::kSkip) {
      skips.push_back(message);
      continue;
    }
    GTEST_MESSAGE_AT_(file.empty() ? nullptr : file.c_str(), line, message.c_str(), kind);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    ADD_FAILURE() << "the test body was killed by signal " << signal << " (" << strsignal(signal)
                  << ")" << (signal == SIGALRM ? ", having run longer than its timeout" : "");
  } else if (!finished) {
    ADD_FAILURE() << "the test body exited with status " << WEXITSTATUS(status)
                  << " before it finished";
  }
  if (!skips.empty()) GTEST_SKIP() << skips.front();
}

void AllowSystemCWarning(const std::string& msg_type) {
  if (child == nullptr) {
    ADD_FAILURE() << "AllowSystemCWarning outside a PTO_SYSTEMC_TEST body";
    return;
  }
  child->allowed_warnings.push_back(msg_type);
}

Calendar& TestCalendar() {
  if (child == nullptr) {
    ADD_FAILURE() << "TestCalendar outside a PTO_SYSTEMC_TEST body";
    static Calendar* orphan = new Calendar;  // never driven
    return *orphan;
  }
  if (child->calendar == nullptr) {
    child->calendar = std::make_unique<Calendar>();
    child->process = std::make_unique<CalendarProcess>("pto_test_calendar", child->calendar.get());
  }
  return *child->calendar;
}

TimePs TestNow() { return TestCalendar().now(); }

void CallAt(int64_t at_ps, std::function<void()> fn) {
  if (child == nullptr) {
    ADD_FAILURE() << "CallAt outside a PTO_SYSTEMC_TEST body";
    return;
  }
  Calendar& calendar = TestCalendar();
  const TimePs now = calendar.now();
  if (at_ps < now) {
    ADD_FAILURE() << "CallAt(" << at_ps << " ps) in the past (now " << now << " ps)";
    return;
  }
  child->calls.push_back(std::make_unique<Child::Call>());
  Child::Call* call = child->calls.back().get();
  call->fn = std::move(fn);
  calendar.WakeAt(calendar.Add(call, "pto_call_at"), at_ps);
}

}  // namespace pto::testing
