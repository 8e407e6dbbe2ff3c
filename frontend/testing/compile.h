#ifndef PTO_FRONTEND_TESTING_COMPILE_H_
#define PTO_FRONTEND_TESTING_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontend/source.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// The frontend tests compile through these, so every successful compile is
// also a test that ptoc wrote a stream pto_sim accepts. Test-only: ptoc itself
// never depends on sim/.

// What pto_sim checks before it runs a stream: the trace reader's validation
// of the header and of every record, and each kernel program's
// (CompileKernel). OK, or the first error; `name` stands for the file.
absl::Status ValidateForPtoSim(const trace::TraceText& trace, const std::string& name);

// The same for a stream file ptoc wrote (.pb, or .pbtxt with --pbtxt).
absl::Status ValidateStreamFile(const std::string& path);

// A script run as its author runs it, through `ptoc FILE.py`: CPython with
// the pypto package, its kernels compiled by ptoc and simulated by pto_sim,
// the run recorded as a stream. `text` is written as `file_name` in a fresh
// directory; `flags` go to ptoc (--timing-only).
struct ScriptRun {
  int exit_code = -1;
  std::string err;         // ptoc's and the script's stderr
  trace::TraceText trace;  // the recorded stream (exit 0)
  // The "warning:" lines of `err`.
  std::vector<std::string> Warnings() const;
};
ScriptRun RunScript(const std::string& file_name, const std::string& text,
                    const std::vector<std::string>& flags = {});

// The stream file at `path` (a build's traces/*.pb), after pto_sim's trace
// reader accepted it (a failure is a test failure).
trace::TraceText LoadStream(const std::string& path);

// A DSL source run by ptoc's evaluator alone, in process: its module-level
// statements (constants, definitions, asserts), no CPython and no torch.
// For the Python subset the @pl.jit bodies are written in. OK, or the
// located error.
absl::Status RunDslModule(const std::string& file_name, const std::string& text);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TESTING_COMPILE_H_
