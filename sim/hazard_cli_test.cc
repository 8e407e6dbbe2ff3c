// The hazard detector on whole runs: unordered overlapping GM accesses
// between tasks are reported, ordered or disjoint ones are not.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::testing::SimRun;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

std::string Compiled(const std::string& name) { return kBuild + "/traces/" + name + ".pb"; }

SimRun Simulate(const std::string& trace, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, kSource + "/configs/ascend.yaml", trace, extra);
}

// tensor_claim with the copy task's deps= removed: manual_dep dropped its
// RAW edges, so nothing orders it after the writers of `scratch`.
std::string TensorClaimWithoutDeps() {
  trace::TraceText text = ::pto::testing::LoadTraceFile(Compiled("tensor_claim"));
  for (auto& record : *text.mutable_records()) {
    if (record.has_submit() && record.submit().deps_size() > 0) {
      record.mutable_submit()->clear_deps();
    }
  }
  return ::pto::testing::SaveTraceFile(text, "tensor_claim_no_deps");
}

TEST(HazardCliTest, MissingDepsOnTheCopyTaskIsAReportedRaw) {
  const SimRun run = Simulate(TensorClaimWithoutDeps());
  // The dependencies page's warning: a partly wrong result, and nothing loud on the device.
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("FAIL"));
  ASSERT_NE(run.stats, nullptr) << run.cli.err;
  ASSERT_GE(run.stats["hazards"].size(), 1u) << run.cli.out;
  const nlohmann::json& hazard = run.stats["hazards"][0];
  EXPECT_EQ(hazard["kind"], "RAW");
  EXPECT_THAT(hazard["line"].get<std::string>(), HasSubstr("deps="));
  EXPECT_EQ(hazard["task"]["name"], "tensor_claim_at4");  // the copy task
  // All four writers of scratch, whatever ran when: the detector compares
  // tasks by the program's order, not by which were in flight together.
  ASSERT_EQ(hazard["others"].size(), 4u);
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(hazard["others"][w]["name"], "tensor_claim_at" + std::to_string(w));
  }
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: RAW"));
  // The scratch tensor is named as the kernel description names it.
  EXPECT_EQ(run.stats["hazards"][0]["tensor"], "scratch");
  EXPECT_THAT(run.cli.out, HasSubstr("on scratch bytes"));
}

TEST(HazardCliTest, FailOnHazardTurnsAReportIntoExitOne) {
  // Timing-only: no checks to fail, so the exit code is the hazard's alone.
  const std::string trace = TensorClaimWithoutDeps();
  EXPECT_EQ(Simulate(trace, {"--timing-only"}).cli.exit_code, 0);
  EXPECT_EQ(Simulate(trace, {"--timing-only", "--fail-on-hazard"}).cli.exit_code, 1);
  const SimRun quiet = Simulate(trace, {"--no-hazards", "--timing-only"});
  EXPECT_THAT(quiet.cli.out, Not(HasSubstr("hazard:")));
  EXPECT_FALSE(quiet.stats.contains("hazards"));
}

// predicate_chain with a task that sets the gate submitted before the
// predicated task; `ordered` makes it a dependency of the predicated task.
std::string GateWrittenBy(bool ordered) {
  trace::TraceText text = ::pto::testing::LoadTraceFile(kSource + "/traces/predicate_chain.pbtxt");
  kernel_testing::KernelBuilder kb("set_gate");
  const uint32_t gate = kb.TensorParam("gate", trace::INT32, trace::KernelParam::OUT);
  const uint32_t one = kb.Tile("one", {1, 1}, trace::INT32);
  kb.Full(one, 1);
  kb.Store(one, gate, {kernel_testing::C(0), kernel_testing::C(0)});
  trace::Kernel* kernel = text.mutable_header()->add_kernels();
  *kernel = kb.kernel();
  kernel->set_id(text.header().kernels_size() - 1);
  auto* records = text.mutable_records();
  int predicated = 0;
  while (!records->Get(predicated).has_submit() ||
         !records->Get(predicated).submit().has_predicate()) {
    ++predicated;
  }
  trace::StreamRecord set_gate;
  trace::Submit* s = set_gate.mutable_submit();
  s->set_name("set_gate");
  for (int32_t id : {-1, static_cast<int32_t>(kernel->id()), -1}) s->add_kernel_ids(id);
  s->set_block_num(1);
  s->set_scope_depth(1);
  trace::TensorArg* arg = s->add_args()->mutable_tensor();
  arg->set_tensor_id(1);  // gate
  arg->set_direction(trace::OUTPUT_EXISTING);
  // set_gate becomes task 1; the predicated task (now 2) may depend on it.
  if (ordered) records->Mutable(predicated)->mutable_submit()->add_deps(1);
  *records->Add() = set_gate;
  for (int r = records->size() - 1; r > predicated; --r) records->SwapElements(r, r - 1);
  return ::pto::testing::SaveTraceFile(text, ordered ? "gate_ordered" : "gate_unordered");
}

TEST(HazardCliTest, APredicateWhoseProducerIsNoDependencyIsReported) {
  const SimRun run = Simulate(GateWrittenBy(/*ordered=*/false));
  ASSERT_NE(run.stats, nullptr) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: predicate read"));
  EXPECT_THAT(run.cli.out, HasSubstr("on gate bytes [0, 4)"));
  EXPECT_THAT(run.cli.out, HasSubstr("'set_gate'"));
  ASSERT_EQ(run.stats["hazards"].size(), 1u) << run.cli.out;
  EXPECT_EQ(run.stats["hazards"][0]["kind"], "predicate read");
}

TEST(HazardCliTest, APredicateOrderedAfterItsProducerIsNotReported) {
  const SimRun run = Simulate(GateWrittenBy(/*ordered=*/true));
  EXPECT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_TRUE(run.stats["hazards"].empty()) << run.stats["hazards"];
}

// The catalogue's base trace with y made manual_dep: its writer registers
// nothing, so the host read of y waits for nothing and may read it stale.
TEST(HazardCliTest, AHostReadOfAManualDepTensorsElementIsStale) {
  trace::TraceText text = ::pto::testing::LoadTraceFile(kSource + "/bad_inputs/trace/base.pbtxt");
  ASSERT_EQ(text.header().tensors(1).name(), "y");
  const std::string registered = ::pto::testing::SaveTraceFile(text, "host_read_registered");
  text.mutable_header()->mutable_tensors(1)->set_manual_dep(true);
  const std::string unregistered = ::pto::testing::SaveTraceFile(text, "host_read_manual_dep");
  const SimRun clean = Simulate(registered, {"--fail-on-hazard"});
  EXPECT_EQ(clean.cli.exit_code, 0) << clean.cli.out << clean.cli.err;
  const SimRun stale = Simulate(unregistered, {"--fail-on-hazard"});
  EXPECT_EQ(stale.cli.exit_code, 1) << stale.cli.out << stale.cli.err;
  EXPECT_THAT(stale.cli.out,
              HasSubstr("hazard: stale host read on y bytes [4, 8): the orchestration's read at "
                        "base.py:10 reads an element that 'first' (#0) writes"));
  EXPECT_THAT(stale.cli.out, HasSubstr("without manual_dep=True"));
}

// The catalogue's base trace turned into `writers` copies of its first task
// (x into y) with y made manual_dep and no deps: each writer of y races with
// the one before it. `distinct_names` names each writer apart.
std::string UnorderedWritersOfOneTile(int writers, bool distinct_names) {
  trace::TraceText text = ::pto::testing::LoadTraceFile(kSource + "/bad_inputs/trace/base.pbtxt");
  text.mutable_header()->mutable_tensors(1)->set_manual_dep(true);
  trace::StreamRecord writer;
  for (const trace::StreamRecord& record : text.records()) {
    if (record.has_submit() && record.submit().name() == "first") writer = record;
  }
  auto* records = text.mutable_records();
  const trace::StreamRecord begin = records->Get(0);
  const trace::StreamRecord scope = records->Get(1);
  records->Clear();
  *records->Add() = begin;
  *records->Add() = scope;
  for (int w = 0; w < writers; ++w) {
    writer.mutable_submit()->set_name(distinct_names ? "writer_" + std::to_string(w)
                                                     : std::string("tile_writer"));
    *records->Add() = writer;
  }
  records->Add()->mutable_scope_end()->set_depth(1);
  records->Add()->mutable_launch_end();
  return ::pto::testing::SaveTraceFile(text,
                                       distinct_names ? "distinct_writers" : "repeated_writers");
}

// 1000 writers of one name: the reports fold into one entry, so stats.json
// stays small (it was 63 MB when every report named every earlier writer).
TEST(HazardCliTest, ManyUnorderedWritersOfOneTileStayOneSmallEntry) {
  constexpr int kWriters = 1000;
  const SimRun run = Simulate(UnorderedWritersOfOneTile(kWriters, /*distinct_names=*/false));
  ASSERT_NE(run.stats, nullptr) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("hazards: 999"));
  const nlohmann::json& hazards = run.stats["hazards"];
  ASSERT_EQ(hazards.size(), 1u) << hazards;
  EXPECT_EQ(hazards[0]["kind"], "WAW");
  EXPECT_EQ(hazards[0]["repeats"], kWriters - 2);
  EXPECT_EQ(hazards[0]["others"].size(), 1u);
  EXPECT_LT(hazards.dump().size(), 4u << 10);  // bytes of the stored hazards
}

// A name per writer: 999 distinct races, of which stdout prints 50 and says
// how many it left out; stats.json stores them all.
TEST(HazardCliTest, DistinctRacesPastThePrintLimitAreCountedOnStdout) {
  const SimRun run = Simulate(UnorderedWritersOfOneTile(1000, /*distinct_names=*/true));
  ASSERT_NE(run.stats, nullptr) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: 949 more not printed (the first 50 of 999 distinct "
                                     "hazards are above"));
  EXPECT_EQ(run.stats["hazards"].size(), 999u);
}

TEST(HazardCliTest, ClaimsThatHoldAreNotReported) {
  for (const char* name :
       {"tensor_claim", "narrow_claim", "region_claim", "sliced", "serialized", "soft_barrier"}) {
    const SimRun run = Simulate(Compiled(name), {"--fail-on-hazard"});
    EXPECT_EQ(run.cli.exit_code, 0) << name << ": " << run.cli.out << run.cli.err;
    EXPECT_TRUE(run.stats["hazards"].empty()) << name << ": " << run.stats["hazards"];
  }
}

}  // namespace
}  // namespace pto
