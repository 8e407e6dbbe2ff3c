#ifndef PTO_MODELS_FFTS_BARRIER_H_
#define PTO_MODELS_FFTS_BARRIER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pto {

// The core types a syncall spans (pl.KernelType / core_type=).
enum class BarrierCoreType : uint8_t { kAiv, kAic, kMix };

const char* BarrierCoreTypeName(BarrierCoreType type);  // "AIV", "AIC", "MIX"

// Physical core ids as the runtime numbers them (hw-native-sys/simpler@6ebaf771
// src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_cold_path.cpp):
// AIC of cluster c = c, its AIVs = clusters + 2c and clusters + 2c + 1.
// "aic<c>" / "aiv<n>" names as the chip model uses them.
std::string PhysicalCoreName(int core_id, int64_t clusters);

// The FFTS hard-syncall barrier of one launch: its participants are ALL
// physical cores of the core type — AIV: 2 × clusters, AIC: clusters, MIX:
// every core — however many blocks the launch has. It releases when every
// participant has arrived, `release_latency_ps` (core.hard_syncall_ns) after
// the last arrival; then it re-arms for the kernel's next syncall (each
// release starts a new generation). A launch that does not occupy every
// participant never releases: Report() explains the 507018-style deadlock.
class HardBarrier {
 public:
  HardBarrier(BarrierCoreType type, int64_t clusters, int64_t release_latency_ps);

  // Core `core_id` reaches the barrier at `time_ps`. Returns the release time
  // when this arrival completes the set, nullopt while others are missing,
  // or an error for a core outside the participant set or one arriving twice
  // in one generation.
  absl::StatusOr<std::optional<int64_t>> Arrive(int core_id, int64_t time_ps);

  // Participants that arrived in the current generation / that have not.
  std::vector<int> Waiting() const;
  std::vector<int> Missing() const;
  int64_t participants() const { return static_cast<int64_t>(participant_ids_.size()); }
  int64_t arrived() const { return arrived_count_; }
  int64_t generation() const { return generation_; }  // releases so far
  bool IsParticipant(int core_id) const;

  // The deadlock report, e.g. "507018-style barrier deadlock: hard syncall
  // (core_type AIV) in task 'phase' waits for all 48 physical cores of that type; 4 arrived and
  // wait (aiv0 [core 24], ...), 44 never arrived (...). A hard syncall needs every physical core of
  // its type: launch one block per core (sized with pl.system.available_aiv_count()) with
  // sync_start=True, or use mode=pl.SyncAllMode.SOFT for partial occupancy."
  std::string Report(const std::string& task_name) const;

 private:
  BarrierCoreType type_;
  int64_t clusters_;
  int64_t release_latency_ps_;
  std::vector<int> participant_ids_;  // ascending
  std::vector<uint8_t> arrived_;      // indexed by core id
  int64_t arrived_count_ = 0;
  int64_t last_arrival_ps_ = 0;
  int64_t generation_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_FFTS_BARRIER_H_
