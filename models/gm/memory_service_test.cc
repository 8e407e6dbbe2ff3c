#include "models/gm/memory_service.h"

#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/gm/testing/round_memory_params.h"

namespace pto {
namespace {

using ::pto::gm_testing::RoundMemoryParams;
using ::testing::ElementsAre;
using ::testing::Pair;

// Logs (transfer, done) and, once, starts a follow-up read when told.
class Core : public TransferSink {
 public:
  void OnTransferDone(MemorySystem::TransferId transfer, TimePs done) override {
    log.emplace_back(transfer, done);
    if (follow_up != nullptr) {
      MemoryService* service = follow_up;
      follow_up = nullptr;
      service->Start(requester, GmDirection::kRead, L2Split{0, 10'000});
    }
  }
  std::vector<std::pair<MemorySystem::TransferId, TimePs>> log;
  MemoryService* follow_up = nullptr;
  MemorySystem::RequesterId requester = -1;
};

void RunAll(Calendar& calendar) {
  for (TimePs at = calendar.next_at(); at != kNever; at = calendar.next_at()) {
    calendar.RunUntil(at);
  }
}

TEST(MemoryServiceTest, TellsEachRequesterWhenItsTransferLands) {
  Calendar calendar;
  MemoryService service(&calendar, RoundMemoryParams());
  Core a, b;
  a.requester = service.AddRequester({10, 10}, &a);
  b.requester = service.AddRequester({10, 10}, &b);
  const auto read = service.Start(a.requester, GmDirection::kRead, L2Split{0, 10'000});
  const auto write = service.Start(b.requester, GmDirection::kWrite, L2Split{5'000, 0});
  RunAll(calendar);
  // The write lands first: 500 ns at its cap + 100 ns; the read 1000 + 500.
  EXPECT_THAT(a.log, ElementsAre(Pair(read, Ns(1500))));
  EXPECT_THAT(b.log, ElementsAre(Pair(write, Ns(600))));
  // One wake per flow end.
  EXPECT_EQ(calendar.events(), 2u);
}

TEST(MemoryServiceTest, ARequesterMayStartItsNextTransferWhenTold) {
  Calendar calendar;
  MemoryService service(&calendar, RoundMemoryParams());
  Core a;
  a.requester = service.AddRequester({10, 10}, &a);
  a.follow_up = &service;
  service.Start(a.requester, GmDirection::kRead, L2Split{10'000, 0});
  RunAll(calendar);
  // The hit's last byte at 1000 ns; the follow-up starts then (the sink is
  // told at the flow's end) and takes 1000 ns + the miss latency.
  ASSERT_EQ(a.log.size(), 2u);
  EXPECT_EQ(a.log[0].second, Ns(1100));
  EXPECT_EQ(a.log[1].second, Ns(2500));
}

TEST(MemoryServiceTest, AStartAtAFlowsEndDoesNotShareWithIt) {
  // b's flow ends at 1000 ns; c starts at 1000 ns from a calendar client
  // that may run before the service's own wake: c still gets the full cap.
  Calendar calendar;
  MemoryService service(&calendar, RoundMemoryParams());
  Core b, c;
  b.requester = service.AddRequester({10, 10}, &b);
  c.requester = service.AddRequester({100, 100}, &c);
  service.Start(b.requester, GmDirection::kRead, L2Split{0, 10'000});
  class Starter : public Calendar::Client {
   public:
    void OnWake(TimePs) override { service->Start(c->requester, GmDirection::kRead, {0, 50'000}); }
    MemoryService* service;
    Core* c;
  } starter;
  starter.service = &service;
  starter.c = &c;
  calendar.WakeAt(calendar.Add(&starter, "starter"), Ns(1000));
  RunAll(calendar);
  ASSERT_EQ(b.log.size(), 1u);
  EXPECT_EQ(b.log[0].second, Ns(1500));
  // 50 000 B at the whole HBM, 100 B/ns: 500 ns.
  ASSERT_EQ(c.log.size(), 1u);
  EXPECT_EQ(c.log[0].second, Ns(1000 + 500 + 500));
}

}  // namespace
}  // namespace pto
