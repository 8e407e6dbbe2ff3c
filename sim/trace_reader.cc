#include "sim/trace_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/dtype.h"
#include "common/input_file.h"
#include "common/stop_request.h"
#include "common/utf8.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/text_format.h"
#include "models/aicpu/tensor_view.h"
#include "models/core/kernel_program.h"
#include "proto/stream_version.h"
#include "sim/config_schema.h"
#include "sim/unknown_fields.h"

namespace pto {
namespace {

using google::protobuf::Message;
using google::protobuf::io::CodedInputStream;

// " 'name'", or nothing for an empty name.
std::string Quoted(const std::string& name) {
  return name.empty() ? std::string() : absl::StrCat(" '", name, "'");
}

std::string Hex(uint64_t value) { return absl::StrFormat("0x%x", value); }

// An enum value's name, or its number when the schema does not know it.
std::string EnumName(const google::protobuf::EnumDescriptor* descriptor, int value) {
  const google::protobuf::EnumValueDescriptor* found = descriptor->FindValueByNumber(value);
  return found != nullptr ? found->name() : absl::StrCat("unknown value ", value);
}

std::string DTypeLabel(trace::DType dtype) { return EnumName(trace::DType_descriptor(), dtype); }

std::string ShapeLabel(const google::protobuf::RepeatedField<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

bool IsFiniteNonNegative(double value) { return std::isfinite(value) && value >= 0; }

// The kernel description named in a header, fit to quote in a ptoc command
// line: the file is untrusted, so anything but a short printable *.py path
// becomes a placeholder.
std::string DescriptionOf(const trace::StreamHeader& header) {
  const std::string& source = header.source();
  const bool printable =
      std::all_of(source.begin(), source.end(), [](char c) { return c > ' ' && c < 0x7f; });
  if (printable && source.size() <= 200 && absl::EndsWith(source, ".py")) return source;
  return "FILE.py";
}

// Why a header of another schema version is refused, and what to do: an
// older file is re-compiled, a newer one needs a newer pto_sim.
std::string VersionProblem(const trace::StreamHeader& header) {
  const uint32_t version = header.version();
  if (version == 0) {
    return absl::StrCat("is 0 (not set); expected ", kTaskStreamVersion,
                        ", the schema version this pto_sim reads (ptoc always sets it; a "
                        "hand-written trace needs 'version: ",
                        kTaskStreamVersion, "' in its header)");
  }
  if (version < kTaskStreamVersion) {
    return absl::StrCat("is ", version, "; expected ", kTaskStreamVersion,
                        ": the trace was written by an older ptoc (schema version ", version,
                        "); re-run ptoc on its kernel description: ptoc ", DescriptionOf(header),
                        " -o OUT.pb (a hand-written trace: bring it up to date with "
                        "proto/task_stream.proto and set version: ",
                        kTaskStreamVersion, ")");
  }
  return absl::StrCat("is ", version, "; expected ", kTaskStreamVersion,
                      ": this pto_sim (schema version ", kTaskStreamVersion,
                      ") is older than the trace, which a newer ptoc wrote; use the pto_sim built "
                      "with that ptoc");
}

// A finding of a helper check: the field path below the caller's and the
// message; an empty field means "no problem".
struct Problem {
  std::string field;
  std::string what;
  bool found() const { return !field.empty(); }
};

// Validates initial or expected contents against the tensor they describe.
Problem InitProblem(const trace::TensorInit& init, const trace::Tensor& tensor) {
  using Init = trace::TensorInit;
  switch (init.contents_case()) {
    case Init::CONTENTS_NOT_SET:
    case Init::kFill:
      return {};
    case Init::kZeros:
      if (!init.zeros())
        return {"zeros", "is false; expected true when set (omit the contents instead)"};
      return {};
    case Init::kData:
      if (init.data().size() != tensor.size_bytes()) {
        return {"data",
                absl::StrCat("has ", init.data().size(), " bytes; expected ", tensor.size_bytes(),
                             " (the size_bytes of tensor '", tensor.name(), "', ",
                             ShapeLabel(tensor.shape()), " ", DTypeLabel(tensor.dtype()), ")")};
      }
      return {};
    case Init::kGenerator: {
      const Init::Generator& gen = init.generator();
      switch (gen.kind()) {
        case Init::Generator::RANDN:
          return {};
        case Init::Generator::UNIFORM:
          if (!std::isfinite(gen.low()) || !std::isfinite(gen.high()) ||
              !(gen.low() < gen.high())) {
            return {"generator",
                    absl::StrCat("UNIFORM range [", gen.low(), ", ", gen.high(),
                                 ") is empty or not finite; expected finite low < high")};
          }
          return {};
        case Init::Generator::ARANGE:
          if (!std::isfinite(gen.start()) || !std::isfinite(gen.step())) {
            return {"generator", absl::StrCat("ARANGE start ", gen.start(), " step ", gen.step(),
                                              " is not finite; expected finite numbers")};
          }
          return {};
        default:
          return {"generator.kind",
                  absl::StrCat("is ", EnumName(Init::Generator::Kind_descriptor(), gen.kind()),
                               "; expected RANDN, UNIFORM or ARANGE")};
      }
    }
  }
  return {};
}

Problem CostProblem(const trace::CostSummary& cost) {
  if (!IsFiniteNonNegative(cost.cube_flops())) {
    return {"cube_flops", absl::StrCat("is ", cost.cube_flops(), "; expected a finite value >= 0")};
  }
  if (!IsFiniteNonNegative(cost.vector_elements())) {
    return {"vector_elements",
            absl::StrCat("is ", cost.vector_elements(), "; expected a finite value >= 0")};
  }
  return {};
}

// A tile's memory space is a MemSpace (or unset), its buffer one of the
// kernel's (TileDecl.buffer below KernelProgram.buffer_count, or below the
// tile count when that is 0: then every tile is its own buffer and none has
// slots) and, for a pl.MemRef tile with a runtime slot (TileDecl.slot), all
// `slots` buffers from it.
Problem TileProblem(const trace::KernelProgram& program, const std::string& path,
                    const trace::Kernel& kernel) {
  if (program.buffer_count() > kMaxKernelBuffers) {
    return {absl::StrCat(path, ".buffer_count"),
            absl::StrCat("kernel '", kernel.name(), "' declares ", program.buffer_count(),
                         " buffers; expected at most ", kMaxKernelBuffers)};
  }
  const uint64_t buffers = program.buffer_count() > 0 ? program.buffer_count()
                                                      : static_cast<uint64_t>(program.tiles_size());
  const std::string bound =
      program.buffer_count() > 0
          ? absl::StrCat("the kernel's buffer_count is ", buffers)
          : absl::StrCat("the kernel has ", buffers, " tiles (and no buffer_count)");
  for (int t = 0; t < program.tiles_size(); ++t) {
    const trace::TileDecl& tile = program.tiles(t);
    const std::string who =
        absl::StrCat("kernel '", kernel.name(), "' tile ", t, " ('", tile.name(), "')");
    const std::string field = absl::StrCat(path, ".tiles[", t, "]");
    if (!trace::MemSpace_IsValid(tile.space())) {
      return {field + ".space", absl::StrCat(who, " has space ", tile.space(),
                                             "; expected VEC, MAT, ACC, LEFT, RIGHT or BIAS")};
    }
    if (tile.buffer() >= buffers) {
      return {field + ".buffer",
              absl::StrCat(who, " lives in buffer ", tile.buffer(), " but ", bound,
                           "; expected a buffer below that (buffers are numbered from 0)")};
    }
    if (tile.slots() > 0 && program.buffer_count() == 0) {
      return {field + ".slots",
              absl::StrCat(who, " has ", tile.slots(),
                           " pl.MemRef slots but the kernel has no buffer_count; a kernel "
                           "without one gives every tile its own buffer: set buffer_count")};
    }
    if (tile.has_slot() && tile.slots() == 0) {
      return {field + ".slot",
              absl::StrCat(who,
                           " has a runtime slot but slots is 0; a slot picks one of a "
                           "pl.MemRef allocation's slots: set slots to its slot count")};
    }
    if (tile.has_slot() && tile.buffer() + uint64_t{tile.slots()} > buffers) {
      return {field + ".slots",
              absl::StrCat(who, "'s ", tile.slots(), " slots take buffers ", tile.buffer(), "..",
                           tile.buffer() + uint64_t{tile.slots()} - 1, " but ", bound,
                           "; expected buffer + slots <= that")};
    }
  }
  return {};
}

// Only MIX kernels have two engines to choose between.
Problem EngineProblem(const google::protobuf::RepeatedPtrField<trace::Op>& ops,
                      const std::string& path, const trace::Kernel& kernel) {
  for (int i = 0; i < ops.size(); ++i) {
    const trace::Op& op = ops[i];
    const std::string op_path = absl::StrCat(path, "[", i, "]");
    if (op.engine() != trace::ENGINE_UNSPECIFIED) {
      return {op_path + ".engine",
              absl::StrCat("is ", EnumName(trace::Engine_descriptor(), op.engine()),
                           " but kernel '", kernel.name(), "' is ",
                           EnumName(trace::CoreType_descriptor(), kernel.core_type()),
                           "; expected ENGINE_UNSPECIFIED (only MIX kernels name engines)")};
    }
    if (op.has_loop()) {
      Problem found = EngineProblem(op.loop().body(), absl::StrCat(op_path, ".loop.body"), kernel);
      if (found.found()) return found;
    }
  }
  return {};
}

// RunConfig ring sizes: one value for all rings or one per ring, each in the
// range of its ring.* config key (the schema is the one place limits live).
Problem RingSizesProblem(const trace::RingSizes& rings) {
  struct RingField {
    const char* name;
    const google::protobuf::RepeatedField<uint64_t>* values;
    const char* key;
  };
  for (const auto& [name, values, key] :
       {RingField{"task_window", &rings.task_window(), "ring.task_window"},
        RingField{"heap_bytes", &rings.heap_bytes(), "ring.heap_bytes"},
        RingField{"dep_pool", &rings.dep_pool(), "ring.dep_pool"}}) {
    if (values->size() != 0 && values->size() != 1 && values->size() != 4) {
      return {absl::StrCat("ring_sizes.", name),
              absl::StrCat("has ", values->size(), " entries; expected 1 (all rings) or 4")};
    }
    const ConfigKeySpec& spec = *FindConfigKey(key);
    const auto min = static_cast<uint64_t>(spec.min);
    const auto max = static_cast<uint64_t>(spec.max);
    for (int i = 0; i < values->size(); ++i) {
      const uint64_t value = values->Get(i);
      const bool power_of_two = (value & (value - 1)) == 0;
      if (value < min || value > max || (spec.power_of_two && !power_of_two)) {
        return {absl::StrCat("ring_sizes.", name, "[", i, "]"),
                absl::StrCat("is ", value, "; ", spec.ExpectedText(), ", as for ", key)};
      }
    }
  }
  return {};
}

// A tensor's own fields, declared with id `expected_id`: the field below the
// tensor's path (".dtype") and what is wrong.
Problem TensorProblem(const trace::Tensor& tensor, uint32_t expected_id, bool timing_only) {
  const std::string who = absl::StrCat("tensor '", tensor.name(), "'");
  if (tensor.id() != expected_id) {
    return {".id", absl::StrCat("is ", tensor.id(), " (", who, "); expected ", expected_id,
                                " (tensor ids are dense and 0-based, in declaration order)")};
  }
  if (tensor.dtype() == trace::DTYPE_UNSPECIFIED || DTypeSize(tensor.dtype()) == 0) {
    return {".dtype", absl::StrCat(who, " has dtype ", DTypeLabel(tensor.dtype()),
                                   "; expected one of FP32, FP16, BF16, INT8..INT64, "
                                   "UINT8..UINT64, BOOL")};
  }
  if (tensor.shape_size() < 1 || tensor.shape_size() > kMaxTensorDims) {
    return {".shape", absl::StrCat(who, " has rank ", tensor.shape_size(), "; expected 1 to ",
                                   kMaxTensorDims, " dims")};
  }
  if (tensor.size_bytes() > kMaxTensorBytes) {
    return {".size_bytes",
            absl::StrCat(who, " declares ", tensor.size_bytes(), " bytes; expected at most ",
                         kMaxTensorBytes, " (the 64 GiB per-tensor limit; split the tensor)")};
  }
  const uint64_t element_bytes = DTypeSize(tensor.dtype());
  uint64_t elements = 1;
  for (int d = 0; d < tensor.shape_size(); ++d) {
    const int64_t dim = tensor.shape(d);
    if (dim <= 0) {
      return {absl::StrCat(".shape[", d, "]"),
              absl::StrCat(who, " has size ", dim, " in dim ", d, "; expected > 0")};
    }
    // Overflow-checked: elements * dim * element_bytes <= kMaxTensorBytes.
    if (elements > kMaxTensorBytes / element_bytes / static_cast<uint64_t>(dim)) {
      return {".shape", absl::StrCat(who, " of shape ", ShapeLabel(tensor.shape()), " ",
                                     DTypeLabel(tensor.dtype()),
                                     " is larger than the 64 GiB per-tensor limit; expected at "
                                     "most ",
                                     kMaxTensorBytes, " bytes (split the tensor)")};
    }
    elements *= static_cast<uint64_t>(dim);
  }
  const uint64_t bytes = elements * element_bytes;
  if (tensor.size_bytes() != bytes) {
    return {".size_bytes",
            absl::StrCat(who, " declares ", tensor.size_bytes(), " bytes; expected ", bytes, " (",
                         ShapeLabel(tensor.shape()), " = ", elements, " elements of ",
                         DTypeLabel(tensor.dtype()), ", ", element_bytes, " bytes each)")};
  }
  if (tensor.gm_addr() > UINT64_MAX - bytes) {
    return {".gm_addr", absl::StrCat(who, " at ", Hex(tensor.gm_addr()), " with ", bytes,
                                     " bytes runs past the end of the 64-bit address space; "
                                     "expected a lower address")};
  }
  const bool has_contents = tensor.init().contents_case() != trace::TensorInit::CONTENTS_NOT_SET;
  if (timing_only && has_contents && !tensor.control()) {
    return {".init", absl::StrCat(who,
                                  " carries initial contents but the header is timing_only; "
                                  "expected no init in a timing-only trace (only a control "
                                  "tensor, whose values a kernel's READ takes, keeps them)")};
  }
  const Problem init_problem = InitProblem(tensor.init(), tensor);
  if (init_problem.found()) return {".init." + init_problem.field, init_problem.what};
  return {};
}

// Two tensors' GM ranges overlap: what the later one is told.
std::string OverlapText(const trace::Tensor& self, const trace::Tensor& other) {
  return absl::StrCat("tensor '", self.name(), "' occupies GM [", Hex(self.gm_addr()), ", ",
                      Hex(self.gm_addr() + self.size_bytes()), ") which overlaps tensor '",
                      other.name(), "' (id ", other.id(), ") at [", Hex(other.gm_addr()), ", ",
                      Hex(other.gm_addr() + other.size_bytes()),
                      "); expected disjoint GM ranges (give each tensor its own range)");
}

// A kernel declared with id `expected_id` at `path`: the full field path and
// what is wrong.
Problem KernelProblem(const trace::Kernel& kernel, uint32_t expected_id, const std::string& path) {
  const std::string who = absl::StrCat("kernel '", kernel.name(), "'");
  if (kernel.id() != expected_id) {
    return {path + ".id",
            absl::StrCat("is ", kernel.id(), " (", who, "); expected ", expected_id,
                         " (kernel ids are dense and 0-based, in declaration order)")};
  }
  if (kernel.core_type() != trace::AIC && kernel.core_type() != trace::AIV &&
      kernel.core_type() != trace::MIX) {
    return {path + ".core_type",
            absl::StrCat(who, " has core_type ",
                         EnumName(trace::CoreType_descriptor(), kernel.core_type()),
                         "; expected AIC, AIV or MIX")};
  }
  switch (kernel.body_case()) {
    case trace::Kernel::BODY_NOT_SET:
      return {path, absl::StrCat(who, " has no body; expected a program or a cost summary")};
    case trace::Kernel::kCost: {
      const Problem problem = CostProblem(kernel.cost());
      if (problem.found()) return {absl::StrCat(path, ".cost.", problem.field), problem.what};
      return {};
    }
    case trace::Kernel::kProgram: {
      const trace::KernelProgram& program = kernel.program();
      for (int p = 0; p < program.params_size(); ++p) {
        const trace::KernelParam& param = program.params(p);
        if (param.kind() != trace::KernelParam::TENSOR &&
            param.kind() != trace::KernelParam::SCALAR) {
          return {absl::StrCat(path, ".program.params[", p, "].kind"),
                  absl::StrCat(who, " param '", param.name(), "' has kind ",
                               EnumName(trace::KernelParam::Kind_descriptor(), param.kind()),
                               "; expected TENSOR or SCALAR")};
        }
      }
      if (Problem problem = TileProblem(program, path + ".program", kernel); problem.found()) {
        return problem;
      }
      if (kernel.core_type() != trace::MIX) {
        return EngineProblem(program.ops(), path + ".program.ops", kernel);
      }
      return {};
    }
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------
// Sources: where the header and records come from.

class TraceReader::Source {
 public:
  virtual ~Source() = default;
  // False at the end of the records.
  virtual absl::StatusOr<bool> Read(trace::StreamRecord* record, int64_t index) = 0;
  // 1-based source lines for messages; 0 when unknown (binary streams).
  virtual int RecordLine(int64_t index) const { return 0; }
  virtual int TensorLine(int index) const { return 0; }
  virtual int KernelLine(int index) const { return 0; }
};

namespace {

// A file descriptor read without ever blocking for long: it waits for data
// in 100 ms slices and gives up once StopRequested(), so a FIFO whose writer
// never comes, or stalls, cannot outlast --max-wall-seconds or a signal.
class PollingFdStream : public google::protobuf::io::CopyingInputStream {
 public:
  explicit PollingFdStream(int fd) : fd_(fd) {}
  ~PollingFdStream() override { ::close(fd_); }
  int Read(void* buffer, int size) override {
    while (true) {
      pollfd ready = {fd_, POLLIN, 0};
      const int polled = ::poll(&ready, 1, /*timeout ms=*/100);
      if (polled == 0 || (polled < 0 && errno == EINTR)) {
        if (StopRequested()) {
          errno_ = ECANCELED;
          return -1;
        }
        continue;
      }
      const ssize_t got = ::read(fd_, buffer, static_cast<size_t>(size));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        errno_ = errno;
        return -1;
      }
      return static_cast<int>(got);
    }
  }
  int error() const { return errno_; }

 private:
  int fd_;
  int errno_ = 0;
};

// The binary stream: length-delimited messages read through one
// buffered stream, one CodedInputStream per message so memory stays bounded
// by the largest record.
class BinarySource : public TraceReader::Source {
 public:
  static absl::StatusOr<std::unique_ptr<BinarySource>> Open(const std::string& path, int fd,
                                                            int64_t file_size,
                                                            trace::StreamHeader* header) {
    std::unique_ptr<BinarySource> source(new BinarySource(path, fd, file_size));
    header->Clear();
    absl::StatusOr<bool> got = source->ReadDelimited(header, kHeader);
    if (!got.ok()) return got.status();
    if (!*got) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": empty file; expected a StreamHeader followed by records (as ptoc writes)"));
    }
    return source;
  }

  absl::StatusOr<bool> Read(trace::StreamRecord* record, int64_t index) override {
    // A submit the record already holds is cleared, not freed: merging the
    // next submit into it reuses its fields' capacity, so a stream of submits
    // parses without allocating. Any other kind replaces it as a parse would.
    if (record->has_submit()) {
      record->mutable_submit()->Clear();
      if (!record->GetReflection()->GetUnknownFields(*record).empty()) {
        record->GetReflection()->MutableUnknownFields(record)->Clear();
      }
    } else {
      record->Clear();
    }
    return ReadDelimited(record, index);
  }

 private:
  BinarySource(std::string path, int fd, int64_t file_size)
      : path_(std::move(path)),
        fd_stream_(fd),
        stream_(&fd_stream_, kBlockBytes),
        file_size_(file_size) {}

  static constexpr int kBlockBytes = 64 << 10;

  static constexpr int64_t kHeader = -1;
  // The largest message parsed through body_ (which keeps its capacity).
  static constexpr uint64_t kFlatParseMaxBytes = uint64_t{1} << 20;

  // What an error names: the header or "record N" (built only on failure).
  static std::string What(int64_t index) {
    return index == kHeader ? "header" : absl::StrCat("record ", index);
  }

  // Reads one length-delimited message and merges it into `message`, which
  // the caller has cleared. `index` is the record's, or kHeader.
  absl::StatusOr<bool> ReadDelimited(Message* message, int64_t index) {
    const int64_t offset = stream_.ByteCount();
    const void* data = nullptr;
    int size = 0;
    if (!stream_.Next(&data, &size)) {
      if (fd_stream_.error() != 0) {
        return absl::DataLossError(absl::StrCat(
            path_, ": ", What(index), " at byte offset ", offset,
            ": read failed: ", std::strerror(fd_stream_.error()), "; expected a readable file"));
      }
      return false;  // clean end of file
    }
    stream_.BackUp(size);

    CodedInputStream coded(&stream_);
    // ReadVarint32 would keep only the low 32 bits of a longer varint, so a
    // prefix of 2^62 would read as 0: read all 64 and refuse what is too big.
    uint64_t length = 0;
    if (!coded.ReadVarint64(&length)) {
      return absl::DataLossError(absl::StrCat(
          path_, ": ", What(index), " at byte offset ", offset,
          ": the length prefix is cut short or malformed; expected a varint byte count (the file "
          "is truncated or corrupt: regenerate it)"));
    }
    if (length > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
      return absl::DataLossError(absl::StrCat(
          path_, ": ", What(index), " at byte offset ", offset, ": declares ", length,
          " bytes; expected less than 2 GiB, the most a protobuf message can hold (the file is "
          "corrupt or not a pto_sim trace)"));
    }
    const int64_t body_offset = offset + coded.CurrentPosition();
    if (file_size_ >= 0 && body_offset + static_cast<int64_t>(length) > file_size_) {
      return absl::DataLossError(absl::StrCat(
          path_, ": ", What(index), " at byte offset ", offset, ": declares ", length,
          " bytes but only ", file_size_ - body_offset,
          " remain; expected the whole message (the file was cut short, e.g. a truncated copy or "
          "an interrupted write: regenerate it)"));
    }
    bool parsed;
    if (length <= kFlatParseMaxBytes) {
      // Copied out and parsed flat: the parser's fast path, without the
      // stream's buffer-boundary fallbacks (most of the cost of a small
      // record).
      if (!coded.ReadString(&body_, static_cast<int>(length))) {
        return absl::DataLossError(absl::StrCat(
            path_, ": ", What(index), " at byte offset ", offset, ": declares ", length,
            " bytes but the stream ends first; expected the whole message (the stream was cut "
            "short: regenerate it)"));
      }
      parsed = message->MergeFromString(body_);
    } else {
      // A large message (a header or check with tensor data) is parsed from
      // the stream, so the reused buffer stays small and nothing is held twice.
      const CodedInputStream::Limit limit = coded.PushLimit(static_cast<int>(length));
      parsed = message->MergeFromCodedStream(&coded) && coded.ConsumedEntireMessage();
      coded.PopLimit(limit);
    }
    if (!parsed) {
      return absl::DataLossError(absl::StrCat(
          path_, ": ", What(index), " at byte offset ", offset, ": its ", length,
          " bytes do not parse as a ", message->GetTypeName(),
          "; expected a serialized message (the file is corrupt or not a pto_sim trace)"));
    }
    return true;
  }

  std::string path_;
  PollingFdStream fd_stream_;
  google::protobuf::io::CopyingInputStreamAdaptor stream_;
  std::string body_;   // the message being parsed; reused, so it keeps its capacity
  int64_t file_size_;  // -1 when unknown (not a regular file)
};

class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit TextErrorCollector(const std::string& path) : path_(path) {}
  void AddError(int line, int column, const std::string& message) override {
    if (first_error_.empty()) {
      absl::string_view text = message;
      absl::ConsumeSuffix(&text, ".");  // the reader appends "; expected ..."
      first_error_ = absl::StrCat(path_, ":", line + 1, ":", column + 1, ": ", text);
    }
  }
  const std::string& first_error() const { return first_error_; }

 private:
  const std::string& path_;
  std::string first_error_;
};

// The first string field of `message` (depth first) that is not UTF-8:
// its path ("records[3].submit.name"), the record index for records[i], and
// the offset of its first bad byte. An empty field when all are text.
struct InvalidUtf8 {
  std::string field;
  int record = -1;
  size_t offset = 0;
};
bool FindInvalidUtf8In(const google::protobuf::Message& message, const std::string& prefix,
                       InvalidUtf8* bad) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    const std::string name = absl::StrCat(prefix, prefix.empty() ? "" : ".", field->name());
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string where = field->is_repeated() ? absl::StrCat(name, "[", i, "]") : name;
      if (field->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
        std::string scratch;
        const std::string& text =
            field->is_repeated()
                ? reflection->GetRepeatedStringReference(message, field, i, &scratch)
                : reflection->GetStringReference(message, field, &scratch);
        if (const size_t at = FirstInvalidUtf8(text); at < text.size()) {
          *bad = {where, -1, at};
          return true;
        }
      } else if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
        const google::protobuf::Message& child =
            field->is_repeated() ? reflection->GetRepeatedMessage(message, field, i)
                                 : reflection->GetMessage(message, field);
        if (FindInvalidUtf8In(child, where, bad)) {
          if (prefix.empty() && field->name() == "records") bad->record = i;
          return true;
        }
      }
    }
  }
  return false;
}
InvalidUtf8 FindInvalidUtf8(const google::protobuf::Message& message) {
  InvalidUtf8 bad;
  FindInvalidUtf8In(message, "", &bad);
  return bad;
}

// A .pbtxt trace: one TraceText, parsed whole (hand-written traces are small).
// Records are handed out by swapping, so each is held once.
class TextSource : public TraceReader::Source {
 public:
  static absl::StatusOr<std::unique_ptr<TextSource>> Open(const std::string& path,
                                                          trace::StreamHeader* header) {
    absl::StatusOr<std::string> read =
        ReadInputFile(path, kMaxTextTraceBytes, "a task stream in protobuf text format (.pbtxt)");
    if (!read.ok()) return read.status();
    const std::string text = std::move(*read);
    if (text.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path,
                       ": empty file; expected a TraceText in protobuf text format (header { ... } "
                       "records { ... } ...)"));
    }
    std::unique_ptr<TextSource> source(new TextSource());
    google::protobuf::TextFormat::Parser parser;
    TextErrorCollector errors(path);
    google::protobuf::TextFormat::ParseInfoTree locations;
    parser.RecordErrorsTo(&errors);
    parser.WriteLocationsTo(&locations);
    if (!parser.ParseFromString(text, &source->trace_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          errors.first_error(),
          "; expected protobuf text format of pto.trace.TraceText (see proto/task_stream.proto)"));
    }
    // Before TakeHeader moves the header out: its tensor and kernel counts.
    source->RememberLines(locations);
    // The binary parser refuses a string field that is not UTF-8 (proto3);
    // the text parser takes any bytes an escape spells, and every output
    // writer needs names that are text.
    if (InvalidUtf8 bad = FindInvalidUtf8(source->trace_); !bad.field.empty()) {
      const int line =
          absl::StartsWith(bad.field, "records[") ? LineAt(source->record_lines_, bad.record) : 0;
      return absl::InvalidArgumentError(absl::StrCat(path, line > 0 ? absl::StrCat(":", line) : "",
                                                     ": ", bad.field, ": not valid UTF-8 (byte ",
                                                     bad.offset,
                                                     " of the string); expected text: names and "
                                                     "strings in a trace must be UTF-8"));
    }
    if (absl::Status status = source->TakeHeader(path, header); !status.ok()) return status;
    return source;
  }

  // A TraceText already in memory (no source lines).
  static absl::StatusOr<std::unique_ptr<TextSource>> FromMessage(trace::TraceText trace,
                                                                 const std::string& path,
                                                                 trace::StreamHeader* header) {
    std::unique_ptr<TextSource> source(new TextSource());
    source->trace_ = std::move(trace);
    if (absl::Status status = source->TakeHeader(path, header); !status.ok()) return status;
    return source;
  }

  absl::StatusOr<bool> Read(trace::StreamRecord* record, int64_t index) override {
    if (next_ >= trace_.records_size()) return false;
    record->Swap(trace_.mutable_records(next_));
    trace_.mutable_records(next_)->Clear();
    ++next_;
    return true;
  }

  int RecordLine(int64_t index) const override { return LineAt(record_lines_, index); }
  int TensorLine(int index) const override { return LineAt(tensor_lines_, index); }
  int KernelLine(int index) const override { return LineAt(kernel_lines_, index); }

 private:
  absl::Status TakeHeader(const std::string& path, trace::StreamHeader* header) {
    if (!trace_.has_header()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": header: not set; expected a 'header { version: ", kTaskStreamVersion,
          " ... }' block"));
    }
    header->Swap(trace_.mutable_header());
    return absl::OkStatus();
  }

  static int LineAt(const std::vector<int>& lines, int64_t index) {
    return index >= 0 && index < static_cast<int64_t>(lines.size()) ? lines[index] : 0;
  }

  static std::vector<int> Lines(const google::protobuf::TextFormat::ParseInfoTree& tree,
                                const google::protobuf::FieldDescriptor* field, int count) {
    std::vector<int> lines(count);
    for (int i = 0; i < count; ++i) lines[i] = tree.GetLocation(field, i).line + 1;
    return lines;
  }

  void RememberLines(const google::protobuf::TextFormat::ParseInfoTree& tree) {
    const auto* text_fields = trace::TraceText::descriptor();
    record_lines_ = Lines(tree, text_fields->FindFieldByName("records"), trace_.records_size());
    const google::protobuf::TextFormat::ParseInfoTree* header_tree =
        tree.GetTreeForNested(text_fields->FindFieldByName("header"), -1);
    if (header_tree == nullptr) return;
    const auto* header_fields = trace::StreamHeader::descriptor();
    tensor_lines_ = Lines(*header_tree, header_fields->FindFieldByName("tensors"),
                          trace_.header().tensors_size());
    kernel_lines_ = Lines(*header_tree, header_fields->FindFieldByName("kernels"),
                          trace_.header().kernels_size());
  }

  trace::TraceText trace_;
  int next_ = 0;
  std::vector<int> record_lines_;
  std::vector<int> tensor_lines_;
  std::vector<int> kernel_lines_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Opening and reading.

TraceReader::TraceReader(std::string path, std::unique_ptr<Source> source)
    : path_(std::move(path)), source_(std::move(source)) {}

namespace {

// What the file looks like when it fails to parse as the form its name
// says: the hint that ends the error ("" when it looks like neither form).
std::string MisnamedFormHint(const std::string& path, bool named_text) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (head.empty()) return "";
  size_t binary_bytes = 0;
  for (unsigned char c : head) {
    binary_bytes += c < 0x09 || (c > 0x0d && c < 0x20);
  }
  const bool looks_binary = binary_bytes * 20 > head.size();
  const bool looks_text =
      !looks_binary && (absl::StrContains(head, "header {") || absl::StrContains(head, "header{") ||
                        absl::StrContains(head, "records {"));
  if (named_text && looks_binary) {
    return "; the file looks like a binary stream (as ptoc -o FILE.pb writes): name it .pb";
  }
  if (!named_text && looks_text) {
    return "; the file looks like protobuf text format: name it .pbtxt";
  }
  return "";
}

}  // namespace

TraceReader::~TraceReader() = default;

absl::StatusOr<std::unique_ptr<TraceReader>> TraceReader::Open(const std::string& path) {
  struct stat info = {};
  const bool text = absl::EndsWith(path, ".pbtxt");
  // A binary stream may come through a pipe (stdin under --serve, a FIFO a
  // recording ptoc writes): it is read as it comes, each wait bounded by the
  // run's limits (PollingFdStream). Anything else must be a regular file --
  // a device could block or never end -- refused before anything opens it.
  const bool pipe = ::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode) && !text;
  if (!pipe) {
    // Text traces are parsed whole; binary ones are read record by record,
    // each record bounded, so any length will do.
    if (absl::Status status =
            CheckInputFile(path, text ? kMaxTextTraceBytes : std::numeric_limits<uint64_t>::max(),
                           text ? "a task stream in protobuf text format (.pbtxt)"
                                : "a task stream (.pb, as ptoc -o writes, or .pbtxt)");
        !status.ok()) {
      return status;
    }
  }
  if (absl::EndsWith(path, ".py")) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": is a Python script; pto_sim replays task streams: record it with 'ptoc ", path,
        " -o OUT.pb' and pass OUT.pb, or run the script itself (python3 ", path, ")"));
  }
  ArenaHeader header;
  std::unique_ptr<Source> source;
  const bool regular = S_ISREG(info.st_mode);
  if (absl::EndsWith(path, ".pbtxt")) {
    absl::StatusOr<std::unique_ptr<TextSource>> text = TextSource::Open(path, header.header);
    if (!text.ok()) {
      if (!regular) return text.status();
      return absl::Status(text.status().code(),
                          absl::StrCat(text.status().message(), MisnamedFormHint(path, true)));
    }
    source = std::move(*text);
  } else {
    // Without blocking: a FIFO's open() would wait for its writer (the
    // reads wait instead, and those give way to a stop).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      return absl::UnavailableError(absl::StrCat(path, ": cannot open: ", std::strerror(errno),
                                                 "; expected a readable trace file"));
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const int64_t file_size = S_ISREG(info.st_mode) ? static_cast<int64_t>(info.st_size) : -1;
    if (file_size == 0) {
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": empty file; expected a StreamHeader followed by records (as ptoc writes)"));
    }
    absl::StatusOr<std::unique_ptr<BinarySource>> binary =
        BinarySource::Open(path, fd, file_size, header.header);
    if (!binary.ok()) {
      if (!regular) return binary.status();
      return absl::Status(binary.status().code(),
                          absl::StrCat(binary.status().message(), MisnamedFormHint(path, false)));
    }
    source = std::move(*binary);
  }
  return Start(path, std::move(source), std::move(header));
}

TraceReader::ArenaHeader::ArenaHeader()
    : arena(std::make_unique<google::protobuf::Arena>()),
      header(google::protobuf::Arena::CreateMessage<trace::StreamHeader>(arena.get())) {}

absl::StatusOr<std::unique_ptr<TraceReader>> TraceReader::FromText(trace::TraceText trace,
                                                                   const std::string& name) {
  ArenaHeader header;
  absl::StatusOr<std::unique_ptr<TextSource>> text =
      TextSource::FromMessage(std::move(trace), name, header.header);
  if (!text.ok()) return text.status();
  return Start(name, std::move(*text), std::move(header));
}

absl::StatusOr<std::unique_ptr<TraceReader>> TraceReader::Start(const std::string& path,
                                                                std::unique_ptr<Source> source,
                                                                ArenaHeader header) {
  std::unique_ptr<TraceReader> reader(new TraceReader(path, std::move(source)));
  reader->owned_header_ = std::move(header);
  reader->header_ = reader->owned_header_.header;
  for (const trace::Kernel& kernel : reader->header_->kernels()) {
    reader->kernel_types_.push_back(kernel.core_type());
    reader->kernel_has_program_.push_back(kernel.has_program());
  }
  absl::Status valid = reader->ValidateHeader();
  if (!valid.ok()) return valid;
  for (const trace::Tensor& tensor : reader->header_->tensors()) {
    reader->gm_ranges_.emplace(tensor.gm_addr(),
                               std::make_pair(tensor.gm_addr() + tensor.size_bytes(), tensor.id()));
  }
  return reader;
}

absl::StatusOr<bool> TraceReader::Next(trace::StreamRecord* record) {
  if (!sticky_error_.ok()) return sticky_error_;
  if (finished_) return false;
  absl::StatusOr<bool> got = source_->Read(record, record_index_ + 1);
  if (!got.ok()) {
    sticky_error_ = got.status();
    return sticky_error_;
  }
  absl::Status valid = *got ? ValidateRecord(*record) : ValidateEndOfStream();
  if (!valid.ok()) {
    sticky_error_ = valid;
    return sticky_error_;
  }
  if (!*got) finished_ = true;
  return *got;
}

std::string TraceReader::Where() const {
  if (record_index_ < 0) return absl::StrCat(path_, ": header");
  const int line = source_->RecordLine(record_index_);
  std::string where = line > 0 ? absl::StrCat(path_, ":", line) : path_;
  absl::StrAppend(&where, ": record ", record_index_, " (");
  std::vector<std::string> parts;
  if (launch_index_ >= 0 && (in_launch_ || current_kind_ == trace::StreamRecord::kLaunchEnd)) {
    parts.push_back(absl::StrCat("launch ", launch_index_, Quoted(launch_name_)));
  }
  const int64_t task = next_task_index_ - 1;
  switch (current_kind_) {
    case trace::StreamRecord::kLaunchBegin:
      if (parts.empty() || current_name_ != launch_name_) {
        parts.push_back(absl::StrCat("launch_begin", Quoted(current_name_)));
      }
      break;
    case trace::StreamRecord::kLaunchEnd:
      parts.push_back("launch_end");
      break;
    case trace::StreamRecord::kScopeBegin:
      parts.push_back(absl::StrCat("scope_begin depth ", current_depth_));
      break;
    case trace::StreamRecord::kScopeEnd:
      parts.push_back(absl::StrCat("scope_end depth ", current_depth_));
      break;
    case trace::StreamRecord::kSubmit:
      parts.push_back(absl::StrCat("submit ", task, Quoted(current_name_)));
      break;
    case trace::StreamRecord::kDummy:
      parts.push_back(absl::StrCat("dummy ", task, Quoted(current_name_)));
      break;
    case trace::StreamRecord::kAlloc:
      parts.push_back(absl::StrCat("alloc ", task));
      break;
    case trace::StreamRecord::kHostRead:
      parts.push_back("host_read");
      break;
    case trace::StreamRecord::kCheck:
      parts.push_back(absl::StrCat("check", Quoted(current_name_)));
      break;
    case trace::StreamRecord::kDeclare:
      parts.push_back("declare");
      break;
    case trace::StreamRecord::KIND_NOT_SET:
      parts.push_back("no kind");
      break;
  }
  absl::StrAppend(&where, absl::StrJoin(parts, ", "), ")");
  return where;
}

absl::Status TraceReader::RecordError(const std::string& field, const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", field, ": ", what));
}

std::string TraceReader::TensorLabel(uint32_t id) const {
  return absl::StrCat("tensor '", header_->tensors(id).name(), "' (id ", id, ")");
}

// ---------------------------------------------------------------------------
// Header validation.

absl::Status TraceReader::ValidateHeader() const {
  auto error = [&](int line, const std::string& field, const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, line > 0 ? absl::StrCat(":", line) : std::string(), ": header: ", field,
                     ": ", what));
  };

  if (header_->version() != kTaskStreamVersion) {
    return error(0, "version", VersionProblem(*header_));
  }
  std::string unknown;
  if (!HeaderIsKnown(*header_) && FindUnknownField(*header_, &unknown)) {
    return error(0, unknown,
                 absl::StrCat("is not part of schema version ", kTaskStreamVersion,
                              "; expected only known fields (was the trace written by a newer "
                              "ptoc?)"));
  }

  if (const Problem problem = RingSizesProblem(header_->ring_sizes()); problem.found()) {
    return error(0, problem.field, problem.what);
  }

  // Tensors.
  struct Range {
    uint64_t begin;
    uint64_t end;
    int id;
  };
  std::vector<Range> ranges;
  ranges.reserve(header_->tensors_size());
  for (int t = 0; t < header_->tensors_size(); ++t) {
    const trace::Tensor& tensor = header_->tensors(t);
    const std::string path = absl::StrCat("tensors[", t, "]");
    if (const Problem problem =
            TensorProblem(tensor, static_cast<uint32_t>(t), header_->timing_only());
        problem.found()) {
      return error(source_->TensorLine(t), path + problem.field, problem.what);
    }
    ranges.push_back({tensor.gm_addr(), tensor.gm_addr() + tensor.size_bytes(), t});
  }

  // GM ranges of different tensors must be disjoint.
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    // Sorted by begin, so any overlap shows between neighbours first.
    const Range& previous = ranges[i - 1];
    const Range& current = ranges[i];
    if (current.begin < previous.end) {
      const trace::Tensor& a = header_->tensors(previous.id);
      const trace::Tensor& b = header_->tensors(current.id);
      const int later = std::max(previous.id, current.id);
      const trace::Tensor& other = later == previous.id ? b : a;
      const trace::Tensor& self = later == previous.id ? a : b;
      return error(source_->TensorLine(later), absl::StrCat("tensors[", later, "].gm_addr"),
                   OverlapText(self, other));
    }
  }

  // Kernels.
  for (int k = 0; k < header_->kernels_size(); ++k) {
    if (const Problem problem = KernelProblem(header_->kernels(k), static_cast<uint32_t>(k),
                                              absl::StrCat("kernels[", k, "]"));
        problem.found()) {
      return error(source_->KernelLine(k), problem.field, problem.what);
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Record validation.

absl::Status TraceReader::ValidateRecord(const trace::StreamRecord& record) {
  ++record_index_;
  current_kind_ = record.kind_case();
  current_name_.clear();
  current_depth_ = 0;
  using R = trace::StreamRecord;
  switch (record.kind_case()) {
    case R::kLaunchBegin:
      current_name_ = record.launch_begin().name();
      break;
    case R::kScopeBegin:
      current_depth_ = record.scope_begin().depth();
      break;
    case R::kScopeEnd:
      current_depth_ = record.scope_end().depth();
      break;
    case R::kSubmit:
      current_name_ = record.submit().name();
      ++next_task_index_;
      break;
    case R::kDummy:
      current_name_ = record.dummy().name();
      ++next_task_index_;
      break;
    case R::kAlloc:
      ++next_task_index_;
      break;
    case R::kCheck:
      current_name_ = record.check().name();
      break;
    default:
      break;
  }

  std::string unknown;
  if (!SubmitRecordIsKnown(record) && FindUnknownField(record, &unknown)) {
    return RecordError(unknown, absl::StrCat("is not part of schema version ", kTaskStreamVersion,
                                             "; expected only known fields (was the trace "
                                             "written by a newer ptoc?)"));
  }

  const int64_t index = next_task_index_ - 1;
  switch (record.kind_case()) {
    case R::kLaunchBegin:
      return CheckLaunchBegin(record.launch_begin());
    case R::kLaunchEnd:
      return CheckLaunchEnd();
    case R::kScopeBegin:
      return CheckScopeBegin(record.scope_begin());
    case R::kScopeEnd:
      return CheckScopeEnd(record.scope_end());
    case R::kSubmit:
      return CheckSubmit(record.submit(), index);
    case R::kDummy:
      return CheckDummy(record.dummy(), index);
    case R::kAlloc:
      return CheckAlloc(record.alloc());
    case R::kHostRead:
      return CheckHostRead(record.host_read());
    case R::kCheck:
      return CheckCheck(record.check());
    case R::kDeclare:
      return CheckDeclare(record.declare());
    case R::KIND_NOT_SET:
      break;
  }
  return RecordError("kind",
                     "not set; expected one of launch_begin, launch_end, scope_begin, "
                     "scope_end, alloc, submit, dummy, host_read, check");
}

absl::Status TraceReader::ValidateEndOfStream() const {
  if (in_launch_) {
    return absl::InvalidArgumentError(absl::StrCat(
        path_, ": end of stream after record ", record_index_, ": launch ", launch_index_,
        Quoted(launch_name_),
        " has no launch_end; expected every launch to be closed (is the trace truncated?)"));
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckInsideLaunch(const char* kind) const {
  if (in_launch_) return absl::OkStatus();
  return RecordError(kind, "outside any launch; expected it between launch_begin and launch_end");
}

absl::Status TraceReader::CheckTensorId(uint32_t id, const std::string& field) const {
  if (id < static_cast<uint32_t>(header_->tensors_size())) return absl::OkStatus();
  return RecordError(field,
                     absl::StrCat("names tensor ", id, ", but the header declares ",
                                  header_->tensors_size() == 0
                                      ? std::string("no tensors")
                                      : absl::StrCat("tensors 0..", header_->tensors_size() - 1),
                                  "; expected a declared tensor id"));
}

absl::Status TraceReader::CheckLaunchBegin(const trace::LaunchBegin& begin) {
  if (in_launch_) {
    return RecordError("launch_begin",
                       absl::StrCat("launch ", launch_index_, Quoted(launch_name_),
                                    " is still open; expected launch_end before the next "
                                    "launch_begin (launches do not nest)"));
  }
  in_launch_ = true;
  ++launch_index_;
  launch_name_ = begin.name();
  next_task_index_ = 0;
  scope_modes_.clear();
  for (int i = 0; i < begin.arg_tensor_ids_size(); ++i) {
    absl::Status status = CheckTensorId(begin.arg_tensor_ids(i),
                                        absl::StrCat("launch_begin.arg_tensor_ids[", i, "]"));
    if (!status.ok()) return status;
  }
  if (const Problem problem = RingSizesProblem(begin.ring_sizes()); problem.found()) {
    return RecordError("launch_begin." + problem.field, problem.what);
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckLaunchEnd() {
  absl::Status inside = CheckInsideLaunch("launch_end");
  if (!inside.ok()) return inside;
  if (!scope_modes_.empty()) {
    return RecordError("launch_end",
                       absl::StrCat("scope depth ", scope_modes_.size(),
                                    " is still open; expected a scope_end for every scope_begin "
                                    "before launch_end"));
  }
  in_launch_ = false;
  return absl::OkStatus();
}

absl::Status TraceReader::CheckScopeBegin(const trace::ScopeBegin& begin) {
  absl::Status inside = CheckInsideLaunch("scope_begin");
  if (!inside.ok()) return inside;
  if (!trace::ScopeBegin::Mode_IsValid(begin.mode())) {
    return RecordError("scope_begin.mode",
                       absl::StrCat("is ", begin.mode(), "; expected AUTO or MANUAL"));
  }
  const uint32_t expected = static_cast<uint32_t>(scope_modes_.size()) + 1;
  if (begin.depth() != expected) {
    return RecordError(
        "scope_begin.depth",
        absl::StrCat("is ", begin.depth(), "; expected ", expected, " (the enclosing depth ",
                     expected - 1, " + 1; a launch's outer scope is depth 0)"));
  }
  if (begin.depth() > static_cast<uint32_t>(kMaxScopeDepth)) {
    return RecordError("scope_begin.depth",
                       absl::StrCat("is ", begin.depth(), "; expected at most ", kMaxScopeDepth,
                                    " (the runtime's PTO2_MAX_SCOPE_DEPTH)"));
  }
  if (!scope_modes_.empty() && scope_modes_.back() == trace::ScopeBegin::MANUAL) {
    if (begin.mode() == trace::ScopeBegin::MANUAL) {
      return RecordError("scope_begin.mode",
                         absl::StrCat("a MANUAL scope may not be nested inside another MANUAL "
                                      "scope (depth ",
                                      scope_modes_.size(),
                                      "); expected the inner tasks to stay in the outer manual "
                                      "scope (PyPTO's rule)"));
    }
    return RecordError(
        "scope_begin.mode",
        absl::StrCat("an AUTO scope may not be nested inside a MANUAL scope (depth ",
                     scope_modes_.size(),
                     "), the runtime treats it as fatal; expected the MANUAL scope to be closed "
                     "first"));
  }
  scope_modes_.push_back(begin.mode());
  return absl::OkStatus();
}

absl::Status TraceReader::CheckScopeEnd(const trace::ScopeEnd& end) {
  absl::Status inside = CheckInsideLaunch("scope_end");
  if (!inside.ok()) return inside;
  if (scope_modes_.empty()) {
    return RecordError("scope_end", "no scope is open; expected a matching scope_begin before it");
  }
  if (end.depth() != scope_modes_.size()) {
    return RecordError("scope_end.depth",
                       absl::StrCat("is ", end.depth(), "; expected ", scope_modes_.size(),
                                    " (the innermost open scope)"));
  }
  scope_modes_.pop_back();
  return absl::OkStatus();
}

absl::Status TraceReader::CheckScopeDepth(uint32_t depth, absl::string_view field) const {
  if (depth == scope_modes_.size()) return absl::OkStatus();
  return RecordError(std::string(field),
                     absl::StrCat("is ", depth, "; expected ", scope_modes_.size(),
                                  " (the depth of the enclosing scope)"));
}

absl::Status TraceReader::CheckDeps(const google::protobuf::RepeatedField<uint32_t>& deps,
                                    absl::string_view field, int64_t index) const {
  for (int i = 0; i < deps.size(); ++i) {
    if (static_cast<int64_t>(deps[i]) < index) continue;
    const std::string preceding =
        index == 0 ? std::string("no submit precedes it in this launch")
                   : absl::StrCat("only submits 0..", index - 1, " precede it in this launch");
    return RecordError(absl::StrCat(field, "[", i, "]"),
                       absl::StrCat("names submit ", deps[i], ", but ", preceding,
                                    "; expected an earlier task index (submits, dummies and "
                                    "allocs each take one, from 0)"));
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckArgs(const google::protobuf::RepeatedPtrField<trace::Arg>& args,
                                    absl::string_view field) const {
  for (int i = 0; i < args.size(); ++i) {
    const trace::Arg& arg = args[i];
    // Built only for an error: this runs for every argument of every task.
    auto path = [field, i](absl::string_view suffix = "") {
      return absl::StrCat(field, "[", i, "]", suffix);
    };
    switch (arg.kind_case()) {
      case trace::Arg::KIND_NOT_SET:
        return RecordError(path(), "is neither tensor nor scalar; expected one of them");
      case trace::Arg::kScalar:
        if (arg.scalar().value_case() == trace::ScalarArg::VALUE_NOT_SET) {
          return RecordError(path(".scalar"), "has no value; expected i (integer) or f (float)");
        }
        break;
      case trace::Arg::kTensor: {
        const trace::TensorArg& tensor_arg = arg.tensor();
        if (tensor_arg.tensor_id() >= static_cast<uint32_t>(header_->tensors_size())) {
          return CheckTensorId(tensor_arg.tensor_id(), path(".tensor.tensor_id"));
        }
        if (tensor_arg.direction() == trace::ARG_DIRECTION_UNSPECIFIED ||
            !trace::ArgDirection_IsValid(tensor_arg.direction())) {
          return RecordError(
              path(".tensor.direction"),
              absl::StrCat("is ",
                           EnumName(trace::ArgDirection_descriptor(), tensor_arg.direction()),
                           " for ", TensorLabel(tensor_arg.tensor_id()),
                           "; expected INPUT, OUTPUT, INOUT, OUTPUT_EXISTING or NO_DEP"));
        }
        absl::StatusOr<TensorView> view =
            MakeView(header_->tensors(tensor_arg.tensor_id()), tensor_arg);
        if (!view.ok()) {
          return RecordError(path(".tensor"), absl::StrCat(view.status().message(),
                                                           "; expected a view inside the tensor"));
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckKernelSlots(const trace::Submit& submit) const {
  static constexpr const char* kSlotNames[3] = {"AIC", "AIV0", "AIV1"};
  if (submit.kernel_ids_size() != 3) {
    return RecordError("submit.kernel_ids",
                       absl::StrCat("has ", submit.kernel_ids_size(),
                                    " entries; expected exactly 3 ([aic, aiv0, aiv1], -1 = "
                                    "inactive)"));
  }
  const int kernel_count = header_->kernels_size();
  int active = 0;
  int mix_kernel = -1;
  for (int slot = 0; slot < 3; ++slot) {
    const int id = submit.kernel_ids(slot);
    if (id == -1) continue;
    // Built only for an error: this runs for every submit.
    auto field = [slot] { return absl::StrCat("submit.kernel_ids[", slot, "]"); };
    if (id < -1 || id >= kernel_count) {
      return RecordError(
          field(), absl::StrCat("names kernel ", id, ", but the header declares ",
                                kernel_count == 0 ? std::string("no kernels")
                                                  : absl::StrCat("kernels 0..", kernel_count - 1),
                                "; expected -1 (inactive) or a declared kernel id"));
    }
    ++active;
    const trace::CoreType type = kernel_types_[id];
    if (type == trace::MIX) mix_kernel = id;
    const bool fits = type == trace::MIX || (slot == 0 ? type == trace::AIC : type == trace::AIV);
    if (!fits) {
      const trace::Kernel& kernel = header_->kernels(id);
      return RecordError(field(),
                         absl::StrCat("kernel '", kernel.name(), "' (id ", id, ") is ",
                                      EnumName(trace::CoreType_descriptor(), type), "; expected ",
                                      slot == 0 ? "an AIC" : "an AIV", " or MIX kernel in the ",
                                      kSlotNames[slot], " slot"));
    }
  }
  if (active == 0) {
    return RecordError("submit.kernel_ids",
                       "all three slots are -1; expected at least one active kernel (use a dummy "
                       "record for a kernel-less task)");
  }
  if (mix_kernel >= 0) {
    const int aic = submit.kernel_ids(0);
    const int aiv0 = submit.kernel_ids(1);
    const int aiv1 = submit.kernel_ids(2);
    const bool consistent = aic == mix_kernel && (aiv0 == mix_kernel || aiv0 == -1) &&
                            (aiv1 == mix_kernel || aiv1 == -1) && (aiv0 != -1 || aiv1 != -1);
    if (!consistent) {
      return RecordError(
          "submit.kernel_ids",
          absl::StrCat("is [", aic, ", ", aiv0, ", ", aiv1, "] with MIX kernel '",
                       header_->kernels(mix_kernel).name(), "' (id ", mix_kernel,
                       "); expected the MIX kernel in the AIC slot and in every active AIV slot "
                       "(e.g. [",
                       mix_kernel, ", ", mix_kernel, ", ", mix_kernel, "])"));
    }
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckArgsMatchParams(const trace::Submit& submit) const {
  for (int slot = 0; slot < 3; ++slot) {
    const int id = submit.kernel_ids(slot);
    if (id < 0) continue;
    bool seen = false;
    for (int earlier = 0; earlier < slot; ++earlier) seen |= submit.kernel_ids(earlier) == id;
    if (seen) continue;
    if (!kernel_has_program_[id]) continue;  // cost-only kernels take any args
    const trace::Kernel& kernel = header_->kernels(id);
    const auto& params = kernel.program().params();
    // Named only for an error: building it per submit cost ~5 % of a run.
    const auto who = [&kernel, id] {
      return absl::StrCat("kernel '", kernel.name(), "' (id ", id, ")");
    };
    if (submit.args_size() != params.size()) {
      std::vector<std::string> names;
      for (const trace::KernelParam& param : params) names.push_back(param.name());
      return RecordError("submit.args",
                         absl::StrCat("has ", submit.args_size(), " args but ", who(), " takes ",
                                      params.size(), " params (", absl::StrJoin(names, ", "),
                                      "); expected one arg per param, in order"));
    }
    for (int i = 0; i < params.size(); ++i) {
      const trace::KernelParam& param = params[i];
      const trace::Arg& arg = submit.args(i);
      const bool wants_tensor = param.kind() == trace::KernelParam::TENSOR;
      if (wants_tensor != arg.has_tensor()) {
        return RecordError(
            absl::StrCat("submit.args[", i, "]"),
            absl::StrCat("is a ", arg.has_tensor() ? "tensor" : "scalar", " but ", who(), " param ",
                         i, " '", param.name(), "' is ", wants_tensor ? "TENSOR" : "SCALAR",
                         "; expected a ", wants_tensor ? "tensor" : "scalar"));
      }
      if (wants_tensor && param.dtype() != trace::DTYPE_UNSPECIFIED) {
        const trace::DType actual = header_->tensors(arg.tensor().tensor_id()).dtype();
        if (actual != param.dtype()) {
          return RecordError(
              absl::StrCat("submit.args[", i, "].tensor"),
              absl::StrCat(TensorLabel(arg.tensor().tensor_id()), " is ", DTypeLabel(actual),
                           " but ", who(), " param ", i, " '", param.name(), "' is ",
                           DTypeLabel(param.dtype()), "; expected matching dtypes"));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckPredicate(const trace::Predicate& predicate) const {
  absl::Status known = CheckTensorId(predicate.tensor_id(), "submit.predicate.tensor_id");
  if (!known.ok()) return known;
  const trace::Tensor& tensor = header_->tensors(predicate.tensor_id());
  const trace::DType dtype = tensor.dtype();
  if (!IsSignedInt(dtype)) {
    return RecordError("submit.predicate.tensor_id",
                       absl::StrCat(TensorLabel(predicate.tensor_id()), " is ", DTypeLabel(dtype),
                                    "; expected INT8, INT16, INT32 or INT64 (the runtime "
                                    "sign-extends the element to int64, so an unsigned or "
                                    "floating-point operand would compare wrongly)"));
  }
  if (predicate.indices_size() != tensor.shape_size()) {
    return RecordError(
        "submit.predicate.indices",
        absl::StrCat("has ", predicate.indices_size(), " indices; expected ", tensor.shape_size(),
                     " (one per dim of ", TensorLabel(predicate.tensor_id()), " ",
                     ShapeLabel(tensor.shape()), ")"));
  }
  for (int d = 0; d < predicate.indices_size(); ++d) {
    const int64_t index = predicate.indices(d);
    if (index < 0 || index >= tensor.shape(d)) {
      return RecordError(
          absl::StrCat("submit.predicate.indices[", d, "]"),
          absl::StrCat("is ", index, "; expected 0 <= index < ", tensor.shape(d), " (dim ", d,
                       " of ", TensorLabel(predicate.tensor_id()), ")"));
    }
  }
  if (predicate.op() == trace::Predicate::OP_UNSPECIFIED ||
      !trace::Predicate::Op_IsValid(predicate.op())) {
    return RecordError(
        "submit.predicate.op",
        absl::StrCat("is ", EnumName(trace::Predicate::Op_descriptor(), predicate.op()),
                     "; expected EQ, NE, GT, LT, GE or LE"));
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckSubmit(const trace::Submit& submit, int64_t index) const {
  absl::Status status = CheckInsideLaunch("submit");
  if (!status.ok()) return status;
  if (!(status = CheckScopeDepth(submit.scope_depth(), "submit.scope_depth")).ok()) return status;
  if (!(status = CheckKernelSlots(submit)).ok()) return status;
  switch (submit.blocks_case()) {
    case trace::Submit::BLOCKS_NOT_SET:
      return RecordError("submit.blocks",
                         "neither block_num nor block_symbol is set; expected block_num >= 1 or "
                         "a block_symbol");
    case trace::Submit::kBlockNum:
      if (submit.block_num() < 1) {
        return RecordError("submit.block_num", "is 0; expected >= 1");
      }
      if (submit.block_num() > kMaxBlockNum) {
        return RecordError("submit.block_num",
                           absl::StrCat("is ", submit.block_num(), "; expected at most ",
                                        kMaxBlockNum, " (pto_sim's limit on blocks per task)"));
      }
      break;
    case trace::Submit::kBlockSymbol:
      if (submit.block_symbol() != trace::AVAILABLE_AIV &&
          submit.block_symbol() != trace::AVAILABLE_CLUSTER) {
        return RecordError(
            "submit.block_symbol",
            absl::StrCat("is ", EnumName(trace::BlockSymbol_descriptor(), submit.block_symbol()),
                         "; expected AVAILABLE_AIV or AVAILABLE_CLUSTER"));
      }
      break;
  }
  if (!(status = CheckArgs(submit.args(), "submit.args")).ok()) return status;
  if (!(status = CheckArgsMatchParams(submit)).ok()) return status;
  if (!(status = CheckDeps(submit.deps(), "submit.deps", index)).ok()) return status;
  if (submit.has_predicate()) {
    if (!(status = CheckPredicate(submit.predicate())).ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckDummy(const trace::Dummy& dummy, int64_t index) const {
  absl::Status status = CheckInsideLaunch("dummy");
  if (!status.ok()) return status;
  if (!(status = CheckScopeDepth(dummy.scope_depth(), "dummy.scope_depth")).ok()) return status;
  if (!(status = CheckArgs(dummy.args(), "dummy.args")).ok()) return status;
  return CheckDeps(dummy.deps(), "dummy.deps", index);
}

absl::Status TraceReader::CheckAlloc(const trace::Alloc& alloc) const {
  absl::Status status = CheckInsideLaunch("alloc");
  if (!status.ok()) return status;
  if (!(status = CheckScopeDepth(alloc.scope_depth(), "alloc.scope_depth")).ok()) return status;
  for (int i = 0; i < alloc.tensor_ids_size(); ++i) {
    status = CheckTensorId(alloc.tensor_ids(i), absl::StrCat("alloc.tensor_ids[", i, "]"));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckHostRead(const trace::HostRead& read) const {
  absl::Status status = CheckInsideLaunch("host_read");
  if (!status.ok()) return status;
  if (!(status = CheckTensorId(read.tensor_id(), "host_read.tensor_id")).ok()) return status;
  const trace::Tensor& tensor = header_->tensors(read.tensor_id());
  if (read.indices_size() != tensor.shape_size()) {
    return RecordError(
        "host_read.indices",
        absl::StrCat("has ", read.indices_size(), " indices; expected ", tensor.shape_size(),
                     " (one per dim of ", TensorLabel(read.tensor_id()), " ",
                     ShapeLabel(tensor.shape()), ")"));
  }
  for (int d = 0; d < read.indices_size(); ++d) {
    if (read.indices(d) < 0 || read.indices(d) >= tensor.shape(d)) {
      return RecordError(
          absl::StrCat("host_read.indices[", d, "]"),
          absl::StrCat("is ", read.indices(d), "; expected 0 <= index < ", tensor.shape(d),
                       " (dim ", d, " of ", TensorLabel(read.tensor_id()), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckDeclare(const trace::Declare& declare) {
  if (in_launch_) {
    return RecordError("declare",
                       absl::StrCat("appears inside launch ", launch_index_, Quoted(launch_name_),
                                    "; expected declares between launches"));
  }
  for (int i = 0; i < declare.tensors_size(); ++i) {
    const trace::Tensor& tensor = declare.tensors(i);
    const std::string path = absl::StrCat("declare.tensors[", i, "]");
    const auto next = static_cast<uint32_t>(header_->tensors_size());
    if (tensor.id() < next) {
      // A re-declared tensor: the same storage, new contents.
      const trace::Tensor& known = header_->tensors(static_cast<int>(tensor.id()));
      if (tensor.dtype() != known.dtype() || tensor.gm_addr() != known.gm_addr() ||
          tensor.size_bytes() != known.size_bytes() ||
          !std::equal(tensor.shape().begin(), tensor.shape().end(), known.shape().begin(),
                      known.shape().end())) {
        return RecordError(
            path, absl::StrCat("re-declares tensor ", tensor.id(), Quoted(known.name()), " (",
                               ShapeLabel(known.shape()), " ", DTypeLabel(known.dtype()), " at ",
                               Hex(known.gm_addr()), ") as ", ShapeLabel(tensor.shape()), " ",
                               DTypeLabel(tensor.dtype()), " at ", Hex(tensor.gm_addr()),
                               "; expected the same dtype, shape and gm_addr (a new tensor takes "
                               "the next id, ",
                               next, ")"));
      }
      const bool has_contents =
          tensor.init().contents_case() != trace::TensorInit::CONTENTS_NOT_SET;
      if (header_->timing_only() && has_contents && !known.control()) {
        return RecordError(path + ".init",
                           "carries contents but the header is timing_only; "
                           "expected no init in a timing-only trace (only a control tensor, "
                           "whose values a kernel's READ takes, keeps them)");
      }
      if (const Problem problem = InitProblem(tensor.init(), known); problem.found()) {
        return RecordError(absl::StrCat(path, ".init.", problem.field), problem.what);
      }
      continue;
    }
    if (const Problem problem = TensorProblem(tensor, next, header_->timing_only());
        problem.found()) {
      return RecordError(path + problem.field, problem.what);
    }
    // Disjoint from every tensor so far: the nearest ranges on either side.
    const uint64_t begin = tensor.gm_addr();
    const uint64_t end = begin + tensor.size_bytes();
    auto after = gm_ranges_.lower_bound(begin);
    const trace::Tensor* hit = nullptr;
    if (after != gm_ranges_.end() && after->first < end) {
      hit = &header_->tensors(static_cast<int>(after->second.second));
    } else if (after != gm_ranges_.begin() && std::prev(after)->second.first > begin) {
      hit = &header_->tensors(static_cast<int>(std::prev(after)->second.second));
    }
    if (hit != nullptr) return RecordError(path + ".gm_addr", OverlapText(tensor, *hit));
    *header_->add_tensors() = tensor;
    gm_ranges_.emplace(begin, std::make_pair(end, tensor.id()));
  }
  for (int i = 0; i < declare.kernels_size(); ++i) {
    const trace::Kernel& kernel = declare.kernels(i);
    if (const Problem problem =
            KernelProblem(kernel, static_cast<uint32_t>(header_->kernels_size()),
                          absl::StrCat("declare.kernels[", i, "]"));
        problem.found()) {
      return RecordError(problem.field, problem.what);
    }
    *header_->add_kernels() = kernel;
    kernel_types_.push_back(kernel.core_type());
    kernel_has_program_.push_back(kernel.has_program());
  }
  return absl::OkStatus();
}

absl::Status TraceReader::CheckCheck(const trace::Check& check) const {
  if (in_launch_) {
    return RecordError("check", absl::StrCat("inside launch ", launch_index_, Quoted(launch_name_),
                                             "; expected checks after launch_end (they compare "
                                             "the results of a completed launch)"));
  }
  if (launch_index_ < 0) {
    return RecordError("check",
                       "appears before any launch; expected checks to follow the launch whose "
                       "results they compare");
  }
  if (header_->timing_only()) {
    return RecordError("check",
                       "the header is timing_only (tensors carry no contents); expected no "
                       "checks in a timing-only trace");
  }
  absl::Status status = CheckTensorId(check.tensor_id(), "check.tensor_id");
  if (!status.ok()) return status;
  const trace::Tensor& tensor = header_->tensors(check.tensor_id());
  if (check.expected().contents_case() == trace::TensorInit::CONTENTS_NOT_SET) {
    return RecordError("check.expected",
                       absl::StrCat("has no contents for ", TensorLabel(check.tensor_id()),
                                    "; expected zeros, fill, data or a generator"));
  }
  const Problem problem = InitProblem(check.expected(), tensor);
  if (problem.found()) return RecordError("check.expected." + problem.field, problem.what);
  if (!IsFiniteNonNegative(check.rtol())) {
    return RecordError("check.rtol",
                       absl::StrCat("is ", check.rtol(), "; expected a finite value >= 0"));
  }
  if (!IsFiniteNonNegative(check.atol())) {
    return RecordError("check.atol",
                       absl::StrCat("is ", check.atol(), "; expected a finite value >= 0"));
  }
  return absl::OkStatus();
}

}  // namespace pto
