#ifndef PTO_FRONTEND_CALL_COMPILER_H_
#define PTO_FRONTEND_CALL_COMPILER_H_

// One kernel call made from a CPython script (the pypto package of python/;
// `ptoc FILE.py` records such a run). CPython runs the script; ptoc sees
// only what the call needs:
//
//   - the user's file with every line blanked except the kernels' (so every
//     message names the user's file, line and column);
//   - a prelude of imports and the module constants the kernels read, as
//     CPython computed them, on lines after the file's end;
//   - the call statement, on the line of the script that made the call;
//   - the argument tensors (dtype, shape, and the bytes unless timing-only),
//     bound as globals under the names the call statement uses.
//
// ptoc --call REQUEST.json -o OUT.pb reads a request written by the package
// (ParseCallRequest documents the fields).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/interpreter.h"
#include "frontend/session_segment.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

struct CallTensor {
  std::string name;  // the global the call statement names
  trace::DType dtype = trace::DTYPE_UNSPECIFIED;
  std::vector<int64_t> shape;
  bool has_contents = false;
  std::string bytes;  // little-endian, row-major, when has_contents
  // A tensor an earlier call of the script's session declared.
  bool known = false;
  uint32_t id = 0;
  uint64_t gm_addr = 0;
  bool upload = false;  // the host changed it since
};

// Lines of the text that stand for another file's (kernels the entry calls
// from other modules): messages and origins name that file.
struct CallSegment {
  int first_line = 0;  // in source_text
  int lines = 0;
  std::string file;
  int file_first_line = 1;
};

struct CallRequest {
  std::string source_name;
  std::string source_text;  // prelude and call included, at their lines
  int call_line = 0;        // the call statement's line (1-based)
  int prelude_line = 0;     // the prelude's first line; it runs first
  std::vector<CallSegment> segments;
  std::vector<CallTensor> tensors;
  // The script's stream so far, when calls share one chip (pto_sim --serve):
  // the output is the stream's next segment (frontend/session_segment.h),
  // without the header after the first, and the state after it is written
  // to `session_out`.
  bool in_session = false;
  SessionState session;
  std::string session_out;
  std::string recorder;  // the header's recorder, when set (a recorded python3 run)
};

// The request JSON:
//   {"source_name": str, "source_text": str, "call_line": int,
//    "prelude_line": int, "data_file": str (relative to the request's directory),
//    "segments": [{"first_line": int, "lines": int, "file": str,
//                  "file_first_line": int}] (optional),
//    "tensors": [{"name": str, "dtype": "FP32", "shape": [int],
//                 "offset": int, "nbytes": int | null,
//                 "known": {"id": int, "gm_addr": int, "upload": bool} (optional)}],
//    "session": {"first": bool, "next_tensor_id": int, "next_kernel_id": int,
//                "next_gm_addr": int, "state_out": str} (optional),
//    "recorder": str (optional: the header's recorder instead of ptoc's)}
// `nbytes` null: a shape-only tensor (timing-only). `known`: the script's
// chip holds the tensor since an earlier call. `state_out` (relative to the
// request's directory) receives the session's state after this call:
// {first, next_tensor_id, next_kernel_id, next_gm_addr, "tensors": [{"id",
// "gm_addr", "written"} or null per request tensor (null: the call did not
// use it; written: a task of the launch writes it)]}.
// Errors name the field.
absl::StatusOr<CallRequest> ReadCallRequest(const std::string& path);

// A request whose text is `text` (imports, constants, kernels: every
// statement runs in order) and then `call` (none if empty) on the next line,
// with `tensors` bound by name. The fuzzer's and the tests' way in.
CallRequest RequestForSource(std::string source_name, std::string text, const std::string& call,
                             std::vector<CallTensor> tensors);

absl::StatusOr<trace::TraceText> CompileCall(const CallRequest& request,
                                             std::vector<std::string>* warnings,
                                             const CompileOptions& options);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_CALL_COMPILER_H_
