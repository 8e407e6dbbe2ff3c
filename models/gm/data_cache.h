#ifndef PTO_MODELS_GM_DATA_CACHE_H_
#define PTO_MODELS_GM_DATA_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "models/gm/gm_port.h"
#include "models/gm/line_backend.h"

namespace pto {

// What a data cache did since the counters were last taken, for timing and
// stats. Hits and misses count lines looked up, not accesses.
struct DataCacheCounters {
  int64_t read_hits = 0;
  int64_t read_misses = 0;
  int64_t write_hits = 0;
  int64_t write_misses = 0;
  int64_t lines_filled = 0;  // whole lines fetched (read misses + write-allocate)
  int64_t bytes_filled = 0;
  int64_t lines_written_back = 0;  // whole dirty lines written to the backend
  int64_t bytes_written_back = 0;
  int64_t lines_invalidated = 0;
  int64_t maintenance_ops = 0;  // dcci instructions (whole cache or one line)
  int64_t atomic_ops = 0;       // atomic adds sent past the cache
  int64_t atomic_bytes = 0;
};

// One AICore's private data cache as on a2a3: non-coherent, write-back,
// write-allocate, with whole lines of `line_bytes` (gm.dcache_line_bytes, a
// power of two).
//   * Loads fill whole lines from the backend and hit them until the lines
//     are invalidated, whatever other cores write meanwhile (stale reads).
//   * Stores fetch the line first, then land in it and mark it dirty; they
//     reach the backend only when the line is written back.
//   * A write-back writes the WHOLE line, including bytes this core never
//     wrote, so two cores writing different elements of one line lose data:
//     the last write-back wins, exactly as on silicon.
//   * Atomic adds bypass the cache and go straight to the backend. A cached
//     copy of that line is left as it is (stale) — as on the device.
// It implements GmPort, so the tile executor runs through it unchanged.
//
// Capacity is unbounded: nothing is ever evicted between maintenance
// operations. A task's footprint is small and the runtime cleans and
// invalidates the whole cache at every pickup, so a cache holds at most one
// task's lines. Storage is reused across tasks; after warm-up no access
// allocates.
class DataCache : public GmPort {
 public:
  DataCache(LineBackend* backend, int64_t line_bytes);
  // Timing-only runs need the lines' state but not their bytes: without data
  // the cache allocates nothing per line and copies nothing (fills and
  // write-backs still reach the backend, from one scratch page).
  void set_keeps_data(bool keeps);
  bool keeps_data() const { return keeps_data_; }

  // GmPort. An access outside backend memory touches nothing; status()
  // reports the first one.
  void Read(uint64_t addr, void* dst, size_t size) override;
  void Write(uint64_t addr, const void* src, size_t size) override;
  void AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) override;
  void BeginTransfer() override { backend_->BeginTransfer(); }
  void EndTransfer() override { backend_->EndTransfer(); }

  // `pl.system.cacheinvalid()` = dcci over the entire cache: write back every
  // dirty line, then invalidate every line.
  void CleanInvalidateAll();
  // The tensor-region overload: the same for the single line holding `addr`
  // only, whatever the view's shape.
  void CleanInvalidateLine(uint64_t addr);
  // Writes back every dirty line and keeps the lines (now clean) valid.
  void WriteBackAll();

  // The runtime's protocol at task boundaries. At pickup the core cleans and
  // invalidates its whole cache (so it sees everything finished tasks
  // published); at task end every dirty line is written back before FIN (so
  // dependent tasks see this one's data, on whichever core they run). The
  // pickup dcci is not counted in maintenance_ops: core.setup_ns holds its
  // cost. Its write-backs (normally none) and invalidations are counted.
  void OnTaskPickup() { DropAll(); }
  void OnTaskEnd() { WriteBackAll(); }

  // Line addresses written back since the last ClearWriteBacks(), in issue
  // order. The data is already in the backend; when each write-back lands
  // (and so how long a fence() waits) is the caller's timing to decide.
  absl::Span<const uint64_t> write_backs() const { return write_backs_; }
  void ClearWriteBacks() { write_backs_.clear(); }

  const DataCacheCounters& counters() const { return counters_; }
  // Returns the counters and resets them to zero.
  DataCacheCounters TakeCounters();

  int64_t line_bytes() const { return line_bytes_; }
  uint64_t LineOf(uint64_t addr) const { return addr & ~line_mask_; }
  bool IsCached(uint64_t addr) const;
  bool IsDirty(uint64_t addr) const;
  int64_t cached_lines() const;
  int64_t dirty_lines() const;

  absl::Status status() const { return status_; }

 private:
  // Lines are kept in pages of 64 consecutive lines with a valid and a dirty
  // bit per line: one hash lookup per page touched, one memcpy per page, and
  // fills and write-backs of consecutive lines in one backend call.
  static constexpr int kLinesPerPage = 64;
  struct Page {
    uint64_t addr = 0;  // first byte; kFreePage when the slot is free
    uint64_t valid = 0;
    uint64_t dirty = 0;
  };
  static constexpr uint64_t kFreePage = ~uint64_t{0};

  // The slot of the page holding `addr`, created (empty) when absent.
  uint32_t PageSlot(uint64_t page_addr);
  uint8_t* PageData(uint32_t slot) {
    return keeps_data_ ? bytes_.data() + size_t{slot} * page_bytes_ : scratch_.data();
  }
  // Brings the lines in `mask` of page `slot` in (fetching the missing ones)
  // and counts hits and misses.
  void Fill(uint32_t slot, uint64_t mask, bool for_write);
  // Writes back the dirty lines of page `slot` within `mask`.
  void WriteBack(uint32_t slot, uint64_t mask);
  void FreePage(uint32_t slot);
  // Writes back every dirty line, then invalidates every line.
  void DropAll();
  // Calls fn(page_addr, from, to, line_mask) for each page [addr, end)
  // touches: the bytes [from, to) inside it and the bits of their lines.
  template <typename Fn>
  void ForEachPage(uint64_t addr, uint64_t end, Fn fn);
  bool CheckRange(uint64_t addr, size_t size, const char* what);

  LineBackend* backend_;
  int64_t line_bytes_;
  uint64_t line_mask_;
  int line_shift_;
  uint64_t page_bytes_;
  absl::flat_hash_map<uint64_t, uint32_t> slot_of_page_;
  // Pages by slot, visited in index order so that write-backs are
  // deterministic; their bytes at PageData(slot).
  std::vector<Page> pages_;
  std::vector<uint8_t> bytes_;
  bool keeps_data_ = true;
  std::vector<uint8_t> scratch_;  // the one page of a cache without data
  std::vector<uint32_t> free_slots_;
  // Slots at or above this index have been free since the last DropAll and
  // are taken in index order; free_slots_ holds the free ones below it. A
  // cache that once held a large task does not scan all its pages again.
  uint32_t slots_used_ = 0;
  std::vector<uint64_t> write_backs_;
  DataCacheCounters counters_;
  absl::Status status_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_DATA_CACHE_H_
