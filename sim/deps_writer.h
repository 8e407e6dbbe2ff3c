#ifndef PTO_SIM_DEPS_WRITER_H_
#define PTO_SIM_DEPS_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "models/run_observer.h"
#include "proto/task_stream.pb.h"
#include "sim/launch_log.h"
#include "sim/spooled_json.h"

namespace pto {

// deps.json's tensor id: FNV-1a 64 over the 8 little-endian bytes of the
// buffer address, then the 4 bytes of the version (always 0 here).
uint64_t DepsTensorId(uint64_t buffer_addr, uint32_t version = 0);

// deps.json's argument type: INPUT, OUTPUT, INOUT, OUTPUT_EXISTING, and
// "UNKNOWN" for NO_DEP, as the runtime's arg_type_str prints it.
const char* DepsArgTypeName(trace::ArgDirection direction);

// "name_map_<case>.json" for a launch named `case_name`: characters other
// than letters, digits, '_', '-' and '.' become '_', and a name longer than
// 100 of them keeps 80 and the FNV-1a hash of the whole name (a file name
// holds at most 255 bytes).
std::string NameMapFileName(const std::string& case_name);

// Writes one launch's deps.json (hw-native-sys/simpler@6ebaf771
// src/a2a3/runtime/tensormap_and_ringbuffer/host/dep_gen_replay.cpp, docs/dfx/dep-gen.md) and
// name_map_<case>.json (docs/dfx/profiling-name-map.md) as deps_viewer and swimlane_converter
// read them.
// Tasks appear in submission order (dummies and allocs included, kernel ids
// all -1 for them); every uint64 is a JSON string. `args[].idx` and an edge's
// `arg` count tensor arguments only (the runtime's tensors[] index; scalars
// live in a separate array there). Edges come from OnTaskSubmitted's span
// (OnEdge is ignored, so a driver may call both). `log` maps a producer's
// sequence number to its runtime id after it retired; the caller feeds it
// before this writer; an edge naming a producer never reported makes
// Finalize() fail rather than write a wrong id. Rows stream to temporary
// files; the files appear by rename in Finalize().
class DepsWriter : public RunObserver {
 public:
  DepsWriter(std::string dir, std::string case_name, const trace::StreamHeader& header,
             const LaunchLog* log);

  absl::Status Open();
  void OnTaskSubmitted(const Task& task, absl::Span<const DepEdge> edges, TimePs start,
                       TimePs end) override;
  absl::Status Finalize();

 private:
  std::string dir_;
  std::string case_name_;
  const trace::StreamHeader& header_;
  const LaunchLog* log_;
  SpooledArray tasks_;
  SpooledArray tensors_;
  SpooledArray edges_;
  absl::flat_hash_set<uint64_t> tensors_seen_;
  std::vector<int> tensor_ordinal_;  // reused: task arg index -> tensor index
  int64_t unknown_producers_ = 0;    // edges whose producer was never reported
};

}  // namespace pto

#endif  // PTO_SIM_DEPS_WRITER_H_
