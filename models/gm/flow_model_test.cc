#include "models/gm/flow_model.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using FlowId = FlowModel::FlowId;

// Runs the model to its end; each flow's end time, by id.
std::vector<TimePs> RunToEnd(FlowModel& model, size_t flows) {
  std::vector<TimePs> ends(flows, kNever);
  std::vector<FlowId> done;
  while (model.next_completion() != kNever) {
    const TimePs at = model.next_completion();
    done.clear();
    model.AdvanceTo(at, &done);
    for (FlowId id : done) ends[id] = at;
  }
  return ends;
}

TEST(FlowModelTest, OneFlowMovesAtItsBottleneck) {
  FlowModel model;
  const auto hbm = model.AddResource(8);
  const auto port = model.AddResource(2);
  const FlowId flow = model.Start(0, 1000, {port, hbm});
  EXPECT_DOUBLE_EQ(model.rate(flow), 2);
  // 1000 B at 2 B/ns.
  EXPECT_EQ(model.next_completion(), 500'000);
  EXPECT_THAT(RunToEnd(model, 1), ElementsAre(500'000));
}

TEST(FlowModelTest, FlowsOnOneResourceShareItEqually) {
  FlowModel model;
  const auto hbm = model.AddResource(2);
  model.Start(0, 1000, {hbm});
  model.Start(0, 3000, {hbm});
  // 1 B/ns each: the first ends at 1000 ns with 2000 B of the second left,
  // which then takes the whole 2 B/ns: 1000 ns more.
  EXPECT_THAT(RunToEnd(model, 2), ElementsAre(1'000'000, 2'000'000));
}

// Three requesters capped at 2, 4 and 8 B/ns share a 10 B/ns HBM, started
// in the given order of their caps: the first keeps its cap (2), the others
// split the remaining 8 (4 each; the second is then at its cap too).
void ExpectMaxMinFairRates(std::vector<int> start_order) {
  FlowModel model;
  const auto hbm = model.AddResource(10);
  std::vector<FlowModel::ResourceId> caps;
  for (double cap : {2.0, 4.0, 8.0}) caps.push_back(model.AddResource(cap));
  FlowId flow_of[3];
  for (int which : start_order) flow_of[which] = model.Start(0, 1000, {caps[which], hbm});
  EXPECT_DOUBLE_EQ(model.rate(flow_of[0]), 2);
  EXPECT_DOUBLE_EQ(model.rate(flow_of[1]), 4);
  EXPECT_DOUBLE_EQ(model.rate(flow_of[2]), 4);
}

TEST(FlowModelTest, RatesAreMaxMinFair) { ExpectMaxMinFairRates({0, 1, 2}); }

TEST(FlowModelTest, RatesDoNotDependOnTheOrderFlowsStart) { ExpectMaxMinFairRates({2, 1, 0}); }

TEST(FlowModelTest, FlowsStartingAtOneInstantShareOneRecompute) {
  // Three flows through ports of 30 B/ns into a 45 B/ns HBM start at t = 0.
  // The first runs alone at 30; the second would fill the HBM, so the
  // rates go stale; the first query shares the HBM, 15 B/ns each: 1000
  // bytes end at 66.667 ns. Until then the bound is the first flow's alone
  // end (33.334 ns), earlier than any.
  FlowModel model;
  const auto hbm = model.AddResource(45);
  const auto a = model.AddResource(30), b = model.AddResource(30), c = model.AddResource(30);
  model.Start(0, 1000, {a, hbm});
  EXPECT_FALSE(model.stale());
  model.Start(0, 1000, {b, hbm});
  model.Start(0, 1000, {c, hbm});
  EXPECT_TRUE(model.stale());
  EXPECT_EQ(model.next_completion_bound(), 33'334);
  EXPECT_EQ(model.next_completion(), 66'667);
  EXPECT_FALSE(model.stale());
  EXPECT_DOUBLE_EQ(model.resource_rate(hbm), 45);
}

TEST(FlowModelTest, AStartAtALaterTimeFirstGivesTheStaleFlowsTheirRates) {
  // Two flows through 30 B/ns ports share a 40 B/ns HBM from t = 0 (20
  // each, stale after the second); a third starts at 50 ns: by then each of
  // the first two moved 1000 of its 2000 bytes at 20 B/ns, not 30.
  FlowModel model;
  const auto hbm = model.AddResource(40);
  const auto a = model.AddResource(30), b = model.AddResource(30), c = model.AddResource(30);
  const FlowId first = model.Start(0, 2000, {a, hbm});
  model.Start(0, 2000, {b, hbm});
  EXPECT_TRUE(model.stale());
  model.Start(50'000, 1000, {c, hbm});
  EXPECT_EQ(model.remaining(first), 1000);
  // 40/3 B/ns each from 50 ns: the first two's 1000 bytes end at 125 ns.
  EXPECT_EQ(model.next_completion(), 125'000);
}

TEST(FlowModelTest, FlowsFillingTheirOwnPortShareIt) {
  // Three transfers of one core share its 30 B/ns port; the 1000 B/ns HBM
  // has room: the rates are the max-min ones, 15 each with two, 10 with
  // three, and another core's flow keeps its own port's 30.
  FlowModel model;
  const auto hbm = model.AddResource(1000);
  const auto port = model.AddResource(30);
  const auto other = model.AddResource(30);
  const FlowId x = model.Start(0, 3000, {port, hbm});
  const FlowId y = model.Start(0, 600, {port, hbm});
  EXPECT_DOUBLE_EQ(model.rate(x), 15);
  EXPECT_DOUBLE_EQ(model.rate(y), 15);
  const FlowId z = model.Start(0, 3000, {other, hbm});  // another core: alone
  EXPECT_DOUBLE_EQ(model.rate(z), 30);
  const FlowId w = model.Start(10'000, 300, {port, hbm});
  EXPECT_DOUBLE_EQ(model.rate(x), 10);
  EXPECT_DOUBLE_EQ(model.rate(w), 10);
  EXPECT_DOUBLE_EQ(model.resource_rate(port), 30);
  EXPECT_DOUBLE_EQ(model.resource_rate(hbm), 60);
  // y: 150 bytes by 10 ns, 450 left at 10/ns -> 55 ns; w: 300 at 10 -> 40
  // ns. w ends first; x and y then get 15 each.
  std::vector<FlowId> done;
  model.AdvanceTo(40'000, &done);
  EXPECT_THAT(done, ElementsAre(w));
  EXPECT_DOUBLE_EQ(model.rate(x), 15);
  EXPECT_DOUBLE_EQ(model.rate(y), 15);
  EXPECT_DOUBLE_EQ(model.rate(z), 30);
}

TEST(FlowModelTest, AStartThatWouldFillTheHbmRecomputes) {
  // Ports of 30 into a 50 B/ns HBM: core a's flow runs alone at 30; core
  // b's first would fill the HBM (60 > 50), so the rates go stale, and so
  // do they after its second. Max-min: b's port fills at 15 each (HBM 45),
  // then a's flow takes the HBM's last 20.
  FlowModel model;
  const auto hbm = model.AddResource(50);
  const auto a = model.AddResource(30), b = model.AddResource(30);
  const FlowId x = model.Start(0, 1000, {a, hbm});
  const FlowId y = model.Start(0, 1000, {b, hbm});
  EXPECT_TRUE(model.stale());
  const FlowId z = model.Start(0, 1000, {b, hbm});
  EXPECT_DOUBLE_EQ(model.rate(x), 20);
  EXPECT_DOUBLE_EQ(model.rate(y), 15);
  EXPECT_DOUBLE_EQ(model.rate(z), 15);
  // x ends first (50 ns). It filled the HBM, but y and z also fill their
  // port, so the HBM's reshare does not apply: recomputed, they keep 15.
  std::vector<FlowId> done;
  model.AdvanceTo(model.next_completion(), &done);
  EXPECT_THAT(done, ElementsAre(x));
  EXPECT_DOUBLE_EQ(model.rate(y), 15);
  EXPECT_DOUBLE_EQ(model.rate(z), 15);
  EXPECT_DOUBLE_EQ(model.resource_rate(hbm), 30);
}

TEST(FlowModelTest, ALaterFlowTakesItsShareFromThen) {
  FlowModel model;
  const auto hbm = model.AddResource(2);
  std::vector<FlowId> done;
  model.Start(0, 1000, {hbm});
  model.AdvanceTo(250'000, &done);  // 500 B moved alone
  EXPECT_TRUE(done.empty());
  model.Start(250'000, 1000, {hbm});
  // From 250 ns both move at 1 B/ns: the first's last 500 B end at 750 ns;
  // the second has 500 B left then, at 2 B/ns: 250 ns more.
  EXPECT_THAT(RunToEnd(model, 2), ElementsAre(750'000, 1'000'000));
}

TEST(FlowModelTest, IdenticalFlowsEndTogether) {
  // N requesters capped at c share a peak P: each moves at min(c, P / N), so
  // N equal transfers started together end together, at bytes / rate.
  for (int n : {1, 4, 16, 24, 48}) {
    FlowModel model;
    const auto hbm = model.AddResource(1600);
    for (int i = 0; i < n; ++i) model.Start(0, 1 << 20, {model.AddResource(128), hbm});
    const double rate = std::min(128.0, 1600.0 / n);
    const std::vector<TimePs> ends = RunToEnd(model, n);
    const TimePs expected =
        static_cast<TimePs>(std::ceil(static_cast<double>(1 << 20) / rate * 1000.0));
    for (TimePs end : ends) EXPECT_EQ(end, expected) << n << " flows";
  }
}

TEST(FlowModelTest, AggregateThroughputIsCappedByThePeak) {
  // 24 requesters of 128 B/ns on a 1600 B/ns HBM: 24 x 128 = 3072 > 1600, so
  // the HBM is the bottleneck and 24 MiB take 24 MiB / 1600 B/ns.
  FlowModel model;
  const auto hbm = model.AddResource(1600);
  for (int i = 0; i < 24; ++i) model.Start(0, 1 << 20, {model.AddResource(128), hbm});
  const std::vector<TimePs> ends = RunToEnd(model, 24);
  const TimePs last = *std::max_element(ends.begin(), ends.end());
  EXPECT_NEAR(static_cast<double>(last), 24.0 * (1 << 20) / 1600.0 * 1000.0, 1.0);
}

TEST(FlowModelTest, RemainingBytesFollowTheRate) {
  FlowModel model;
  const auto hbm = model.AddResource(4);
  const FlowId flow = model.Start(0, 4000, {hbm});
  std::vector<FlowId> done;
  model.AdvanceTo(500'000, &done);  // 2000 B at 4 B/ns
  EXPECT_EQ(model.remaining(flow), 2000);
  model.AdvanceTo(1'000'000, &done);
  EXPECT_THAT(done, ElementsAre(flow));
  EXPECT_EQ(model.active(), 0u);
  EXPECT_EQ(model.remaining(flow), 0);
  EXPECT_EQ(model.rate(flow), 0);
}

TEST(FlowModelTest, DisjointPathsDoNotInteract) {
  FlowModel model;
  const auto l2 = model.AddResource(4);
  const auto hbm = model.AddResource(1);
  const FlowId hit = model.Start(0, 1000, {l2});
  const FlowId miss = model.Start(0, 1000, {l2, hbm});
  // The miss is held to 1 B/ns by the HBM; the hit takes the L2's other 3.
  EXPECT_DOUBLE_EQ(model.rate(miss), 1);
  EXPECT_DOUBLE_EQ(model.rate(hit), 3);
}

TEST(FlowModelTest, AFlowWithRoomToSpareLeavesOthersAsTheyWere) {
  // A (cap 2) and then B (cap 3) on a 10 B/ns HBM: 5 B/ns in all, so the
  // HBM is no one's bottleneck and A ends at 1000 B / 2 B/ns as if alone.
  FlowModel model;
  const auto hbm = model.AddResource(10);
  const FlowId a = model.Start(0, 1000, {model.AddResource(2), hbm});
  std::vector<FlowId> done;
  model.AdvanceTo(100'000, &done);
  const FlowId b = model.Start(100'000, 1000, {model.AddResource(3), hbm});
  EXPECT_DOUBLE_EQ(model.rate(a), 2);
  EXPECT_DOUBLE_EQ(model.rate(b), 3);
  EXPECT_THAT(RunToEnd(model, 2), ElementsAre(500'000, 100'000 + 333'334));
}

// Max-min fair rates computed from scratch by progressive filling.
std::vector<double> ReferenceRates(const std::vector<double>& capacity,
                                   const std::vector<std::vector<FlowModel::ResourceId>>& paths) {
  std::vector<double> rate(paths.size(), -1);
  std::vector<double> residual = capacity;
  size_t left = paths.size();
  while (left > 0) {
    int bottleneck = -1;
    double share = 0;
    for (size_t r = 0; r < capacity.size(); ++r) {
      int users = 0;
      for (size_t f = 0; f < paths.size(); ++f) {
        users += rate[f] < 0 && std::count(paths[f].begin(), paths[f].end(), r) > 0;
      }
      if (users == 0) continue;
      const double fair = std::max(0.0, residual[r]) / users;
      if (bottleneck < 0 || fair < share) bottleneck = static_cast<int>(r), share = fair;
    }
    for (size_t f = 0; f < paths.size(); ++f) {
      if (rate[f] >= 0 || std::count(paths[f].begin(), paths[f].end(), bottleneck) == 0) continue;
      rate[f] = share;
      --left;
      for (FlowModel::ResourceId r : paths[f]) residual[r] -= share;
    }
  }
  return rate;
}

TEST(FlowModelTest, FlowsAlongOnePathShareOneRate) {
  // A 600 B/ns port carries three flows to a 1000 B/ns HBM (the third
  // lists the same resources the other way round); a 300 B/ns port one.
  // The first port's share (200) is the smallest: its three freeze at 200,
  // leaving the HBM 400 for the last, whose own port caps it at 300.
  FlowModel model;
  const auto hbm = model.AddResource(1000);
  const auto a = model.AddResource(600);
  const auto b = model.AddResource(300);
  const FlowId f0 = model.Start(0, 2000, {a, hbm});
  const FlowId f1 = model.Start(0, 2000, {a, hbm});
  const FlowId f2 = model.Start(0, 2000, {hbm, a});
  const FlowId f3 = model.Start(0, 3000, {b, hbm});
  EXPECT_DOUBLE_EQ(model.rate(f0), 200);
  EXPECT_DOUBLE_EQ(model.rate(f1), 200);
  EXPECT_DOUBLE_EQ(model.rate(f2), 200);
  EXPECT_DOUBLE_EQ(model.rate(f3), 300);
  EXPECT_DOUBLE_EQ(model.resource_rate(hbm), 900);
  // 2000 B at 200 and 3000 B at 300: all end at 10 ns.
  std::vector<FlowId> done;
  model.AdvanceTo(10'000, &done);
  EXPECT_THAT(done, ElementsAre(f0, f1, f2, f3));
  // The path, idle now, is taken again: alone, the flow gets its port.
  const FlowId f4 = model.Start(10'000, 600, {a, hbm});
  EXPECT_DOUBLE_EQ(model.rate(f4), 600);
  EXPECT_EQ(model.next_completion(), 11'000);
}

TEST(FlowModelTest, FlowsJoiningAPathLateReadItsClockFromThen) {
  // One 100 B/ns resource. A (1000 B) starts alone at 0: 100 B/ns. B
  // (1000 B) joins its path at 5 ns, when A has 500 B left: 50 B/ns each,
  // so A ends at 5 + 500 / 50 = 15 ns, B having moved 500 B by then; alone
  // again, B moves its last 500 B at 100 B/ns: it ends at 20 ns.
  FlowModel model;
  const auto hbm = model.AddResource(100);
  const FlowId a = model.Start(0, 1000, {hbm});
  EXPECT_EQ(model.next_completion(), 10'000);
  const FlowId b = model.Start(5'000, 1000, {hbm});
  EXPECT_DOUBLE_EQ(model.rate(a), 50);
  EXPECT_DOUBLE_EQ(model.rate(b), 50);
  EXPECT_EQ(model.remaining(a), 500);
  EXPECT_EQ(model.remaining(b), 1000);
  EXPECT_EQ(model.next_completion(), 15'000);
  std::vector<FlowId> done;
  model.AdvanceTo(15'000, &done);
  EXPECT_THAT(done, ElementsAre(a));
  EXPECT_EQ(model.remaining(b), 500);
  EXPECT_DOUBLE_EQ(model.rate(b), 100);
  EXPECT_EQ(model.next_completion(), 20'000);
  // A third flow joins at 18 ns (B: 200 B left, then 50 B/ns: 4 ns more);
  // C's 300 B move 200 B by 22 ns, the last 100 B alone: 1 ns more.
  const FlowId c = model.Start(18'000, 300, {hbm});
  EXPECT_EQ(model.next_completion(), 22'000);
  done.clear();
  model.AdvanceTo(30'000, &done);
  EXPECT_THAT(done, ElementsAre(b, c));
  EXPECT_EQ(model.remaining(c), 0);
  // Idle since, the path's clock starts afresh: 200 B alone, 2 ns.
  model.Start(40'000, 200, {hbm});
  EXPECT_EQ(model.next_completion(), 42'000);
}

TEST(FlowModelTest, RatesStayMaxMinFairAsFlowsComeAndGo) {
  // Requester ports of 5..40 B/ns in front of an L2 and an HBM, flows
  // starting at random times over random paths: after every start and
  // every completion the rates are those a recompute from scratch gives,
  // whether or not the model took its shortcut.
  std::mt19937 random(19);
  FlowModel model;
  std::vector<double> capacity = {150, 100};  // L2, HBM
  for (double c : capacity) model.AddResource(c);
  for (int p = 0; p < 8; ++p) {
    capacity.push_back(5 + 5 * p);
    model.AddResource(capacity.back());
  }
  std::map<FlowId, std::vector<FlowModel::ResourceId>> active;
  const auto expect_fair = [&] {
    std::vector<std::vector<FlowModel::ResourceId>> paths;
    for (const auto& [id, path] : active) paths.push_back(path);
    const std::vector<double> want = ReferenceRates(capacity, paths);
    size_t i = 0;
    for (const auto& [id, path] : active) {
      ASSERT_NEAR(model.rate(id), want[i], want[i] * 1e-9) << "flow " << id;
      ++i;
    }
    // Each resource's load, kept up between recomputes, is its flows' sum.
    for (size_t r = 0; r < capacity.size(); ++r) {
      double sum = 0;
      for (size_t f = 0; f < paths.size(); ++f) {
        if (std::count(paths[f].begin(), paths[f].end(), r) > 0) sum += want[f];
      }
      ASSERT_NEAR(model.resource_rate(static_cast<FlowModel::ResourceId>(r)), sum,
                  capacity[r] * 1e-9)
          << "resource " << r;
    }
  };
  std::vector<FlowId> done;
  const auto advance = [&](TimePs to) {
    while (model.next_completion() != kNever && model.next_completion() <= to) {
      done.clear();
      model.AdvanceTo(model.next_completion(), &done);
      for (FlowId id : done) active.erase(id);
      expect_fair();
    }
    model.AdvanceTo(to, &done);
  };
  TimePs now = 0;
  for (int n = 0; n < 300; ++n) {
    now += std::uniform_int_distribution<TimePs>(0, 40'000)(random);
    advance(now);
    std::vector<FlowModel::ResourceId> path = {
        static_cast<FlowModel::ResourceId>(2 + random() % 8)};
    if (random() % 4 != 0) path.push_back(0);
    if (random() % 2 != 0) path.push_back(1);
    const int64_t bytes = std::uniform_int_distribution<int64_t>(100, 5000)(random);
    active[model.Start(now, bytes, path)] = path;
    expect_fair();
  }
  while (model.next_completion() != kNever) advance(model.next_completion());
  EXPECT_TRUE(active.empty());
}

}  // namespace
}  // namespace pto
