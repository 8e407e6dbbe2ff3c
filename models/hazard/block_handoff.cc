#include "models/hazard/block_handoff.h"

#include <algorithm>
#include <climits>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/hazard/strided_range.h"

namespace pto {
namespace {

constexpr int kNone = -1;

// What a hand-off lacks.
enum Flag : uint32_t {
  kNoSyncall = 1 << 0,
  kWriterNoClean = 1 << 1,
  kWriterLineOnly = 1 << 2,  // cleaned with the region overload, another line
  kWriterNoFence = 1 << 3,
  kReaderNoInvalidate = 1 << 4,
  kReaderLineOnly = 1 << 5,
};

// Largest position in `sorted` below `pos`, or kNone.
int LastBefore(const std::vector<int>& sorted, int pos) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), pos);
  return it == sorted.begin() ? kNone : *(it - 1);
}

// One block's program, with its publish events indexed by position.
struct Block {
  int block = 0;
  int core = -1;
  std::vector<const BlockLogEntry*> entries;
  std::vector<int> phase;  // syncalls before each entry
  std::vector<int> clean_all;
  std::vector<int> clean_line_any;
  std::vector<int> fences;
  std::vector<int> syncalls;                                   // syncalls[k] ends phase k
  absl::flat_hash_map<uint64_t, std::vector<int>> clean_line;  // by line

  int CleanLineBefore(uint64_t line, int pos) const {
    auto it = clean_line.find(line);
    return it == clean_line.end() ? kNone : LastBefore(it->second, pos);
  }
};

// A block's writes to one line within one phase.
struct LineWrite {
  uint64_t line;
  int slot;  // index into the blocks
  int phase;
  int last_pos;   // its last write to the line in that phase
  uint64_t mask;  // which parts of the line it wrote
};

// Bit i = the i-th `granule` of a line.
uint64_t MaskOf(uint64_t from, uint64_t to, uint64_t line, uint64_t granule) {
  const uint64_t lo = (from - line) / granule;
  const uint64_t hi = (to - 1 - line) / granule;
  const uint64_t upto = hi >= 63 ? ~uint64_t{0} : (uint64_t{1} << (hi + 1)) - 1;
  return upto & ~((uint64_t{1} << lo) - 1);
}

// Whether the writer's last write to `line` in `phase` reached GM before the
// syncall that ends the phase.
uint32_t WriterFlags(const Block& writer, int phase, uint64_t line, int last_pos) {
  const int end =
      phase < static_cast<int>(writer.syncalls.size()) ? writer.syncalls[phase] : INT_MAX;
  const int clean = std::max(LastBefore(writer.clean_all, end), writer.CleanLineBefore(line, end));
  if (clean <= last_pos) {
    return LastBefore(writer.clean_line_any, end) > last_pos ? kWriterLineOnly : kWriterNoClean;
  }
  return LastBefore(writer.fences, end) > clean ? 0u : uint32_t{kWriterNoFence};
}

// Whether the reader dropped its copy of `line` after the syncall that ended
// the writer's phase and before reading at `pos`.
uint32_t ReaderFlags(const Block& reader, uint64_t line, int pos, int writer_phase) {
  const int invalidate =
      std::max(LastBefore(reader.clean_all, pos), reader.CleanLineBefore(line, pos));
  if (invalidate != kNone && reader.phase[invalidate] > writer_phase) return 0;
  const int any = LastBefore(reader.clean_line_any, pos);
  return any != kNone && reader.phase[any] > writer_phase ? kReaderLineOnly : kReaderNoInvalidate;
}

std::string BlockName(const Block& block) {
  if (block.core < 0) return absl::StrCat("block ", block.block);
  return absl::StrCat("block ", block.block, " (core ", block.core, ")");
}

struct Finding {
  HazardReport report;
  int writer_slot;
  int reader_slot;
  uint32_t flags = 0;
  int64_t lines_flagged = 0;
  int64_t lines_ok = 0;
};

void Describe(const std::vector<Block>& blocks, Finding* finding) {
  HazardReport& report = finding->report;
  const uint32_t flags = finding->flags;
  const bool sharing = report.kind == HazardKind::kFalseSharing;
  const Block& writer = blocks[finding->writer_slot];
  const Block& reader = blocks[finding->reader_slot];
  report.blocks = {{writer.block, writer.core}, {reader.block, reader.core}};
  std::vector<std::string> what;
  std::vector<std::string> fix;
  if (sharing) {
    what.push_back(absl::StrCat(BlockName(writer), " and ", BlockName(reader),
                                " write the same cache line(s); a write-back writes the whole "
                                "line, so the last one wins and the other's elements are lost"));
    fix.push_back("make every block write whole 64-byte lines (align each block's region)");
  }
  if (flags & kNoSyncall) {
    if (!sharing) {
      what.push_back(absl::StrCat(BlockName(reader), " reads bytes ", BlockName(writer),
                                  " writes with no syncall between them"));
      fix.push_back(
          "put a pl.system.syncall() between them, with cacheinvalid() + fence() before it "
          "in the writer and cacheinvalid() after it in the reader");
    } else {
      what.push_back("no syncall orders the two writes");
    }
  } else if (!sharing) {
    what.push_back(absl::StrCat(BlockName(reader), " reads bytes ", BlockName(writer),
                                " wrote before a syncall, without the publish protocol"));
  }
  if (flags & kWriterNoClean) {
    what.push_back(
        "the writer never cacheinvalid()s the line after writing it, so it stays "
        "dirty in the writer's cache");
    fix.push_back("pl.system.cacheinvalid() + pl.system.fence() before the syncall in the writer");
  }
  if (flags & kWriterLineOnly) {
    what.push_back(absl::StrCat(
        "the writer's region cacheinvalid(tensor, ...) writes back only the line holding the "
        "view's base address: ",
        finding->lines_ok, " of ", finding->lines_ok + finding->lines_flagged,
        " lines of the hand-off arrive, the rest stay dirty in the writer's cache"));
    fix.push_back(
        "whole-GM pl.system.cacheinvalid() (not the region overload) + fence() before the "
        "syncall in the writer");
  }
  if (flags & kWriterNoFence) {
    what.push_back(
        "the writer does not fence() after cacheinvalid(), so the write-back may "
        "not have landed at the syncall");
    fix.push_back("pl.system.fence() after cacheinvalid() and before the syncall in the writer");
  }
  if (flags & kReaderNoInvalidate) {
    what.push_back(
        "the reader does not cacheinvalid() after the syncall, so it may hit a "
        "stale copy of the line");
    fix.push_back("pl.system.cacheinvalid() after the syncall in the reader, before the read");
  }
  if (flags & kReaderLineOnly) {
    what.push_back(
        "the reader's region cacheinvalid refreshes only the line holding the "
        "view's base address");
    fix.push_back("whole-GM pl.system.cacheinvalid() after the syncall in the reader");
  }
  report.detail = absl::StrJoin(what, "; ");
  report.fix = absl::StrJoin(fix, "; ");
}

}  // namespace

void CheckBlockHandoffs(absl::Span<const BlockLogEntry> log, int64_t line_bytes,
                        const HazardTask& task, const TensorResolver& resolver,
                        std::vector<HazardReport>* reports) {
  const uint64_t line_size = static_cast<uint64_t>(line_bytes);
  const uint64_t line_mask = line_size - 1;
  const uint64_t granule = std::max<uint64_t>(1, (line_size + 63) / 64);

  // Blocks in index order, each with its program and publish events.
  std::vector<Block> blocks;
  // One program per (block, core): the AIC and AIV lanes of a MIX block run
  // on different cores with different caches.
  absl::flat_hash_map<std::pair<int, int>, int> slot_of_block;
  for (const BlockLogEntry& entry : log) {
    auto [it, inserted] =
        slot_of_block.try_emplace({entry.block, entry.core}, static_cast<int>(blocks.size()));
    if (inserted) {
      blocks.emplace_back();
      blocks.back().block = entry.block;
      blocks.back().core = entry.core;
    }
    blocks[it->second].entries.push_back(&entry);
  }
  if (blocks.size() < 2) return;
  std::sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) {
    return std::tie(a.block, a.core) < std::tie(b.block, b.core);
  });

  // What each block touches, in whole lines: its bounds, and its accesses
  // as a few strided ranges (a tile loop's transfers coalesce). A write
  // that no other block's lines reach conflicts with nothing, so its lines
  // need no record: SPMD blocks writing their own bands, or their own
  // columns of shared rows, cost nothing here.
  constexpr size_t kMaxSpans = 64;  // past this, a block's spans are its bounds
  const auto round_out = [&](const BlockLogEntry& entry) {
    StridedRange rounded;
    if (RoundOutToLines(entry.range(), line_size, &rounded)) return rounded;
    return StridedRange::Contiguous(entry.begin & ~line_mask, ((entry.end - 1) | line_mask) + 1);
  };
  std::vector<std::pair<uint64_t, uint64_t>> bounds(blocks.size(), {~uint64_t{0}, 0});
  std::vector<std::vector<StridedRange>> spans(blocks.size());
  for (size_t slot = 0; slot < blocks.size(); ++slot) {
    std::vector<StridedRange>& mine = spans[slot];
    for (const BlockLogEntry* entry : blocks[slot].entries) {
      if (entry->is_event || entry->end <= entry->begin) continue;
      bounds[slot].first = std::min(bounds[slot].first, entry->begin & ~line_mask);
      bounds[slot].second = std::max(bounds[slot].second, entry->end);
      const StridedRange range = round_out(*entry);
      bool merged = false;
      for (size_t back = 1; back <= std::min<size_t>(mine.size(), 4) && !merged; ++back) {
        StridedRange both;
        merged = Coalesce(mine[mine.size() - back], range, &both);
        if (merged) mine[mine.size() - back] = both;
      }
      if (!merged) mine.push_back(range);
    }
    if (mine.size() > kMaxSpans) {
      mine.assign(1, StridedRange::Contiguous(bounds[slot].first,
                                              ((bounds[slot].second - 1) | line_mask) + 1));
    }
  }
  const auto shared_write = [&](size_t slot, const BlockLogEntry& entry) {
    if (entry.is_event || entry.access != GmAccessKind::kWrite || entry.end <= entry.begin) {
      return false;
    }
    const uint64_t lo = entry.begin & ~line_mask;
    const StridedRange written = round_out(entry);
    for (size_t other = 0; other < blocks.size(); ++other) {
      if (other == slot || lo >= bounds[other].second || bounds[other].first >= entry.end) {
        continue;
      }
      for (const StridedRange& span : spans[other]) {
        uint64_t from;
        uint64_t to;
        if (Intersect(written, span, &from, &to)) return true;
      }
    }
    return false;
  };
  // One record per line each (block, phase) writes: appended as written,
  // then sorted and merged, with room reserved up front, so a task writing
  // megabytes costs one buffer of the lines' size, no per-line map.
  size_t written_lines = 0;
  for (size_t slot = 0; slot < blocks.size(); ++slot) {
    for (const BlockLogEntry* entry : blocks[slot].entries) {
      if (!shared_write(slot, *entry)) continue;
      entry->ForEachRow([&](uint64_t begin, uint64_t end) {
        written_lines += ((end - 1) | line_mask) / line_size - begin / line_size + 1;
      });
    }
  }
  std::vector<LineWrite> writes;
  writes.reserve(written_lines);
  for (int slot = 0; slot < static_cast<int>(blocks.size()); ++slot) {
    Block& block = blocks[slot];
    int phase = 0;
    for (int pos = 0; pos < static_cast<int>(block.entries.size()); ++pos) {
      const BlockLogEntry& entry = *block.entries[pos];
      block.phase.push_back(phase);
      if (entry.is_event) {
        switch (entry.event) {
          case BlockEventKind::kCacheInvalidAll:
            block.clean_all.push_back(pos);
            break;
          case BlockEventKind::kCacheInvalidLine:
            block.clean_line[entry.begin & ~line_mask].push_back(pos);
            block.clean_line_any.push_back(pos);
            break;
          case BlockEventKind::kFence:
            block.fences.push_back(pos);
            break;
          case BlockEventKind::kSyncall:
            block.syncalls.push_back(pos);
            ++phase;
            break;
        }
        continue;
      }
      if (!shared_write(static_cast<size_t>(slot), entry)) continue;
      entry.ForEachRow([&](uint64_t begin, uint64_t end) {
        for (uint64_t line = begin & ~line_mask; line < end; line += line_size) {
          const uint64_t mask =
              MaskOf(std::max(begin, line), std::min(end, line + line_size), line, granule);
          writes.push_back({line, slot, phase, pos, mask});
        }
      });
    }
  }
  std::sort(writes.begin(), writes.end(), [](const LineWrite& a, const LineWrite& b) {
    return std::tie(a.line, a.slot, a.phase, a.last_pos) <
           std::tie(b.line, b.slot, b.phase, b.last_pos);
  });
  // Merge the writes of one (line, block, phase): their parts, and the last.
  size_t kept = 0;
  for (size_t i = 0; i < writes.size(); ++i) {
    if (kept > 0 && writes[kept - 1].line == writes[i].line &&
        writes[kept - 1].slot == writes[i].slot && writes[kept - 1].phase == writes[i].phase) {
      writes[kept - 1].mask |= writes[i].mask;
      writes[kept - 1].last_pos = writes[i].last_pos;
    } else {
      writes[kept++] = writes[i];
    }
  }
  writes.resize(kept);

  // Every read (and write) against the other blocks' writes to its lines.
  std::vector<Finding> findings;
  absl::flat_hash_map<std::tuple<int, int, int, int64_t>, size_t> finding_of;
  for (int slot = 0; slot < static_cast<int>(blocks.size()); ++slot) {
    const Block& reader = blocks[slot];
    for (int pos = 0; pos < static_cast<int>(reader.entries.size()); ++pos) {
      const BlockLogEntry& entry = *reader.entries[pos];
      if (entry.is_event || entry.access == GmAccessKind::kAtomicAdd) continue;
      if (entry.end <= entry.begin) continue;
      const bool is_write = entry.access == GmAccessKind::kWrite;
      const HazardKind kind = is_write ? HazardKind::kFalseSharing : HazardKind::kUnpublished;
      // Most accesses touch no line another block wrote (weights, inputs):
      // one search rules the whole access out.
      const uint64_t first_line = entry.begin & ~line_mask;
      const auto written =
          std::lower_bound(writes.begin(), writes.end(), first_line,
                           [](const LineWrite& write, uint64_t key) { return write.line < key; });
      if (written == writes.end() || written->line >= entry.end) continue;
      const int phase = reader.phase[pos];
      bool resolved = false;
      HazardTensor tensor;
      entry.ForEachRow([&](uint64_t row_begin, uint64_t row_end) {
        const auto row_written =
            std::lower_bound(writes.begin(), writes.end(), row_begin & ~line_mask,
                             [](const LineWrite& write, uint64_t key) { return write.line < key; });
        if (row_written == writes.end() || row_written->line >= row_end) return;
        for (uint64_t line = row_written->line; line < row_end; line += line_size) {
          const uint64_t from = is_write ? line : std::max(row_begin, line);
          const uint64_t to = is_write ? line + line_size : std::min(row_end, line + line_size);
          const uint64_t mask = is_write ? ~uint64_t{0} : MaskOf(from, to, line, granule);
          auto first = std::lower_bound(
              writes.begin(), writes.end(), line,
              [](const LineWrite& write, uint64_t key) { return write.line < key; });
          for (auto it = first; it != writes.end() && it->line == line; ++it) {
            const LineWrite& write = *it;
            if (write.slot == slot || (write.mask & mask) == 0 || phase < write.phase) continue;
            uint32_t flags;
            if (phase == write.phase) {
              // Unordered. Two writers meet twice; report the pair once.
              if (is_write && write.slot > slot) continue;
              flags = kNoSyncall;
            } else {
              flags = WriterFlags(blocks[write.slot], write.phase, line, write.last_pos) |
                      ReaderFlags(reader, line, pos, write.phase);
            }
            if (!resolved) {
              if (!resolver || !resolver(entry.begin, &tensor)) tensor = HazardTensor();
              resolved = true;
            }
            auto [found, inserted] = finding_of.try_emplace(
                {static_cast<int>(kind), write.slot, slot, tensor.id}, findings.size());
            if (inserted) {
              findings.emplace_back();
              Finding& finding = findings.back();
              finding.writer_slot = write.slot;
              finding.reader_slot = slot;
              finding.report.kind = kind;
              finding.report.task = task;
              finding.report.tensor = tensor;
            }
            Finding& finding = findings[found->second];
            if (flags == 0) {
              ++finding.lines_ok;
              continue;
            }
            HazardReport& report = finding.report;
            if (finding.flags == 0) {
              report.region_begin = from;
              report.region_end = to;
            } else {
              report.region_begin = std::min(report.region_begin, from);
              report.region_end = std::max(report.region_end, to);
            }
            finding.flags |= flags;
            ++finding.lines_flagged;
          }
        }
      });
    }
  }
  for (Finding& finding : findings) {
    if (finding.flags == 0) continue;
    Describe(blocks, &finding);
    reports->push_back(std::move(finding.report));
  }
}

}  // namespace pto
