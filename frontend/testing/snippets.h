#ifndef PTO_FRONTEND_TESTING_SNIPPETS_H_
#define PTO_FRONTEND_TESTING_SNIPPETS_H_

// Small test programs: a prelude of imports, then the body under test,
// compiled through CompileAndValidate; a result other than the one the test
// expects is a test failure. Test-only (gtest).

#include <string>
#include <vector>

#include "frontend/source.h"
#include "frontend/testing/compile.h"
#include "gtest/gtest.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

inline trace::TraceText CompileSnippet(const std::string& prelude, const std::string& body,
                                       std::vector<std::string>* warnings = nullptr) {
  SourceFile source("t.py", prelude + body);
  auto trace = CompileAndValidate(source, warnings);
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? *trace : trace::TraceText();
}

// As CompileSnippet, and ptoc's reference must agree with every check (no
// warning).
inline trace::TraceText CompileCleanSnippet(const std::string& prelude, const std::string& body) {
  std::vector<std::string> warnings;
  trace::TraceText trace = CompileSnippet(prelude, body, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.size() << " warning(s), the first: "
                                << (warnings.empty() ? "" : warnings[0]);
  return trace;
}

// The message of the error `body` must fail with (as bad.py).
inline std::string CompileSnippetError(const std::string& prelude, const std::string& body) {
  SourceFile source("bad.py", prelude + body);
  auto trace = CompileAndValidate(source);
  EXPECT_FALSE(trace.ok()) << "expected an error for:\n" << body;
  return trace.ok() ? "" : std::string(trace.status().message());
}

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TESTING_SNIPPETS_H_
