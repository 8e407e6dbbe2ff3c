#ifndef PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_
#define PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "common/seq_index.h"
#include "models/hazard/block_handoff.h"
#include "models/hazard/hazard_report.h"
#include "models/hazard/strided_range.h"

namespace pto {

// Flags GM accesses that nothing orders.
//
// Between tasks: the caller reports each task (AddTask, in submission order),
// its producer edges (AddDependency: inferred and explicit, before the task's
// accesses), the GM byte ranges it reads and writes (AddAccess; writes are
// rounded out to whole cache lines, because a write-back writes whole lines;
// atomic adds are exempt and never reported) and its predicate reads. Two
// tasks touching overlapping ranges, at least one writing, with no dependency
// path between them, are a RAW, WAW or WAR hazard (by submission order); an
// unordered writer of a predicate element is a predicate hazard.
//
// Inside one task: per block, the accesses and the publish events in program
// order (AddBlockAccess / AddBlockEvent), analysed at EndTask. A block
// reading bytes another block wrote needs a syncall between them, and the
// publish protocol: the writer does cacheinvalid() + fence() after writing
// and before the syncall, the reader cacheinvalid() after the syncall and
// before reading (a region cacheinvalid covers only the line holding its
// address). Reported whether or not the data happened to be stale. Two
// blocks writing one cache line without that protocol is false sharing.
//
// Memory is bounded by the in-flight window: RetireTask drops a task (call it
// when the runtime retires it, in ring order) and emits the reports whose
// later side it is. A task retired before an unordered partner reports its
// accesses is not compared with it (such accesses were ordered in time by
// the window). Reachability, cheapest first: (1) a chain fast path — a task
// that depends on the task submitted just before it reaches everything that
// one reaches down to its `full_low`, so chains (and accumulators updated by
// every task) answer in O(1); (2) otherwise a backward BFS from the later
// task over live producer edges, pruned to tasks submitted no earlier than
// the earlier one (every edge points forward in submission order), whose
// visited set answers every further query about the same later task. Tasks
// must be added in seq order for (1); retiring a task splices its producers
// onto its consumers, so paths through it survive. A write drops from the
// index the accesses it covers and is ordered after (they cannot be the only
// side of a future hazard), so a long chain updating one tensor costs O(1)
// per task; a report then names the latest unordered writer of a region
// rather than every one. Overlaps are found through bucket
// indexes, one for reads and one for writes, over chunks of GM at several
// sizes: `index_granule_bytes`, 8 times that, 64 times, ...; an access sits
// in the one or two chunks of the smallest size that holds it in two, so a
// strided megabyte costs what a row does.
class HazardDetector {
 public:
  struct Options {
    int64_t line_bytes = 64;                 // gm.dcache_line_bytes
    int64_t index_granule_bytes = 64 << 10;  // overlap index bucket
  };
  HazardDetector(Options options, TensorResolver resolver);

  void AddTask(TaskSeq seq, std::string name);
  void AddDependency(TaskSeq producer, TaskSeq consumer);
  void AddAccess(TaskSeq task, GmAccessKind kind, uint64_t addr, uint64_t size);
  // A strided view (shape and strides in elements, outermost first, as the
  // runtime's TensorView holds them) starting at `first_byte`: reported as
  // one strided range per index of the dimensions outside its rows, or as
  // its bounding range when there are more than kMaxViewRuns of those
  // (conservative: may flag gaps between the rows).
  void AddViewAccess(TaskSeq task, GmAccessKind kind, uint64_t first_byte, int64_t elem_bytes,
                     absl::Span<const int64_t> shape, absl::Span<const int64_t> strides);
  static constexpr int64_t kMaxViewRuns = 4096;
  // A tile transfer's rows: `rows` runs of `row_bytes`, `stride` apart from
  // `addr`, kept as one strided range (writes rounded out to lines row by
  // row), so a transfer costs the same whatever its row count.
  void AddRowsAccess(TaskSeq task, GmAccessKind kind, uint64_t addr, int64_t rows,
                     uint64_t row_bytes, uint64_t stride);
  void AddPredicateRead(TaskSeq task, uint64_t addr, uint64_t size);

  void AddBlockAccess(TaskSeq task, int block, int core, GmAccessKind kind, uint64_t addr,
                      uint64_t size);
  // A tile transfer's rows in one log entry.
  void AddBlockRowsAccess(TaskSeq task, int block, int core, GmAccessKind kind, uint64_t addr,
                          int64_t rows, uint64_t row_bytes, uint64_t stride);
  // `addr` is the view's base address for kCacheInvalidLine, else ignored.
  void AddBlockEvent(TaskSeq task, int block, int core, BlockEventKind event, uint64_t addr = 0);
  // All blocks of `task` are done: analyses and drops its block logs.
  void EndTask(TaskSeq task);

  void RetireTask(TaskSeq task);
  // End of the run: emits every pending report (and ends unended tasks).
  void Flush();

  // Reports completed since the last call, in a deterministic order.
  std::vector<HazardReport> TakeReports();

  // Whether a dependency path leads from `from` to `to` (both live).
  bool Reaches(TaskSeq from, TaskSeq to);
  int64_t live_tasks() const { return static_cast<int64_t>(node_of_task_.size()); }

 private:
  enum class Use : uint8_t { kRead, kWrite, kPredicate };
  struct Access {
    StridedRange range;
    Use use;
  };
  // An index entry carries the range, so scanning a bucket needs no node
  // lookup until two ranges actually overlap.
  struct AccessRef {
    TaskSeq seq;
    StridedRange range;
    Use use;
    bool dead = false;  // superseded, not yet compacted away
  };
  // Scans skip dead entries; compaction keeps the order of the live ones,
  // so the order of reports does not depend on when it happens.
  struct Bucket {
    std::vector<AccessRef> refs;
    size_t dead = 0;
  };
  struct Pending {
    HazardKind kind;
    int64_t tensor_id;
    HazardReport report;
  };
  // A task's live producers and consumers: a handful, kept inside the node
  // so the splice at retirement does not chase a heap buffer per neighbour.
  using Edges = absl::InlinedVector<TaskSeq, 4>;
  struct Node {
    TaskSeq seq = 0;
    std::string name;
    bool live = false;
    Edges producers;
    Edges consumers;
    std::vector<Access> accesses;
    std::vector<Pending> pending;
    std::vector<BlockLogEntry> block_log;
    // Every live task with seq in [full_low, seq) is an ancestor: the chain
    // fast path (a task depending on the task submitted just before it
    // inherits that task's full_low).
    TaskSeq full_low = 0;
    TaskSeq prev_added = 0;  // the task added just before this one
    bool has_prev = false;
    uint32_t visit_stamp = 0;
  };

  Node* Find(TaskSeq seq);
  Node& Ensure(TaskSeq seq);
  void AddUse(TaskSeq task, Use use, const StridedRange& range);
  void AppendBlockLog(Node& node, const BlockLogEntry& entry);
  void AddSweptGranules(const StridedRange& range, Use use);
  // Drops the index entries `drop` selects from every bucket listed in
  // swept_granules_.
  template <typename Drop>
  void SweepGranules(Drop drop);
  void Record(Node& later, const Node& earlier, HazardKind kind, uint64_t begin, uint64_t end);
  void Emit(Node& node);
  HazardTensor Resolve(uint64_t addr) const;

  Options options_;
  TensorResolver resolver_;
  SeqIndex<uint32_t> node_of_task_;  // live tasks' indexes into nodes_
  // The node found last: accesses and edges come in runs for one task.
  static constexpr TaskSeq kNone = ~TaskSeq{0};
  TaskSeq last_seq_ = kNone;
  uint32_t last_index_ = 0;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  // Bucketed by (level, chunk) as BucketKey packs them, in key order so a
  // query walks only the buckets there are; reads (and predicate reads)
  // apart from writes, so a read scans only the writes: many tasks reading
  // one input cost nothing.
  static constexpr int kLevels = 20;
  using Index = absl::btree_map<uint64_t, Bucket>;
  static uint64_t BucketKey(int level, uint64_t chunk) {
    return static_cast<uint64_t>(level) << 58 | chunk;
  }
  int LevelOf(const StridedRange& range) const;
  Index read_index_;
  Index write_index_;
  int read_levels_ = 0;  // levels in use so far, from level 0
  int write_levels_ = 0;
  uint64_t chunk_bytes_[kLevels];      // per level
  std::vector<AccessRef> superseded_;  // scratch for AddUse
  // Buckets to sweep: (bucket key, whether in the write index),
  // deduplicated by SweepGranules so that each is swept once.
  std::vector<std::pair<uint64_t, bool>> swept_granules_;
  TaskSeq last_added_ = 0;
  bool any_added_ = false;
  bool in_order_ = true;  // tasks arrived in seq order (the fast path needs it)
  // The last BFS: every ancestor of bfs_root_ with seq >= bfs_bound_ carries
  // visit_stamp_. Valid until an edge into a task <= bfs_root_ is added.
  uint32_t visit_stamp_ = 0;
  TaskSeq bfs_root_ = 0;
  TaskSeq bfs_bound_ = 0;
  bool bfs_valid_ = false;
  std::vector<uint32_t> bfs_queue_;
  std::vector<HazardReport> ready_;
  std::vector<BlockLogEntry> spare_block_log_;  // empty, its capacity kept for reuse
};

}  // namespace pto

#endif  // PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_
