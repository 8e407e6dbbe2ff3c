#include "frontend/record_runner.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/trace_writer.h"
#include "frontend/program_builder.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"

extern char** environ;

namespace pto::ptoc {
namespace {

constexpr int kExitError = 2;

// The environment with `overrides` (NAME=value) replacing or adding.
std::vector<std::string> Environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const std::string& o : overrides) {
      replaced |= entry.compare(0, o.find('=') + 1, o, 0, o.find('=') + 1) == 0;
    }
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

// Runs `argv` with `env`; the child's exit code (128 + signal if killed).
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, vars;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& v : env) vars.push_back(const_cast<char*>(v.c_str()));
  args.push_back(nullptr);
  vars.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), vars.data()) != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The binary stream at `path` (which pypto and ptoc wrote) as a .pbtxt.
absl::Status ToText(const std::string& path, const std::string& output) {
  std::ifstream in(path, std::ios::binary);
  google::protobuf::io::IstreamInputStream stream(&in);
  trace::TraceText text;
  bool clean_eof = false;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(text.mutable_header(), &stream,
                                                                &clean_eof)) {
    return absl::DataLossError(absl::StrCat(path, ": the recording has no header"));
  }
  while (true) {
    trace::StreamRecord record;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &stream, &clean_eof)) {
      if (clean_eof) break;
      return absl::DataLossError(
          absl::StrCat(path, ": record ", text.records_size(), " does not parse"));
    }
    *text.add_records() = std::move(record);
  }
  return WriteTraceText(output, text);
}

}  // namespace

int RecordScript(const std::string& script, const std::string& output,
                 const RecordOptions& options) {
  namespace fs = std::filesystem;
  const std::string recording = options.pbtxt ? absl::StrCat(output, ".recording.pb") : output;
  std::error_code ec;
  fs::remove(recording, ec);
  std::vector<std::string> env = {absl::StrCat("PTO_SIM_RECORD=", recording), "PTO_SIM_QUIET=1"};
  if (options.timing_only) env.push_back("PTO_SIM_TIMING_ONLY=1");
  if (!options.package_dir.empty() && fs::is_directory(options.package_dir, ec)) {
    const char* path = std::getenv("PYTHONPATH");
    env.push_back(absl::StrCat("PYTHONPATH=", options.package_dir,
                               path != nullptr && *path ? absl::StrCat(":", path) : ""));
  }
  const int code = Spawn({options.python, script}, Environment(env));
  if (code < 0) {
    std::cerr << "ptoc: error: cannot run " << options.python
              << "; expected Debian's python3 (apt-get install python3 python3-torch)\n";
    return kExitError;
  }
  if (code != 0) {
    std::cerr << script << ": error: the script exited " << code
              << " (its messages above); no stream written\n";
    return kExitError;
  }
  if (!fs::exists(recording, ec)) {
    std::cerr << script << ": warning: the script launched no kernel; the stream holds its "
              << "header alone\n";
    ProgramBuilder empty(fs::path(script).filename().string());
    trace::TraceText text = empty.Finish();
    if (options.timing_only) text.mutable_header()->set_timing_only(true);
    const absl::Status s = options.pbtxt ? WriteTraceText(output, text) : [&] {
      auto writer = TraceWriter::Create(output, text.header());
      return writer.ok() ? (*writer)->Finish() : writer.status();
    }();
    if (!s.ok()) {
      std::cerr << output << ": error: " << s.message() << "\n";
      return kExitError;
    }
    return 0;
  }
  if (options.pbtxt) {
    const absl::Status s = ToText(recording, output);
    fs::remove(recording, ec);
    if (!s.ok()) {
      std::cerr << output << ": error: " << s.message() << "\n";
      return kExitError;
    }
  }
  return 0;
}

}  // namespace pto::ptoc
