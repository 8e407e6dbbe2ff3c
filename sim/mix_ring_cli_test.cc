// The cross-core ring inside MIX tasks (issue #6, item 4), asserted as
// properties of whole pto_sim runs on the bundled traces: the ring depth
// orders makespans, cube and vector work overlap only across tiles, and the
// per-engine busy intervals reach stats.json, the Perfetto trace and the SVG.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::testing::ReadFile;
using ::pto::testing::ReadJson;
using ::pto::testing::SimRun;
using ::testing::HasSubstr;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

SimRun SimulateTrace(const std::string& trace, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, kSource + "/configs/ascend.yaml",
                                  kBuild + "/traces/" + trace + ".pb", extra);
}

SimRun RingStream(int slots) {
  return SimulateTrace("cross_core_ring",
                       {"--set", "core.cross_core_slots=" + std::to_string(slots)});
}

double Makespan(const nlohmann::json& stats) { return stats["makespan_us"].get<double>(); }

// Time the cube (AIC) and vector (AIV) intervals of `stats` overlap.
double CubeVectorOverlapUs(const nlohmann::json& stats) {
  std::vector<std::pair<double, double>> cube, vector;
  for (const nlohmann::json& e : stats["engine_intervals"]) {
    (e[3] == "cube" ? cube : vector).emplace_back(e[4].get<double>(), e[5].get<double>());
  }
  double overlap = 0;
  for (const auto& c : cube) {
    for (const auto& v : vector) {
      overlap += std::max(0.0, std::min(c.second, v.second) - std::max(c.first, v.first));
    }
  }
  return overlap;
}

TEST(MixRingCliTest, MoreRingSlotsShortenARingBoundKernel) {
  // dequant_matmul: the vector side pushes FP16 weight bands to the cube. On
  // a ring of 16 B/cycle moving a band takes longer than either engine's own
  // work, so one slot serialises push and copy-out; two hide it.
  auto run = [](int slots) {
    return SimulateTrace("dequant_matmul",
                         {"--set", "core.cross_core_slots=" + std::to_string(slots), "--set",
                          "core.cross_core_bytes_per_cycle=16"});
  };
  const SimRun one = run(1);
  const SimRun two = run(2);
  const SimRun four = run(4);
  for (const SimRun* r : {&one, &two, &four}) {
    ASSERT_EQ(r->cli.exit_code, 0) << r->cli.out << r->cli.err;
    EXPECT_THAT(r->cli.out, HasSubstr("checks: 1 passed, 0 failed"));
  }
  EXPECT_GT(Makespan(one.stats), 1.1 * Makespan(two.stats));
  EXPECT_GE(Makespan(two.stats), Makespan(four.stats));
  // One slot: the producer waits for the consumer to copy the band out.
  EXPECT_GT(one.stats["mix_ring"]["slot_wait_us"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(four.stats["mix_ring"]["slot_wait_us"].get<double>(), 0);
}

TEST(MixRingCliTest, MoreSlotsNeverHurtAnEngineBoundKernel) {
  // cross_core_ring on the default config: the engines' own work (each band's
  // GM loads) dominates the ring, so the depth changes nothing — or helps.
  const SimRun one = RingStream(1);
  const SimRun two = RingStream(2);
  const SimRun four = RingStream(4);
  for (const SimRun* r : {&one, &two, &four}) {
    ASSERT_EQ(r->cli.exit_code, 0) << r->cli.out << r->cli.err;
  }
  EXPECT_GE(Makespan(one.stats), Makespan(two.stats));
  EXPECT_GE(Makespan(two.stats), Makespan(four.stats));
}

TEST(MixRingCliTest, TheKernelsOwnSlotNumIsTheDefault) {
  const SimRun own = SimulateTrace("cross_core_ring");  // pl.cross_core_slot(slot_num=2)
  const SimRun two = RingStream(2);
  ASSERT_EQ(own.cli.exit_code, 0) << own.cli.err;
  EXPECT_DOUBLE_EQ(Makespan(own.stats), Makespan(two.stats));
}

TEST(MixRingCliTest, CubeAndVectorBusyIntervalsOverlapAcrossTiles) {
  const SimRun run = RingStream(2);
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json& mix = run.stats["mix_ring"];
  EXPECT_EQ(mix["blocks"], 1);
  EXPECT_EQ(mix["pushes"], 4);  // one Acc band per iteration
  EXPECT_GT(mix["overlap_us"].get<double>(), 0);
  // The per-core records show it too: the AIC's cube time overlaps the
  // AIVs' vector time.
  EXPECT_GT(CubeVectorOverlapUs(run.stats), 0);
  EXPECT_THAT(run.cli.out, HasSubstr("MIX ring: 4 pushes over 1 blocks"));
  // Perfetto: an engine sub-lane per core with cube and vector bars.
  const std::string perfetto = ReadFile(run.launch_dir() + "/perfetto.json");
  EXPECT_THAT(perfetto, HasSubstr("\"cat\":\"mix_cube\""));
  EXPECT_THAT(perfetto, HasSubstr("\"cat\":\"mix_vector\""));
  EXPECT_THAT(perfetto, HasSubstr(" engine\"}"));
  // The SVG marks both engines' busy strips.
  const std::string svg = ReadFile(run.launch_dir() + "/swimlane.svg");
  EXPECT_THAT(svg, HasSubstr("class=\"engine cube\""));
  EXPECT_THAT(svg, HasSubstr("class=\"engine vector\""));
}

TEST(MixRingCliTest, TheSingleTileMixedKernelSerialisesItsEngines) {
  // mixed_kernel.py launch 1: one matmul feeding one add, as the runtime-overhead page warns.
  const SimRun run = SimulateTrace("mixed_kernel");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  const nlohmann::json mixed = ReadJson(run.out_dir + "/launch_1/stats.json");
  EXPECT_EQ(mixed["mix_ring"]["pushes"], mixed["mix_ring"]["blocks"]);
  // Only the bias load overlaps the matmul; the add waits for the whole
  // matmul and its push: in every block the vector side's last stretch of
  // work starts after the cube's work ended.
  EXPECT_GT(mixed["mix_ring"]["data_wait_us"].get<double>(), 0);
  std::map<std::pair<int64_t, int64_t>, double> cube_end, vector_last_start;
  for (const nlohmann::json& e : mixed["engine_intervals"]) {
    const auto key = std::make_pair(e[1].get<int64_t>(), e[2].get<int64_t>());
    if (e[3] == "cube") {
      cube_end[key] = std::max(cube_end[key], e[5].get<double>());
    } else {
      vector_last_start[key] = std::max(vector_last_start[key], e[4].get<double>());
    }
  }
  ASSERT_FALSE(cube_end.empty());
  for (const auto& [key, end] : cube_end) EXPECT_GE(vector_last_start[key], end);
}

TEST(MixRingCliTest, TheMixVersionBeatsTheTwoTaskVersion) {
  const SimRun run = SimulateTrace("mixed_kernel");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const double staged = Makespan(ReadJson(run.out_dir + "/launch_0/stats.json"));
  const double mixed = Makespan(ReadJson(run.out_dir + "/launch_1/stats.json"));
  const double mixed_lr = Makespan(ReadJson(run.out_dir + "/launch_2/stats.json"));
  EXPECT_LT(mixed, staged);
  EXPECT_LT(mixed_lr, staged);
}

TEST(MixRingCliTest, ASplitHalvesTheVectorSidesTimeAndNotTheCubes) {
  const SimRun split = RingStream(2);
  // The same trace with its kernels' split dropped: each AIV then runs the
  // whole vector side.
  trace::TraceText text = ::pto::testing::LoadTraceFile(kBuild + "/traces/cross_core_ring.pb");
  for (auto& kernel : *text.mutable_header()->mutable_kernels()) {
    if (kernel.has_program()) kernel.mutable_program()->set_split(trace::SPLIT_NONE);
  }
  const SimRun whole = ::pto::testing::Simulate(
      kPtoSim, kSource + "/configs/ascend.yaml",
      ::pto::testing::SaveTraceFile(text, "ring_no_split"), {"--set", "core.cross_core_slots=2"});
  ASSERT_EQ(split.cli.exit_code, 0) << split.cli.err;
  ASSERT_EQ(whole.cli.exit_code, 0) << whole.cli.err;
  const nlohmann::json& a = split.stats["mix_ring"];
  const nlohmann::json& b = whole.stats["mix_ring"];
  // Each AIV computes half and moves half the bytes; its GM latencies stay.
  const double split_vector = a["vector_busy_us"].get<double>();
  const double whole_vector = b["vector_busy_us"].get<double>();
  EXPECT_LT(split_vector, 0.9 * whole_vector);
  EXPECT_GT(split_vector, 0.5 * whole_vector);
  EXPECT_NEAR(b["cube_busy_us"].get<double>(), a["cube_busy_us"].get<double>(), 1e-3);
  EXPECT_GE(Makespan(whole.stats), Makespan(split.stats));
}

}  // namespace
}  // namespace pto
