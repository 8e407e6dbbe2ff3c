#ifndef PTO_COMMON_TRACE_WRITER_H_
#define PTO_COMMON_TRACE_WRITER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/atomic_file.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Writes a task stream: the header, then records, each length-delimited.
// Output goes through an AtomicFile, renamed on Finish(), so a reader never
// sees a half-written trace under the final name.
class TraceWriter {
 public:
  static absl::StatusOr<std::unique_ptr<TraceWriter>> Create(const std::string& path,
                                                             const trace::StreamHeader& header);
  // Records only: the continuation of a stream whose header was written
  // before (a script's next call, appended to its stream by the caller).
  static absl::StatusOr<std::unique_ptr<TraceWriter>> CreateContinuation(const std::string& path);
  ~TraceWriter();

  absl::Status Write(const trace::StreamRecord& record);
  absl::Status Finish();

 private:
  explicit TraceWriter(std::string path);

  std::string path_;
  AtomicFile file_;
  std::unique_ptr<google::protobuf::io::OstreamOutputStream> stream_;
};

// Writes a whole .pbtxt trace (one TraceText message in text format).
absl::Status WriteTraceText(const std::string& path, const trace::TraceText& trace);

}  // namespace pto

#endif  // PTO_COMMON_TRACE_WRITER_H_
