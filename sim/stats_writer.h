#ifndef PTO_SIM_STATS_WRITER_H_
#define PTO_SIM_STATS_WRITER_H_

#include <fstream>
#include <ostream>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "models/run_observer.h"
#include "nlohmann/json.hpp"
#include "sim/pipe_stats.h"

namespace pto {

// Writes one launch's stats.json. Per-task records, inferred edges and core
// intervals are streamed to temporary files as the run produces them, then
// spliced after the summary keys when the launch is finalised, so memory
// stays bounded however long the launch is. With `records` false only the
// summary is written. The final file appears by rename, complete or not at
// all.
class StatsWriter : public RunObserver {
 public:
  StatsWriter(std::string dir, bool records);
  ~StatsWriter() override;

  absl::Status Open();
  void OnEdge(const Task& consumer, const DepEdge& edge) override;
  void OnCoreInterval(const CoreInterval& interval) override;
  void OnEngineBusy(const EngineInterval& interval) override;
  // The pipe totals ("pipes") are always kept; task records name each
  // task's bounding pipe.
  bool wants_pipe_ops() const override { return true; }
  void OnPipeOps(const PipeSegment& segment) override { pipes_.Add(segment); }
  // Each task's GM bytes (task_records' gm_read_bytes, gm_write_bytes):
  // what its blocks' loads, stores, atomic adds and scalar accesses touched,
  // or a cost summary's bytes. Kept only with records.
  void OnGmAccess(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr,
                  uint64_t size) override;
  void OnGmRows(TaskSeq task, int64_t block, int core, GmAccess kind, uint64_t addr, int64_t rows,
                uint64_t row_bytes, uint64_t stride) override;
  void OnSummaryBytes(TaskSeq task, int64_t block, int core, GmAccess kind,
                      uint64_t bytes) override;
  void OnTaskRetired(const Task& task) override;

  // The launch's pipe totals so far (complete once every task retired).
  const PipeStats& pipes() const { return pipes_; }

  // Writes DIR/stats.json: `summary`'s keys, then "task_records", "edge_records",
  // "core_intervals" and "engine_intervals" (MIX blocks' cube and vector busy
  // time per core) arrays when records are on.
  absl::Status Finalize(const nlohmann::json& summary);

 private:
  struct Stream {
    std::string path;
    std::ofstream out;
    bool empty = true;
  };
  void Append(Stream& stream, const std::string& line);
  absl::Status Splice(std::ostream& out, Stream& stream, const char* key);

  std::string dir_;
  bool records_;
  Stream tasks_;
  Stream edges_;
  Stream intervals_;
  Stream engine_intervals_;
  void AddGmBytes(TaskSeq task, GmAccess kind, uint64_t bytes);

  PipeStats pipes_;
  struct GmBytes {
    uint64_t read = 0;
    uint64_t write = 0;
  };
  absl::flat_hash_map<TaskSeq, GmBytes> gm_bytes_;  // of tasks not yet retired
  std::string line_;                                // reused
};

// Microseconds from picoseconds, for output.
inline double Us(TimePs ps) { return static_cast<double>(ps) / 1e6; }

}  // namespace pto

#endif  // PTO_SIM_STATS_WRITER_H_
