// A run stopped by SIGINT/SIGTERM, by --max-wall-seconds or by
// --max-sim-seconds (issue 11): it says where it stood, exits as documented
// and leaves no file under a final name.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

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

// A timing-only stream long enough (seconds of wall time with every output
// on) that a signal lands in the middle of it.
const std::string& LongTrace() {
  static const std::string path = [] {
    const std::string trace = FreshDir("long_trace") + "/stress.pb";
    const CliResult gen = RunCli(kStressGen, {"--tasks", "400000", "-o", trace});
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
    return trace;
  }();
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

// Starts pto_sim, waits until it has started simulating, sends `signal`.
Stopped RunAndSignal(int signal, const std::string& out_dir) {
  const std::string io = FreshDir("signal_io");
  const std::string out_path = io + "/stdout", err_path = io + "/stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(out_path.c_str(), "w", stdout);
    freopen(err_path.c_str(), "w", stderr);
    execl(kPtoSim.c_str(), kPtoSim.c_str(), "--config", kConfig.c_str(), "--trace",
          LongTrace().c_str(), "--out", out_dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // The launch's directory appears when the simulation reaches its first launch.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(out_dir + "/launch_0") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  Stopped result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
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

}  // namespace
}  // namespace pto
