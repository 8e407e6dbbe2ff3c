#include "sim/trace_reader.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "common/tensor_fill.h"
#include "common/trace_writer.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "models/core/kernel_program.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename M>
M Parse(const std::string& text) {
  M message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

trace::StreamRecord Rec(const std::string& text) { return Parse<trace::StreamRecord>(text); }

// A small valid trace the bad-input tests break one field at a time.
struct Trace {
  trace::StreamHeader header;
  std::vector<trace::StreamRecord> records;
};

constexpr char kHeader[] = R"pb(
  version: 10
  tensors {
    id: 0
    name: "a"
    dtype: FP32
    shape: [ 64, 128 ]
    gm_addr: 0x0
    size_bytes: 32768
    init { generator { kind: ARANGE start: 0 step: 1 } }
  }
  tensors {
    id: 1
    name: "b"
    dtype: FP32
    shape: [ 64, 128 ]
    gm_addr: 0x8000
    size_bytes: 32768
    init { zeros: true }
  }
  tensors {
    id: 2
    name: "c"
    dtype: FP32
    shape: [ 64, 128 ]
    gm_addr: 0x10000
    size_bytes: 32768
  }
  tensors {
    id: 3
    name: "gate"
    dtype: INT32
    shape: [ 2, 2 ]
    gm_addr: 0x18000
    size_bytes: 16
    init { fill { value: 1 } }
  }
  tensors {
    id: 4
    name: "u"
    dtype: UINT32
    shape: [ 1 ]
    gm_addr: 0x18400
    size_bytes: 4
  }
  tensors {
    id: 5
    name: "f"
    dtype: FP32
    shape: [ 1 ]
    gm_addr: 0x18800
    size_bytes: 4
  }
  kernels {
    id: 0
    name: "vadd"
    core_type: AIV
    program {
      params { name: "a" kind: TENSOR dtype: FP32 }
      params { name: "b" kind: TENSOR dtype: FP32 }
      params { name: "c" kind: TENSOR dtype: FP32 }
    }
  }
  kernels {
    id: 1
    name: "cube"
    core_type: AIC
    cost { cube_flops: 1e6 }
  }
  kernels {
    id: 2
    name: "mixk"
    core_type: MIX
    program {
      params { name: "a" kind: TENSOR }
      params { name: "b" kind: TENSOR }
      params { name: "c" kind: TENSOR }
      tiles {
        shape: [ 16, 16 ]
        dtype: FP32
        space: MAT
      }
      ops { kind: LOAD dst: 0 param: 0 engine: ENGINE_CUBE }
    }
  }
  kernels {
    id: 3
    name: "vscale"
    core_type: AIV
    program {
      params { name: "src" kind: TENSOR }
      params { name: "s" kind: SCALAR dtype: INT64 }
    }
  }
)pb";

constexpr char kVaddSubmit[] = R"pb(
  submit {
    name: "add"
    kernel_ids: [ -1, 0, -1 ]
    block_num: 1
    args { tensor { tensor_id: 0 direction: INPUT } }
    args { tensor { tensor_id: 1 direction: INPUT } }
    args { tensor { tensor_id: 2 direction: OUTPUT_EXISTING } }
    scope_depth: 1
  }
)pb";

Trace ValidTrace() {
  Trace t;
  t.header = Parse<trace::StreamHeader>(kHeader);
  t.records = {
      Rec(R"pb(launch_begin {
                 name: "main"
                 arg_tensor_ids: [ 0, 1, 2 ]
               })pb"),
      Rec(R"pb(scope_begin { mode: AUTO depth: 1 })pb"),
      Rec(kVaddSubmit),  // record 2, task 0
      Rec(R"pb(scope_end { depth: 1 })pb"),
      Rec(R"pb(launch_end {})pb"),
      Rec(R"pb(check {
                 tensor_id: 1
                 expected { zeros: true }
                 rtol: 1e-5
                 atol: 1e-5
                 name: "b"
               })pb"),
  };
  return t;
}

// The submit record of ValidTrace(), for tests that break one of its fields.
trace::Submit& TheSubmit(Trace& t) { return *t.records[2].mutable_submit(); }

class TraceReaderTest : public ::testing::Test {
 protected:
  std::string TempPath(const std::string& suffix) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return absl::StrCat(::testing::TempDir(), "/", info->name(), suffix);
  }

  std::string WriteBinary(const Trace& t) {
    const std::string path = TempPath(".pb");
    auto writer = TraceWriter::Create(path, t.header);
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (const auto& record : t.records) EXPECT_TRUE((*writer)->Write(record).ok());
    EXPECT_TRUE((*writer)->Finish().ok());
    return path;
  }

  std::string WriteText(const Trace& t) {
    trace::TraceText text;
    *text.mutable_header() = t.header;
    for (const auto& record : t.records) *text.add_records() = record;
    const std::string path = TempPath(".pbtxt");
    EXPECT_TRUE(WriteTraceText(path, text).ok());
    return path;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  static void WriteFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  // Opens and reads `path` to the end; the first error, or OK. `records`
  // receives the number of records returned.
  static absl::Status ReadAll(const std::string& path, int* records = nullptr) {
    auto reader = TraceReader::Open(path);
    if (!reader.ok()) return reader.status();
    trace::StreamRecord record;
    int count = 0;
    while (true) {
      absl::StatusOr<bool> got = (*reader)->Next(&record);
      if (!got.ok()) return got.status();
      if (!*got) break;
      ++count;
    }
    if (records != nullptr) *records = count;
    return absl::OkStatus();
  }

  absl::Status ReadBinary(const Trace& t) { return ReadAll(WriteBinary(t)); }

  // Writes `t` as a binary stream and reads it back into one record object,
  // as the orchestrator does: each record must equal the one written.
  void ExpectEachRecordReadsBackAsWritten(const Trace& t) {
    auto reader = TraceReader::Open(WriteBinary(t));
    ASSERT_TRUE(reader.ok()) << reader.status();
    trace::StreamRecord record;
    for (const trace::StreamRecord& expected : t.records) {
      absl::StatusOr<bool> got = (*reader)->Next(&record);
      ASSERT_TRUE(got.ok() && *got) << got.status();
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(record, expected))
          << "read " << record.ShortDebugString().substr(0, 300) << "\nwrote "
          << expected.ShortDebugString().substr(0, 300);
    }
  }

  // The error message of reading `t` as a binary stream ("" if it reads).
  std::string BinaryError(const Trace& t) {
    const absl::Status status = ReadBinary(t);
    EXPECT_FALSE(status.ok()) << "expected the trace to be rejected";
    return std::string(status.message());
  }
};

// ---------------------------------------------------------------------------
// Valid input.

TEST_F(TraceReaderTest, ValidTraceReadsInBothForms) {
  int binary_records = 0;
  int text_records = 0;
  EXPECT_TRUE(ReadAll(WriteBinary(ValidTrace()), &binary_records).ok());
  EXPECT_TRUE(ReadAll(WriteText(ValidTrace()), &text_records).ok());
  EXPECT_EQ(binary_records, 6);
  EXPECT_EQ(text_records, 6);
}

TEST_F(TraceReaderTest, ReadsATraceTextInMemory) {
  trace::TraceText text;
  const Trace t = ValidTrace();
  *text.mutable_header() = t.header;
  for (const auto& record : t.records) *text.add_records() = record;
  auto reader = TraceReader::FromText(text, "compiled.py");
  ASSERT_TRUE(reader.ok()) << reader.status();
  trace::StreamRecord record;
  int count = 0;
  while (*(*reader)->Next(&record)) ++count;
  EXPECT_EQ(count, 6);

  // The same validation, with the given name standing for the file.
  text.mutable_records(2)->mutable_submit()->add_deps(3);
  reader = TraceReader::FromText(text, "compiled.py");
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<bool> got = true;
  while (got.ok() && *got) got = (*reader)->Next(&record);
  EXPECT_THAT(std::string(got.status().message()),
              HasSubstr("compiled.py: record 2 (launch 0 'main', submit 0 'add'): submit.deps[0]"));
  text.clear_header();
  EXPECT_THAT(std::string(TraceReader::FromText(text, "compiled.py").status().message()),
              HasSubstr("compiled.py: header: not set; expected a 'header { version: 10"));
}

TEST_F(TraceReaderTest, ReturnsRecordsInOrderWithPositions) {
  auto reader = TraceReader::Open(WriteBinary(ValidTrace()));
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->header().tensors_size(), 6);
  EXPECT_THAT((*reader)->Where(), HasSubstr(": header"));
  trace::StreamRecord record;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(*(*reader)->Next(&record));
  EXPECT_TRUE(record.has_submit());
  EXPECT_EQ(record.submit().name(), "add");
  EXPECT_EQ((*reader)->record_index(), 2);
  EXPECT_EQ((*reader)->launch_index(), 0);
  EXPECT_EQ((*reader)->task_index(), 0);
  EXPECT_EQ((*reader)->scope_depth(), 1);
  EXPECT_THAT((*reader)->Where(), HasSubstr(".pb: record 2 (launch 0 'main', submit 0 'add')"));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(*(*reader)->Next(&record));
  EXPECT_TRUE(record.has_check());
  EXPECT_FALSE(*(*reader)->Next(&record));
  EXPECT_FALSE(*(*reader)->Next(&record)) << "end of stream must stay the end";
}

TEST_F(TraceReaderTest, TextWhereNamesTheLine) {
  Trace t = ValidTrace();
  TheSubmit(t).add_deps(3);
  const absl::Status status = ReadAll(WriteText(t));
  // The printed text puts the header first; the submit record sits well below line 1.
  EXPECT_THAT(std::string(status.message()),
              testing::MatchesRegex(".*\\.pbtxt:[0-9]+: record 2 \\(launch 0 'main', submit 0 "
                                    "'add'\\): submit\\.deps\\[0\\]: names submit 3.*"));
}

TEST_F(TraceReaderTest, ErrorIsSticky) {
  Trace t = ValidTrace();
  TheSubmit(t).set_scope_depth(4);
  auto reader = TraceReader::Open(WriteBinary(t));
  ASSERT_TRUE(reader.ok());
  trace::StreamRecord record;
  ASSERT_TRUE(*(*reader)->Next(&record));
  ASSERT_TRUE(*(*reader)->Next(&record));
  const absl::StatusOr<bool> first = (*reader)->Next(&record);
  ASSERT_FALSE(first.ok());
  const absl::StatusOr<bool> again = (*reader)->Next(&record);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(first.status(), again.status());
}

// ValidTrace() with every record kind: a MIX submit with a predicate and
// deps, then a plain one, nested scopes, alloc, dummy, host_read, a second
// launch.
Trace EveryKindTrace() {
  Trace t = ValidTrace();
  t.records.insert(
      t.records.begin() + 3,
      {Rec(R"pb(submit {
                  kernel_ids: [ 2, 2, 2 ]
                  block_symbol: AVAILABLE_CLUSTER
                  args { tensor { tensor_id: 0 direction: INPUT } }
                  args { tensor { tensor_id: 1 direction: NO_DEP } }
                  args {
                    tensor {
                      tensor_id: 2
                      offsets: [ 32, 0 ]
                      shape: [ 32, 128 ]
                      direction: INOUT
                    }
                  }
                  deps: [ 0 ]
                  predicate {
                    tensor_id: 3
                    indices: [ 1, 1 ]
                    op: GE
                    target: -3
                  }
                  scope_depth: 1
                })pb"),
       // Fewer fields right after many: the binary reader reuses the record.
       Rec(R"pb(submit {
                  kernel_ids: [ 1, -1, -1 ]
                  block_num: 1
                  scope_depth: 1
                })pb"),
       Rec(R"pb(scope_begin { mode: MANUAL depth: 2 })pb"), Rec(R"pb(alloc {
                                                                       tensor_ids: [ 1 ]
                                                                       scope_depth: 2
                                                                     })pb"),
       Rec(R"pb(dummy {
                  deps: [ 0, 1, 2 ]
                  scope_depth: 2
                })pb"),
       Rec(R"pb(scope_end { depth: 2 })pb"), Rec(R"pb(host_read {
                                                        tensor_id: 3
                                                        indices: [ 1, 0 ]
                                                      })pb"),
       Rec(R"pb(submit {
                  kernel_ids: [ 1, -1, -1 ]
                  block_num: 24
                  args { scalar { f: 2.5 } }
                  scope_depth: 1
                })pb"),
       Rec(R"pb(submit {
                  kernel_ids: [ -1, 3, 3 ]
                  block_num: 2
                  args { tensor { tensor_id: 0 direction: INPUT } }
                  args { scalar { i: 7 } }
                  scope_depth: 1
                })pb")});
  t.records.push_back(Rec(R"pb(launch_begin { name: "second" })pb"));
  t.records.push_back(Rec(R"pb(launch_end {})pb"));
  return t;
}

TEST_F(TraceReaderTest, AcceptsMixSubmitPredicateDummyAllocAndNestedScopes) {
  const absl::Status status = ReadBinary(EveryKindTrace());
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(TraceReaderTest, ARecordReusedForTheNextSubmitKeepsNothingOfTheLast) {
  // The binary source merges a submit into the previous one's cleared
  // fields: a submit with fewer fields must not inherit any.
  ExpectEachRecordReadsBackAsWritten(EveryKindTrace());
}

// ---------------------------------------------------------------------------
// Files and framing.

TEST_F(TraceReaderTest, MissingFile) {
  const auto reader = TraceReader::Open("/nonexistent/dir/trace.pb");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(reader.status().message()),
              StartsWith("/nonexistent/dir/trace.pb: no such file; expected a task stream"));
}

TEST_F(TraceReaderTest, DirectoryIsNotATrace) {
  const auto reader = TraceReader::Open(::testing::TempDir());
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("is a directory"));
}

TEST_F(TraceReaderTest, EmptyBinaryFile) {
  const std::string path = TempPath(".pb");
  WriteFile(path, "");
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr(".pb: empty file; expected a StreamHeader"));
}

TEST_F(TraceReaderTest, EmptyTextFile) {
  const std::string path = TempPath(".pbtxt");
  WriteFile(path, "");
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr(".pbtxt: empty file"));
}

TEST_F(TraceReaderTest, TextParseErrorNamesLineAndColumn) {
  const std::string path = TempPath(".pbtxt");
  WriteFile(path, "header {\n  version: 10\n  tensors { id: 0 nmae: \"a\" }\n}\n");
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr(".pbtxt:3:23: Message type \"pto.trace.Tensor\" has no field named "
                        "\"nmae\"; expected protobuf text format"));
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("nmae"));
}

TEST_F(TraceReaderTest, TextWithoutHeader) {
  const std::string path = TempPath(".pbtxt");
  WriteFile(path, "records { launch_end {} }\n");
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("header: not set"));
}

TEST_F(TraceReaderTest, TruncatedMidRecord) {
  const std::string path = WriteBinary(ValidTrace());
  const std::string bytes = ReadFile(path);
  WriteFile(path, bytes.substr(0, bytes.size() - 3));  // cut inside the last record (check)
  auto reader = TraceReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::Status status;
  trace::StreamRecord record;
  int read = 0;
  while (true) {
    auto got = (*reader)->Next(&record);
    if (!got.ok()) {
      status = got.status();
      break;
    }
    ASSERT_TRUE(*got) << "a truncated file must not end cleanly";
    ++read;
  }
  EXPECT_EQ(read, 5);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()), HasSubstr(": record 5 at byte offset "));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(" remain; expected the whole message (the file was cut"));
}

TEST_F(TraceReaderTest, TruncatedHeader) {
  const std::string path = WriteBinary(ValidTrace());
  WriteFile(path, ReadFile(path).substr(0, 10));
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr(": header at byte offset 0: declares "));
}

TEST_F(TraceReaderTest, CorruptRecordBytes) {
  const std::string path = WriteBinary(ValidTrace());
  // A 5-byte record of 0xFF: tag 0xFF names wire type 7, which does not exist.
  WriteFile(path, ReadFile(path) + std::string("\x05\xff\xff\xff\xff\xff", 6));
  const absl::Status status = ReadAll(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()), HasSubstr(": record 6 at byte offset "));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("its 5 bytes do not parse as a pto.trace.StreamRecord"));
}

TEST_F(TraceReaderTest, MalformedLengthPrefix) {
  const std::string path = WriteBinary(ValidTrace());
  const std::string bytes = ReadFile(path);
  WriteFile(path, bytes + std::string(11, '\xff'));
  const absl::Status status = ReadAll(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(absl::StrCat(": record 6 at byte offset ", bytes.size(),
                                     ": the length prefix is cut short or malformed")));
}

TEST_F(TraceReaderTest, ImpossibleRecordLength) {
  const std::string path = WriteBinary(ValidTrace());
  WriteFile(path, ReadFile(path) + std::string("\xff\xff\xff\xff\x0f", 5));  // 2^32 - 1
  EXPECT_THAT(std::string(ReadAll(path).message()), HasSubstr(": record 6 at byte offset "));
  EXPECT_THAT(std::string(ReadAll(path).message()),
              HasSubstr(": declares 4294967295 bytes; expected less than 2 GiB"));
}

TEST_F(TraceReaderTest, StreamsFromAPipe) {
  // A FIFO has no size and cannot be read twice: the reader must stream it.
  const std::string bytes = ReadFile(WriteBinary(ValidTrace()));
  const std::string fifo = TempPath(".fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { WriteFile(fifo, bytes); });
  int records = 0;
  const absl::Status status = ReadAll(fifo, &records);
  writer.join();
  std::remove(fifo.c_str());
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(records, 6);
}

TEST_F(TraceReaderTest, ARecordOverAMebibyteReadsFromTheStream) {
  // Records up to 1 MiB are parsed from a reused buffer; a larger one is
  // parsed from the stream, so the buffer never holds a big message. Both
  // read back exactly, in either order.
  Trace t = EveryKindTrace();
  TheSubmit(t).set_name(std::string(3 << 20, 'n'));
  ExpectEachRecordReadsBackAsWritten(t);
}

TEST_F(TraceReaderTest, APipeCutInsideARecordSaysItWasCutShort) {
  // A FIFO's size is unknown, so only the read itself finds the cut.
  const std::string bytes = ReadFile(WriteBinary(ValidTrace()));
  const std::string fifo = TempPath(".fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { WriteFile(fifo, bytes.substr(0, bytes.size() - 3)); });
  const absl::Status status = ReadAll(fifo);
  writer.join();
  std::remove(fifo.c_str());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("bytes but the stream ends first; expected the whole message (the stream "
                        "was cut short"));
}

TEST_F(TraceReaderTest, GarbageFileIsRejected) {
  const std::string path = TempPath(".pb");
  WriteFile(path, "this is not a trace at all, just some text\n");
  const auto reader = TraceReader::Open(path);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr(": header at byte offset 0"));
}

TEST_F(TraceReaderTest, UnknownFieldFromANewerWriter) {
  Trace t = ValidTrace();
  TheSubmit(t).GetReflection()->MutableUnknownFields(&TheSubmit(t))->AddVarint(99, 1);
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.<field number 99>: is not part of schema"));
}

// ---------------------------------------------------------------------------
// Header.

TEST_F(TraceReaderTest, ValidTraceHasTheCurrentVersion) {
  EXPECT_EQ(ValidTrace().header.version(), kTaskStreamVersion);
  EXPECT_EQ(kTaskStreamVersion, 10u);
}

TEST_F(TraceReaderTest, AnInactiveKernelSlotTakesOneByte) {
  // Version 3's reason: kernel_ids is zigzag-encoded, so [-1, 7, -1] is a
  // tag, a length and three one-byte varints (as int32, each -1 took ten).
  trace::Submit submit;
  for (int id : {-1, 7, -1}) submit.add_kernel_ids(id);
  EXPECT_EQ(submit.ByteSizeLong(), 5u);
}

TEST_F(TraceReaderTest, OlderVersionAsksToRerunPtoc) {
  Trace t = ValidTrace();
  t.header.set_version(kTaskStreamVersion - 1);
  t.header.set_source("gated.py");
  EXPECT_THAT(BinaryError(t),
              HasSubstr(".pb: header: version: is 9; expected 10: the trace was written by an "
                        "older ptoc (schema version 9); re-run ptoc on its kernel description: "
                        "ptoc gated.py -o OUT.pb"));
  // The header's source is untrusted: only a plain *.py path is quoted.
  t.header.set_source("x.py\nrm -rf /");
  EXPECT_THAT(BinaryError(t), HasSubstr("re-run ptoc on its kernel description: ptoc FILE.py -o"));
  t.header.clear_source();
  EXPECT_THAT(BinaryError(t), HasSubstr("ptoc FILE.py -o OUT.pb"));
}

TEST_F(TraceReaderTest, NewerVersionSaysThisPtoSimIsOlder) {
  Trace t = ValidTrace();
  t.header.set_version(kTaskStreamVersion + 1);
  EXPECT_THAT(
      BinaryError(t),
      HasSubstr(".pb: header: version: is 11; expected 10: this pto_sim (schema version 10) "
                "is older than the trace"));
  EXPECT_THAT(BinaryError(t), testing::Not(HasSubstr("re-run ptoc")));
}

TEST_F(TraceReaderTest, MissingVersion) {
  Trace t = ValidTrace();
  t.header.clear_version();
  EXPECT_THAT(BinaryError(t), HasSubstr("header: version: is 0 (not set); expected 10"));
}

TEST_F(TraceReaderTest, TensorIdsMustBeDense) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(2)->set_id(7);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("header: tensors[2].id: is 7 (tensor 'c'); expected 2 (tensor ids are "
                        "dense"));
}

TEST_F(TraceReaderTest, TensorDtypeMustBeSet) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(1)->clear_dtype();
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[1].dtype: tensor 'b' has dtype DTYPE_UNSPECIFIED; expected"));
}

TEST_F(TraceReaderTest, TensorRankOneToFive) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(5)->clear_shape();
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[5].shape: tensor 'f' has rank 0; expected 1 to 5"));
  t = ValidTrace();
  for (int i = 0; i < 5; ++i) t.header.mutable_tensors(5)->add_shape(1);
  EXPECT_THAT(BinaryError(t), HasSubstr("has rank 6; expected 1 to 5"));
}

TEST_F(TraceReaderTest, TensorDimsPositive) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(0)->set_shape(1, 0);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[0].shape[1]: tensor 'a' has size 0 in dim 1; expected > 0"));
}

TEST_F(TraceReaderTest, TensorSizeMustMatchShape) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(0)->set_size_bytes(32764);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[0].size_bytes: tensor 'a' declares 32764 bytes; expected 32768 "
                        "([64, 128] = 8192 elements of FP32, 4 bytes each)"));
}

TEST_F(TraceReaderTest, HugeDeclaredSizeIsRefused) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(0)->set_size_bytes(uint64_t{128} << 30);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[0].size_bytes: tensor 'a' declares 137438953472 "
                                        "bytes; expected at most 68719476736"));
}

TEST_F(TraceReaderTest, HugeShapeDoesNotOverflow) {
  Trace t = ValidTrace();
  // 2^40 * 2^40 elements wraps a 64-bit product; the reader must not be fooled.
  t.header.mutable_tensors(0)->set_shape(0, int64_t{1} << 40);
  t.header.mutable_tensors(0)->set_shape(1, int64_t{1} << 40);
  t.header.mutable_tensors(0)->set_size_bytes(0);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[0].shape: tensor 'a' of shape [1099511627776, "
                                        "1099511627776] FP32 is larger than the 64 GiB"));
}

TEST_F(TraceReaderTest, OverlappingTensorsAreRefused) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(2)->set_gm_addr(0x4000);  // c inside a
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[2].gm_addr: tensor 'c' occupies GM [0x4000, 0xc000) which "
                        "overlaps tensor 'a' (id 0) at [0x0, 0x8000); expected disjoint"));
}

TEST_F(TraceReaderTest, OverlapByOneWordAtTheEnd) {
  Trace t = ValidTrace();
  // f straddles the end of a (and the start of b); touching ranges (a, b) are fine.
  t.header.mutable_tensors(5)->set_gm_addr(0x7ffe);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[5].gm_addr: tensor 'f' occupies GM [0x7ffe, "
                                        "0x8002) which overlaps tensor 'a' (id 0) at [0x0, "
                                        "0x8000)"));
}

TEST_F(TraceReaderTest, UnknownFieldInTheHeader) {
  Trace t = ValidTrace();
  trace::Tensor* tensor = t.header.mutable_tensors(2);
  tensor->GetReflection()->MutableUnknownFields(tensor)->AddVarint(42, 1);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("header: tensors[2].<field number 42>: is not part of schema version 10"));
}

TEST_F(TraceReaderTest, InitDataSizeMustMatch) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(3)->mutable_init()->set_data(std::string(12, '\0'));
  EXPECT_THAT(BinaryError(t),
              HasSubstr("tensors[3].init.data: has 12 bytes; expected 16 (the size_bytes of "
                        "tensor 'gate'"));
}

TEST_F(TraceReaderTest, InitZerosMustBeTrueAndGeneratorKindSet) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(1)->mutable_init()->set_zeros(false);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[1].init.zeros: is false; expected true"));
  t = ValidTrace();
  t.header.mutable_tensors(0)->mutable_init()->mutable_generator()->clear_kind();
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[0].init.generator.kind: is KIND_UNSPECIFIED"));
}

TEST_F(TraceReaderTest, GeneratorParametersMustBeUsable) {
  Trace t = ValidTrace();
  *t.header.mutable_tensors(1)->mutable_init() =
      Parse<trace::TensorInit>("generator { kind: UNIFORM low: 1 high: 1 }");
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[1].init.generator: UNIFORM range [1, 1) is "
                                        "empty or not finite; expected finite low < high"));
  t.header.mutable_tensors(1)->mutable_init()->mutable_generator()->set_kind(
      trace::TensorInit::Generator::ARANGE);
  t.header.mutable_tensors(1)->mutable_init()->mutable_generator()->set_step(
      std::numeric_limits<double>::quiet_NaN());
  EXPECT_THAT(BinaryError(t), HasSubstr("ARANGE start 0 step nan is not finite"));
}

TEST_F(TraceReaderTest, TensorMustFitTheAddressSpace) {
  Trace t = ValidTrace();
  t.header.mutable_tensors(2)->set_gm_addr(UINT64_MAX - 100);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[2].gm_addr: tensor 'c' at 0xffffffffffffff9b "
                                        "with 32768 bytes runs past the end"));
}

TEST_F(TraceReaderTest, TimingOnlyMeansNoContentsAndNoChecks) {
  Trace t = ValidTrace();
  t.header.set_timing_only(true);
  EXPECT_THAT(BinaryError(t), HasSubstr("tensors[0].init: tensor 'a' carries initial contents "
                                        "but the header is timing_only"));
  for (auto& tensor : *t.header.mutable_tensors()) tensor.clear_init();
  EXPECT_THAT(BinaryError(t), HasSubstr("record 5 (check 'b'): check: the header is timing_only"));
  t.records.pop_back();
  EXPECT_TRUE(ReadBinary(t).ok());
}

TEST_F(TraceReaderTest, KernelHeaderRules) {
  Trace t = ValidTrace();
  t.header.mutable_kernels(1)->set_id(0);
  EXPECT_THAT(BinaryError(t), HasSubstr("kernels[1].id: is 0 (kernel 'cube'); expected 1"));
  t = ValidTrace();
  t.header.mutable_kernels(0)->clear_core_type();
  EXPECT_THAT(BinaryError(t), HasSubstr("kernels[0].core_type: kernel 'vadd' has core_type "
                                        "CORE_TYPE_UNSPECIFIED; expected AIC, AIV or MIX"));
  t = ValidTrace();
  t.header.mutable_kernels(1)->clear_cost();
  EXPECT_THAT(BinaryError(t), HasSubstr("kernels[1]: kernel 'cube' has no body; expected a "
                                        "program or a cost summary"));
  t = ValidTrace();
  t.header.mutable_kernels(1)->mutable_cost()->set_cube_flops(-1);
  EXPECT_THAT(BinaryError(t), HasSubstr("kernels[1].cost.cube_flops: is -1; expected a finite"));
  t = ValidTrace();
  t.header.mutable_kernels(3)->mutable_program()->mutable_params(1)->clear_kind();
  EXPECT_THAT(BinaryError(t), HasSubstr("kernels[3].program.params[1].kind: kernel 'vscale' "
                                        "param 's' has kind KIND_UNSPECIFIED"));
}

TEST_F(TraceReaderTest, OnlyMixKernelsNameEngines) {
  Trace t = ValidTrace();
  t.header.mutable_kernels(2)->set_core_type(trace::AIC);  // mixk's op names ENGINE_CUBE
  EXPECT_THAT(BinaryError(t),
              HasSubstr("kernels[2].program.ops[0].engine: is ENGINE_CUBE but kernel 'mixk' is "
                        "AIC; expected ENGINE_UNSPECIFIED (only MIX kernels name engines)"));
}

TEST_F(TraceReaderTest, TileSpacesAndBuffersAreInRange) {
  Trace t = ValidTrace();
  trace::TileDecl* tile = t.header.mutable_kernels(2)->mutable_program()->mutable_tiles(0);
  tile->set_buffer(0);  // its own: the one tile's buffer
  for (trace::MemSpace space : {trace::LEFT, trace::RIGHT, trace::BIAS}) {
    tile->set_space(space);
    EXPECT_TRUE(ReadBinary(t).ok()) << space;
  }
  tile->set_space(static_cast<trace::MemSpace>(7));
  EXPECT_THAT(BinaryError(t), HasSubstr("header: kernels[2].program.tiles[0].space: kernel 'mixk' "
                                        "tile 0 ('') has space 7; expected VEC, MAT, ACC, LEFT, "
                                        "RIGHT or BIAS"));
  tile->set_space(trace::MAT);
  tile->set_buffer(1);
  EXPECT_THAT(BinaryError(t), HasSubstr("header: kernels[2].program.tiles[0].buffer: kernel 'mixk' "
                                        "tile 0 ('') lives in buffer 1 but the kernel has 1 "
                                        "tiles (and no buffer_count); expected a buffer below "
                                        "that"));
  // A text trace names the kernel's line.
  EXPECT_THAT(std::string(ReadAll(WriteText(t)).message()),
              testing::MatchesRegex(".*\\.pbtxt:[0-9]+: header: kernels\\[2\\]\\.program\\.tiles"
                                    "\\[0\\]\\.buffer: .*"));
}

// pl.MemRef's fields (version 5): a buffer below buffer_count, slots only
// with a buffer_count, a runtime slot only on a slotted tile whose slots all
// fit.
TEST_F(TraceReaderTest, BufferCountBoundsBuffersAndRuntimeSlots) {
  Trace t = ValidTrace();
  trace::KernelProgram* program = t.header.mutable_kernels(2)->mutable_program();
  trace::TileDecl* tile = program->mutable_tiles(0);
  const std::string field = "header: kernels[2].program.tiles[0].";
  tile->set_slots(2);
  EXPECT_THAT(BinaryError(t), HasSubstr(field + "slots: kernel 'mixk' tile 0 ('') has 2 pl.MemRef "
                                                "slots but the kernel has no buffer_count"));
  program->set_buffer_count(3);
  tile->set_buffer(1);
  tile->mutable_slot()->set_constant(0);
  EXPECT_TRUE(ReadBinary(t).ok());  // slots 1 and 2 of 3
  tile->set_buffer(2);
  EXPECT_THAT(BinaryError(t),
              HasSubstr(field + "slots: kernel 'mixk' tile 0 ('')'s 2 slots take buffers 2..3 but "
                                "the kernel's buffer_count is 3; expected buffer + slots <= that"));
  tile->set_slots(0);
  EXPECT_THAT(BinaryError(t), HasSubstr(field + "slot: kernel 'mixk' tile 0 ('') has a runtime "
                                                "slot but slots is 0"));
  tile->clear_slot();
  tile->set_buffer(3);
  EXPECT_THAT(BinaryError(t),
              HasSubstr(field + "buffer: kernel 'mixk' tile 0 ('') lives in buffer 3 "
                                "but the kernel's buffer_count is 3"));
  program->set_buffer_count(kMaxKernelBuffers + 1);
  EXPECT_THAT(BinaryError(t), HasSubstr("header: kernels[2].program.buffer_count: kernel 'mixk' "
                                        "declares 1048577 buffers; expected at most 1048576"));
}

TEST_F(TraceReaderTest, RingSizesOneOrFour) {
  Trace t = ValidTrace();
  t.header.mutable_ring_sizes()->add_task_window(16);
  t.header.mutable_ring_sizes()->add_task_window(16);
  EXPECT_THAT(BinaryError(t), HasSubstr("ring_sizes.task_window: has 2 entries; expected 1"));
}

// ---------------------------------------------------------------------------
// Launches and scopes.

TEST_F(TraceReaderTest, RecordOutsideLaunch) {
  Trace t = ValidTrace();
  t.records.push_back(Rec(kVaddSubmit));
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 6 (submit 1 'add'): submit: outside any launch; expected it "
                        "between launch_begin and launch_end"));
}

TEST_F(TraceReaderTest, LaunchesDoNotNest) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin() + 1, Rec(R"pb(launch_begin { name: "inner" })pb"));
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 1 (launch 0 'main', launch_begin 'inner'): launch_begin: launch 0 "
                        "'main' is still open"));
}

TEST_F(TraceReaderTest, LaunchArgsAreKnownTensors) {
  Trace t = ValidTrace();
  t.records[0].mutable_launch_begin()->add_arg_tensor_ids(6);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 0 (launch 0 'main'): launch_begin.arg_tensor_ids[3]: "
                        "names tensor 6, but the header declares tensors 0..5"));
}

TEST_F(TraceReaderTest, LaunchWithoutEnd) {
  Trace t = ValidTrace();
  t.records.resize(4);  // up to the scope_end
  EXPECT_THAT(BinaryError(t), HasSubstr(": end of stream after record 3: launch 0 'main' has no "
                                        "launch_end"));
}

TEST_F(TraceReaderTest, UnbalancedScopes) {
  Trace t = ValidTrace();
  t.records.erase(t.records.begin() + 3);  // drop the scope_end
  EXPECT_THAT(BinaryError(t), HasSubstr("launch_end: scope depth 1 is still open; expected a "
                                        "scope_end for every scope_begin"));
  t = ValidTrace();
  t.records.insert(t.records.begin() + 3, Rec(R"pb(scope_end { depth: 1 })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("record 4 (launch 0 'main', scope_end depth 1): "
                                        "scope_end: no scope is open"));
  t = ValidTrace();
  t.records[3] = Rec(R"pb(scope_end { depth: 2 })pb");
  EXPECT_THAT(BinaryError(t), HasSubstr("scope_end.depth: is 2; expected 1 (the innermost"));
}

TEST_F(TraceReaderTest, ScopeDepthsCountFromTheOuterScope) {
  Trace t = ValidTrace();
  t.records[1] = Rec(R"pb(scope_begin { mode: AUTO depth: 0 })pb");
  EXPECT_THAT(BinaryError(t),
              HasSubstr("scope_begin.depth: is 0; expected 1 (the enclosing depth 0 + 1; a "
                        "launch's outer scope is depth 0)"));
}

TEST_F(TraceReaderTest, ManualInsideManual) {
  Trace t = ValidTrace();
  t.records[1].mutable_scope_begin()->set_mode(trace::ScopeBegin::MANUAL);
  t.records.insert(t.records.begin() + 2, Rec(R"pb(scope_begin { mode: MANUAL depth: 2 })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("scope_begin.mode: a MANUAL scope may not be nested "
                                        "inside another MANUAL scope (depth 1)"));
}

TEST_F(TraceReaderTest, AutoInsideManual) {
  Trace t = ValidTrace();
  t.records[1].mutable_scope_begin()->set_mode(trace::ScopeBegin::MANUAL);
  t.records.insert(t.records.begin() + 2, Rec(R"pb(scope_begin { mode: AUTO depth: 2 })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("scope_begin.mode: an AUTO scope may not be nested inside "
                                        "a MANUAL scope (depth 1)"));
}

TEST_F(TraceReaderTest, TooDeepScopes) {
  Trace t = ValidTrace();
  t.records.resize(1);
  for (int depth = 1; depth <= kMaxScopeDepth + 1; ++depth) {
    t.records.push_back(Rec(absl::StrCat("scope_begin { depth: ", depth, " }")));
  }
  EXPECT_THAT(BinaryError(t), HasSubstr("scope_begin.depth: is 65; expected at most 64"));
}

TEST_F(TraceReaderTest, SubmitScopeDepthMustMatch) {
  Trace t = ValidTrace();
  TheSubmit(t).set_scope_depth(0);
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.scope_depth: is 0; expected 1 (the depth of the "
                                        "enclosing scope)"));
}

// ---------------------------------------------------------------------------
// Submits.

TEST_F(TraceReaderTest, UnknownKernelId) {
  Trace t = ValidTrace();
  TheSubmit(t).set_kernel_ids(1, 7);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 2 (launch 0 'main', submit 0 'add'): submit.kernel_ids[1]: names "
                        "kernel 7, but the header declares kernels 0..3; expected -1"));
}

TEST_F(TraceReaderTest, KernelSlotsNeedThreeEntriesAndOneActive) {
  Trace t = ValidTrace();
  TheSubmit(t).mutable_kernel_ids()->RemoveLast();
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.kernel_ids: has 2 entries; expected exactly 3"));
  t = ValidTrace();
  TheSubmit(t).set_kernel_ids(1, -1);
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.kernel_ids: all three slots are -1"));
}

TEST_F(TraceReaderTest, KernelSlotsMatchCoreTypes) {
  Trace t = ValidTrace();
  TheSubmit(t).set_kernel_ids(0, 0);  // AIV kernel in the AIC slot
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.kernel_ids[0]: kernel 'vadd' (id 0) is AIV; "
                                        "expected an AIC or MIX kernel in the AIC slot"));
  t = ValidTrace();
  TheSubmit(t).set_kernel_ids(2, 1);  // AIC kernel in the AIV1 slot
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.kernel_ids[2]: kernel 'cube' (id 1) is AIC; "
                                        "expected an AIV or MIX kernel in the AIV1 slot"));
}

TEST_F(TraceReaderTest, MixKernelFillsItsSlotsConsistently) {
  Trace t = ValidTrace();
  TheSubmit(t).set_kernel_ids(0, 2);  // [mixk, vadd, -1]
  EXPECT_THAT(BinaryError(t),
              HasSubstr("submit.kernel_ids: is [2, 0, -1] with MIX kernel 'mixk' (id 2); "
                        "expected the MIX kernel in the AIC slot and in every active AIV slot"));
  t = ValidTrace();
  TheSubmit(t).set_kernel_ids(1, 2);  // [-1, mixk, -1]: no AIC half
  EXPECT_THAT(BinaryError(t), HasSubstr("is [-1, 2, -1] with MIX kernel 'mixk'"));
}

TEST_F(TraceReaderTest, BlocksMustBeGiven) {
  Trace t = ValidTrace();
  TheSubmit(t).set_block_num(0);
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.block_num: is 0; expected >= 1"));
  t = ValidTrace();
  TheSubmit(t).clear_blocks();
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.blocks: neither block_num nor block_symbol"));
}

TEST_F(TraceReaderTest, UnknownTensorId) {
  Trace t = ValidTrace();
  TheSubmit(t).mutable_args(0)->mutable_tensor()->set_tensor_id(9);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("submit.args[0].tensor.tensor_id: names tensor 9, but the header "
                        "declares tensors 0..5; expected a declared tensor id"));
}

TEST_F(TraceReaderTest, DirectionMustBeSet) {
  Trace t = ValidTrace();
  TheSubmit(t).mutable_args(1)->mutable_tensor()->clear_direction();
  EXPECT_THAT(BinaryError(t),
              HasSubstr("submit.args[1].tensor.direction: is ARG_DIRECTION_UNSPECIFIED for "
                        "tensor 'b' (id 1); expected INPUT, OUTPUT"));
}

TEST_F(TraceReaderTest, ViewOutOfBounds) {
  Trace t = ValidTrace();
  trace::TensorArg* arg = TheSubmit(t).mutable_args(2)->mutable_tensor();
  arg->add_offsets(32);
  arg->add_offsets(0);
  arg->add_shape(64);
  arg->add_shape(128);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("submit.args[2].tensor: view of tensor 'c' (id 2) dim 0 covers [32, 32 + "
                        "64) but the tensor has 64 there; expected a view inside the tensor"));
}

TEST_F(TraceReaderTest, ArgsMatchProgramParams) {
  Trace t = ValidTrace();
  TheSubmit(t).mutable_args()->RemoveLast();
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.args: has 2 args but kernel 'vadd' (id 0) takes 3 "
                                        "params (a, b, c); expected one arg per param"));
  t = ValidTrace();
  TheSubmit(t).mutable_args(2)->mutable_scalar()->set_i(3);
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.args[2]: is a scalar but kernel 'vadd' (id 0) "
                                        "param 2 'c' is TENSOR; expected a tensor"));
  t = ValidTrace();
  TheSubmit(t).mutable_args(0)->mutable_tensor()->set_tensor_id(3);  // INT32 gate for FP32 a
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.args[0].tensor: tensor 'gate' (id 3) is INT32 but "
                                        "kernel 'vadd' (id 0) param 0 'a' is FP32"));
}

TEST_F(TraceReaderTest, ScalarArgNeedsAValue) {
  Trace t = ValidTrace();
  TheSubmit(t).mutable_args(2)->mutable_scalar();
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.args[2].scalar: has no value"));
}

TEST_F(TraceReaderTest, DepOnLaterTask) {
  Trace t = ValidTrace();
  TheSubmit(t).add_deps(0);  // itself
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.deps[0]: names submit 0, but no submit precedes "
                                        "it in this launch"));
}

TEST_F(TraceReaderTest, DepMessageMatchesTheDocumentedForm) {
  Trace t;
  t.header = Parse<trace::StreamHeader>(kHeader);
  trace::StreamRecord plain = Rec(kVaddSubmit);
  plain.mutable_submit()->set_scope_depth(0);
  trace::StreamRecord k = plain;
  k.mutable_submit()->set_name("k");
  k.mutable_submit()->add_deps(1);
  k.mutable_submit()->add_deps(7);
  t.records = {Rec("launch_begin {}"), plain, plain, k};
  const std::string path = WriteBinary(t);
  const std::string renamed = TempPath("_bad.pb");
  ASSERT_EQ(std::rename(path.c_str(), renamed.c_str()), 0);
  EXPECT_EQ(ReadAll(renamed).message(),
            absl::StrCat(renamed,
                         ": record 3 (launch 0, submit 2 'k'): submit.deps[1]: names submit 7, "
                         "but only submits 0..1 precede it in this launch; expected an earlier "
                         "task index (submits, dummies and allocs each take one, from 0)"));
}

TEST_F(TraceReaderTest, DummyAndAllocTakeTaskIndices) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin() + 2, Rec(R"pb(alloc {
                                                     tensor_ids: [ 2 ]
                                                     scope_depth: 1
                                                   })pb"));
  t.records.insert(t.records.begin() + 3, Rec(R"pb(dummy {
                                                     deps: [ 0 ]
                                                     scope_depth: 1
                                                   })pb"));
  // records[2] is now the alloc (task 0), [3] the dummy (task 1), [4] the submit (task 2).
  t.records[4].mutable_submit()->add_deps(1);
  EXPECT_TRUE(ReadBinary(t).ok());
  t.records[4].mutable_submit()->add_deps(2);
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 4 (launch 0 'main', submit 2 'add'): submit.deps[1]: names "
                        "submit 2, but only submits 0..1 precede it"));
}

TEST_F(TraceReaderTest, DummyDepOnUnknownTask) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin() + 3, Rec(R"pb(dummy {
                                                     deps: [ 5 ]
                                                     scope_depth: 1
                                                   })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("(launch 0 'main', dummy 1): dummy.deps[0]: names submit "
                                        "5, but only submits 0..0 precede it"));
}

TEST_F(TraceReaderTest, PredicateOnUnsignedElement) {
  Trace t = ValidTrace();
  *TheSubmit(t).mutable_predicate() =
      Parse<trace::Predicate>("tensor_id: 4 indices: [0] op: NE target: 0");
  EXPECT_THAT(BinaryError(t),
              HasSubstr("submit.predicate.tensor_id: tensor 'u' (id 4) is UINT32; expected INT8, "
                        "INT16, INT32 or INT64 (the runtime sign-extends the element to int64"));
}

TEST_F(TraceReaderTest, PredicateOnFloatElement) {
  Trace t = ValidTrace();
  *TheSubmit(t).mutable_predicate() =
      Parse<trace::Predicate>("tensor_id: 5 indices: [0] op: GT target: 0");
  EXPECT_THAT(BinaryError(t), HasSubstr("tensor 'f' (id 5) is FP32; expected INT8, INT16"));
}

TEST_F(TraceReaderTest, PredicateElementOutOfRange) {
  Trace t = ValidTrace();
  *TheSubmit(t).mutable_predicate() =
      Parse<trace::Predicate>("tensor_id: 3 indices: [1, 2] op: GT target: 0");
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.predicate.indices[1]: is 2; expected 0 <= index < "
                                        "2 (dim 1 of tensor 'gate' (id 3))"));
  TheSubmit(t).mutable_predicate()->mutable_indices()->RemoveLast();
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.predicate.indices: has 1 indices; expected 2"));
}

TEST_F(TraceReaderTest, PredicateOpMustBeSet) {
  Trace t = ValidTrace();
  *TheSubmit(t).mutable_predicate() = Parse<trace::Predicate>("tensor_id: 3 indices: [0, 0]");
  EXPECT_THAT(BinaryError(t), HasSubstr("submit.predicate.op: is OP_UNSPECIFIED; expected EQ"));
}

// ---------------------------------------------------------------------------
// Other records.

TEST_F(TraceReaderTest, AllocAndHostReadTensors) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin() + 3, Rec(R"pb(alloc {
                                                     tensor_ids: [ 6 ]
                                                     scope_depth: 1
                                                   })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("alloc.tensor_ids[0]: names tensor 6"));
  t = ValidTrace();
  t.records.insert(t.records.begin() + 3, Rec(R"pb(host_read {
                                                     tensor_id: 3
                                                     indices: [ 0, 2 ]
                                                   })pb"));
  EXPECT_THAT(BinaryError(t), HasSubstr("host_read.indices[1]: is 2; expected 0 <= index < 2"));
}

TEST_F(TraceReaderTest, CheckSizeMismatch) {
  Trace t = ValidTrace();
  t.records[5].mutable_check()->mutable_expected()->set_data(std::string(8, '\0'));
  EXPECT_THAT(BinaryError(t),
              HasSubstr("record 5 (check 'b'): check.expected.data: has 8 bytes; expected 32768"));
}

TEST_F(TraceReaderTest, CheckNeedsContentsAndSaneTolerances) {
  Trace t = ValidTrace();
  t.records[5].mutable_check()->clear_expected();
  EXPECT_THAT(BinaryError(t), HasSubstr("check.expected: has no contents for tensor 'b' (id 1)"));
  t = ValidTrace();
  t.records[5].mutable_check()->set_rtol(-0.1);
  EXPECT_THAT(BinaryError(t), HasSubstr("check.rtol: is -0.1; expected a finite value >= 0"));
  t = ValidTrace();
  t.records[5].mutable_check()->set_atol(std::numeric_limits<double>::infinity());
  EXPECT_THAT(BinaryError(t), HasSubstr("check.atol: is inf; expected a finite value >= 0"));
}

TEST_F(TraceReaderTest, ChecksFollowALaunch) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin(), t.records[5]);
  EXPECT_THAT(BinaryError(t), HasSubstr("check: appears before any launch"));
  t = ValidTrace();
  t.records.insert(t.records.begin() + 3, t.records[5]);
  EXPECT_THAT(BinaryError(t), HasSubstr("check: inside launch 0 'main'; expected checks after "
                                        "launch_end"));
}

TEST_F(TraceReaderTest, RecordWithoutKind) {
  Trace t = ValidTrace();
  t.records.insert(t.records.begin() + 1, trace::StreamRecord());
  EXPECT_THAT(BinaryError(t), HasSubstr("record 1 (launch 0 'main', no kind): kind: not set"));
}

// ---------------------------------------------------------------------------
// Committed files.

std::string SourcePath(const std::string& relative) {
  return absl::StrCat(PTO_SOURCE_DIR, "/", relative);
}

class CommittedTraceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CommittedTraceTest, ReadsToTheEnd) {
  auto reader = TraceReader::Open(SourcePath(absl::StrCat("traces/", GetParam(), ".pbtxt")));
  ASSERT_TRUE(reader.ok()) << reader.status();
  trace::StreamRecord record;
  int submits = 0;
  int checks = 0;
  while (true) {
    absl::StatusOr<bool> got = (*reader)->Next(&record);
    ASSERT_TRUE(got.ok()) << got.status();
    if (!*got) break;
    submits += record.has_submit();
    checks += record.has_check();
  }
  EXPECT_GE(submits, 1);
  EXPECT_EQ(checks, 1);
  EXPECT_EQ((*reader)->launch_index(), 0);
}

INSTANTIATE_TEST_SUITE_P(Traces, CommittedTraceTest,
                         ::testing::Values("spmd_add", "per_block_add", "raw_chain",
                                           "predicate_chain"));

TEST(CommittedTraces, SubmitCountsAreAsDocumented) {
  const std::pair<const char*, int> expected[] = {
      {"spmd_add", 1}, {"per_block_add", 4}, {"raw_chain", 2}, {"predicate_chain", 3}};
  for (const auto& [name, submit_count] : expected) {
    auto reader = TraceReader::Open(SourcePath(absl::StrCat("traces/", name, ".pbtxt")));
    ASSERT_TRUE(reader.ok()) << reader.status();
    trace::StreamRecord record;
    int submits = 0;
    while (*(*reader)->Next(&record)) submits += record.has_submit();
    EXPECT_EQ(submits, submit_count) << name;
  }
}

// The checks of the hand-written traces hold for their inputs: evaluates each
// trace's documented formula on the generated inputs and compares it with the
// check's expected contents, so a slip in an ARANGE start or step shows here.
std::vector<double> Contents(const trace::Tensor& tensor, const trace::TensorInit& init) {
  const size_t count = tensor.size_bytes() / DTypeSize(tensor.dtype());
  std::vector<unsigned char> bytes(tensor.size_bytes());
  EXPECT_TRUE(FillTensor(init, tensor.dtype(), count, bytes.data()).ok());
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = LoadAsDouble(tensor.dtype(), bytes.data() + i * DTypeSize(tensor.dtype()));
  }
  return values;
}

void ExpectCheckMatches(
    const char* name,
    const std::function<double(const std::vector<std::vector<double>>&, size_t)>& formula) {
  auto reader = TraceReader::Open(SourcePath(absl::StrCat("traces/", name, ".pbtxt")));
  ASSERT_TRUE(reader.ok()) << reader.status();
  const trace::StreamHeader& header = (*reader)->header();
  std::vector<std::vector<double>> inputs;
  for (const trace::Tensor& tensor : header.tensors()) {
    inputs.push_back(Contents(tensor, tensor.init()));
  }
  trace::StreamRecord record;
  while (*(*reader)->Next(&record)) {
    if (!record.has_check()) continue;
    const trace::Tensor& tensor = header.tensors(record.check().tensor_id());
    const std::vector<double> expected = Contents(tensor, record.check().expected());
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(expected[i], formula(inputs, i)) << name << " element " << i;
    }
  }
}

TEST(CommittedTraces, ChecksAgreeWithTheDocumentedFormulas) {
  // Tensor ids as declared in each trace.
  ExpectCheckMatches("spmd_add", [](const auto& t, size_t i) { return t[0][i] + t[1][i]; });
  ExpectCheckMatches("per_block_add", [](const auto& t, size_t i) { return t[0][i] + t[1][i]; });
  ExpectCheckMatches("raw_chain", [](const auto& t, size_t i) { return (t[0][i] + t[1][i]) * 2; });
  // gate (tensor 1) is 1 as committed, so the predicated increment runs.
  ExpectCheckMatches("predicate_chain", [](const auto& t, size_t i) {
    EXPECT_EQ(t[1][0], 1.0);
    return t[0][i] * 2 + 1;
  });
}

struct BadFile {
  const char* name;
  const char* message;
};

class BadFileTest : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadFileTest, IsRejectedWithItsMessage) {
  auto reader = TraceReader::Open(SourcePath(absl::StrCat("sim/testdata/bad/", GetParam().name)));
  absl::Status status;
  if (!reader.ok()) {
    status = reader.status();
  } else {
    trace::StreamRecord record;
    while (true) {
      absl::StatusOr<bool> got = (*reader)->Next(&record);
      if (!got.ok()) {
        status = got.status();
        break;
      }
      ASSERT_TRUE(*got) << GetParam().name << " was read without an error";
    }
  }
  EXPECT_THAT(std::string(status.message()), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadFileTest,
    ::testing::Values(
        BadFile{"truncated.pb", "remain; expected the whole message (the file was cut short"},
        BadFile{"wrong_version.pb",
                "header: version: is 11; expected 10: this pto_sim (schema version 10) is older"},
        BadFile{"old_version.pb",
                "header: version: is 9; expected 10: the trace was written by an older ptoc"},
        BadFile{"unknown_kernel.pbtxt", "submit.kernel_ids[1]: names kernel 5"},
        BadFile{"dep_on_later_task.pbtxt", "submit.deps[0]: names submit 1, but only submits 0..0"},
        BadFile{"view_out_of_bounds.pbtxt",
                "submit.args[0].tensor: view of tensor 'x' (id 0) dim 0 covers [48, 48 + 32)"},
        BadFile{"tile_buffer_out_of_range.pbtxt",
                "tile_buffer_out_of_range.pbtxt:15: header: kernels[0].program.tiles[1].buffer: "
                "kernel 'scale' tile 1 ('u') lives in buffer 5 but the kernel has 2 tiles"}),
    [](const ::testing::TestParamInfo<BadFile>& info) {
      std::string name = info.param.name;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace pto
