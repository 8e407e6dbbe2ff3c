// CalendarProcess: the calendar runs ahead of SystemC's time by up to a
// quantum, in exact time order, and never past another process's activity.

#include "models/base/calendar_process.h"

#include <vector>

#include "gtest/gtest.h"
#include "models/base/sc_time.h"
#include "models/testing/systemc_test.h"

namespace pto {
namespace {

constexpr TimePs kNs = 1000;

// Wakes every `period` until `count` wakes, logging the calendar's time and
// SystemC's.
class Periodic : public Calendar::Client {
 public:
  Periodic(Calendar* calendar, TimePs period, int count)
      : calendar_(*calendar), period_(period), count_(count), id_(calendar->Add(this, "periodic")) {
    calendar_.WakeAt(id_, 0);
  }
  void OnWake(TimePs now) override {
    model_times.push_back(now);
    systemc_times.push_back(NowPs());
    if (static_cast<int>(model_times.size()) < count_) calendar_.WakeAt(id_, now + period_);
  }
  std::vector<TimePs> model_times;
  std::vector<TimePs> systemc_times;

 private:
  Calendar& calendar_;
  TimePs period_;
  int count_;
  Calendar::ClientId id_;
};

PTO_SYSTEMC_TEST(CalendarProcessTest, RunsAQuantumPerActivation) {
  Calendar calendar;
  CalendarProcess process("calendar", &calendar, /*quantum=*/1000 * kNs);
  Periodic periodic(&calendar, 100 * kNs, 100);  // 0 .. 9.9 us
  sc_core::sc_start();
  ASSERT_EQ(periodic.model_times.size(), 100u);
  for (size_t i = 0; i < periodic.model_times.size(); ++i) {
    EXPECT_EQ(periodic.model_times[i], static_cast<TimePs>(i) * 100 * kNs);
    // SystemC's time is the start of the quantum the wake ran in.
    EXPECT_LE(periodic.systemc_times[i], periodic.model_times[i]);
    EXPECT_GE(periodic.systemc_times[i] + 1000 * kNs, periodic.model_times[i]);
  }
  // Each quantum starts at a wake and holds eleven ([0, 1 us], then
  // [1.1 us, 2.1 us], ...): ceil(100 / 11) activations.
  EXPECT_EQ(process.activations(), 10u);
  EXPECT_EQ(calendar.events(), 100u);
}

// A plain SystemC process with its own timed event.
class Ticker : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Ticker);
  Ticker(sc_core::sc_module_name name, const Calendar* calendar, TimePs at)
      : sc_module(name), calendar_(*calendar) {
    SC_METHOD(Tick);
    sensitive << tick_;
    dont_initialize();
    tick_.notify(ScTime(at));
  }
  TimePs calendar_at_tick = -1;

 private:
  void Tick() { calendar_at_tick = calendar_.now(); }
  const Calendar& calendar_;
  sc_core::sc_event tick_;
};

PTO_SYSTEMC_TEST(CalendarProcessTest, NeverRunsPastAnotherProcessesActivity) {
  Calendar calendar;
  CalendarProcess process("calendar", &calendar, /*quantum=*/1000 * kNs);
  Periodic periodic(&calendar, 100 * kNs, 20);
  Ticker ticker("ticker", &calendar, 550 * kNs);
  sc_core::sc_start();
  // At the ticker's time the calendar has run the wakes up to 500 ns and
  // none after.
  EXPECT_EQ(ticker.calendar_at_tick, 500 * kNs);
  EXPECT_EQ(periodic.model_times.back(), 1900 * kNs);
}

}  // namespace
}  // namespace pto
