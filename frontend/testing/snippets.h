#ifndef PTO_FRONTEND_TESTING_SNIPPETS_H_
#define PTO_FRONTEND_TESTING_SNIPPETS_H_

// Small test programs: a prelude of imports, then the body under test (the
// kernels and the harness that calls them), run as a script through
// `ptoc FILE.py` (RunScript: CPython and torch run the harness, ptoc compiles
// each call, pto_sim runs it); a result other than the one the test expects
// is a test failure. Test-only (gtest).

#include <string>
#include <vector>

#include "frontend/testing/compile.h"
#include "gtest/gtest.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// The recorded stream of `prelude + body` (as t.py); `warnings` receives
// the run's warning lines.
inline trace::TraceText CompileSnippet(const std::string& prelude, const std::string& body,
                                       std::vector<std::string>* warnings = nullptr,
                                       const std::vector<std::string>& flags = {}) {
  const ScriptRun run = RunScript("t.py", prelude + body, flags);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  if (warnings) *warnings = run.Warnings();
  return run.trace;
}

// As CompileSnippet, with no warning: every assert_close of the script
// passed on the simulated results.
inline trace::TraceText CompileCleanSnippet(const std::string& prelude, const std::string& body) {
  std::vector<std::string> warnings;
  trace::TraceText trace = CompileSnippet(prelude, body, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.size() << " warning(s), the first: "
                                << (warnings.empty() ? "" : warnings[0]);
  return trace;
}

// The messages of the error `body` must fail with (as bad.py): exit 2.
inline std::string CompileSnippetError(const std::string& prelude, const std::string& body) {
  const ScriptRun run = RunScript("bad.py", prelude + body);
  EXPECT_EQ(run.exit_code, 2) << "expected an error for:\n" << body << "\n" << run.err;
  return run.err;
}

// What ptoc's evaluator alone says of `prelude + body` (as bad.py), in
// process, without CPython: for definitions no call reaches and module-level
// DSL code, which under a script CPython runs (or ptoc checks when a call
// reaches them). The located error message; a success is a test failure.
inline std::string EvaluateSnippetError(const std::string& prelude, const std::string& body) {
  const absl::Status s = RunDslModule("bad.py", prelude + body);
  EXPECT_FALSE(s.ok()) << "expected an error for:\n" << body;
  return std::string(s.message());
}

// The imports a snippet's body needs.
inline constexpr char kPlTorchPrelude[] =
    "import pypto.language as pl\n"
    "import torch\n"
    "\n";

// A script of one @pl.jit kernel f(a, out) of a [16, 16] FP32 input and
// output whose task body (one pl.at scope) is `body`, lines indented by 8,
// called once.
inline std::string OneTaskScript(const std::string& body) {
  return "@pl.jit\n"
         "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
         "    with pl.at(level=pl.Level.CORE_GROUP):\n" +
         body +
         "    return out\n"
         "f(torch.ones(16, 16), torch.zeros(16, 16))\n";
}

// The ops of every kernel of `t`, in order, and their kinds (the top level
// of each program; loop and branch bodies stay inside their op).
inline std::vector<trace::Op> KernelOps(const trace::TraceText& t) {
  std::vector<trace::Op> ops;
  for (const trace::Kernel& k : t.header().kernels()) {
    for (const trace::Op& op : k.program().ops()) ops.push_back(op);
  }
  return ops;
}

inline std::vector<trace::Op::Kind> KernelOpKinds(const trace::TraceText& t) {
  std::vector<trace::Op::Kind> kinds;
  for (const trace::Op& op : KernelOps(t)) kinds.push_back(op.kind());
  return kinds;
}

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TESTING_SNIPPETS_H_
