#ifndef PTO_SIM_TRACE_READER_H_
#define PTO_SIM_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "proto/stream_version.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Limits the reader enforces (documented so trace authors can rely on them).
inline constexpr uint64_t kMaxTensorBytes = uint64_t{64} << 30;  // 64 GiB per tensor
inline constexpr int kMaxScopeDepth = 64;                        // PTO2_MAX_SCOPE_DEPTH
inline constexpr uint32_t kMaxBlockNum = 65535;                  // blocks per submit
// A .pbtxt is parsed whole (hand-written and inspected streams); record big
// runs as binary .pb, which is read record by record.
inline constexpr uint64_t kMaxTextTraceBytes = uint64_t{256} << 20;
// RunConfig ring sizes stay within the ranges of the ring.* config keys.
inline constexpr uint64_t kMaxRingTaskWindow = uint64_t{1} << 24;
inline constexpr uint64_t kMaxRingHeapBytes = uint64_t{1} << 40;
inline constexpr uint64_t kMaxRingDepPool = uint64_t{1} << 24;

// Reads a task stream (proto/task_stream.proto) and validates it completely,
// so that everything downstream can trust it. The header's version must be
// kTaskStreamVersion (proto/stream_version.h).
//
// Two forms: a file ending in ".pbtxt" is one TraceText message in protobuf
// text format (hand-written traces); anything else is the binary stream ptoc
// writes (a delimited StreamHeader, then delimited StreamRecords). The binary
// form is streamed: memory is bounded by one record, never by the file.
//
// Open() validates the header; Next() validates each record before returning
// it. Every error reads `<file>: <where>: <field path>: <what is wrong>;
// <what was expected>` and is bad input (pto_sim exit code 2). After an error
// Next() keeps returning it.
//
// Record conventions the reader enforces (the proto comments are normative):
//   * Records appear inside LaunchBegin/LaunchEnd pairs (no nesting). Only
//     Declare records (anywhere outside a launch) and Check records (after a
//     launch) may appear outside one.
//   * Scopes: the launch's implicit outer scope is depth 0, so the first
//     ScopeBegin of a launch has depth 1 and each nested one the enclosing
//     depth + 1. ScopeEnd names the depth it closes; a launch ends with every
//     scope closed. Neither a MANUAL nor an AUTO scope may open inside a MANUAL
//     one (PyPTO's verifier rule; the runtime itself only forbids AUTO there).
//   * Task indices: submits, dummies and allocs each take the next index of
//     their launch, starting at 0; `deps` name strictly earlier indices.
//   * Record indices in messages are 0-based, counted from the first record
//     after the header.
class TraceReader {
 public:
  static absl::StatusOr<std::unique_ptr<TraceReader>> Open(const std::string& path);
  // The same validation for a TraceText in memory, e.g. a compiler's output
  // before it is written; `name` stands for the file in messages.
  static absl::StatusOr<std::unique_ptr<TraceReader>> FromText(trace::TraceText trace,
                                                               const std::string& name);
  ~TraceReader();

  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // The header's tensors and kernels, and those declared by the Declare
  // records read so far (appended in id order; references stay valid).
  const trace::StreamHeader& header() const { return *header_; }

  // Reads and validates the next record. Returns false at a clean end of the
  // stream (every launch closed).
  absl::StatusOr<bool> Next(trace::StreamRecord* record);

  // Where the reader is, for messages, e.g.
  // "traces/x.pb: record 17 (launch 0 'gated', submit 5 'bump')"; for text
  // traces the line follows the file name ("x.pbtxt:40: record 3 (...)").
  // Before the first record: "<file>: header".
  std::string Where() const;

  // Position of the record Next() returned last.
  int64_t record_index() const { return record_index_; }  // -1 before the first
  int launch_index() const { return launch_index_; }      // -1 before the first launch
  // The launch-local index of the last submit, dummy or alloc (-1 if none).
  int64_t task_index() const { return next_task_index_ - 1; }
  // The current scope depth (0 = the launch's outer scope).
  int scope_depth() const { return static_cast<int>(scope_modes_.size()); }

  class Source;  // where records come from: binary stream or parsed text

 private:
  TraceReader(std::string path, std::unique_ptr<Source> source);
  // The header on an arena of its own: its many small messages (a kernel's
  // ops and index expressions) are neither allocated nor freed one by one.
  struct ArenaHeader {
    ArenaHeader();
    std::unique_ptr<google::protobuf::Arena> arena;
    trace::StreamHeader* header;  // on `arena`
  };
  // Takes the header the source read and validates it.
  static absl::StatusOr<std::unique_ptr<TraceReader>> Start(const std::string& path,
                                                            std::unique_ptr<Source> source,
                                                            ArenaHeader header);

  absl::Status ValidateHeader() const;
  absl::Status ValidateRecord(const trace::StreamRecord& record);
  absl::Status ValidateEndOfStream() const;

  // The record validators; each returns a fully formatted error.
  absl::Status CheckLaunchBegin(const trace::LaunchBegin& begin);
  absl::Status CheckLaunchEnd();
  absl::Status CheckScopeBegin(const trace::ScopeBegin& begin);
  absl::Status CheckScopeEnd(const trace::ScopeEnd& end);
  absl::Status CheckSubmit(const trace::Submit& submit, int64_t index) const;
  absl::Status CheckDummy(const trace::Dummy& dummy, int64_t index) const;
  absl::Status CheckAlloc(const trace::Alloc& alloc) const;
  absl::Status CheckHostRead(const trace::HostRead& read) const;
  absl::Status CheckCheck(const trace::Check& check) const;
  // Validates a Declare and appends its new tensors and kernels to the
  // header, so that later records and header() see them.
  absl::Status CheckDeclare(const trace::Declare& declare);
  absl::Status CheckKernelSlots(const trace::Submit& submit) const;
  absl::Status CheckArgs(const google::protobuf::RepeatedPtrField<trace::Arg>& args,
                         absl::string_view field) const;
  absl::Status CheckArgsMatchParams(const trace::Submit& submit) const;
  absl::Status CheckDeps(const google::protobuf::RepeatedField<uint32_t>& deps,
                         absl::string_view field, int64_t index) const;
  absl::Status CheckScopeDepth(uint32_t depth, absl::string_view field) const;
  absl::Status CheckPredicate(const trace::Predicate& predicate) const;
  absl::Status CheckTensorId(uint32_t id, const std::string& field) const;
  absl::Status CheckInsideLaunch(const char* kind) const;

  // `<file>: <where>: <field>: <what>`.
  absl::Status RecordError(const std::string& field, const std::string& what) const;
  std::string TensorLabel(uint32_t id) const;

  std::string path_;
  std::unique_ptr<Source> source_;
  ArenaHeader owned_header_;
  trace::StreamHeader* header_ = nullptr;  // owned_header_'s
  // Each kernel's core type, by id: read for every submit, so kept dense
  // rather than reached through the header's kernel messages.
  std::vector<trace::CoreType> kernel_types_;
  // Whether each kernel has a program (whose params a submit's args must
  // match), dense for the same reason.
  std::vector<bool> kernel_has_program_;
  // Every tensor's GM range, begin -> (end, id): a declared tensor must not
  // overlap one.
  std::map<uint64_t, std::pair<uint64_t, uint32_t>> gm_ranges_;
  absl::Status sticky_error_;
  bool finished_ = false;

  // Per-launch state: small and bounded, whatever the trace length.
  int64_t record_index_ = -1;
  int launch_index_ = -1;
  bool in_launch_ = false;
  std::string launch_name_;
  int64_t next_task_index_ = 0;
  std::vector<int> scope_modes_;  // ScopeBegin::Mode per open scope, outermost first
  // The record being validated, for Where().
  trace::StreamRecord::KindCase current_kind_ = trace::StreamRecord::KIND_NOT_SET;
  std::string current_name_;
  uint32_t current_depth_ = 0;
};

}  // namespace pto

#endif  // PTO_SIM_TRACE_READER_H_
