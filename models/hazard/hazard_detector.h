#ifndef PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_
#define PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "common/block_pool.h"
#include "common/seq_index.h"
#include "models/hazard/block_handoff.h"
#include "models/hazard/hazard_report.h"
#include "models/hazard/strided_range.h"

namespace pto {

// Flags GM accesses that nothing in the program orders: the hazards of a
// trace, whatever the timing of the run that recorded its accesses.
//
// Between tasks: the caller reports each task (AddTask, in submission order,
// with its ring and ring-local id), its producer edges (AddDependency:
// inferred and explicit, right after AddTask), the GM byte ranges it reads
// and writes (AddAccess and friends, at any time before EndTask; writes are
// rounded out to whole cache lines, because a write-back writes whole lines)
// and its predicate reads, then EndTask once its blocks are done. Tasks are
// checked in submission order, each against every earlier access still
// kept, so the order in which cores happened to run them changes nothing.
// Two accesses to overlapping bytes, at least one a plain write, are a RAW,
// WAW or WAR hazard (by submission order) unless the program orders them;
// an unordered writer of a predicate element is a predicate hazard. Atomic
// adds conflict with plain reads and writes, never with each other.
//
// What orders two tasks, as the runtime guarantees it: a path of dependency
// edges; the task window (the runtime gives ring-local id L a slot only once
// the ring's tasks up to L - W + 1 retired, so those and every task they
// depend on finished before anything is submitted from then on); a host read
// (AddHostRead: the producers it waited for, and their ancestors, finished
// before the next submission); the end of the launch. A scope's end orders
// nothing: it only drops references. The window and host reads are what
// bound memory: a task ordered before everything still to come is retired,
// its accesses dropped (lazily, from the index), so live tasks are at most
// the unretired part of each ring's window.
//
// Shadow state, as FastTrack keeps epochs rather than vector clocks: per
// byte range, the accesses that a later access could still race with. A
// write (or atomic add) drops the accesses it covers once they are ordered
// before it or reported against it, so a chain updating one tensor keeps
// O(1) entries and a report names the latest writer; reads of one range by
// unordered tasks are all kept (read-shared). Reachability, cheapest first:
// (1) a chain fast path (a task depending on the task submitted just before
// it reaches everything that one reaches down to its `full_low`); (2) a
// direct producer edge; (3) a
// backward BFS from the later task over live producer edges, pruned to tasks
// no older than the earlier one, whose visited set answers every further
// question about the same later task. Overlaps are found through bucket
// indexes, one for reads and one for writes and atomics, over chunks of GM
// at several sizes: `index_granule_bytes`, 8 times that, 64 times, ...; an
// access sits in the one or two chunks of the smallest size that holds it.
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
// Reports are bounded: each names at most kMaxOthers earlier tasks and
// counts the rest.
class HazardDetector {
 public:
  static constexpr int kRings = 4;
  static constexpr size_t kMaxOthers = 8;  // earlier tasks named per report
  struct Options {
    int64_t line_bytes = 64;                // gm.dcache_line_bytes
    int64_t index_granule_bytes = 1 << 10;  // overlap index bucket
    // Per ring: its task window W (ring.task_window); 0 = the window orders
    // nothing, so tasks stay until a host read or the end of the launch.
    std::array<int64_t, kRings> task_window = {};
    // Told each task the detector retires (ordered before all to come).
    std::function<void(TaskSeq)> on_retire;
  };
  HazardDetector(Options options, TensorResolver resolver);

  // `ring` < 0: the task is in no ring (no window ordering).
  // `origin`: its source line, for reports ("kernel.py:27"; may be empty).
  void AddTask(TaskSeq seq, std::string_view name, int ring = -1, uint32_t local = 0,
               std::string_view origin = {});
  void AddDependency(TaskSeq producer, TaskSeq consumer);
  // The same for each of `producers` (in any order, repeats allowed).
  void AddDependencies(absl::Span<const TaskSeq> producers, TaskSeq consumer);
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
  // Every access of `task` is in: checks its blocks' hand-offs, and checks
  // it (and the done tasks after it) against earlier tasks once every
  // earlier task is done.
  void EndTask(TaskSeq task);

  // The orchestration reads [addr, addr + size) after the tasks added so
  // far, once `waited` (the element's registered producers) completed: an
  // unordered writer of those bytes makes it a stale read; afterwards
  // `waited` and their ancestors are ordered before every later task.
  void AddHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                   std::string origin);

  // End of the launch: checks every task not yet checked, in order.
  void Flush();

  // Reports completed since the last call, in submission order.
  std::vector<HazardReport> TakeReports();

  // Whether a dependency path leads from `from` to `to` (both live).
  bool Reaches(TaskSeq from, TaskSeq to);
  int64_t live_tasks() const { return static_cast<int64_t>(node_of_task_.size()); }
  int64_t peak_live_tasks() const { return peak_live_; }
  // Tasks whose accesses were not checked: 2^32 - 1 or more past the launch's first.
  int64_t unchecked_tasks() const { return unchecked_tasks_; }

 private:
  enum class Use : uint8_t { kRead, kWrite, kAtomic, kPredicate };
  struct Access {
    StridedRange range;
    Use use;
  };
  // An index entry carries the range, so scanning a bucket needs no node
  // lookup until two ranges actually overlap. It is three words, since a
  // launch that fits in the task window keeps one per access to its end:
  // the task is its offset from the launch's first (`local`); the span
  // (end - begin, under kMaxSpan: a longer access is indexed in pieces), the
  // use and whether it is dead (superseded or retired, not yet compacted
  // away) share a word; a strided range with a row or stride of 4 GiB or
  // more is kept as its bounds, which may flag the gaps between its rows.
  static constexpr uint64_t kMaxSpan = uint64_t{1} << 29;
  class AccessRef {
   public:
    AccessRef(uint32_t local, const StridedRange& range, Use use)
        : begin_(range.begin),
          span_(static_cast<uint32_t>(range.end - range.begin) | static_cast<uint32_t>(use) << 29),
          local_(local) {
      if (!range.contiguous() && range.stride <= UINT32_MAX) {
        row_ = static_cast<uint32_t>(range.row);
        stride_ = static_cast<uint32_t>(range.stride);
      }
    }
    uint32_t local() const { return local_; }
    Use use() const { return static_cast<Use>(span_ >> 29 & 3); }
    bool dead() const { return (span_ >> 31) != 0; }
    void kill() { span_ |= uint32_t{1} << 31; }
    uint64_t begin() const { return begin_; }
    uint64_t end() const { return begin_ + (span_ & (kMaxSpan - 1)); }
    StridedRange range() const {
      return stride_ == 0 ? StridedRange::Contiguous(begin_, end())
                          : StridedRange{begin_, end(), row_, stride_};
    }
    // Same task, use and range (whether dead or not).
    auto key() const {
      return std::make_tuple(local_, span_ & ~(uint32_t{1} << 31), begin_, row_, stride_);
    }

   private:
    uint64_t begin_;
    uint32_t span_;   // end - begin, use << 29, dead << 31
    uint32_t local_;  // the task's seq - seq_base_
    uint32_t row_ = 0;
    uint32_t stride_ = 0;  // 0: contiguous
  };
  static_assert(sizeof(AccessRef) == 24, "a launch in the window keeps one per access");
  // The task of an entry, and an entry's offset of a task (the detector
  // checks at most 2^32 - 1 tasks of a launch; see AddTask).
  TaskSeq SeqOf(const AccessRef& ref) const { return seq_base_ + ref.local(); }
  TaskSeq SeqOf(uint32_t offset) const { return seq_base_ + offset; }
  // Whether `seq` is within the 2^32 - 1 tasks the detector follows (any seq is
  // before the first task is added).
  bool Fits(TaskSeq seq) const {
    return !any_added_ || (seq >= seq_base_ && seq - seq_base_ < UINT32_MAX);
  }
  uint32_t LocalOf(TaskSeq seq) const { return static_cast<uint32_t>(seq - seq_base_); }
  // Indexes `range` for `task`: in pieces of less than kMaxSpan bytes.
  void IndexAccess(TaskSeq task, const StridedRange& range, Use use);
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
  // A task's live producers: a handful, kept inside the node.
  // As offsets from the launch's first task (see AccessRef::local): a node
  // is 64 bytes, and six producers fit inside it.
  using Edges = absl::InlinedVector<uint32_t, 6>;
  // What a racy or multi-block task holds besides its accesses.
  struct WorkExtra {
    std::vector<Pending> pending;
    std::vector<HazardReport> block_reports;  // from its hand-off check
    std::vector<BlockLogEntry> block_log;
  };
  // What a task holds from its submission until it is checked; most live
  // tasks are checked and wait only to be retired, so this is apart from
  // the node and recycled. Every task in flight has one: a load and a store
  // fit inside it, and the rest is allocated only when needed.
  struct Work {
    absl::InlinedVector<Access, 2> accesses;
    std::unique_ptr<WorkExtra> extra;
  };
  static_assert(sizeof(Work) <= 96, "every task in flight keeps one");
  // A live task: its place in the graph, a few words each, since a launch
  // that fits in the task window keeps every task live to its end.
  struct Node {
    uint32_t offset = 0;  // seq - seq_base_ (SeqOf)
    // Every live task with offset in [full_low, offset) is an ancestor: the
    // chain fast path (a task depending on the task submitted just before
    // it inherits that task's full_low).
    uint32_t full_low = 0;
    Edges producers;
    std::unique_ptr<Work> work;  // until checked
    uint32_t label = 0;          // its name and source line, in labels_
    uint32_t local = 0;
    uint32_t visit_stamp = 0;
    int8_t ring = -1;
    bool done = false;  // EndTask came
  };
  static_assert(sizeof(Node) == 64, "a launch in the window keeps every task's node");
  TaskSeq SeqOf(const Node& node) const { return seq_base_ + node.offset; }
  struct HostRead {
    size_t after;  // tasks added before it
    StridedRange range;
    std::vector<TaskSeq> waited;
    std::string origin;
  };

  Node* Find(TaskSeq seq);
  Node& Ensure(TaskSeq seq);
  Work& WorkOf(Node& node);
  WorkExtra& ExtraOf(Node& node);
  uint32_t Intern(std::string_view name, std::string_view origin);
  HazardTask TaskOf(const Node& node) const;
  void Buffer(TaskSeq task, Use use, const StridedRange& range);
  void AppendBlockLog(Node& node, const BlockLogEntry& entry);
  // Marks `node` done and checks its blocks' hand-offs.
  void FinishBlocks(Node& node);
  // Checks the done tasks at the head of the submission order.
  void Advance(bool flushing);
  void Check(Node& node);
  // Compares one access of `node` with the kept earlier ones, then keeps it.
  void CheckAccess(Node& node, Use use, const StridedRange& range);
  // A strided access of at most kSparseRows rows, each at least
  // kSparseStrideRows rows apart, is checked and kept row by row.
  static constexpr int64_t kSparseRows = 8;
  static constexpr uint64_t kSparseStrideRows = 4;
  void CheckHostRead(const HostRead& read);
  // Retires `seq` and every live ancestor: they are ordered before every
  // task checked from now on.
  void RetireWithAncestors(TaskSeq seq);
  void SweepRetired();
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
  // Live tasks' indexes into nodes_; grows with the spread of live tasks.
  // By offset (the all-ones offset is SeqIndex's: Fits excludes it).
  SeqIndex<uint32_t, uint32_t> node_of_task_{size_t{1} << 12};
  // The node index of live task `seq`, or null (also for a seq that does
  // not fit: its offset would alias another task's).
  const uint32_t* IndexOf(TaskSeq seq) const {
    return Fits(seq) ? node_of_task_.Find(LocalOf(seq)) : nullptr;
  }
  // The node found last: accesses and edges come in runs for one task.
  static constexpr TaskSeq kNone = ~TaskSeq{0};
  TaskSeq last_seq_ = kNone;
  uint32_t last_index_ = 0;
  BlockPool<Node> nodes_;  // growing never moves (nor doubles) them
  std::vector<uint32_t> free_nodes_;
  // (name, source line) of tasks, each pair once: a launch repeats a few.
  std::vector<std::pair<std::string, std::string>> labels_;
  absl::flat_hash_map<std::pair<std::string, std::string>, uint32_t> label_ids_;
  std::deque<TaskSeq> unchecked_;  // in submission order
  size_t added_ = 0;               // tasks added so far
  size_t checked_ = 0;             // tasks checked so far
  std::deque<HostRead> host_reads_;
  // Per ring: (local id, seq) of its checked tasks the window has not yet
  // retired, oldest first.
  std::array<std::deque<std::pair<uint32_t, TaskSeq>>, kRings> ring_order_;
  int64_t peak_live_ = 0;
  size_t retired_since_sweep_ = 0;
  std::vector<uint32_t> retire_stack_;
  // Bucketed by (level, chunk) as BucketKey packs them; reads (and
  // predicate reads) apart from writes, so a read scans only the writes:
  // many tasks reading one input cost nothing. A bucket is found by hash:
  // an access spans at most two chunks of its own level and of every level
  // above. Its keys are also kept in order, so that a scan of a level far
  // below (many chunks) walks only the buckets there are.
  static constexpr int kLevels = 20;
  class Index {
   public:
    Bucket& FindOrAdd(uint64_t key);
    bool empty() const { return buckets_.empty(); }
    // Calls `visit(key, bucket)` for every bucket with a key in [first,
    // last], in key order; erases the bucket when it returns true (its
    // refs are empty). `visit` must not add or erase buckets.
    template <typename Visit>
    void ForEachIn(uint64_t first, uint64_t last, Visit visit);
    // Erases every ref `drop` selects; then every bucket left empty.
    template <typename Drop>
    void DropRefs(Drop drop);
    // The same for the bucket `key`, if there is one.
    template <typename Drop>
    void DropRefsIn(uint64_t key, Drop drop);

   private:
    // Probing each chunk of a span beats an ordered walk up to this many.
    static constexpr uint64_t kProbeChunks = 16;
    absl::flat_hash_map<uint64_t, Bucket> buckets_;
    absl::btree_set<uint64_t> keys_;
    std::vector<uint64_t> scan_;  // scratch for ForEachIn
  };
  static uint64_t BucketKey(int level, uint64_t chunk) {
    return static_cast<uint64_t>(level) << 58 | chunk;
  }
  int LevelOf(const StridedRange& range) const;
  Index read_index_;
  Index write_index_;
  int read_levels_ = 0;  // levels in use so far, from level 0
  int write_levels_ = 0;
  uint64_t chunk_bytes_[kLevels];      // per level
  std::vector<AccessRef> superseded_;  // scratch for CheckAccess
  // Buckets to sweep: (bucket key, whether in the write index),
  // deduplicated by SweepGranules so that each is swept once.
  std::vector<std::pair<uint64_t, bool>> swept_granules_;
  TaskSeq last_added_ = 0;
  bool any_added_ = false;
  TaskSeq seq_base_ = 0;  // the first task's seq (AccessRef::local)
  // Tasks past the detector's 2^32 - 1 of a launch: ignored (reported by
  // unchecked_tasks()).
  int64_t unchecked_tasks_ = 0;
  // The task added before last_added_, for the chain fast path (a task's
  // edges arrive right after it).
  TaskSeq before_last_added_ = 0;
  bool any_before_last_ = false;
  // The last BFS: every ancestor of bfs_root_ with seq >= bfs_bound_ carries
  // visit_stamp_. Valid until an edge into a task <= bfs_root_ is added or
  // a task retires.
  uint32_t visit_stamp_ = 0;
  TaskSeq bfs_root_ = 0;
  TaskSeq bfs_bound_ = 0;
  bool bfs_valid_ = false;
  std::vector<uint32_t> bfs_queue_;
  std::vector<HazardReport> ready_;
  std::vector<BlockLogEntry> spare_block_log_;  // empty, its capacity kept for reuse
  // Emptied work of checked tasks, its capacity kept for reuse.
  static constexpr size_t kSpareWork = 64;
  std::vector<std::unique_ptr<Work>> spare_work_;
};

}  // namespace pto

#endif  // PTO_MODELS_HAZARD_HAZARD_DETECTOR_H_
