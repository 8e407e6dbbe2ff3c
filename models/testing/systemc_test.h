#ifndef PTO_MODELS_TESTING_SYSTEMC_TEST_H_
#define PTO_MODELS_TESTING_SYSTEMC_TEST_H_

// In-process tests of SystemC modules, many per test binary.
//
// SystemC 2.3 elaborates once per process: after the first sc_start no
// module can be built, and a stopped simulation cannot start again. So each
// module test runs its body (build the modules, sc_start, check) in a fresh
// child process forked from the test binary, whose own process never
// elaborates anything:
//
//   PTO_SYSTEMC_TEST(AiCoreModuleTest, BlockEndsAtItsKernelTime) {
//     AiCoreEnv env = ...;                  // config, kernels, fakes
//     AiCore core("core", 0, CoreKind::kAiv, 0, env);
//     ...                                   // bind sockets, set owners
//     env.calendar = &pto::testing::TestCalendar();
//     pto::testing::CallAt(Ns(10), [&] { core.Dispatch(work, 0); });
//     sc_core::sc_start();
//     EXPECT_EQ(owner.fin_at, Ns(2045));    // gtest assertions as usual
//   }
//
// Inside the body, gtest assertions work as anywhere (ASSERT_* ends the
// body); the parent reports the child's failures, with their files and
// lines, as the test's own. So does it for:
//   * SystemC reports of severity SC_ERROR and SC_FATAL: a failure each, and
//     the body ends there (the simulation's state is not to be trusted
//     after one);
//   * SC_WARNING reports: a failure each (they name modelling mistakes such as
//     a renamed duplicate object, or sc_start with nothing to do), except
//     the IEEE 1666 deprecation notices and those a body allows with
//     AllowSystemCWarning(msg_type);
//   * an uncaught exception, a crash (signal), an exit() or a body that runs
//     longer than its timeout (it is killed).
// Bodies run at the chip's time resolution, 1 ps (UsePicosecondResolution,
// models/base/sc_time.h), so a TimePs is an sc_time value.
// GTEST_SKIP() in the body skips the test. SC_INFO reports are printed, as
// is anything the body writes to stdout and stderr.
//
// Test binaries link `pto_sc_test_main` (cmake: pto_sc_test), whose main()
// runs gtest under SystemC's sc_elab_and_sim.

#include <cstdint>
#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "models/base/calendar.h"

namespace pto::testing {

// How long a body may run before the parent kills it.
inline constexpr int kDefaultBodyTimeoutSeconds = 60;

// Runs `body` in a fresh child process (a fresh SystemC simulation) and
// reports its outcome as the calling test's, as described above. Call it
// from a TEST body (PTO_SYSTEMC_TEST does); never elaborate in the parent.
void RunInFreshSimulation(const std::function<void()>& body,
                          int timeout_seconds = kDefaultBodyTimeoutSeconds);

// Inside a body: SystemC warnings whose message type is `msg_type` (e.g.
// "/OSCI/SystemC") are printed instead of failing the test.
void AllowSystemCWarning(const std::string& msg_type);

// Inside a body: the calendar the modules under test keep their time on
// (models/base/calendar.h), driven by its CalendarProcess; made on first
// use, which must come before sc_start. Pass it in the modules' envs.
Calendar& TestCalendar();
// The model's time: TestCalendar().now() (SystemC's lags it by up to a
// quantum, as it does in the chip).
TimePs TestNow();

// Inside a body, before or during the simulation: calls `fn` at simulated
// time `at_ps` (picoseconds, not before now) as a wake of the test
// calendar, so stimuli call module methods (Dispatch, Wake, ...) at a
// chosen time, ordered with the modules' own wakes (ties: first asked,
// first run).
void CallAt(int64_t at_ps, std::function<void()> fn);

}  // namespace pto::testing

// Defines a gtest TEST whose body runs in a fresh simulation.
#define PTO_SYSTEMC_TEST(suite, name)                                           \
  static void PtoSystemCTestBody_##suite##_##name();                            \
  TEST(suite, name) {                                                           \
    ::pto::testing::RunInFreshSimulation(&PtoSystemCTestBody_##suite##_##name); \
  }                                                                             \
  static void PtoSystemCTestBody_##suite##_##name()

#endif  // PTO_MODELS_TESTING_SYSTEMC_TEST_H_
