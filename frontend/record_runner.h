#ifndef PTO_FRONTEND_RECORD_RUNNER_H_
#define PTO_FRONTEND_RECORD_RUNNER_H_

// ptoc FILE.py -o OUT.pb: the script runs under CPython with the
// pypto package, its kernels on pto_sim, and its run is recorded as the
// stream (PTO_SIM_RECORD, python/pypto/_record.py): the launches and the
// checks it evaluated on kernel outputs.

#include <cstdint>
#include <string>

namespace pto::ptoc {

// The largest script ptoc hands to CPython (a script is source text; a
// bigger file is the wrong file).
inline constexpr uint64_t kMaxScriptBytes = uint64_t{64} << 20;

struct RecordOptions {
  std::string python;        // the interpreter (Debian's /usr/bin/python3)
  std::string package_dir;   // prepended to PYTHONPATH when it exists (the build's pypto)
  bool pbtxt = false;        // write the stream as text
  bool timing_only = false;  // every argument as shapes only
};

// Runs `script` and writes its recorded stream to `output`. Returns ptoc's
// exit code: 0 when the stream is written, 2 for any error (the script's
// own messages and traceback are on stderr). A script that launches nothing
// gets a warning and a stream of its header alone.
int RecordScript(const std::string& script, const std::string& output,
                 const RecordOptions& options);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_RECORD_RUNNER_H_
