#include "frontend/testing/compile.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "models/core/kernel_program.h"
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

absl::StatusOr<trace::TraceText> CompileAndValidate(const SourceFile& source,
                                                    std::vector<std::string>* warnings,
                                                    const CompileOptions& options) {
  absl::StatusOr<trace::TraceText> trace = CompileSource(source, warnings, options);
  if (!trace.ok()) return trace;
  if (absl::Status valid = ValidateForPtoSim(*trace, source.name()); !valid.ok()) {
    return absl::InternalError(
        absl::StrCat("ptoc wrote a stream pto_sim rejects: ", valid.message()));
  }
  return trace;
}

}  // namespace pto::ptoc
