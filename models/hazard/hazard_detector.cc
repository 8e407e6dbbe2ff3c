#include "models/hazard/hazard_detector.h"

#include <algorithm>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto {

static_assert(sizeof(BlockLogEntry) == 32, "a block log holds a multi-block task's accesses");
namespace {

// 'name' (#seq, kernel.py:27): the task as the user can find it.
std::string TaskName(const HazardTask& task) {
  if (task.origin.empty()) return absl::StrCat("'", task.name, "' (#", task.seq, ")");
  return absl::StrCat("'", task.name, "' (#", task.seq, ", ", task.origin, ")");
}

std::string TaskNames(const std::vector<HazardTask>& tasks, int64_t more) {
  std::string names = absl::StrJoin(tasks, ", ", [](std::string* out, const HazardTask& task) {
    absl::StrAppend(out, TaskName(task));
  });
  if (more > 0) absl::StrAppend(&names, " and ", more, " more");
  return names;
}

// The detail and fix of an inter-task report, once its `others` are final.
void Describe(HazardReport* report) {
  const std::string self = TaskName(report->task);
  const std::string others = TaskNames(report->others, report->more_others);
  const char* verb = report->others.size() + report->more_others == 1 ? "s" : "";
  const std::string deps = absl::StrCat("add deps=[", others, "] on ", self);
  switch (report->kind) {
    case HazardKind::kRaw:
      report->detail = absl::StrCat(self, " reads bytes that ", others, " write", verb,
                                    ", and no dependency path orders them");
      report->fix = deps;
      break;
    case HazardKind::kWaw:
      report->detail = absl::StrCat(self, " writes cache lines that ", others, " also write", verb,
                                    ", and no dependency path orders them");
      report->fix = deps;
      break;
    case HazardKind::kWar:
      report->detail =
          absl::StrCat(self, " overwrites bytes that ", others, " read", verb,
                       ", and no dependency path orders them (the runtime does not track WAR)");
      report->fix = absl::StrCat(
          deps, " (keep the reader INPUT: promoting it to INOUT serialises every reader)");
      break;
    case HazardKind::kPredicate:
      report->detail =
          absl::StrCat("the predicate of ", self, " reads an element that ", others, " write", verb,
                       ", which is not a (transitive) dependency of it, so the "
                       "predicate may read a stale value");
      report->fix = deps;
      break;
    case HazardKind::kStaleRead:
      report->detail = absl::StrCat("the orchestration's read at ", report->task.name,
                                    " reads an element that ", others, " write", verb,
                                    ", which the read does not wait for (it waits only for the "
                                    "element's registered producers), so it may read a stale "
                                    "value");
      report->fix = absl::StrCat("register ", others,
                                 " as the element's producer, so that the read waits for it: "
                                 "write it through an OUTPUT or INOUT argument, of a tensor "
                                 "without manual_dep=True (whose writers are never registered)");
      break;
    case HazardKind::kUnpublished:
    case HazardKind::kFalseSharing:
      break;  // intra-task reports are described by CheckBlockHandoffs
  }
}

}  // namespace

HazardDetector::HazardDetector(Options options, TensorResolver resolver)
    : options_(options), resolver_(std::move(resolver)) {
  labels_.emplace_back();  // label 0, a node's until AddTask
  label_ids_.emplace(labels_.back(), 0);
  uint64_t chunk = static_cast<uint64_t>(std::max<int64_t>(1, options_.index_granule_bytes));
  for (uint64_t& bytes : chunk_bytes_) {
    bytes = chunk;
    chunk = chunk > (uint64_t{1} << 60) ? chunk : chunk * 8;
  }
}

HazardDetector::Bucket& HazardDetector::Index::FindOrAdd(uint64_t key) {
  auto [it, added] = buckets_.try_emplace(key);
  if (added) keys_.insert(key);
  return it->second;
}

template <typename Visit>
void HazardDetector::Index::ForEachIn(uint64_t first, uint64_t last, Visit visit) {
  const auto visit_key = [&](uint64_t key) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) return;
    if (visit(key, it->second)) {
      buckets_.erase(it);
      keys_.erase(key);
    }
  };
  if (last - first < kProbeChunks) {
    for (uint64_t key = first; key <= last; ++key) visit_key(key);
    return;
  }
  // The keys first: visiting may erase the bucket just visited.
  scan_.clear();
  for (auto it = keys_.lower_bound(first); it != keys_.end() && *it <= last; ++it) {
    scan_.push_back(*it);
  }
  for (const uint64_t key : scan_) visit_key(key);
}

template <typename Drop>
void HazardDetector::Index::DropRefs(Drop drop) {
  absl::erase_if(buckets_, [&](auto& slot) {
    std::vector<AccessRef>& refs = slot.second.refs;
    refs.erase(std::remove_if(refs.begin(), refs.end(), drop), refs.end());
    slot.second.dead = 0;
    if (!refs.empty()) return false;
    keys_.erase(slot.first);
    return true;
  });
}

template <typename Drop>
void HazardDetector::Index::DropRefsIn(uint64_t key, Drop drop) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return;
  std::vector<AccessRef>& refs = it->second.refs;
  refs.erase(std::remove_if(refs.begin(), refs.end(), drop), refs.end());
  it->second.dead = 0;
  if (refs.empty()) {
    buckets_.erase(it);
    keys_.erase(key);
  }
}

int HazardDetector::LevelOf(const StridedRange& range) const {
  int level = 0;
  while (level + 1 < kLevels &&
         (range.end - 1) / chunk_bytes_[level] - range.begin / chunk_bytes_[level] > 1) {
    ++level;
  }
  return level;
}

HazardDetector::Node* HazardDetector::Find(TaskSeq seq) {
  if (seq == last_seq_) return &nodes_[last_index_];
  const uint32_t* index = IndexOf(seq);
  if (index == nullptr) return nullptr;
  last_seq_ = seq;
  last_index_ = *index;
  return &nodes_[*index];
}

HazardDetector::Work& HazardDetector::WorkOf(Node& node) {
  // A task checked already (a late access, or a report while flushing)
  // gets fresh work.
  if (node.work == nullptr) node.work = std::make_unique<Work>();
  return *node.work;
}

HazardDetector::WorkExtra& HazardDetector::ExtraOf(Node& node) {
  Work& work = WorkOf(node);
  if (work.extra == nullptr) work.extra = std::make_unique<WorkExtra>();
  return *work.extra;
}

uint32_t HazardDetector::Intern(std::string_view name, std::string_view origin) {
  // The last label is the likeliest: tasks come in runs of one kernel.
  const uint32_t last = static_cast<uint32_t>(labels_.size()) - 1;
  if (labels_[last].first == name && labels_[last].second == origin) return last;
  std::pair<std::string, std::string> label(name, origin);
  auto [it, inserted] = label_ids_.try_emplace(label, static_cast<uint32_t>(labels_.size()));
  if (inserted) labels_.push_back(std::move(label));
  return it->second;
}

HazardTask HazardDetector::TaskOf(const Node& node) const {
  const auto& [name, origin] = labels_[node.label];
  return {SeqOf(node), name, origin};
}

HazardDetector::Node& HazardDetector::Ensure(TaskSeq seq) {
  if (Node* found = Find(seq)) return *found;
  if (!any_added_) seq_base_ = seq;
  uint32_t index;
  if (!free_nodes_.empty()) {
    index = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    index = nodes_.Add();
  }
  node_of_task_.Insert(LocalOf(seq), index);
  peak_live_ = std::max(peak_live_, live_tasks());
  last_seq_ = seq;
  last_index_ = index;
  Node& node = nodes_[index];
  node.offset = LocalOf(seq);
  node.label = 0;
  node.ring = -1;
  node.local = 0;
  node.done = false;
  node.producers.clear();
  node.visit_stamp = 0;
  node.full_low = node.offset;
  if (spare_work_.empty()) {
    node.work = std::make_unique<Work>();
  } else {
    node.work = std::move(spare_work_.back());
    spare_work_.pop_back();
  }
  before_last_added_ = last_added_;
  any_before_last_ = any_added_;
  last_added_ = seq;
  any_added_ = true;
  unchecked_.push_back(seq);
  ++added_;
  return node;
}

void HazardDetector::AddTask(TaskSeq seq, std::string_view name, int ring, uint32_t local,
                             std::string_view origin) {
  if (!Fits(seq)) {  // past the 2^32 - 1 tasks an offset names
    ++unchecked_tasks_;
    return;
  }
  Node& node = Ensure(seq);
  node.label = Intern(name, origin);
  node.ring = ring < kRings ? ring : kRings - 1;
  node.local = local;
}

void HazardDetector::AddDependency(TaskSeq producer, TaskSeq consumer) {
  AddDependencies(absl::MakeConstSpan(&producer, 1), consumer);
}

void HazardDetector::AddDependencies(absl::Span<const TaskSeq> producers, TaskSeq consumer) {
  if (producers.empty() || !Fits(consumer)) return;
  Node& to = Ensure(consumer);
  const bool chain_tail = consumer == last_added_ && any_before_last_;
  for (const TaskSeq producer : producers) {
    if (producer == consumer) continue;
    // A retired producer (or one past the 2^32 - 1 followed) is ordered
    // before everything still to come.
    const uint32_t* found = IndexOf(producer);
    if (found == nullptr) continue;
    const uint32_t offset = LocalOf(producer);
    if (std::find(to.producers.begin(), to.producers.end(), offset) != to.producers.end()) {
      continue;
    }
    to.producers.push_back(offset);
    if (chain_tail && producer == before_last_added_) {
      to.full_low = std::min(to.full_low, nodes_[*found].full_low);
    }
  }
  if (consumer <= bfs_root_) bfs_valid_ = false;
}

bool HazardDetector::Reaches(TaskSeq from, TaskSeq to) {
  if (from == to) return true;
  if (from > to) return false;  // every edge points forward in submission order
  Node* target = Find(to);
  Node* source = Find(from);
  if (target == nullptr || source == nullptr) return false;
  if (LocalOf(from) >= target->full_low) return true;
  // A direct edge (a tensor-map or explicit producer): no walk.
  if (std::find(target->producers.begin(), target->producers.end(), LocalOf(from)) !=
      target->producers.end()) {
    return true;
  }
  if (bfs_valid_ && bfs_root_ == to && from >= bfs_bound_) {
    return source->visit_stamp == visit_stamp_;
  }
  if (++visit_stamp_ == 0) {  // wrapped: forget old stamps
    for (uint32_t i = 0; i < nodes_.size(); ++i) nodes_[i].visit_stamp = 0;
    visit_stamp_ = 1;
  }
  // Every ancestor of `to` down to `from`, so that later questions about
  // `to` and tasks no older than `from` need no walk.
  bfs_queue_.clear();
  bfs_queue_.push_back(*IndexOf(to));
  target->visit_stamp = visit_stamp_;
  for (size_t head = 0; head < bfs_queue_.size(); ++head) {
    for (const uint32_t offset : nodes_[bfs_queue_[head]].producers) {
      const TaskSeq producer = SeqOf(offset);
      if (producer < from) continue;  // nothing older than `from` leads to it
      const uint32_t* found = node_of_task_.Find(offset);
      if (found == nullptr) continue;  // retired, and so are its ancestors
      const uint32_t index = *found;
      if (nodes_[index].visit_stamp == visit_stamp_) continue;
      nodes_[index].visit_stamp = visit_stamp_;
      bfs_queue_.push_back(index);
    }
  }
  bfs_root_ = to;
  bfs_bound_ = from;
  bfs_valid_ = true;
  return source->visit_stamp == visit_stamp_;
}

HazardTensor HazardDetector::Resolve(uint64_t addr) const {
  HazardTensor tensor;
  if (resolver_ && resolver_(addr, &tensor)) return tensor;
  return HazardTensor();
}

void HazardDetector::Record(Node& later, const Node& earlier, HazardKind kind, uint64_t begin,
                            uint64_t end) {
  HazardTensor tensor = Resolve(begin);
  std::vector<Pending>& pendings = ExtraOf(later).pending;
  auto it = std::find_if(pendings.begin(), pendings.end(), [&](const Pending& pending) {
    return pending.kind == kind && pending.tensor_id == tensor.id;
  });
  if (it == pendings.end()) {
    Pending pending{kind, tensor.id, HazardReport()};
    pending.report.kind = kind;
    pending.report.task = TaskOf(later);
    pending.report.tensor = std::move(tensor);
    pending.report.region_begin = begin;
    pending.report.region_end = end;
    pendings.push_back(std::move(pending));
    it = pendings.end() - 1;
  }
  HazardReport& report = it->report;
  report.region_begin = std::min(report.region_begin, begin);
  report.region_end = std::max(report.region_end, end);
  for (const HazardTask& other : report.others) {
    if (other.seq == SeqOf(earlier)) return;
  }
  // Names past the cap are counted, not kept: a task racing with thousands
  // of others costs a counter, not a list. Checking in submission order
  // meets each earlier task once per (kind, tensor) unless its accesses
  // are split, so the count is exact in the common case and an upper bound
  // otherwise.
  if (report.others.size() >= kMaxOthers) {
    ++report.more_others;
    return;
  }
  report.others.push_back(TaskOf(earlier));
}

void HazardDetector::AddAccess(TaskSeq task, GmAccessKind kind, uint64_t addr, uint64_t size) {
  if (!Fits(task)) return;
  if (size == 0) return;
  AddRowsAccess(task, kind, addr, 1, size, size);
}

void HazardDetector::AddRowsAccess(TaskSeq task, GmAccessKind kind, uint64_t addr, int64_t rows,
                                   uint64_t row_bytes, uint64_t stride) {
  if (!Fits(task)) return;
  if (rows <= 0 || row_bytes == 0) return;
  const StridedRange range = StridedRange::Rows(addr, rows, row_bytes, stride);
  if (kind == GmAccessKind::kRead) {
    Buffer(task, Use::kRead, range);
    return;
  }
  // An atomic add is done where the data lives, byte for byte.
  if (kind == GmAccessKind::kAtomicAdd) {
    Buffer(task, Use::kAtomic, range);
    return;
  }
  // A write-back writes whole lines, so a write claims its lines.
  const uint64_t line = static_cast<uint64_t>(options_.line_bytes);
  StridedRange rounded;
  if (RoundOutToLines(range, line, &rounded)) {
    Buffer(task, Use::kWrite, rounded);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t begin = addr + static_cast<uint64_t>(r) * stride;
    RoundOutToLines(StridedRange::Contiguous(begin, begin + row_bytes), line, &rounded);
    Buffer(task, Use::kWrite, rounded);
  }
}

void HazardDetector::AddViewAccess(TaskSeq task, GmAccessKind kind, uint64_t first_byte,
                                   int64_t elem_bytes, absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> strides) {
  if (!Fits(task)) return;
  const int dims = static_cast<int>(shape.size());
  for (int64_t extent : shape) {
    if (extent <= 0) return;  // an empty view touches nothing
  }
  // Fold the innermost dimensions that are contiguous into one run; the
  // dimension outside them gives the rows of one strided range.
  int outer = dims - 1;
  int64_t run = 1;  // elements
  while (outer >= 0 && (shape[outer] == 1 || strides[outer] == run)) run *= shape[outer--];
  const uint64_t run_bytes = static_cast<uint64_t>(run * elem_bytes);
  if (outer < 0) {
    AddAccess(task, kind, first_byte, run_bytes);
    return;
  }
  const int64_t rows = shape[outer];
  const uint64_t row_stride = static_cast<uint64_t>(strides[outer] * elem_bytes);
  int64_t ranges = 1;
  for (int d = 0; d < outer && ranges <= kMaxViewRuns; ++d) ranges *= shape[d];
  if (ranges > kMaxViewRuns || strides[outer] < 0) {
    int64_t extent = 1;
    for (int d = 0; d < dims; ++d) extent += (shape[d] - 1) * strides[d];
    AddAccess(task, kind, first_byte, static_cast<uint64_t>(extent * elem_bytes));
    return;
  }
  absl::InlinedVector<int64_t, 8> index(static_cast<size_t>(outer), 0);
  for (int64_t r = 0; r < ranges; ++r) {
    int64_t offset = 0;
    for (int d = 0; d < outer; ++d) offset += index[d] * strides[d];
    AddRowsAccess(task, kind, first_byte + static_cast<uint64_t>(offset * elem_bytes), rows,
                  run_bytes, row_stride);
    for (int d = outer - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
}

void HazardDetector::AddPredicateRead(TaskSeq task, uint64_t addr, uint64_t size) {
  if (!Fits(task)) return;
  if (size == 0) return;
  Buffer(task, Use::kPredicate, StridedRange::Contiguous(addr, addr + size));
}

void HazardDetector::Buffer(TaskSeq task, Use use, const StridedRange& range) {
  absl::InlinedVector<Access, 2>& accesses = WorkOf(Ensure(task)).accesses;
  // A tile loop's transfers of one operand continue each other: merged
  // with one of the last few of the same use (the loop interleaves its
  // operands), they keep one entry. The union is exact, so the reports
  // are the same.
  constexpr size_t kLookBack = 4;
  const size_t n = accesses.size();
  for (size_t back = 1; back <= std::min(n, kLookBack); ++back) {
    Access& earlier = accesses[n - back];
    StridedRange merged;
    if (earlier.use == use && Coalesce(earlier.range, range, &merged)) {
      earlier.range = merged;
      return;
    }
  }
  accesses.push_back({range, use});
}

void HazardDetector::CheckAccess(Node& node, Use use, const StridedRange& range) {
  const TaskSeq task = SeqOf(node);
  const uint32_t local = node.offset;
  // Plain reads conflict with writes and atomics; atomics with reads and
  // writes; writes with all.
  const bool scans_reads = use == Use::kWrite || use == Use::kAtomic;
  const bool supersedes = use == Use::kWrite || use == Use::kAtomic;
  for (Index* index : {&write_index_, scans_reads ? &read_index_ : nullptr}) {
    if (index == nullptr) continue;
    const int levels = index == &write_index_ ? write_levels_ : read_levels_;
    for (int level = 0; level < levels && !index->empty(); ++level) {
      const uint64_t chunk = chunk_bytes_[level];
      index->ForEachIn(
          BucketKey(level, range.begin / chunk), BucketKey(level, (range.end - 1) / chunk),
          [&](uint64_t key, Bucket& refs) {
            const uint64_t g = key - BucketKey(level, 0);
            for (AccessRef& theirs : refs.refs) {
              if (theirs.dead()) continue;
              // Most that share a bucket share no bytes' span: rule those out
              // before anything that divides.
              const uint64_t from = std::max(range.begin, theirs.begin());
              if (from >= std::min(range.end, theirs.end())) continue;
              // Both are in every bucket of this level their bounds share;
              // judge them in the first.
              if (from / chunk != g || theirs.local() == local) continue;
              const bool single_bucket = theirs.begin() / chunk == (theirs.end() - 1) / chunk;
              const auto drop = [&] {
                if (single_bucket) {
                  theirs.kill();  // in this bucket only: drop it in place
                  ++refs.dead;
                } else {
                  superseded_.push_back(theirs);
                }
              };
              const TaskSeq their_seq = SeqOf(theirs);
              Node* other = Find(their_seq);
              if (other == nullptr) {  // retired: ordered before this task
                drop();
                continue;
              }
              uint64_t lo;
              uint64_t hi;
              if (!Intersect(range, theirs.range(), &lo, &hi)) continue;
              const Use early = theirs.use();
              if (early == Use::kAtomic && use == Use::kAtomic) continue;  // atomics commute
              HazardKind kind;
              if (early == Use::kWrite || early == Use::kAtomic) {
                kind = use == Use::kRead        ? HazardKind::kRaw
                       : use == Use::kPredicate ? HazardKind::kPredicate
                                                : HazardKind::kWaw;
              } else {
                kind = HazardKind::kWar;  // an earlier read, a later write
              }
              const bool ordered = Reaches(their_seq, task);
              if (!ordered) Record(node, *other, kind, lo, hi);
              // A covered access that is ordered before this write, or reported
              // against it, is dropped: whoever conflicts with it later
              // conflicts with this write too, unless ordered after this
              // task, and then after it too if it was ordered before. An
              // unordered atomic this atomic covers stays (they do not
              // conflict).
              if (supersedes && Covers(range, theirs.range())) drop();
            }
            // Compact once the dead are half the bucket: a row-by-row update of
            // a tensor then costs amortised O(1) per superseded row.
            if (refs.dead > 0 && refs.dead * 2 >= refs.refs.size()) {
              refs.refs.erase(std::remove_if(refs.refs.begin(), refs.refs.end(),
                                             [](const AccessRef& ref) { return ref.dead(); }),
                              refs.refs.end());
              refs.dead = 0;
            }
            return refs.refs.empty();
          });
    }
  }
  // One sweep per touched bucket, whatever the number of superseded entries.
  if (!superseded_.empty()) {
    const auto before = [](const AccessRef& a, const AccessRef& b) { return a.key() < b.key(); };
    std::sort(superseded_.begin(), superseded_.end(), before);
    swept_granules_.clear();
    for (const AccessRef& gone : superseded_) AddSweptGranules(gone.range(), gone.use());
    SweepGranules([&](const AccessRef& ref) {
      return std::binary_search(superseded_.begin(), superseded_.end(), ref, before);
    });
  }
  superseded_.clear();
  IndexAccess(task, range, use);
}

void HazardDetector::IndexAccess(TaskSeq task, const StridedRange& range, Use use) {
  if (range.end - range.begin >= kMaxSpan) {
    // Pieces of whole rows (or, for rows this long, of bytes): their union
    // is the range, so every overlap is still found.
    if (!range.contiguous() && range.row < kMaxSpan / 2 && range.stride <= UINT32_MAX) {
      const int64_t rows_per_piece =
          static_cast<int64_t>((kMaxSpan / 2 - range.row) / range.stride) + 1;
      for (int64_t first = 0; first < range.rows(); first += rows_per_piece) {
        const int64_t rows = std::min(rows_per_piece, range.rows() - first);
        IndexAccess(task,
                    StridedRange::Rows(range.begin + static_cast<uint64_t>(first) * range.stride,
                                       rows, range.row, range.stride),
                    use);
      }
    } else {
      for (uint64_t begin = range.begin; begin < range.end; begin += kMaxSpan / 2) {
        IndexAccess(
            task, StridedRange::Contiguous(begin, std::min(range.end, begin + kMaxSpan / 2)), use);
      }
    }
    return;
  }
  const bool in_write_index = use == Use::kWrite || use == Use::kAtomic;
  Index& own = in_write_index ? write_index_ : read_index_;
  const int level = LevelOf(range);
  int& levels = in_write_index ? write_levels_ : read_levels_;
  levels = std::max(levels, level + 1);
  const uint64_t chunk = chunk_bytes_[level];
  for (uint64_t g = range.begin / chunk; g <= (range.end - 1) / chunk; ++g) {
    own.FindOrAdd(BucketKey(level, g)).refs.emplace_back(LocalOf(task), range, use);
  }
}

void HazardDetector::AddBlockAccess(TaskSeq task, int block, int core, GmAccessKind kind,
                                    uint64_t addr, uint64_t size) {
  AddBlockRowsAccess(task, block, core, kind, addr, 1, size, size);
}

void HazardDetector::AddBlockRowsAccess(TaskSeq task, int block, int core, GmAccessKind kind,
                                        uint64_t addr, int64_t rows, uint64_t row_bytes,
                                        uint64_t stride) {
  if (!Fits(task)) return;
  if (rows <= 0) return;
  const StridedRange range = StridedRange::Rows(addr, rows, row_bytes, stride);
  BlockLogEntry entry;
  entry.block = block;
  entry.core = core;
  entry.access = kind;
  entry.set_range(range);
  AppendBlockLog(Ensure(task), entry);
}

void HazardDetector::AppendBlockLog(Node& node, const BlockLogEntry& entry) {
  std::vector<BlockLogEntry>& log = ExtraOf(node).block_log;
  if (log.capacity() == 0) log.swap(spare_block_log_);
  // A tile loop's transfers continue each other: an access merges into the
  // block's previous entry when that is an access of the same kind whose
  // union with it is one strided range. Nothing of the block's comes
  // between them, so the hand-off check sees the same program.
  constexpr size_t kLookBack = 8;  // the blocks of one task interleave
  if (!entry.is_event) {
    for (size_t back = 1; back <= std::min(log.size(), kLookBack); ++back) {
      BlockLogEntry& earlier = log[log.size() - back];
      if (earlier.block != entry.block || earlier.core != entry.core) continue;
      if (earlier.is_event || earlier.access != entry.access) break;
      StridedRange merged;
      if (!Coalesce(earlier.range(), entry.range(), &merged)) break;
      earlier.set_range(merged);
      return;
    }
  }
  log.push_back(entry);
}

void HazardDetector::AddBlockEvent(TaskSeq task, int block, int core, BlockEventKind event,
                                   uint64_t addr) {
  if (!Fits(task)) return;
  BlockLogEntry entry;
  entry.block = block;
  entry.core = core;
  entry.is_event = true;
  entry.event = event;
  entry.begin = addr;
  entry.end = addr;
  AppendBlockLog(Ensure(task), entry);
}

void HazardDetector::EndTask(TaskSeq task) {
  Node* node = Find(task);
  if (node == nullptr || node->done) return;
  FinishBlocks(*node);
  Advance(/*flushing=*/false);
}

void HazardDetector::FinishBlocks(Node& node_ref) {
  Node* node = &node_ref;
  node->done = true;
  if (node->work == nullptr || node->work->extra == nullptr) return;
  WorkExtra& work = *node->work->extra;
  if (!work.block_log.empty()) {
    CheckBlockHandoffs(work.block_log, options_.line_bytes, TaskOf(*node), resolver_,
                       &work.block_reports);
    // Keep the larger buffer for the next multi-block task (a large log
    // grown from scratch every task costs page faults); free the other.
    work.block_log.clear();
    if (work.block_log.capacity() > spare_block_log_.capacity()) {
      work.block_log.swap(spare_block_log_);
    }
    std::vector<BlockLogEntry>().swap(work.block_log);
  }
}

void HazardDetector::AddHostRead(uint64_t addr, uint64_t size, absl::Span<const TaskSeq> waited,
                                 std::string origin) {
  HostRead read;
  read.after = added_;
  read.range = StridedRange::Contiguous(addr, addr + std::max<uint64_t>(size, 1));
  read.waited.assign(waited.begin(), waited.end());
  read.origin = std::move(origin);
  host_reads_.push_back(std::move(read));
  Advance(/*flushing=*/false);
}

void HazardDetector::Advance(bool flushing) {
  while (true) {
    // A host read comes after the tasks added before it, and before the rest.
    if (!host_reads_.empty() && host_reads_.front().after <= checked_) {
      CheckHostRead(host_reads_.front());
      host_reads_.pop_front();
      continue;
    }
    if (unchecked_.empty()) return;
    Node* node = Find(unchecked_.front());
    if (!flushing && !node->done) return;
    unchecked_.pop_front();
    Check(*node);
    ++checked_;
  }
}

void HazardDetector::Check(Node& node) {
  // The window first: this task's slot was free only once its ring's
  // tasks up to local - W + 1 retired, so they (and all they depend on) are
  // ordered before it and everything after.
  if (node.ring >= 0) {
    const int64_t window = options_.task_window[node.ring];
    auto& order = ring_order_[node.ring];
    if (window > 0) {
      const int64_t limit = static_cast<int64_t>(node.local) - window + 1;
      while (!order.empty() && static_cast<int64_t>(order.front().first) <= limit) {
        RetireWithAncestors(order.front().second);
        order.pop_front();
      }
    }
    order.emplace_back(node.local, SeqOf(node));
  }
  if (!node.done) FinishBlocks(node);  // flushing
  // CheckAccess adds to this task's reports, never to its accesses.
  for (const Access& access : WorkOf(node).accesses) {
    const StridedRange& range = access.range;
    // A few rows far apart (an SPMD task's blocks' tiles, merged) are kept
    // and checked row by row: as one range they would meet every access
    // between them.
    if (!range.contiguous() && range.rows() <= kSparseRows &&
        range.stride >= kSparseStrideRows * range.row) {
      for (uint64_t row = range.begin; row < range.end; row += range.stride) {
        CheckAccess(node, access.use, StridedRange::Contiguous(row, row + range.row));
      }
    } else {
      CheckAccess(node, access.use, range);
    }
  }
  Emit(node);
  // Its buffers serve a later task: no allocation per task.
  std::unique_ptr<Work> work = std::move(node.work);
  if (spare_work_.size() < kSpareWork) {
    work->accesses.clear();
    spare_work_.push_back(std::move(work));
  }
}

void HazardDetector::CheckHostRead(const HostRead& read) {
  // The read waited for `waited`: they and their ancestors are ordered
  // before it. Any other kept writer of its bytes is not.
  std::vector<TaskSeq> unordered;
  HazardReport report;
  report.kind = HazardKind::kStaleRead;
  report.task = {last_added_, read.origin};
  report.region_begin = read.range.begin;
  report.region_end = read.range.end;
  const int levels = write_levels_;
  for (int level = 0; level < levels; ++level) {
    const uint64_t chunk = chunk_bytes_[level];
    write_index_.ForEachIn(
        BucketKey(level, read.range.begin / chunk), BucketKey(level, (read.range.end - 1) / chunk),
        [&](uint64_t, Bucket& bucket) {
          for (const AccessRef& theirs : bucket.refs) {
            uint64_t lo;
            uint64_t hi;
            if (theirs.dead() || !Intersect(read.range, theirs.range(), &lo, &hi)) continue;
            const TaskSeq their_seq = SeqOf(theirs);
            const Node* writer = Find(their_seq);
            if (writer == nullptr) continue;
            bool waited_for = false;
            for (TaskSeq waited : read.waited) {
              if (Find(waited) != nullptr && Reaches(their_seq, waited)) {
                waited_for = true;
                break;
              }
            }
            if (waited_for) continue;
            if (std::find(unordered.begin(), unordered.end(), their_seq) != unordered.end()) {
              continue;
            }
            unordered.push_back(their_seq);
            if (report.others.size() < kMaxOthers) {
              report.others.push_back(TaskOf(*writer));
            } else {
              ++report.more_others;
            }
          }
          return false;
        });
  }
  if (!unordered.empty()) {
    report.tensor = Resolve(read.range.begin);
    std::sort(report.others.begin(), report.others.end(),
              [](const HazardTask& a, const HazardTask& b) { return a.seq < b.seq; });
    Describe(&report);
    ready_.push_back(std::move(report));
  }
  for (TaskSeq waited : read.waited) RetireWithAncestors(waited);
}

void HazardDetector::RetireWithAncestors(TaskSeq seq) {
  const uint32_t* first = IndexOf(seq);
  if (first == nullptr) return;
  // Only checked tasks are ever retired: every task before the one being
  // checked is, and ancestors come before their descendants.
  retire_stack_.assign(1, *first);
  while (!retire_stack_.empty()) {
    const uint32_t index = retire_stack_.back();
    retire_stack_.pop_back();
    Node& node = nodes_[index];
    const TaskSeq seq = SeqOf(node);
    if (!node_of_task_.Find(node.offset)) continue;  // reached twice
    for (const uint32_t offset : node.producers) {
      if (const uint32_t* found = node_of_task_.Find(offset)) {
        retire_stack_.push_back(*found);
      }
    }
    node_of_task_.Erase(node.offset);
    if (options_.on_retire) options_.on_retire(seq);
    if (last_seq_ == seq) last_seq_ = kNone;
    node.producers.clear();
    node.work.reset();
    free_nodes_.push_back(index);
    ++retired_since_sweep_;
  }
  bfs_valid_ = false;
  // Index entries of retired tasks die when a scan meets them; sweep the
  // rest once as many tasks retired as are live, so memory stays
  // proportional to the live window at O(1) amortised per retirement.
  if (retired_since_sweep_ > 1024 && retired_since_sweep_ > node_of_task_.size()) SweepRetired();
}

void HazardDetector::SweepRetired() {
  retired_since_sweep_ = 0;
  for (Index* index : {&read_index_, &write_index_}) {
    index->DropRefs([this](const AccessRef& ref) {
      return ref.dead() || node_of_task_.Find(ref.local()) == nullptr;
    });
  }
}

void HazardDetector::Emit(Node& node) {
  if (node.work == nullptr || node.work->extra == nullptr) return;
  WorkExtra& work = *node.work->extra;
  for (Pending& pending : work.pending) {
    std::sort(pending.report.others.begin(), pending.report.others.end(),
              [](const HazardTask& a, const HazardTask& b) { return a.seq < b.seq; });
    Describe(&pending.report);
    ready_.push_back(std::move(pending.report));
  }
  work.pending.clear();
  for (HazardReport& report : work.block_reports) ready_.push_back(std::move(report));
  work.block_reports.clear();
}

void HazardDetector::AddSweptGranules(const StridedRange& range, Use use) {
  const bool write = use == Use::kWrite || use == Use::kAtomic;  // IndexAccess's choice
  const int level = LevelOf(range);
  const uint64_t chunk = chunk_bytes_[level];
  for (uint64_t g = range.begin / chunk; g <= (range.end - 1) / chunk; ++g) {
    // Consecutive accesses mostly share a bucket: skip the obvious repeats.
    const std::pair<uint64_t, bool> key{BucketKey(level, g), write};
    if (swept_granules_.empty() || swept_granules_.back() != key) swept_granules_.push_back(key);
  }
}

template <typename Drop>
void HazardDetector::SweepGranules(Drop drop) {
  std::sort(swept_granules_.begin(), swept_granules_.end());
  swept_granules_.erase(std::unique(swept_granules_.begin(), swept_granules_.end()),
                        swept_granules_.end());
  for (const auto& [g, write] : swept_granules_) {
    (write ? write_index_ : read_index_).DropRefsIn(g, [&drop](const AccessRef& ref) {
      return ref.dead() || drop(ref);
    });
  }
}

void HazardDetector::Flush() {
  Advance(/*flushing=*/true);
  // The end of the launch orders everything.
}

std::vector<HazardReport> HazardDetector::TakeReports() {
  std::vector<HazardReport> reports;
  reports.swap(ready_);
  return reports;
}

}  // namespace pto
