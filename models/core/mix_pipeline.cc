#include "models/core/mix_pipeline.h"

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/dtype.h"

namespace pto {
namespace {

constexpr int kCube = 0;
constexpr int kVector = 1;

int EngineIndex(EngineKind engine) { return engine == EngineKind::kCube ? kCube : kVector; }

// A tile instance that crosses from one engine to the other.
struct Push {
  int direction = kCube;  // the producing engine
  int64_t ordinal = 0;    // its position among that direction's pushes
  int64_t bytes = 0;
  double landed = -1;  // in its ring slot (-1: not yet)
  double popped = -1;  // copied out by the consumer, the slot free (-1: not yet)
  bool pop_assigned = false;
};

// What one executed op does to the ring, and when it ended.
struct Step {
  std::array<int32_t, 2> pops = {-1, -1};  // pushes it copies out first
  int32_t push = -1;                       // the push its result becomes
};

// An op's time on its engine. A split halves the vector side's work between
// the two AIVs: compute halves; a GM transfer keeps its latency and moves
// half the bytes.
double OpNs(const OpRecord& record, bool halved, const MixRingParams& params) {
  if (!halved) return record.cost_ns;
  const double bytes_ns = GmBytesNs(record, params);
  if (bytes_ns <= 0) return record.cost_ns * 0.5;
  const double byte_ns = std::min(record.cost_ns, bytes_ns);
  return record.cost_ns - byte_ns * 0.5;
}

void AddBusy(std::vector<EngineBusy>* busy, EngineKind engine, double start, double end) {
  if (end <= start) return;
  if (!busy->empty() && busy->back().end_ns >= start) {
    busy->back().end_ns = std::max(busy->back().end_ns, end);
    return;
  }
  busy->push_back(EngineBusy{engine, start, end});
}

}  // namespace

absl::StatusOr<MixTimeline> ScheduleMixBlock(absl::Span<const OpRecord> records,
                                             const CompiledKernel& kernel,
                                             const MixRingParams& params) {
  const int64_t n = static_cast<int64_t>(records.size());
  std::vector<Step> steps(n);
  std::vector<Push> pushes;
  std::array<std::vector<int32_t>, 2> pushes_in_direction;
  std::array<std::vector<int32_t>, 2> stream;  // record indices per engine

  // Which results cross the ring, and who reads them.
  std::vector<int32_t> writer(kernel.tiles.size(), -1);
  std::vector<int32_t> carried;  // a loop's carried writers, taken all at once
  for (int32_t i = 0; i < n; ++i) {
    const bool in_program = !kernel.is_cost_summary && records[i].op_index < kernel.ops.size();
    if (records[i].carry != CarryCopy::kNone) {
      // A carry copy (or a phi's) is a rename and runs on no engine: the
      // carried tile now holds the value of whichever op last wrote its init
      // or next (the phi: its arm's value).
      if (!in_program) continue;
      const CompiledOp& renamer = kernel.ops[records[i].op_index];
      carried.clear();
      if (records[i].carry == CarryCopy::kThen || records[i].carry == CarryCopy::kElse) {
        // An IF's phis take the value of the arm that ran.
        const bool then_arm = records[i].carry == CarryCopy::kThen;
        for (const CompiledPhi& phi : renamer.phis) {
          carried.push_back(writer[then_arm ? phi.then_value : phi.else_value]);
        }
        for (size_t p = 0; p < renamer.phis.size(); ++p) writer[renamer.phis[p].tile] = carried[p];
        continue;
      }
      const bool init = records[i].carry == CarryCopy::kInit;
      for (const CompiledCarry& c : renamer.carries) {
        const int32_t from = init ? c.init : c.next;
        carried.push_back(from >= 0 ? writer[from] : writer[c.tile]);
      }
      for (size_t c = 0; c < renamer.carries.size(); ++c) {
        writer[renamer.carries[c].tile] = carried[c];
      }
      continue;
    }
    const int engine = EngineIndex(records[i].engine);
    stream[engine].push_back(i);
    if (!in_program) continue;
    const CompiledOp& op = kernel.ops[records[i].op_index];
    int pop_slot = 0;
    for (int32_t src : {op.src0, op.src1, op.src2}) {
      if (src < 0 || writer[src] < 0) continue;
      const int32_t w = writer[src];
      if (EngineIndex(records[w].engine) == engine) continue;
      if (steps[w].push < 0) {
        Push push;
        push.direction = EngineIndex(records[w].engine);
        push.ordinal = static_cast<int64_t>(pushes_in_direction[push.direction].size());
        const CompiledTile& tile = kernel.tiles[src];
        push.bytes = tile.elements() * DTypeSize(tile.dtype);
        steps[w].push = static_cast<int32_t>(pushes.size());
        pushes_in_direction[push.direction].push_back(steps[w].push);
        pushes.push_back(push);
      }
      // The consumer's first read copies the tile out of its slot.
      Push& push = pushes[steps[w].push];
      if (!push.pop_assigned && pop_slot < 2) {
        push.pop_assigned = true;
        steps[i].pops[pop_slot++] = steps[w].push;
      }
    }
    if (op.dst >= 0) writer[op.dst] = i;
  }

  // The two engines run as far as the ring lets them, in turns, until both
  // are done (a Kahn network: the times do not depend on the turn order).
  MixTimeline timeline;
  timeline.pushes = static_cast<int64_t>(pushes.size());
  timeline.op_start_ns.assign(static_cast<size_t>(n), -1);
  timeline.op_end_ns.assign(static_cast<size_t>(n), -1);
  const bool split = params.split != trace::SPLIT_NONE;
  // A transfer of `bytes` through the ring; each AIV moves its half.
  auto transfer_ns = [&](const Push& push) {
    const double bytes = static_cast<double>(push.bytes) * (split ? 0.5 : 1.0);
    return params.transfer_latency_ns + bytes / params.transfer_bytes_per_ns;
  };
  auto full_transfer_ns = [&](const Push& push) {
    return params.transfer_latency_ns +
           static_cast<double>(push.bytes) / params.transfer_bytes_per_ns;
  };
  std::array<size_t, 2> cursor = {0, 0};
  std::array<double, 2> free_at = {0, 0};
  std::array<std::vector<EngineBusy>, 2> busy;
  bool progress = true;
  while (progress) {
    progress = false;
    for (int engine : {kCube, kVector}) {
      const EngineKind kind = engine == kCube ? EngineKind::kCube : EngineKind::kVector;
      while (cursor[engine] < stream[engine].size()) {
        const int32_t i = stream[engine][cursor[engine]];
        Step& step = steps[i];
        // Pops: wait for the tile to land, then copy it out (the vector
        // side's halves in parallel); that frees its slot.
        bool blocked = false;
        for (int32_t pop : step.pops) {
          if (pop >= 0 && pushes[pop].landed < 0) blocked = true;
        }
        if (blocked) break;
        // Push: a slot must be free, i.e. the tile `slot_num` pushes back
        // in this direction copied out.
        double slot_free = 0;
        if (step.push >= 0) {
          const Push& push = pushes[step.push];
          if (push.ordinal >= params.slot_num) {
            const Push& previous =
                pushes[pushes_in_direction[push.direction][push.ordinal - params.slot_num]];
            if (previous.popped < 0) break;  // its consumer has not copied it out yet
            slot_free = previous.popped;
          }
        }
        double start = free_at[engine];
        for (int32_t pop : step.pops) {
          if (pop < 0) continue;
          Push& push = pushes[pop];
          const double copy_start = std::max(start, push.landed);
          timeline.data_wait_ns += copy_start - start;
          // Each AIV copies its half of a C2V tile; the cube copies the two
          // halves the AIVs pushed.
          const double copy_ns = engine == kVector ? transfer_ns(push) : full_transfer_ns(push);
          push.popped = copy_start + copy_ns;
          AddBusy(&busy[engine], kind, copy_start, push.popped);
          start = push.popped;
        }
        const double end = start + OpNs(records[i], engine == kVector && split, params);
        timeline.op_start_ns[i] = start;
        timeline.op_end_ns[i] = end;
        double release = end;
        if (step.push >= 0) {
          Push& push = pushes[step.push];
          const double push_start = std::max(end, slot_free);
          timeline.slot_wait_ns += push_start - end;
          // The cube pushes a whole tile; each AIV pushes its half.
          release = push_start + (engine == kVector ? transfer_ns(push) : full_transfer_ns(push));
          push.landed = release;
          AddBusy(&busy[engine], kind, start, end);
          AddBusy(&busy[engine], kind, push_start, release);
        } else {
          AddBusy(&busy[engine], kind, start, end);
        }
        free_at[engine] = release;
        ++cursor[engine];
        progress = true;
      }
    }
  }
  if (cursor[kCube] < stream[kCube].size() || cursor[kVector] < stream[kVector].size()) {
    return absl::AbortedError(absl::StrCat(
        "MIX kernel '", kernel.name,
        "': the cross-core ring deadlocked (the cube stopped at its op ", cursor[kCube], " of ",
        stream[kCube].size(), ", the vector side at its op ", cursor[kVector], " of ",
        stream[kVector].size(), ", each waiting on the other: a push finds all ", params.slot_num,
        " slots full of tiles the consumer has not reached); raise "
        "pl.cross_core_slot(slot_num=...) or reorder the loops"));
  }
  timeline.cube_end_ns = free_at[kCube];
  timeline.vector_end_ns = free_at[kVector];
  timeline.busy = std::move(busy[kCube]);
  timeline.busy.insert(timeline.busy.end(), busy[kVector].begin(), busy[kVector].end());
  return timeline;
}

double EngineOverlapNs(const MixTimeline& timeline) {
  // Each engine's intervals are disjoint and in time order: a merge sweep.
  std::vector<EngineBusy> cube, vector;
  for (const EngineBusy& b : timeline.busy) {
    (b.engine == EngineKind::kCube ? cube : vector).push_back(b);
  }
  double overlap = 0;
  size_t c = 0, v = 0;
  while (c < cube.size() && v < vector.size()) {
    overlap += std::max(0.0, std::min(cube[c].end_ns, vector[v].end_ns) -
                                 std::max(cube[c].start_ns, vector[v].start_ns));
    if (cube[c].end_ns < vector[v].end_ns) {
      ++c;
    } else {
      ++v;
    }
  }
  return overlap;
}

double EngineBusyNs(const MixTimeline& timeline, EngineKind engine) {
  double busy = 0;
  for (const EngineBusy& b : timeline.busy) {
    if (b.engine == engine) busy += b.end_ns - b.start_ns;
  }
  return busy;
}

double GmBytesNs(const OpRecord& record, const MixRingParams& params) {
  if (params.gm_read_bytes_per_ns <= 0 || params.gm_write_bytes_per_ns <= 0) return 0;
  return static_cast<double>(record.gm_bytes_read) / params.gm_read_bytes_per_ns +
         static_cast<double>(record.gm_bytes_written) / params.gm_write_bytes_per_ns;
}

}  // namespace pto
