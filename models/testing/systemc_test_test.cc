// The fixture's own contract: what a body does comes back as the test's
// outcome, and every body gets a fresh simulation.

#include "models/testing/systemc_test.h"

#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "models/base/sc_time.h"
#include "systemc"

namespace pto::testing {
namespace {

// A module with a fixed name: elaborating it twice in one process would
// rename the second (a warning) and sc_start could not run again.
class Ticker : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Ticker);
  explicit Ticker(sc_core::sc_module_name name) : sc_module(name) {
    SC_METHOD(Tick);
    sensitive << tick_;
    dont_initialize();
    tick_.notify(sc_core::sc_time(10, sc_core::SC_NS));
  }
  int64_t ticked_at = -1;

 private:
  void Tick() { ticked_at = NowPs(); }
  sc_core::sc_event tick_;
};

void TickOnce() {
  Ticker ticker("ticker");
  sc_core::sc_start();
  EXPECT_EQ(ticker.ticked_at, 10'000);
}

PTO_SYSTEMC_TEST(SystemCTestFixture, EachBodyIsAFreshSimulation) { TickOnce(); }
PTO_SYSTEMC_TEST(SystemCTestFixture, EachBodyIsAFreshSimulationAgain) { TickOnce(); }

TEST(SystemCTestFixture, OneTestMayRunSeveralSimulations) {
  RunInFreshSimulation(&TickOnce);
  RunInFreshSimulation(&TickOnce);
}

PTO_SYSTEMC_TEST(SystemCTestFixture, CallAtCallsAtTheGivenTime) {
  std::vector<int64_t> calls;
  CallAt(7'000, [&] { calls.push_back(TestNow()); });
  CallAt(3'000, [&] {
    calls.push_back(TestNow());
    CallAt(4'000, [&] { calls.push_back(-TestNow()); });
    CallAt(3'000, [&] { calls.push_back(TestNow() + 1); });  // now: after this call
  });
  sc_core::sc_start();
  EXPECT_EQ(calls, std::vector<int64_t>({3'000, 3'001, -4'000, 7'000}));
}

// The chip's resolution (models/base/sc_time.h), set before the body runs:
// a TimePs is an sc_time value.
PTO_SYSTEMC_TEST(SystemCTestFixture, BodiesRunAtOnePicosecond) {
  EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(ScTime(1'234), sc_core::sc_time(1.234, sc_core::SC_NS));
}

TEST(SystemCTestFixture, BodyFailuresAreTheTestsFailures) {
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] { EXPECT_EQ(1, 2) << "in the child"; }),
                          "in the child");
  EXPECT_FATAL_FAILURE(RunInFreshSimulation([] { ASSERT_TRUE(false) << "fatal in the child"; }),
                       "fatal in the child");
}

TEST(SystemCTestFixture, SystemCErrorsFailAndEndTheBody) {
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] {
                            SC_REPORT_ERROR("/pto/test", "modelling error");
                            ADD_FAILURE() << "the body went on after an error";
                          }),
                          "modelling error");
  EXPECT_NONFATAL_FAILURE(
      RunInFreshSimulation([] { SC_REPORT_FATAL("/pto/test", "fatal modelling error"); }),
      "fatal modelling error");
}

TEST(SystemCTestFixture, SystemCWarningsFailUnlessAllowed) {
  EXPECT_NONFATAL_FAILURE(
      RunInFreshSimulation([] { SC_REPORT_WARNING("/pto/test", "suspicious"); }), "suspicious");
  RunInFreshSimulation([] {
    AllowSystemCWarning("/pto/test");
    SC_REPORT_WARNING("/pto/test", "expected here");
    SC_REPORT_INFO("/pto/test", "info is only printed");
  });
}

TEST(SystemCTestFixture, ADuplicateModuleNameIsAFailure) {
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] {
                            Ticker first("same");
                            Ticker second("same");  // renamed, with a warning
                          }),
                          "same");
}

TEST(SystemCTestFixture, CrashesExitsExceptionsAndHangsAreFailures) {
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] { std::abort(); }), "killed by signal");
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] { std::exit(3); }), "exited with status 3");
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation([] { throw std::runtime_error("thrown"); }),
                          "uncaught exception: thrown");
  EXPECT_NONFATAL_FAILURE(RunInFreshSimulation(
                              [] {
                                for (;;) pause();
                              },
                              /*timeout_seconds=*/1),
                          "longer than its timeout");
}

}  // namespace
}  // namespace pto::testing
