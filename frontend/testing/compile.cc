#include "frontend/testing/compile.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontend/call_compiler.h"
#include "gtest/gtest.h"
#include "models/core/kernel_program.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"
#include "sim/trace_reader.h"

namespace pto::ptoc {
namespace {

// Reads every record, as a run does; the first error or OK.
absl::Status ReadToEnd(absl::StatusOr<std::unique_ptr<TraceReader>> opened,
                       const std::string& name) {
  if (!opened.ok()) return opened.status();
  TraceReader& reader = **opened;
  // pto_sim compiles every kernel program before the run (sim/run_driver.cc).
  for (const trace::Kernel& kernel : reader.header().kernels()) {
    absl::StatusOr<CompiledKernel> compiled = CompileKernel(kernel);
    if (!compiled.ok()) {
      return absl::Status(compiled.status().code(),
                          absl::StrCat(name, ": ", compiled.status().message()));
    }
  }
  trace::StreamRecord record;
  while (true) {
    absl::StatusOr<bool> got = reader.Next(&record);
    if (!got.ok()) return got.status();
    if (!*got) return absl::OkStatus();
  }
}

}  // namespace

absl::Status ValidateForPtoSim(const trace::TraceText& trace, const std::string& name) {
  return ReadToEnd(TraceReader::FromText(trace, name), name);
}

absl::Status ValidateStreamFile(const std::string& path) {
  return ReadToEnd(TraceReader::Open(path), path);
}

std::vector<std::string> ScriptRun::Warnings() const {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    if (absl::StrContains(line, "warning:")) out.emplace_back(line);
  }
  return out;
}

ScriptRun RunScript(const std::string& file_name, const std::string& text,
                    const std::vector<std::string>& flags) {
  const std::string dir = ::pto::testing::FreshDir("script");
  const std::string source = dir + "/" + file_name;
  const std::string stream = dir + "/run.pb";
  ::pto::testing::WriteFile(source, text);
  std::vector<std::string> args = {source, "-o", stream};
  args.insert(args.end(), flags.begin(), flags.end());
  const ::pto::testing::CliResult cli = ::pto::testing::RunCli(PTOC_BINARY, args);
  ScriptRun run;
  run.exit_code = cli.exit_code;
  run.err = cli.err;
  if (cli.exit_code != 0) return run;
  if (absl::Status valid = ValidateStreamFile(stream); !valid.ok()) {
    run.exit_code = -1;
    run.err += absl::StrCat("\nptoc wrote a stream pto_sim rejects: ", valid.message());
    return run;
  }
  run.trace = ::pto::testing::LoadTraceFile(stream);
  return run;
}

trace::TraceText LoadStream(const std::string& path) {
  const absl::Status valid = ValidateStreamFile(path);
  EXPECT_TRUE(valid.ok()) << valid;
  return ::pto::testing::LoadTraceFile(path);
}

absl::Status RunDslModule(const std::string& file_name, const std::string& text) {
  return CompileCall(RequestForSource(file_name, text, "", {}), nullptr, {}).status();
}

}  // namespace pto::ptoc
