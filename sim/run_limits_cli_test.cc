// A run stopped by SIGINT/SIGTERM, by --max-wall-seconds or by
// --max-sim-seconds (issue 11): it says where it stood, exits as documented
// and leaves no file under a final name.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"

namespace pto {
namespace {

namespace fs = std::filesystem;
using ::pto::testing::CliResult;
using ::pto::testing::FreshDir;
using ::pto::testing::ReadFile;
using ::pto::testing::RunCli;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kStressGen = PTO_STRESS_GEN_BINARY;
const std::string kConfig = std::string(PTO_SOURCE_DIR) + "/configs/ascend.yaml";

// A timing-only stress stream of `tasks` tasks, generated once per process.
std::string StressTrace(int tasks) {
  const std::string trace = FreshDir("stress_" + std::to_string(tasks)) + "/stress.pb";
  const CliResult gen = RunCli(kStressGen, {"--tasks", std::to_string(tasks), "-o", trace});
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  return trace;
}

// Long enough (seconds of wall time with every output on) that a signal
// lands in the middle of it.
const std::string& LongTrace() {
  static const std::string path = StressTrace(400000);
  return path;
}

// A fraction of a second of simulation: enough for a second process to act
// while the first runs.
const std::string& MediumTrace() {
  static const std::string path = StressTrace(60000);
  return path;
}

// Every regular file under `dir`.
std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    // The directory's marker (common/output_dir.h) is written first, by
    // design: it is not debris of the stopped launch.
    if (entry.is_regular_file() && entry.path().filename() != ".pto_sim_out") {
      files.push_back(entry.path().lexically_relative(dir).string());
    }
  }
  return files;
}

struct Stopped {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Starts `argv` with stdout and stderr in files; the child's pid.
pid_t Start(const std::vector<std::string>& argv, const std::string& io) {
  const std::string out_path = io + "/stdout", err_path = io + "/stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(out_path.c_str(), "w", stdout);
    freopen(err_path.c_str(), "w", stderr);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Waits until `ready()` or `seconds`.
template <typename Ready>
void WaitFor(Ready ready, int seconds = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Stopped Reap(pid_t pid, const std::string& io) {
  int status = 0;
  waitpid(pid, &status, 0);
  Stopped result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(io + "/stdout");
  result.err = ReadFile(io + "/stderr");
  return result;
}

// Starts pto_sim, waits until it has started simulating, sends `signal`.
Stopped RunAndSignal(int signal, const std::string& out_dir) {
  const std::string io = FreshDir("signal_io");
  const pid_t pid =
      Start({kPtoSim, "--config", kConfig, "--trace", LongTrace(), "--out", out_dir}, io);
  // The launch's directory appears when the simulation reaches its first launch.
  WaitFor([&] { return fs::exists(out_dir + "/launch_0"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, signal);
  return Reap(pid, io);
}

// A functional trace whose one tensor takes seconds to fill: 1 GiB of
// RANDN, so that a limit or a signal lands while it is filled.
std::string BigFillTrace() {
  std::string text = ReadFile(std::string(PTO_SOURCE_DIR) + "/bad_inputs/trace/base.pbtxt");
  text = absl::StrReplaceAll(
      text, {{"    shape: [64, 128]\n    gm_addr: 0x0\n    size_bytes: 32768\n"
              "    init { generator { kind: ARANGE start: 0 step: 1 } }",
              "    shape: [16384, 16384]\n    gm_addr: 0x100000000\n    size_bytes: 1073741824\n"
              "    init { generator { kind: RANDN seed: 7 } }"}});
  const std::string path = FreshDir("big_fill") + "/fill.pbtxt";
  testing::WriteFile(path, text);
  return path;
}

TEST(RunLimitsCliTest, SigintStopsCleanlyWithNoFinalNamedFile) {
  const std::string out_dir = FreshDir("sigint_out");
  const Stopped run = RunAndSignal(SIGINT, out_dir);
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_THAT(run.err, HasSubstr("pto_sim: stopped by SIGINT at simulated time "));
  EXPECT_THAT(run.err, HasSubstr("in launch 0 'stress' ("));
  EXPECT_THAT(run.err, HasSubstr("the unfinished launch wrote no files"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("checks:")));  // no summary of a partial run
  // Nothing at all is left: no final-named file and no temporary either.
  EXPECT_THAT(FilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, SigtermExits143AndSaysHowFarItGot) {
  const std::string out_dir = FreshDir("sigterm_out");
  const Stopped run = RunAndSignal(SIGTERM, out_dir);
  EXPECT_EQ(run.exit_code, 143) << run.err;
  EXPECT_THAT(run.err, MatchesRegex(".*stopped by SIGTERM at simulated time [0-9.]+ us, after "
                                    "[0-9.]+ s of wall time, in launch 0 'stress' \\([0-9]+ tasks "
                                    "submitted, [0-9]+ retired\\).*"));
  EXPECT_THAT(FilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, WallClockLimitEndsWithExit3AndAReport) {
  const std::string out_dir = FreshDir("wall_out");
  const CliResult run = RunCli(kPtoSim, {"--config", kConfig, "--trace", LongTrace(), "--out",
                                         out_dir, "--max-wall-seconds", "0.2"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr("wall-clock limit of 0.2 s reached (--max-wall-seconds) at "
                                 "simulated time "));
  EXPECT_THAT(run.err, HasSubstr("tasks submitted"));
  EXPECT_THAT(FilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, SimulatedTimeLimitEndsWithExit3NearTheLimit) {
  const CliResult run = RunCli(kPtoSim, {"--config", kConfig, "--trace", LongTrace(),
                                         "--summary-only", "--max-sim-seconds", "0.0005"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr("simulated-time limit of 0.0005 s reached (--max-sim-seconds)"));
  // It stops within one slice (10 us) of the limit, not at the end of the run.
  const size_t at = run.err.find("at simulated time ");
  ASSERT_NE(at, std::string::npos);
  const double us = std::stod(run.err.substr(at + 18));
  EXPECT_GE(us, 500.0);
  EXPECT_LT(us, 520.0);
}

TEST(RunLimitsCliTest, LimitsMustBePositive) {
  const CliResult run =
      RunCli(kPtoSim, {"--config", kConfig, "--trace", LongTrace(), "--max-wall-seconds", "-1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--max-wall-seconds"));
}

// Every file under `dir` whose name ends in ".tmp" (AtomicFile's
// temporaries and the writers' spools).
std::vector<std::string> TempFilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp") != std::string::npos) files.push_back(entry.path().string());
  }
  return files;
}

TEST(RunLimitsCliTest, WallClockLimitCoversTheTensorFill) {
  const std::string trace = BigFillTrace();
  const CliResult run =
      RunCli(kPtoSim, {"--config", kConfig, "--trace", trace, "--max-wall-seconds", "0.3"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr("wall-clock limit of 0.3 s reached (--max-wall-seconds) while "
                                 "preparing the run"));
}

TEST(RunLimitsCliTest, SigtermDuringTheTensorFillStopsAndSaysSo) {
  const std::string trace = BigFillTrace();
  const std::string io = FreshDir("fill_signal_io");
  const pid_t pid = Start({kPtoSim, "--config", kConfig, "--trace", trace}, io);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGTERM);
  const Stopped run = Reap(pid, io);
  EXPECT_EQ(run.exit_code, 143) << run.err;
  EXPECT_THAT(run.err, HasSubstr("pto_sim: stopped by SIGTERM while preparing the run"));
}

// SIGTERM once the first of the launch's final files is committed: the
// rest are not, and the launch's directory goes with what it had.
TEST(RunLimitsCliTest, SigtermWhileOutputsAreWrittenLeavesNoneOfThem) {
  const std::string out_dir = FreshDir("output_signal_out");
  const std::string io = FreshDir("output_signal_io");
  const pid_t pid =
      Start({kPtoSim, "--config", kConfig, "--trace", LongTrace(), "--out", out_dir}, io);
  WaitFor(
      [&] {
        return fs::exists(out_dir + "/launch_0/deps.json") ||
               fs::exists(out_dir + "/launch_0/chip_swimlane_records.json") ||
               fs::exists(out_dir + "/launch_0/stats.json");
      },
      /*seconds=*/240);  // the whole simulation comes first (minutes under ASan)
  kill(pid, SIGTERM);
  const Stopped run = Reap(pid, io);
  EXPECT_EQ(run.exit_code, 143) << run.err;
  EXPECT_THAT(run.err, HasSubstr("pto_sim: stopped by SIGTERM"));
  EXPECT_FALSE(fs::exists(out_dir + "/stats.json"));  // the run file comes last
  EXPECT_THAT(TempFilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, AClosedStdoutEndsTheRunCleanly) {
  const std::string out_dir = FreshDir("sigpipe_out");
  const std::string err_path = FreshDir("sigpipe_io") + "/stderr";
  // head takes the first byte of the first line (flushed as the run
  // starts) and leaves; the launch's report then meets a closed pipe.
  const CliResult run = RunCli(
      "/bin/bash", {"-c",
                    "\"$0\" --config \"$1\" --trace \"$2\" --out \"$3\" 2>\"$4\" | head -c 1 "
                    ">/dev/null; echo \"${PIPESTATUS[0]}\"",
                    kPtoSim, kConfig, MediumTrace(), out_dir, err_path});
  EXPECT_EQ(run.out, "141\n") << ReadFile(err_path);
  EXPECT_THAT(ReadFile(err_path), HasSubstr("pto_sim: stopped by SIGPIPE (stdout was closed)"));
  EXPECT_THAT(FilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, ASecondRunIntoTheSameOutFailsAtOnce) {
  const std::string out_dir = FreshDir("two_writers_out");
  const std::string io = FreshDir("two_writers_io");
  const pid_t first =
      Start({kPtoSim, "--config", kConfig, "--trace", MediumTrace(), "--out", out_dir}, io);
  WaitFor([&] { return fs::exists(out_dir + "/launch_0"); });
  // The second opens a small trace: it reaches the claim while the first
  // still simulates.
  const CliResult second = RunCli(
      kPtoSim, {"--config", kConfig, "--trace",
                std::string(PTO_SOURCE_DIR) + "/bad_inputs/trace/base.pbtxt", "--out", out_dir});
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_THAT(second.err, HasSubstr("another run is writing into it now"));
  const Stopped run = Reap(first, io);  // the first is untouched and completes
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(out_dir + "/stats.json"));
  EXPECT_TRUE(fs::exists(out_dir + "/launch_0/chip_swimlane_records.json"));
  EXPECT_THAT(TempFilesUnder(out_dir), ::testing::IsEmpty());
}

// The pids of `parent`'s children (Linux's /proc/PID/task/TID/children).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> pids;
  std::ifstream in(absl::StrCat("/proc/", parent, "/task/", parent, "/children"));
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// A sweep killed outright (SIGKILL: no handler runs) leaves no point
// running: each child had asked for SIGTERM at its parent's death.
TEST(RunLimitsCliTest, AKilledSweepLeavesNoPointRunning) {
  // Orphans come to this process, so that their end can be seen (and
  // reaped) whatever PID 1 is.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string out_dir = FreshDir("killed_sweep_out");
  const std::string io = FreshDir("killed_sweep_io");
  const pid_t sweep = Start({kPtoSim, "sweep", "--config", kConfig, "--trace", LongTrace(),
                             "--vary", "core.dispatch_slots=1,2", "--jobs", "2", "--out", out_dir},
                            io);
  std::vector<pid_t> points;
  WaitFor([&] {
    points = ChildrenOf(sweep);
    return points.size() == 2 && fs::exists(out_dir + "/points/0/out/launch_0") &&
           fs::exists(out_dir + "/points/1/out/launch_0");
  });
  ASSERT_EQ(points.size(), 2u) << ReadFile(io + "/stderr");
  kill(sweep, SIGKILL);
  EXPECT_EQ(Reap(sweep, io).exit_code, 128 + SIGKILL);
  for (const pid_t point : points) {
    int status = 0;
    // Reaped by us as the subreaper; stopped by its SIGTERM, cleanly.
    ASSERT_EQ(waitpid(point, &status, 0), point);
    EXPECT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 143);
  }
  EXPECT_THAT(TempFilesUnder(out_dir), ::testing::IsEmpty());
}

TEST(RunLimitsCliTest, AStoppedSweepStopsItsPointsAndWritesNoTable) {
  const std::string out_dir = FreshDir("stopped_sweep_out");
  const std::string io = FreshDir("stopped_sweep_io");
  const pid_t sweep =
      Start({kPtoSim, "sweep", "--config", kConfig, "--trace", LongTrace(), "--vary",
             "core.dispatch_slots=1,2,3", "--jobs", "2", "--out", out_dir},
            io);
  std::vector<pid_t> points;
  WaitFor([&] {
    points = ChildrenOf(sweep);
    return points.size() == 2 && fs::exists(out_dir + "/points/0/out/launch_0");
  });
  kill(sweep, SIGTERM);
  const Stopped run = Reap(sweep, io);
  EXPECT_EQ(run.exit_code, 143) << run.err;
  EXPECT_THAT(run.err, HasSubstr("pto_sim sweep: stopped by SIGTERM; every running point was "
                                 "stopped"));
  EXPECT_FALSE(fs::exists(out_dir + "/sweep.csv"));
  for (const pid_t point : points) EXPECT_NE(kill(point, 0), 0) << point << " still runs";
  EXPECT_FALSE(fs::exists(out_dir + "/points/2/stdout.txt"));  // never started
}

// `pto_sim deps` on a million tasks, under a 3 GiB address-space cap (not
// under ASan, whose shadow memory needs more): the reduction keeps memory
// linear in tasks and edges (an N x N bitset needed 125 GB here).
TEST(RunLimitsCliTest, DepsOfAMillionTasksFitsInBoundedMemory) {
  const std::string trace = StressTrace(1000000);
#if defined(__SANITIZE_ADDRESS__)
  const std::string cap;
#else
  const std::string cap = "ulimit -v 3145728; ";
#endif
  const CliResult deps =
      RunCli("/bin/bash", {"-c",
                           cap + "set -o pipefail; \"$0\" deps \"$1\" --edge-mode reduced | "
                                 "grep '^launch '",
                           kPtoSim, trace});
  ASSERT_EQ(deps.exit_code, 0) << deps.err;
  EXPECT_THAT(deps.out, MatchesRegex("launch '[^']*': 1000000 tasks, [0-9]+ edge reasons, [0-9]+ "
                                     "unique edges\n"));
}

}  // namespace
}  // namespace pto
