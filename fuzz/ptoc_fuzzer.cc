// libFuzzer target: ptoc's lexer, parser and tracing interpreter on arbitrary
// text, with the compile-time work limit lowered so one input stays fast.

#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/interpreter.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "frontend/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pto::ptoc::SourceFile source("fuzz.py",
                                     std::string(reinterpret_cast<const char*>(data), size));
  if (!pto::ptoc::Parse(source).ok()) return 0;
  pto::ptoc::CompileOptions options;
  options.timing_only = true;  // no reference evaluation of tensor data
  options.max_statements = 20000;
  (void)pto::ptoc::CompileSource(source, nullptr, options);
  return 0;
}
