// The output files of whole runs (issue #7), read back as the runtime's
// tools would read them.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/perfetto_tracks.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::testing::CliResult;
using ::pto::testing::ReadFile;
using ::pto::testing::ReadJson;
using ::pto::testing::RunCli;
using ::pto::testing::SimRun;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

std::string Compiled(const std::string& name) { return kBuild + "/traces/" + name + ".pb"; }

SimRun Simulate(const std::string& trace, std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, kSource + "/configs/ascend.yaml", trace, extra);
}

TEST(OutputsCliTest, GatedSkipIsAMarkerWithoutABar) {
  const SimRun run = Simulate(Compiled("gated"), {"--swimlane-level", "3"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const std::string dir = run.out_dir + "/launch_0";  // gate 0: the bump is skipped
  const nlohmann::json swimlane = ReadJson(dir + "/chip_swimlane_records.json");
  const nlohmann::json deps = ReadJson(dir + "/deps.json");
  ASSERT_EQ(deps["tasks"].size(), 2u);
  const std::string skipped_id = deps["tasks"][1]["task_id"];
  // Bars only for the always-dispatched task: 4 blocks on 4 lanes.
  ASSERT_EQ(swimlane["aicore_tasks"].size(), 4u);
  for (const auto& row : swimlane["aicore_tasks"]) {
    EXPECT_NE(std::to_string(row[1].get<uint64_t>()), skipped_id);
  }
  int markers = 0;
  for (const auto& thread : swimlane["aicpu_scheduler_phases"]) {
    for (const auto& phase : thread) {
      if (phase["kind"] == "predicated_skip") {
        ++markers;
        EXPECT_EQ(std::to_string(phase["task_id"].get<uint64_t>()), skipped_id);
      }
    }
  }
  EXPECT_EQ(markers, 1);
  EXPECT_THAT(ReadFile(dir + "/swimlane.svg"), HasSubstr("class=\"marker skip\""));
}

TEST(OutputsCliTest, DepsJsonCollapsesSpmdAndShowsTheChain) {
  const SimRun run = Simulate(Compiled("spmd_blocks"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json per_block = ReadJson(run.out_dir + "/launch_0/deps.json");
  const nlohmann::json spmd = ReadJson(run.out_dir + "/launch_1/deps.json");
  ASSERT_EQ(per_block["tasks"].size(), 4u);
  std::set<std::pair<std::string, std::string>> chain;
  for (const auto& edge : per_block["edges"]) {
    EXPECT_EQ(edge["source"], "tensormap");
    EXPECT_EQ(edge["flags"], nlohmann::json::array({"wait"}));
    chain.insert({edge["pred"].get<std::string>(), edge["succ"].get<std::string>()});
  }
  for (int i = 0; i + 1 < 4; ++i) {
    EXPECT_TRUE(
        chain.count({per_block["tasks"][i]["task_id"], per_block["tasks"][i + 1]["task_id"]}))
        << i;
  }
  ASSERT_EQ(spmd["tasks"].size(), 1u);
  EXPECT_EQ(spmd["tasks"][0]["block_num"], 4);
  EXPECT_TRUE(spmd["edges"].empty());
  const nlohmann::json names = ReadJson(run.out_dir + "/launch_1/name_map_spmd_blocks.json");
  EXPECT_EQ(names["orchestrator_name"], "spmd_blocks");
}

TEST(OutputsCliTest, NarrowClaimHasNoTensorMapEdges) {
  const SimRun run = Simulate(Compiled("narrow_claim"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json deps = ReadJson(run.launch_dir() + "/deps.json");
  EXPECT_EQ(deps["tasks"].size(), 4u);
  for (const auto& edge : deps["edges"]) EXPECT_NE(edge["source"], "tensormap");
}

TEST(OutputsCliTest, CompareShowsWhatEarlyResolveBought) {
  trace::TraceText plain = ::pto::testing::LoadTraceFile(Compiled("early_resolve"));
  for (auto& r : *plain.mutable_records()) {
    if (r.has_submit()) r.mutable_submit()->set_allow_early_resolve(false);
  }
  const SimRun without = Simulate(::pto::testing::SaveTraceFile(plain, "er_plain"));
  const SimRun with = Simulate(Compiled("early_resolve"));
  ASSERT_EQ(without.cli.exit_code, 0) << without.cli.err;
  ASSERT_EQ(with.cli.exit_code, 0) << with.cli.err;
  const CliResult compare =
      RunCli(kPtoSim, {"compare", without.out_dir + "/stats.json", with.out_dir + "/stats.json"});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_THAT(compare.out, HasSubstr("makespan"));
  EXPECT_THAT(compare.out, HasSubstr("%"));
  EXPECT_THAT(compare.out, HasSubstr("critical"));
}

TEST(OutputsCliTest, DoubleBufferingWritesItsPipesEverywhere) {
  const SimRun run = Simulate(Compiled("double_buffering"), {"--swimlane-detail", "pipes"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("  pipes: AIV busy "));
  EXPECT_THAT(run.cli.out, HasSubstr("critical path bound by "));
  for (const char* launch : {"/launch_0", "/launch_1"}) {
    const std::string dir = run.out_dir + launch;
    const nlohmann::json stats = ReadJson(dir + "/stats.json");
    const nlohmann::json& pipes = stats["pipes"];
    // One AIV block: load, exp and store of eight tiles.
    EXPECT_GT(pipes["busy_ns"]["aiv"]["mte2"].get<double>(), 0) << launch;
    EXPECT_GT(pipes["busy_ns"]["aiv"]["vector"].get<double>(), 0) << launch;
    EXPECT_EQ(pipes["busy_ns"]["aic"]["mte2"], 0.0) << launch;
    // The loads' own time is at least MTE2's union of it.
    EXPECT_GE(pipes["op_ns"]["mte2"]["LOAD"].get<double>(),
              pipes["busy_ns"]["aiv"]["mte2"].get<double>());
    uint64_t bound = 0;
    for (const auto& [pipe, n] : pipes["bound_tasks"].items()) bound += n.get<uint64_t>();
    EXPECT_EQ(bound, 1u) << launch;
    ASSERT_EQ(stats["task_records"].size(), 1u);
    const std::string task_bound = stats["task_records"][0]["bound_pipe"];
    EXPECT_EQ(pipes["bound_tasks"][task_bound], 1);
    EXPECT_EQ(stats["scheduler_overhead"]["critical_path"]["bound_pipe"], task_bound);
    const double share = stats["scheduler_overhead"]["critical_path"]["bound_pipe_share"];
    EXPECT_GT(share, 0);
    EXPECT_LE(share, 1);

    const nlohmann::json trace = ReadJson(dir + "/perfetto.json");
    EXPECT_THAT(::pto::testing::TrackNestingProblems(trace), IsEmpty()) << launch;
    std::set<std::string> pipe_tracks;
    for (const nlohmann::json& e : trace["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "thread_name" &&
          ::pto::testing::IsPipeTrack(e["pid"], e["tid"])) {
        const std::string name = e["args"]["name"];
        pipe_tracks.insert(name.substr(name.find(' ') + 1));
      }
    }
    EXPECT_TRUE(pipe_tracks.count("vector")) << launch;
    EXPECT_TRUE(pipe_tracks.count("mte2") || pipe_tracks.count("mte2 #0")) << launch;
    EXPECT_THAT(ReadFile(dir + "/swimlane.svg"), HasSubstr("<rect class=\"pipe mte2\""));
  }
}

// Each task record carries the GM bytes its blocks moved: a program's
// loads and stores as issued, a cost summary's bytes_in and bytes_out; over
// the launch they add up to the memory system's totals.
TEST(OutputsCliTest, TaskRecordsCarryTheirGmBytes) {
  // double_buffering: one AIV block loads, exps and stores 8 tiles of
  // [64, 128] FP32 (32 KiB each) in every launch.
  const SimRun run = Simulate(Compiled("double_buffering"));
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const nlohmann::json stats = ReadJson(run.out_dir + "/launch_0/stats.json");
  ASSERT_EQ(stats["task_records"].size(), 1u);
  EXPECT_EQ(stats["task_records"][0]["gm_read_bytes"], 8 * 64 * 128 * 4);
  EXPECT_EQ(stats["task_records"][0]["gm_write_bytes"], 8 * 64 * 128 * 4);
  const nlohmann::json& gm = stats["gm"];
  EXPECT_EQ(stats["task_records"][0]["gm_read_bytes"].get<uint64_t>(),
            gm["l2_read_hit_bytes"].get<uint64_t>() + gm["l2_read_miss_bytes"].get<uint64_t>());
  EXPECT_EQ(stats["task_records"][0]["gm_write_bytes"], gm["l2_write_bytes"]);

  // A cost summary over 4 blocks: its bytes, not its blocks' shares.
  ::pto::testing::TraceBuilder builder("summary_bytes");
  const uint32_t in = builder.Tensor("in", 1024, 1024, /*contents=*/false);
  const uint32_t out = builder.Tensor("out", 1024, 1024, /*contents=*/false);
  const uint32_t kernel = builder.CostKernel("k", trace::AIV, 1000);
  builder.BeginScope();
  builder.Submit("summary", kernel, {{in, trace::INPUT}, {out, trace::OUTPUT_EXISTING}}, {},
                 /*blocks=*/4);
  trace::TraceText text = builder.Finish();
  trace::CostSummary* cost = text.mutable_header()->mutable_kernels(0)->mutable_cost();
  cost->set_bytes_in(3 << 20);
  cost->set_bytes_out(1 << 20);
  text.mutable_header()->set_timing_only(true);
  const SimRun summary = Simulate(::pto::testing::SaveTraceFile(text, "summary_bytes"));
  ASSERT_EQ(summary.cli.exit_code, 0) << summary.cli.err;
  const nlohmann::json task = summary.stats["task_records"][0];
  EXPECT_EQ(task["gm_read_bytes"], 3 << 20);
  EXPECT_EQ(task["gm_write_bytes"], 1 << 20);
}

TEST(OutputsCliTest, PipeStripsAreOptionalAndTheSummaryOnlyTextNamesTheBoundPipes) {
  const SimRun plain = Simulate(Compiled("double_buffering"));
  ASSERT_EQ(plain.cli.exit_code, 0) << plain.cli.err;
  EXPECT_THAT(ReadFile(plain.out_dir + "/launch_0/swimlane.svg"), Not(HasSubstr("class=\"pipe")));
  const SimRun summary = Simulate(Compiled("double_buffering"), {"--summary-only"});
  ASSERT_EQ(summary.cli.exit_code, 0) << summary.cli.err;
  EXPECT_THAT(summary.cli.out, HasSubstr("  pipes: AIV busy mte2 "));
  EXPECT_THAT(summary.cli.out, HasSubstr("; tasks bound by "));
  const nlohmann::json stats = ReadJson(summary.out_dir + "/launch_1/stats.json");
  EXPECT_GT(stats["pipes"]["busy_ns"]["aiv"]["mte2"].get<double>(), 0);
  const CliResult bad = RunCli(kPtoSim, {"--config", kSource + "/configs/ascend.yaml", "--trace",
                                         Compiled("double_buffering"), "--swimlane-detail", "ops"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(OutputsCliTest, StatsRecordTheirProvenanceAndCompareLeadsWithIt) {
  // Two launches: the run file and each launch's file.
  const std::string kGated = Compiled("gated");
  const SimRun a = Simulate(kGated);
  const SimRun b = Simulate(kGated, {"--set", "core.kernel_start_ns=450"});
  ASSERT_EQ(a.cli.exit_code, 0) << a.cli.err;
  ASSERT_EQ(b.cli.exit_code, 0) << b.cli.err;
  const nlohmann::json& p = b.run["provenance"];
  EXPECT_EQ(p["config"]["path"], kSource + "/configs/ascend.yaml");
  EXPECT_EQ(p["overrides"], nlohmann::json({"core.kernel_start_ns=450"}));
  EXPECT_EQ(p["traces"][0]["path"], kGated);
  EXPECT_EQ(p["traces"][0]["fnv1a64"], a.run["provenance"]["traces"][0]["fnv1a64"]);
  // Each launch's own file says where it came from too.
  EXPECT_EQ(ReadJson(b.out_dir + "/launch_1/stats.json")["provenance"], p);
  EXPECT_FALSE(b.run["per_launch"][0].contains("provenance"));
  const CliResult compared =
      RunCli(kPtoSim, {"compare", a.out_dir + "/stats.json", b.out_dir + "/stats.json"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_THAT(compared.out,
              HasSubstr("provenance differs:\n  --set: A [], B [\"core.kernel_start_ns=450\"]\n"));
  EXPECT_THAT(compared.out, HasSubstr("makespan_us"));
  EXPECT_THAT(compared.out, Not(HasSubstr("tasks                ")));  // unchanged: not shown
  EXPECT_THAT(compared.out, HasSubstr("more unchanged (--all shows them)"));
}

// Every perfetto.json of a run of `trace`: each launch_<k>'s.
std::vector<std::string> PerfettoFiles(const SimRun& run) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(run.out_dir)) {
    if (entry.path().filename() == "perfetto.json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The built traces of traces/, but the stress traces (no pipes, heavy) and
// Qwen3 (heavy-labelled tests of its own), sorted.
std::vector<std::string> LightBundledTraces() {
  std::vector<std::string> traces;
  for (const auto& entry : std::filesystem::directory_iterator(kBuild + "/traces")) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() == ".pb" && name.rfind("stress", 0) != 0 &&
        name.rfind("qwen3", 0) != 0) {
      traces.push_back(entry.path().string());
    }
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

TEST(OutputsCliTest, EveryBundledTracesPerfettoSlicesNestOnEveryTrack) {
  int checked = 0;
  for (const std::string& trace : LightBundledTraces()) {
    const SimRun run = Simulate(trace);
    for (const std::string& file : PerfettoFiles(run)) {
      EXPECT_THAT(::pto::testing::TrackNestingProblemsInFile(file), IsEmpty()) << file;
      ++checked;
    }
  }
  EXPECT_GE(checked, 25);
}

TEST(OutputsCliTest, ABlockDispatchedIntoASecondSlotGoesOnASubTrack) {
  // Two clusters: a core's next block is dispatched into its second slot
  // while the last one runs, so their Worker and Scheduler View bars overlap.
  const SimRun run = Simulate(Compiled("gemm_bf16"), {"--set", "chip.clusters=2"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const std::string file = run.launch_dir() + "/perfetto.json";
  EXPECT_THAT(::pto::testing::TrackNestingProblemsInFile(file), IsEmpty());
  EXPECT_THAT(ReadFile(file), HasSubstr("\"args\":{\"name\":\"AIC_0 #1\"}"));
}

// ctest perfetto_tracks_nest_qwen3 (label heavy) runs it: a 380 MB file.
TEST(OutputsCliTest, DISABLED_Qwen3PerfettoSlicesNestOnEveryTrack) {
  const SimRun run = Simulate(Compiled("qwen3_14b_decode"), {"--timing-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const std::vector<std::string> problems =
      ::pto::testing::TrackNestingProblemsInFile(run.launch_dir() + "/perfetto.json");
  EXPECT_THAT(problems, IsEmpty()) << problems.size() << " slices break the nesting";
}

// Each launch's scheduler_overhead in a run's stats.json.
std::vector<nlohmann::json> OverheadOf(const SimRun& run) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& l : run.run["per_launch"]) {
    out.push_back(l.contains("scheduler_overhead") ? l["scheduler_overhead"] : nlohmann::json());
  }
  return out;
}

TEST(OutputsCliTest, TheOnlineAnalysisEqualsTheWholeLaunchsOnEveryBundledTrace) {
  // --summary-only computes the overhead and critical path as the launch
  // runs, in bounded memory; --out from every record at its end.
  int launches = 0;
  for (const std::string& trace : LightBundledTraces()) {
    const std::string name = std::filesystem::path(trace).stem().string();
    const std::vector<std::string> flags = {"--timing-only", "--no-hazards"};
    const SimRun whole = Simulate(trace, flags);
    std::vector<std::string> online_flags = flags;
    online_flags.push_back("--summary-only");
    const SimRun online = Simulate(trace, online_flags);
    ASSERT_EQ(whole.cli.exit_code, 0) << name << whole.cli.err;
    ASSERT_EQ(online.cli.exit_code, 0) << name << online.cli.err;
    const std::vector<nlohmann::json> a = OverheadOf(whole), b = OverheadOf(online);
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t l = 0; l < a.size(); ++l) {
      EXPECT_TRUE(a[l].is_object()) << name;
      EXPECT_EQ(a[l], b[l]) << name << " launch " << l;
      ++launches;
    }
  }
  EXPECT_GE(launches, 50);
}

TEST(OutputsCliTest, EveryRunSaysWhereTimeWent) {
  // The README's main command: no --out.
  const CliResult run =
      RunCli(kPtoSim, {"--config", kSource + "/configs/ascend.yaml", "--trace", Compiled("gated")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("  scheduler overhead (share of makespan): AIC "));
  EXPECT_THAT(run.out, HasSubstr("  critical path: 0 hops, span "));
  EXPECT_THAT(run.out, HasSubstr("Avg scheduler loop iteration: "));
}

// Any valid name is text every writer carries: quotes, markup characters,
// a newline, a tab and non-ASCII letters in the launch, task, kernel and
// tensor names. Every JSON file parses back to the same names; the SVG
// escapes them.
TEST(OutputsCliTest, EveryWriterCarriesAnyValidName) {
  const std::string odd = "a\"b<c>&d'\\n\t\xe7\xae\x97\xe5\xad\x90";  // \n: a .pbtxt escape
  const std::string decoded = "a\"b<c>&d'\n\t\xe7\xae\x97\xe5\xad\x90";
  std::string text = ReadFile(kSource + "/bad_inputs/trace/base.pbtxt");
  const std::string quoted = absl::StrReplaceAll(odd, {{"\"", "\\\""}, {"\t", "\\t"}});
  text = absl::StrReplaceAll(
      text, {{"launch_begin { name: \"base\"", "launch_begin { name: \"L" + quoted + "\""},
             {"name: \"first\"", "name: \"T" + quoted + "\""},
             {"name: \"scale\"", "name: \"K" + quoted + "\""},
             {"name: \"x\"", "name: \"X" + quoted + "\""}});
  const std::string trace = ::pto::testing::FreshDir("odd_names") + "/odd.pbtxt";
  ::pto::testing::WriteFile(trace, text);
  const SimRun run = Simulate(trace, {"--swimlane-level", "2"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const std::string dir = run.launch_dir(0);
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    const std::string file = ReadFile(entry.path().string());
    ASSERT_TRUE(nlohmann::json::accept(file)) << name << " is not valid JSON";
    seen.insert(name);
  }
  EXPECT_THAT(seen, ::testing::IsSupersetOf({"stats.json", "chip_swimlane_records.json",
                                             "deps.json", "perfetto.json"}));
  // The names come back whole wherever they are written.
  // The task's name in the records and the trace viewer, the kernel's in the
  // name map, each decoded to the very bytes the trace spelled.
  const std::string task = "T" + decoded, kernel = "K" + decoded;
  // (Perfetto's slice names add "(r<ring>t<id>)".)
  const std::string task_json = nlohmann::json(task).dump();
  EXPECT_THAT(ReadJson(dir + "/perfetto.json").dump(),
              HasSubstr(task_json.substr(0, task_json.size() - 1)));
  EXPECT_THAT(run.stats.dump(), HasSubstr(task_json));
  std::string name_map;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("name_map_", 0) == 0) {
      name_map = entry.path().string();
    }
  }
  ASSERT_FALSE(name_map.empty());
  EXPECT_EQ(ReadJson(name_map)["callable_id_to_name"]["0"], kernel);
  EXPECT_EQ(ReadJson(name_map)["orchestrator_name"], "L" + decoded);
  const std::string svg = ReadFile(dir + "/swimlane.svg");
  EXPECT_THAT(svg, HasSubstr("b&lt;c&gt;&amp;d"));
  EXPECT_THAT(svg, Not(HasSubstr("b<c>&d")));
}

}  // namespace
}  // namespace pto
