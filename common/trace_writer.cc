#include "common/trace_writer.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace pto {

TraceWriter::TraceWriter(std::string path)
    : path_(std::move(path)), tmp_path_(absl::StrCat(path_, ".tmp")) {}

TraceWriter::~TraceWriter() {
  if (!finished_) {
    stream_.reset();
    file_.close();
    std::remove(tmp_path_.c_str());
  }
}

absl::StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Create(
    const std::string& path, const trace::StreamHeader& header) {
  std::unique_ptr<TraceWriter> writer(new TraceWriter(path));
  writer->file_.open(writer->tmp_path_, std::ios::binary | std::ios::trunc);
  if (!writer->file_) {
    return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  }
  writer->stream_ = std::make_unique<google::protobuf::io::OstreamOutputStream>(&writer->file_);
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(header, writer->stream_.get())) {
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
  file_.close();
  if (!file_) return absl::DataLossError(absl::StrCat(path_, ": write failed"));
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    return absl::DataLossError(absl::StrCat(path_, ": cannot rename ", tmp_path_));
  }
  finished_ = true;
  return absl::OkStatus();
}

absl::Status WriteTraceText(const std::string& path, const trace::TraceText& trace) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(trace, &text)) {
    return absl::InternalError("cannot print the trace as text");
  }
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return absl::UnavailableError(absl::StrCat(path, ": cannot write"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": cannot rename ", tmp));
  }
  return absl::OkStatus();
}

}  // namespace pto
