#include "sim/testing/cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pto::testing {
namespace {

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string TempRoot() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : std::filesystem::temp_directory_path().string();
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

nlohmann::json ReadJson(const std::string& path) { return nlohmann::json::parse(ReadFile(path)); }

std::string FreshDir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(TempRoot()) / ("pto_sim_test_" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

CliResult RunCli(const std::string& binary, const std::vector<std::string>& args) {
  const std::string dir = FreshDir("cli_io");
  const std::string out_path = dir + "/stdout";
  const std::string err_path = dir + "/stderr";
  std::string command = Quote(binary);
  for (const std::string& arg : args) command += " " + Quote(arg);
  command += " >" + Quote(out_path) + " 2>" + Quote(err_path) + " </dev/null";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

SimRun Simulate(const std::string& pto_sim, const std::string& config, const std::string& trace,
                const std::vector<std::string>& extra) {
  static int runs = 0;
  SimRun run;
  run.out_dir = FreshDir("out_" + std::filesystem::path(trace).stem().string() + "_" +
                         std::to_string(runs++));
  std::vector<std::string> args = {"--config", config, "--trace", trace, "--out", run.out_dir};
  args.insert(args.end(), extra.begin(), extra.end());
  run.cli = RunCli(pto_sim, args);
  if (const std::string path = run.out_dir + "/stats.json"; std::filesystem::exists(path)) {
    run.run = ReadJson(path);
  }
  if (const std::string path = run.launch_dir(0) + "/stats.json"; std::filesystem::exists(path)) {
    run.stats = ReadJson(path);
  }
  return run;
}

std::string SimRun::launch_dir(int k) const { return out_dir + "/launch_" + std::to_string(k); }

}  // namespace pto::testing
