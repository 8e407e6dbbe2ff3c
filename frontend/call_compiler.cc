#include "frontend/call_compiler.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/dtype.h"
#include "common/input_file.h"
#include "frontend/host_tensor.h"
#include "frontend/parser.h"
#include "frontend/status_macros.h"
#include "nlohmann/json.hpp"

namespace pto::ptoc {
namespace {

// A call request is a small JSON file; its tensor data is bounded by the
// run's 16 GiB of tensor contents.
constexpr uint64_t kMaxRequestBytes = uint64_t{64} << 20;
constexpr uint64_t kMaxTensorDataBytes = uint64_t{16} << 30;

absl::StatusOr<trace::DType> DTypeByName(const std::string& name) {
  for (int d = trace::DType_MIN; d <= trace::DType_MAX; ++d) {
    const auto dtype = static_cast<trace::DType>(d);
    if (trace::DType_IsValid(d) && dtype != trace::DTYPE_UNSPECIFIED && name == DTypeName(dtype)) {
      return dtype;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", name, "'"));
}

// The request's own errors (it is written by the pypto package, not by the
// user): "REQUEST: field: what was expected".
absl::Status Bad(const std::string& path, const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", field, ": ", what));
}

}  // namespace

absl::StatusOr<CallRequest> ReadCallRequest(const std::string& path) {
  PTOC_ASSIGN_OR_RETURN(
      text, ReadInputFile(path, kMaxRequestBytes, "a call request (JSON, as pypto writes)"));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Bad(path, "(top level)", "expected a JSON object as the pypto package writes it");
  }
  CallRequest request;
  auto string_field = [&](const char* key, std::string* out) -> absl::Status {
    if (!json.contains(key) || !json[key].is_string()) return Bad(path, key, "expected a string");
    *out = json[key].get<std::string>();
    return absl::OkStatus();
  };
  auto line_field = [&](const char* key, int* out) -> absl::Status {
    if (!json.contains(key) || !json[key].is_number_integer() || json[key].get<int64_t>() < 1) {
      return Bad(path, key, "expected a line number >= 1");
    }
    *out = json[key].get<int>();
    return absl::OkStatus();
  };
  PTOC_RETURN_IF_ERROR(string_field("source_name", &request.source_name));
  PTOC_RETURN_IF_ERROR(string_field("source_text", &request.source_text));
  PTOC_RETURN_IF_ERROR(line_field("call_line", &request.call_line));
  PTOC_RETURN_IF_ERROR(line_field("prelude_line", &request.prelude_line));
  std::string data_file;
  PTOC_RETURN_IF_ERROR(string_field("data_file", &data_file));
  if (json.contains("segments")) {
    if (!json["segments"].is_array()) return Bad(path, "segments", "expected an array");
    for (size_t i = 0; i < json["segments"].size(); ++i) {
      const nlohmann::json& g = json["segments"][i];
      auto positive = [&g](const char* key) {
        return g.contains(key) && g[key].is_number_integer() && g[key].get<int64_t>() >= 1;
      };
      if (!g.is_object() || !positive("first_line") || !positive("lines") ||
          !positive("file_first_line") || !g.contains("file") || !g["file"].is_string()) {
        return Bad(path, absl::StrCat("segments[", i, "]"),
                   "expected {first_line, lines, file, file_first_line} with lines >= 1");
      }
      request.segments.push_back({g["first_line"].get<int>(), g["lines"].get<int>(),
                                  g["file"].get<std::string>(), g["file_first_line"].get<int>()});
    }
  }
  if (!json.contains("tensors") || !json["tensors"].is_array()) {
    return Bad(path, "tensors", "expected an array");
  }
  std::string data;
  bool data_read = false;
  for (size_t i = 0; i < json["tensors"].size(); ++i) {
    const nlohmann::json& t = json["tensors"][i];
    const std::string field = absl::StrCat("tensors[", i, "]");
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("dtype") ||
        !t["dtype"].is_string() || !t.contains("shape") || !t["shape"].is_array()) {
      return Bad(path, field, "expected {name, dtype, shape, offset, nbytes}");
    }
    CallTensor tensor;
    tensor.name = t["name"].get<std::string>();
    auto dtype = DTypeByName(t["dtype"].get<std::string>());
    if (!dtype.ok()) return Bad(path, field + ".dtype", std::string(dtype.status().message()));
    tensor.dtype = *dtype;
    for (const nlohmann::json& d : t["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return Bad(path, field + ".shape", "expected non-negative integers");
      }
      tensor.shape.push_back(d.get<int64_t>());
    }
    const uint64_t expected = static_cast<uint64_t>(NumElements(tensor.shape)) *
                              static_cast<uint64_t>(DTypeSize(tensor.dtype));
    if (t.contains("nbytes") && !t["nbytes"].is_null()) {
      if (!t["nbytes"].is_number_unsigned() || !t.contains("offset") ||
          !t["offset"].is_number_unsigned()) {
        return Bad(path, field, "expected non-negative integers offset and nbytes");
      }
      const uint64_t offset = t["offset"].get<uint64_t>();
      const uint64_t nbytes = t["nbytes"].get<uint64_t>();
      if (nbytes != expected) {
        return Bad(path, field + ".nbytes",
                   absl::StrCat(nbytes, " bytes for ", expected, " bytes of shape and dtype"));
      }
      if (!data_read) {
        const std::string resolved =
            (std::filesystem::path(path).parent_path() / data_file).string();
        PTOC_ASSIGN_OR_RETURN(
            bytes, ReadInputFile(resolved, kMaxTensorDataBytes, "the call's tensor data"));
        data = std::move(bytes);
        data_read = true;
      }
      if (offset > data.size() || nbytes > data.size() - offset) {
        return Bad(path, field,
                   absl::StrCat("bytes [", offset, ", ", offset + nbytes,
                                ") beyond the data file's ", data.size()));
      }
      tensor.has_contents = true;
      tensor.bytes = data.substr(offset, nbytes);
    }
    if (t.contains("known") && !t["known"].is_null()) {
      const nlohmann::json& k = t["known"];
      if (!k.is_object() || !k.contains("id") || !k["id"].is_number_unsigned() ||
          !k.contains("gm_addr") || !k["gm_addr"].is_number_unsigned() || !k.contains("upload") ||
          !k["upload"].is_boolean()) {
        return Bad(path, field + ".known", "expected {id, gm_addr, upload}");
      }
      tensor.known = true;
      tensor.id = k["id"].get<uint32_t>();
      tensor.gm_addr = k["gm_addr"].get<uint64_t>();
      tensor.upload = k["upload"].get<bool>();
    }
    request.tensors.push_back(std::move(tensor));
  }
  if (json.contains("session") && !json["session"].is_null()) {
    const nlohmann::json& s = json["session"];
    if (!s.is_object() || !s.contains("first") || !s["first"].is_boolean() ||
        !s.contains("next_tensor_id") || !s["next_tensor_id"].is_number_unsigned() ||
        !s.contains("next_kernel_id") || !s["next_kernel_id"].is_number_unsigned() ||
        !s.contains("next_gm_addr") || !s["next_gm_addr"].is_number_unsigned() ||
        !s.contains("state_out") || !s["state_out"].is_string()) {
      return Bad(path, "session",
                 "expected {first, next_tensor_id, next_kernel_id, next_gm_addr, state_out}");
    }
    request.in_session = true;
    request.session.first = s["first"].get<bool>();
    request.session.next_tensor_id = s["next_tensor_id"].get<uint32_t>();
    request.session.next_kernel_id = s["next_kernel_id"].get<uint32_t>();
    request.session.next_gm_addr = s["next_gm_addr"].get<uint64_t>();
    request.session_out =
        (std::filesystem::path(path).parent_path() / s["state_out"].get<std::string>()).string();
  }
  if (json.contains("recorder")) {
    if (!json["recorder"].is_string()) return Bad(path, "recorder", "expected a string");
    request.recorder = json["recorder"].get<std::string>();
  }
  return request;
}

CallRequest RequestForSource(std::string source_name, std::string text, const std::string& call,
                             std::vector<CallTensor> tensors) {
  if (text.empty() || text.back() != '\n') text += '\n';
  CallRequest request;
  request.source_name = std::move(source_name);
  request.prelude_line = 1;
  if (!call.empty()) {
    request.call_line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    text += call + "\n";
  }
  request.source_text = std::move(text);
  request.tensors = std::move(tensors);
  return request;
}

absl::StatusOr<trace::TraceText> CompileCall(const CallRequest& request,
                                             std::vector<std::string>* warnings,
                                             const CompileOptions& options) {
  SourceFile source(request.source_name, request.source_text);
  for (const CallSegment& g : request.segments) {
    source.AddSegment(g.first_line, g.lines, g.file, g.file_first_line);
  }
  PTOC_ASSIGN_OR_RETURN(module, Parse(source));
  // The prelude first, then the kernels' definitions, then the call.
  auto rank = [&request](const StmtPtr& stmt) {
    if (stmt->loc.line == request.call_line) return 2;
    return stmt->loc.line >= request.prelude_line ? 0 : 1;
  };
  std::stable_sort(module.body.begin(), module.body.end(),
                   [&rank](const StmtPtr& a, const StmtPtr& b) { return rank(a) < rank(b); });
  std::vector<std::shared_ptr<HostTensor>> hosts;
  auto bind_arguments = [&request, &hosts](Interpreter& interp) {
    for (const CallTensor& t : request.tensors) {
      // Timing-only runs keep what the host sent too: a kernel's pl.read of
      // a CPU tensor decides control (only control tensors keep their values
      // in the stream, CompileModule).
      const bool values = t.has_contents;
      auto host = std::make_shared<HostTensor>(
          t.shape, t.dtype, values ? std::optional<std::string>(t.bytes) : std::nullopt);
      hosts.push_back(host);
      interp.SetGlobal(t.name, Value::Obj(std::move(host)));
    }
  };
  if (!request.in_session) return CompileModule(source, module, warnings, options, bind_arguments);
  // The call's stream becomes the next segment of the script's.
  auto to_segment = [&request, &hosts](Interpreter& interp, trace::TraceText* text) {
    if (!request.recorder.empty()) text->mutable_header()->set_recorder(request.recorder);
    // The call's tensors its tasks write (local ids): by the kernel's
    // parameter (a no_dep argument is written all the same), else by the
    // call site's direction (an extern kernel has no parameters).
    absl::flat_hash_set<uint32_t> written;
    for (const trace::StreamRecord& record : text->records()) {
      if (!record.has_submit()) continue;
      const trace::Submit& submit = record.submit();
      const trace::KernelProgram* program = nullptr;
      for (int32_t id : submit.kernel_ids()) {
        if (id >= 0 && text->header().kernels(id).has_program()) {
          program = &text->header().kernels(id).program();
        }
      }
      for (int i = 0; i < submit.args_size(); ++i) {
        if (!submit.args(i).has_tensor()) continue;
        const trace::ArgDirection d = submit.args(i).tensor().direction();
        const bool writes =
            program != nullptr && i < program->params_size()
                ? program->params(i).direction() != trace::KernelParam::IN
                : d == trace::INOUT || d == trace::OUTPUT_EXISTING || d == trace::OUTPUT;
        if (writes) written.insert(submit.args(i).tensor().tensor_id());
      }
    }
    std::vector<KnownTensor> known;
    for (size_t i = 0; i < request.tensors.size(); ++i) {
      const CallTensor& t = request.tensors[i];
      if (!t.known) continue;
      const std::optional<uint32_t> local = interp.program().FindTensorForHost(hosts[i].get());
      if (local) known.push_back({*local, t.id, t.gm_addr, t.upload});
    }
    SessionState state = request.session;
    std::vector<PlacedTensor> placed;
    PTOC_RETURN_IF_ERROR(ToSessionSegment(known, &state, text, &placed));
    // Where each argument went, for the caller's next request (null: unused).
    nlohmann::json tensors = nlohmann::json::array();
    for (const auto& host : hosts) {
      const std::optional<uint32_t> local = interp.program().FindTensorForHost(host.get());
      if (local) {
        tensors.push_back({{"id", placed[*local].id},
                           {"gm_addr", placed[*local].gm_addr},
                           {"written", written.contains(*local)}});
      } else {
        tensors.push_back(nullptr);
      }
    }
    const nlohmann::json out = {{"first", state.first},
                                {"next_tensor_id", state.next_tensor_id},
                                {"next_kernel_id", state.next_kernel_id},
                                {"next_gm_addr", state.next_gm_addr},
                                {"tensors", std::move(tensors)}};
    return WriteFileAtomically(request.session_out, out.dump() + "\n");
  };
  return CompileModule(source, module, warnings, options, bind_arguments, to_segment);
}

}  // namespace pto::ptoc
