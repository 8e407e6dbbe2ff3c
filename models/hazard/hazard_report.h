#ifndef PTO_MODELS_HAZARD_HAZARD_REPORT_H_
#define PTO_MODELS_HAZARD_HAZARD_REPORT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/base/ids.h"

namespace pto {

enum class HazardKind : uint8_t {
  kRaw,           // a later task reads what an unordered earlier one writes
  kWaw,           // two unordered tasks write the same lines
  kWar,           // a later task overwrites what an unordered earlier one reads
  kPredicate,     // a predicate reads an element an unordered task writes
  kStaleRead,     // the orchestration reads an element an unwaited task writes
  kUnpublished,   // inside one task: a block reads another block's bytes
                  // without syncall + the publish protocol between them
  kFalseSharing,  // inside one task: two blocks write one cache line
};

const char* HazardKindName(HazardKind kind);  // "RAW", ..., "false sharing"

// How a GM access is used.
enum class GmAccessKind : uint8_t { kRead, kWrite, kAtomicAdd };

// In-kernel events that order or publish GM data between the blocks of one
// task, in each block's program order.
enum class BlockEventKind : uint8_t {
  kCacheInvalidAll,   // pl.system.cacheinvalid(): dcci over the whole cache
  kCacheInvalidLine,  // cacheinvalid(tensor, ...): the line holding the address only
  kFence,             // pl.system.fence()
  kSyncall,           // pl.system.syncall(), hard or soft
};

// The caller's name for GM bytes: which tensor of the kernel description.
struct HazardTensor {
  int64_t id = -1;
  std::string name = "<unknown tensor>";
  uint64_t base = 0;  // the tensor's first byte, to show regions as offsets
};

struct HazardTask {
  TaskSeq seq = 0;
  std::string name;
  std::string origin;  // its source line, when the trace recorded one
};

struct HazardBlock {
  int block = -1;  // block index inside the task
  int core = -1;   // physical core it ran on (-1 = not known)
};

// One finding, for the caller to print (FormatHazard) and to put in stats.
struct HazardReport {
  HazardKind kind = HazardKind::kRaw;
  // Inter-task kinds: `task` is the later-submitted side (the reader for RAW
  // and predicates, the later writer for WAW and WAR) and `others` the
  // earlier tasks it is not ordered after (writers, or readers for WAR), by
  // seq. kStaleRead: `task` names the read's origin (its seq is the last task
  // submitted before it). Intra-task kinds: `task` is the task, `blocks` = {writer, reader}
  // (kUnpublished) or the two writers (kFalseSharing).
  HazardTask task;
  std::vector<HazardTask> others;
  int64_t more_others = 0;  // earlier tasks past the ones `others` names
  std::vector<HazardBlock> blocks;
  HazardTensor tensor;
  uint64_t region_begin = 0;  // GM byte range the conflict covers
  uint64_t region_end = 0;
  std::string detail;  // what exactly is missing, one clause
  std::string fix;     // the edge or call that would fix it
};

// "hazard: RAW on scratch bytes [0, 32768): ..." — one line, no newline.
std::string FormatHazard(const HazardReport& report);

// Names the tensor holding `addr`; false when none does.
using TensorResolver = std::function<bool(uint64_t addr, HazardTensor* tensor)>;

}  // namespace pto

#endif  // PTO_MODELS_HAZARD_HAZARD_REPORT_H_
