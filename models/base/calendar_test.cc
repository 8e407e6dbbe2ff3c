#include "models/base/calendar.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;

// A client that logs "name@time" and runs `then` at each wake.
class Logger : public Calendar::Client {
 public:
  Logger(Calendar* calendar, std::string name, std::vector<std::string>* log)
      : calendar_(*calendar), name_(std::move(name)), log_(*log), id_(calendar->Add(this, name_)) {}
  void OnWake(TimePs now) override {
    log_.push_back(name_ + "@" + std::to_string(now));
    EXPECT_EQ(calendar_.now(), now);
    if (then) then(now);
  }
  Calendar::ClientId id() const { return id_; }
  std::function<void(TimePs)> then;

 private:
  Calendar& calendar_;
  std::string name_;
  std::vector<std::string>& log_;
  Calendar::ClientId id_;
};

void RunAll(Calendar& calendar) {
  for (TimePs at = calendar.next_at(); at != kNever; at = calendar.next_at()) {
    calendar.RunUntil(at);
  }
}

TEST(CalendarTest, WakesRunInTimeOrderAndTiesInTheOrderAsked) {
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log), b(&calendar, "b", &log), c(&calendar, "c", &log);
  calendar.WakeAt(c.id(), 20);
  calendar.WakeAt(b.id(), 10);
  calendar.WakeAt(a.id(), 10);
  EXPECT_EQ(calendar.next_at(), 10);
  RunAll(calendar);
  EXPECT_THAT(log, ElementsAre("b@10", "a@10", "c@20"));
  EXPECT_EQ(calendar.events(), 3u);
  EXPECT_EQ(calendar.events(a.id()), 1u);
  EXPECT_EQ(calendar.next_at(), kNever);
}

TEST(CalendarTest, TheEarliestRequestCountsAsForATimedEvent) {
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log);
  calendar.WakeAt(a.id(), 30);
  calendar.WakeAt(a.id(), 50);  // later: ignored
  EXPECT_EQ(calendar.wake_at(a.id()), 30);
  calendar.WakeAt(a.id(), 20);  // earlier: replaces
  RunAll(calendar);
  EXPECT_THAT(log, ElementsAre("a@20"));
  EXPECT_EQ(calendar.wake_at(a.id()), kNever);
}

TEST(CalendarTest, WakesAskedForNowRunInTheNextDeltaLastAskedFirst) {
  // SystemC's delta order: b was due before a asked for c and d; the delta
  // after runs d, then c, then what they asked for (a again).
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log), b(&calendar, "b", &log), c(&calendar, "c", &log),
      d(&calendar, "d", &log);
  a.then = [&](TimePs now) {
    if (log.size() > 1) return;
    calendar.WakeAt(c.id(), now);
    calendar.WakeAt(d.id(), now);
  };
  c.then = [&](TimePs now) { calendar.WakeAt(a.id(), now); };
  calendar.WakeAt(a.id(), 5);
  calendar.WakeAt(b.id(), 5);
  EXPECT_EQ(calendar.RunUntil(5), 5u);
  EXPECT_THAT(log, ElementsAre("a@5", "b@5", "d@5", "c@5", "a@5"));
}

TEST(CalendarTest, RunUntilStopsAtItsHorizonAndAClientMayWakeItselfAgain) {
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log);
  a.then = [&](TimePs now) {
    if (now < 30) calendar.WakeAt(a.id(), now + 10);
  };
  calendar.WakeAt(a.id(), 0);
  EXPECT_EQ(calendar.RunUntil(15), 2u);
  EXPECT_THAT(log, ElementsAre("a@0", "a@10"));
  EXPECT_EQ(calendar.next_at(), 20);
  RunAll(calendar);
  EXPECT_THAT(log, ElementsAre("a@0", "a@10", "a@20", "a@30"));
}

TEST(CalendarTest, CancelAndStop) {
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log), b(&calendar, "b", &log), c(&calendar, "c", &log);
  calendar.WakeAt(a.id(), 1);
  calendar.WakeAt(b.id(), 1);
  calendar.WakeAt(c.id(), 2);
  calendar.Cancel(c.id());
  a.then = [&](TimePs) { calendar.Stop(); };
  EXPECT_EQ(calendar.RunUntil(10), 1u);  // stopped after a
  EXPECT_THAT(log, ElementsAre("a@1"));
  RunAll(calendar);  // b still pending; c cancelled
  EXPECT_THAT(log, ElementsAre("a@1", "b@1"));
}

// The driver hears of wakes asked for from outside a run only.
class CountingDriver : public Calendar::Driver {
 public:
  void EarliestMoved(TimePs at) override { moved.push_back(at); }
  std::vector<TimePs> moved;
};

TEST(CalendarTest, TheDriverHearsOnlyOfWakesAskedOutsideARun) {
  Calendar calendar;
  CountingDriver driver;
  calendar.set_driver(&driver);
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log), b(&calendar, "b", &log);
  a.then = [&](TimePs now) { calendar.WakeAt(b.id(), now + 7); };
  calendar.WakeAt(a.id(), 3);
  RunAll(calendar);
  EXPECT_THAT(driver.moved, ElementsAre(3));
  EXPECT_THAT(log, ElementsAre("a@3", "b@10"));
}

TEST(CalendarTest, ARunningClientMayAskAgainLaterNowOrNotAtAllOrCancel) {
  // The running client's spent entry stays on top while it runs; each way
  // it can leave it must keep the order of everyone else's wakes.
  Calendar calendar;
  std::vector<std::string> log;
  Logger a(&calendar, "a", &log), b(&calendar, "b", &log), c(&calendar, "c", &log);
  int step = 0;
  a.then = [&](TimePs now) {
    switch (step++) {
      case 0:  // later, past b
        calendar.WakeAt(a.id(), now + 20);
        break;
      case 1:  // now: the next delta
        calendar.WakeAt(a.id(), now);
        break;
      case 2:  // later, then cancelled
        calendar.WakeAt(a.id(), now + 1);
        calendar.Cancel(a.id());
        break;
    }
  };
  b.then = [&](TimePs now) {
    if (now == 10) calendar.WakeAt(c.id(), now + 5);
  };
  calendar.WakeAt(a.id(), 0);
  calendar.WakeAt(b.id(), 10);
  RunAll(calendar);
  EXPECT_THAT(log, ElementsAre("a@0", "b@10", "c@15", "a@20", "a@20"));
  EXPECT_EQ(calendar.next_at(), kNever);
  EXPECT_EQ(calendar.wake_at(a.id()), kNever);
}

TEST(CalendarTest, ManyClientsRunInTimeThenAskOrder) {
  // Against a plain sort: 64 clients re-arming at pseudo-random times.
  Calendar calendar;
  std::vector<std::string> log;
  std::vector<std::unique_ptr<Logger>> clients;
  std::vector<std::pair<TimePs, int>> expected;
  uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<TimePs>((state >> 33) % 50);
  };
  for (int i = 0; i < 64; ++i) {
    clients.push_back(std::make_unique<Logger>(&calendar, "c" + std::to_string(i), &log));
  }
  std::vector<TimePs> seen;
  for (int i = 0; i < 64; ++i) {
    Logger* client = clients[i].get();
    client->then = [&, client](TimePs now) {
      seen.push_back(now);
      if (seen.size() < 2000) calendar.WakeAt(client->id(), now + 1 + next());
    };
    calendar.WakeAt(client->id(), next());
  }
  RunAll(calendar);
  EXPECT_EQ(seen.size(), 2000u + 63);  // the others still pending run once more
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
}

}  // namespace
}  // namespace pto
