#ifndef PTO_FRONTEND_TESTING_COMPILE_H_
#define PTO_FRONTEND_TESTING_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontend/interpreter.h"
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

// CompileSource, then ValidateForPtoSim on its result. A compile error comes
// back unchanged; a stream pto_sim would refuse becomes an internal error
// "ptoc wrote a stream pto_sim rejects: ..." (a ptoc bug).
absl::StatusOr<trace::TraceText> CompileAndValidate(const SourceFile& source,
                                                    std::vector<std::string>* warnings = nullptr,
                                                    const CompileOptions& options = {});

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_TESTING_COMPILE_H_
