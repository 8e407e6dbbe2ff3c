#include "common/trace_writer.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace pto {

TraceWriter::TraceWriter(std::string path) : path_(path), file_(std::move(path)) {}

// The stream flushes into the file, so it goes first.
TraceWriter::~TraceWriter() { stream_.reset(); }

absl::StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::CreateContinuation(
    const std::string& path) {
  std::unique_ptr<TraceWriter> writer(new TraceWriter(path));
  if (absl::Status s = writer->file_.Open(); !s.ok()) return s;
  writer->stream_ =
      std::make_unique<google::protobuf::io::OstreamOutputStream>(&writer->file_.out());
  return writer;
}

absl::StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Create(
    const std::string& path, const trace::StreamHeader& header) {
  absl::StatusOr<std::unique_ptr<TraceWriter>> writer = CreateContinuation(path);
  if (!writer.ok()) return writer;
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(header,
                                                                  (*writer)->stream_.get())) {
    return absl::DataLossError(absl::StrCat(path, ": cannot write the header"));
  }
  return writer;
}

absl::Status TraceWriter::Write(const trace::StreamRecord& record) {
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(record, stream_.get())) {
    return absl::DataLossError(absl::StrCat(path_, ": cannot write a record"));
  }
  return absl::OkStatus();
}

absl::Status TraceWriter::Finish() {
  stream_.reset();
  return file_.Commit();
}

absl::Status WriteTraceText(const std::string& path, const trace::TraceText& trace) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(trace, &text)) {
    return absl::InternalError("cannot print the trace as text");
  }
  return WriteFileAtomically(path, text);
}

}  // namespace pto
