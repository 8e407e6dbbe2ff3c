// ptoc FILE.py -o OUT.pb [--pbtxt] [--timing-only]: runs a PyPTO script under CPython with the
// pypto package, its kernels simulated by pto_sim, and records the run as a pto_sim task stream
// (frontend/record_runner.h). ptoc --call REQUEST.json -o OUT.pb compiles one kernel call of
// such a run (the pypto package writes the request; frontend/call_compiler.h). Exit 0 when the
// stream is written, 2 on any error.
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "common/input_file.h"
#include "common/trace_writer.h"
#include "common/version.h"
#include "frontend/call_compiler.h"
#include "frontend/record_runner.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;

void PrintUsage(std::ostream& out) {
  out << "usage: ptoc FILE.py -o OUT.pb [--pbtxt] [--timing-only]\n"
      << "       ptoc --call REQUEST.json -o OUT.pb [--pbtxt] [--timing-only]\n"
      << "  FILE.py        runs under CPython (pypto, its kernels on pto_sim); its run is "
         "recorded\n"
      << "  --call         compile one kernel call the pypto package asks for\n"
      << "  --pbtxt        write the stream as protobuf text (one TraceText message)\n"
      << "  --timing-only  tensors without contents, no checks, no reference evaluation\n"
      << "  --version      print ptoc's version and the stream version it writes\n"
      << "  -h, --help     print this help\n";
}

int Usage(const char* message) {
  std::cerr << "ptoc: error: " << message << "\n";
  PrintUsage(std::cerr);
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

int CompileCallRequest(const std::string& request_path, const std::string& output, bool pbtxt,
                       const pto::ptoc::CompileOptions& options) {
  absl::StatusOr<pto::ptoc::CallRequest> request = pto::ptoc::ReadCallRequest(request_path);
  if (!request.ok()) {
    std::cerr << "ptoc: error: " << request.status().message() << "\n";
    return kExitError;
  }
  std::vector<std::string> warnings;
  absl::StatusOr<pto::trace::TraceText> trace =
      pto::ptoc::CompileCall(*request, &warnings, options);
  for (const std::string& w : warnings) std::cerr << w << "\n";
  if (!trace.ok()) {
    std::cerr << trace.status().message() << "\n";
    return kExitError;
  }
  const bool continuation = request->in_session && !request->session.first;
  absl::Status written =
      pbtxt ? pto::WriteTraceText(output, *trace) : WriteStream(*trace, output, continuation);
  if (!written.ok()) {
    std::cerr << output << ": error: " << written.message() << "\n";
    return kExitError;
  }
  return kExitOk;
}

int Run(int argc, char** argv) {
  std::string input, output;
  bool pbtxt = false;
  bool call = false;
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
    } else if (arg == "--timing-only") {
      options.timing_only = true;
    } else if (arg == "-h" || arg == "--help") {
      PrintUsage(std::cout);
      return kExitOk;
    } else if (arg == "--version") {
      std::cout << pto::VersionLine("ptoc") << "\n";
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
  // CPython reads the script itself: refuse first what it could block on
  // or read forever (a FIFO, /dev/zero).
  if (absl::Status status =
          pto::CheckInputFile(input, pto::ptoc::kMaxScriptBytes, "a PyPTO script (.py)");
      !status.ok()) {
    std::cerr << "ptoc: error: " << status.message() << "\n";
    return kExitError;
  }
  pto::ptoc::RecordOptions record_options;
  // PTOC_PYTHON: another interpreter for the script (the tests' fork
  // server, frontend/testing/python_zygote.py); Debian's by default.
  const char* python = std::getenv("PTOC_PYTHON");
  record_options.python = python != nullptr && *python != '\0' ? python : PTO_PYTHON;
  record_options.package_dir = PTO_PACKAGE_DIR;
  record_options.pbtxt = pbtxt;
  record_options.timing_only = options.timing_only;
  return pto::ptoc::RecordScript(input, output, record_options);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptoc: internal error: " << e.what()
              << "\nThis is a bug in ptoc, not in your script; please report it with the "
                 "script.\n";
  } catch (...) {
    std::cerr << "ptoc: internal error (unknown exception); please report it with the "
                 "script.\n";
  }
  return kExitError;
}
