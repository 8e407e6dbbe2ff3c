// ptoc FILE.py -o OUT.pb [--pbtxt] [--timing-only]: compiles a PyPTO-syntax kernel description
// into a pto_sim task stream. ptoc --record FILE.py -o OUT.pb runs the script under CPython
// with the pypto package and records its run (frontend/record_runner.h). ptoc --call
// REQUEST.json -o OUT.pb compiles one kernel call of a CPython script (the pypto package writes
// the request; frontend/call_compiler.h). Exit 0 on success, 2 on any error.
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "common/trace_writer.h"
#include "frontend/call_compiler.h"
#include "frontend/interpreter.h"
#include "frontend/record_runner.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;
constexpr uintmax_t kMaxSourceBytes = 16 << 20;  // docs/ptoc.md, "Limits"

int Usage(const char* message) {
  std::cerr << "ptoc: error: " << message << "\n"
            << "usage: ptoc FILE.py -o OUT.pb [--pbtxt] [--timing-only]\n"
            << "       ptoc --record FILE.py -o OUT.pb [--pbtxt] [--timing-only]\n"
            << "       ptoc --call REQUEST.json -o OUT.pb [--pbtxt] [--timing-only]\n"
            << "  --record       run FILE.py under CPython (pypto, its kernels on pto_sim) and "
               "record the run\n"
            << "  --pbtxt        write the stream as protobuf text (one TraceText message)\n"
            << "  --timing-only  tensors without contents, no checks, no reference "
               "evaluation\n";
  return kExitError;
}

// `continuation`: records only, the next segment of a stream whose header
// an earlier call wrote.
absl::Status WriteStream(const pto::trace::TraceText& trace, const std::string& path,
                         bool continuation) {
  auto writer = continuation ? pto::TraceWriter::CreateContinuation(path)
                             : pto::TraceWriter::Create(path, trace.header());
  if (!writer.ok()) return writer.status();
  for (const auto& record : trace.records()) {
    absl::Status s = (*writer)->Write(record);
    if (!s.ok()) return s;
  }
  return (*writer)->Finish();
}

int Report(const absl::StatusOr<pto::trace::TraceText>& trace,
           const std::vector<std::string>& warnings, const std::string& output, bool pbtxt,
           bool continuation = false) {
  for (const std::string& w : warnings) std::cerr << w << "\n";
  if (!trace.ok()) {
    std::cerr << trace.status().message() << "\n";
    return kExitError;
  }
  absl::Status written =
      pbtxt ? pto::WriteTraceText(output, *trace) : WriteStream(*trace, output, continuation);
  if (!written.ok()) {
    std::cerr << output << ": error: " << written.message() << "\n";
    return kExitError;
  }
  return kExitOk;
}

int CompileCallRequest(const std::string& request_path, const std::string& output, bool pbtxt,
                       const pto::ptoc::CompileOptions& options) {
  absl::StatusOr<pto::ptoc::CallRequest> request = pto::ptoc::ReadCallRequest(request_path);
  if (!request.ok()) {
    std::cerr << "ptoc: error: " << request.status().message() << "\n";
    return kExitError;
  }
  std::vector<std::string> warnings;
  const bool continuation = request->in_session && !request->session.first;
  return Report(pto::ptoc::CompileCall(*request, &warnings, options), warnings, output, pbtxt,
                continuation);
}

int Run(int argc, char** argv) {
  std::string input, output;
  bool pbtxt = false;
  bool call = false;
  bool record = false;
  pto::ptoc::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-o") {
      if (++i >= argc) return Usage("-o needs a file name");
      output = argv[i];
    } else if (arg == "--pbtxt") {
      pbtxt = true;
    } else if (arg == "--call") {
      call = true;
    } else if (arg == "--record") {
      record = true;
    } else if (arg == "--timing-only") {
      options.timing_only = true;
    } else if (arg == "-h" || arg == "--help") {
      Usage("help requested");
      return kExitOk;
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage(("unknown option " + arg).c_str());
    } else if (input.empty()) {
      input = arg;
    } else {
      return Usage("more than one input file");
    }
  }
  if (input.empty()) return Usage(call ? "no call request" : "no input file");
  if (output.empty()) return Usage("no output file (-o OUT.pb)");
  if (call) return CompileCallRequest(input, output, pbtxt, options);
  if (record) {
    pto::ptoc::RecordOptions record_options;
    record_options.python = PTO_PYTHON;
    record_options.package_dir = PTO_PACKAGE_DIR;
    record_options.pbtxt = pbtxt;
    record_options.timing_only = options.timing_only;
    return pto::ptoc::RecordScript(input, output, record_options);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) {
    std::cerr << input << ": error: is a directory; expected a kernel description (.py)\n";
    return kExitError;
  }
  if (const auto size = std::filesystem::file_size(input, ec); !ec && size > kMaxSourceBytes) {
    std::cerr << input << ": error: " << size << " bytes; ptoc reads kernel descriptions of at "
              << "most " << kMaxSourceBytes << " bytes\n";
    return kExitError;
  }
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << input << ": error: cannot open the kernel description\n";
    return kExitError;
  }
  std::stringstream text;
  text << in.rdbuf();
  pto::ptoc::SourceFile source(input, text.str());
  std::vector<std::string> warnings;
  return Report(pto::ptoc::CompileSource(source, &warnings, options), warnings, output, pbtxt);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptoc: internal error: " << e.what()
              << "\nThis is a bug in ptoc, not in your kernel description; please report it "
                 "with the input file.\n";
  } catch (...) {
    std::cerr << "ptoc: internal error (unknown exception); please report it with the input "
                 "file.\n";
  }
  return kExitError;
}
