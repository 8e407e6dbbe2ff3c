#include "frontend/buffer_planner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/kernel_builder.h"

namespace pto::ptoc {
namespace {

using OpList = google::protobuf::RepeatedPtrField<trace::Op>;
constexpr int64_t kNone = -1;

bool WritesDst(trace::Op::Kind kind) {
  switch (kind) {
    case trace::Op::STORE:
    case trace::Op::LOOP:
    case trace::Op::IF:
    case trace::Op::READ:
    case trace::Op::SYNCALL:
    case trace::Op::FENCE:
    case trace::Op::CACHE_INVALID:
      return false;
    default:
      return true;
  }
}

// The interval of program positions a tile is alive in.
struct Lifetime {
  int64_t def = kNone;
  int64_t use = kNone;
  void Write(int64_t p) { def = def == kNone ? p : std::min(def, p); }
  void Read(int64_t p) { use = std::max(use, p); }
};

struct LoopExtent {
  int64_t begin = 0;
  int64_t end = 0;
};

// Walks the ops in program order, numbering them.
class LifetimeWalk {
 public:
  explicit LifetimeWalk(const trace::KernelProgram& program)
      : program_(program), tiles_(program.tiles_size()) {}

  void Run() { Walk(program_.ops()); }
  std::vector<Lifetime>& tiles() { return tiles_; }
  const std::vector<LoopExtent>& loops() const { return loops_; }
  // The op at each position (a LOOP's position is its entry).
  const std::vector<const trace::Op*>& ops() const { return ops_; }
  int64_t PositionOf(const trace::Op* op) const { return position_.at(op); }

 private:
  Lifetime& At(uint32_t tile) { return tiles_[tile]; }

  void Walk(const OpList& ops) {
    for (const trace::Op& op : ops) {
      const int64_t p = static_cast<int64_t>(ops_.size());
      ops_.push_back(&op);
      position_[&op] = p;
      if (op.kind() == trace::Op::LOOP) {
        // Entry: each carry takes its init.
        for (const auto& c : op.loop().carries()) {
          if (c.has_init()) At(c.init()).Read(p);
          At(c.tile()).Write(p);
        }
        const size_t index = loops_.size();
        loops_.push_back({p, p});
        Walk(op.loop().body());
        const int64_t end = static_cast<int64_t>(ops_.size()) - 1;
        loops_[index].end = end;
        // Every iteration's end: each carry takes its next.
        for (const auto& c : op.loop().carries()) {
          At(c.next()).Read(end);
          At(c.tile()).Write(end);
        }
        continue;
      }
      if (op.kind() == trace::Op::IF) {
        // Each arm's end: the phis take its values. The arms' tiles share
        // positions with nothing of the other arm's (only one arm runs), and
        // a tile from before that an arm reads lives past both.
        Walk(op.branch().then_body());
        const int64_t then_end = static_cast<int64_t>(ops_.size()) - 1;
        for (const auto& phi : op.branch().phis()) {
          At(phi.then_value()).Read(then_end);
          At(phi.tile()).Write(then_end);
        }
        Walk(op.branch().else_body());
        const int64_t else_end = static_cast<int64_t>(ops_.size()) - 1;
        for (const auto& phi : op.branch().phis()) {
          At(phi.else_value()).Read(else_end);
          At(phi.tile()).Write(else_end);
        }
        continue;
      }
      for (uint32_t s : op.srcs()) At(s).Read(p);
      if (WritesDst(op.kind())) At(op.dst()).Write(p);
    }
  }

  const trace::KernelProgram& program_;
  std::vector<Lifetime> tiles_;
  std::vector<LoopExtent> loops_;
  std::vector<const trace::Op*> ops_;
  absl::flat_hash_map<const trace::Op*, int64_t> position_;
};

// A tile read inside a loop it was written before lives to the loop's end:
// each iteration reads it. Inner loops first, so an outer loop sees the
// extended use.
void ExtendOverLoops(const std::vector<LoopExtent>& loops, std::vector<Lifetime>* tiles) {
  std::vector<LoopExtent> order = loops;
  std::sort(order.begin(), order.end(),
            [](const LoopExtent& a, const LoopExtent& b) { return a.begin > b.begin; });
  for (Lifetime& t : *tiles) {
    if (t.def == kNone) continue;
    for (const LoopExtent& loop : order) {
      if (t.def < loop.begin && t.use > loop.begin && t.use <= loop.end) t.use = loop.end;
    }
  }
}

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  uint32_t Root(uint32_t t) {
    while (parent_[t] != t) t = parent_[t] = parent_[parent_[t]];
    return t;
  }
  void Join(uint32_t a, uint32_t b) {
    const uint32_t ra = Root(a), rb = Root(b);
    parent_[std::max(ra, rb)] = std::min(ra, rb);
  }

 private:
  std::vector<uint32_t> parent_;
};

// Carries and in-place accumulation: tiles that must be one buffer.
void JoinSemanticAliases(const OpList& ops, const std::vector<Lifetime>& life,
                         const LifetimeWalk& walk, UnionFind* aliases) {
  for (const trace::Op& op : ops) {
    if (op.kind() == trace::Op::LOOP) {
      std::set<uint32_t> carried;
      for (const auto& c : op.loop().carries()) carried.insert(c.tile());
      for (const auto& c : op.loop().carries()) {
        if (c.has_init()) aliases->Join(c.tile(), c.init());
        // A swap of carried tiles copies; the others take next in place.
        if (!carried.count(c.next())) aliases->Join(c.tile(), c.next());
      }
      JoinSemanticAliases(op.loop().body(), life, walk, aliases);
      continue;
    }
    if (op.kind() == trace::Op::IF) {
      // A phi and its values are one buffer: taking a value is a rename.
      for (const auto& phi : op.branch().phis()) {
        aliases->Join(phi.tile(), phi.then_value());
        aliases->Join(phi.tile(), phi.else_value());
      }
      JoinSemanticAliases(op.branch().then_body(), life, walk, aliases);
      JoinSemanticAliases(op.branch().else_body(), life, walk, aliases);
      continue;
    }
    if (op.kind() == trace::Op::MATMUL && op.accumulate() && op.srcs_size() > 2) {
      const uint32_t acc = op.srcs(2);
      if (life[acc].use == walk.PositionOf(&op)) aliases->Join(op.dst(), acc);
    }
    // A view is its source's bytes; an assemble writes into its target's
    // buffer when the target is not read again (the TINSERT is in place).
    if (op.kind() == trace::Op::RESHAPE || op.kind() == trace::Op::TRANSPOSE_VIEW) {
      aliases->Join(op.dst(), op.srcs(0));
    }
    if (op.kind() == trace::Op::ASSEMBLE && life[op.srcs(0)].use == walk.PositionOf(&op)) {
      aliases->Join(op.dst(), op.srcs(0));
    }
  }
}

// Whether `op` may write its output into the buffer of its input `src`:
// not when it reads that input while it writes (the no-alias ops of the
// MemoryReuse page).
bool MayWriteInPlace(const trace::KernelProgram& program, const trace::Op& op, uint32_t src) {
  switch (op.kind()) {
    case trace::Op::RECIP:
    case trace::Op::RSQRT:
    case trace::Op::ROW_SUM:
    case trace::Op::ROW_MAX:
    case trace::Op::ROW_MIN:
    case trace::Op::COL_SUM:
    case trace::Op::COL_MAX:
    case trace::Op::COL_MIN:
    case trace::Op::ROW_PROD:
    case trace::Op::COL_PROD:
    case trace::Op::CMP:     // a packed mask over its operands
    case trace::Op::SELECT:  // reads the mask's bits while it writes
    case trace::Op::EXPAND:
    case trace::Op::CONCAT:
    case trace::Op::EXTRACT:
    case trace::Op::MOVE:
    case trace::Op::MATMUL:
      return false;
    case trace::Op::ASSEMBLE:  // into its target, never over its source
      return src == op.srcs(0);
    case trace::Op::CAST:
      return DTypeSize(program.tiles(op.dst()).dtype()) <= DTypeSize(program.tiles(src).dtype());
    default:
      // A broadcast operand is read row after row while the result is written.
      return op.broadcast() == trace::Op::BROADCAST_NONE || src == op.srcs(0);
  }
}

// One alias group: the tiles that are one buffer by semantics.
struct Group {
  std::vector<uint32_t> tiles;
  Lifetime life;
  uint64_t bytes = 0;
  trace::MemSpace space = trace::MEM_SPACE_UNSPECIFIED;
  PipelineStage stage;  // common to its tiles, else none
  bool pinned = false;  // holds a pl.MemRef-bound tile
};

class Packer {
 public:
  Packer(const trace::KernelProgram& program, const std::vector<const trace::Op*>& at,
         std::vector<Group> groups)
      : program_(program), at_(at), groups_(std::move(groups)) {}

  const std::vector<Group>& groups() const { return groups_; }

  // Packs the groups of `space` with per-pipeline depths `depth`; returns
  // the buffers as lists of group indices.
  std::vector<std::vector<size_t>> Pack(trace::MemSpace space,
                                        const std::vector<int32_t>& depth) const {
    std::vector<size_t> order;
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].space == space && !groups_[g].pinned) order.push_back(g);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (groups_[a].bytes != groups_[b].bytes) return groups_[a].bytes > groups_[b].bytes;
      return groups_[a].life.def < groups_[b].life.def;
    });
    std::vector<std::vector<size_t>> buffers;
    for (size_t g : order) {
      auto fits = [&](const std::vector<size_t>& members) {
        return std::all_of(members.begin(), members.end(),
                           [&](size_t m) { return CanShare(groups_[g], groups_[m], depth); });
      };
      auto it = std::find_if(buffers.begin(), buffers.end(), fits);
      if (it == buffers.end()) {
        buffers.push_back({g});
      } else {
        it->push_back(g);
      }
    }
    return buffers;
  }

 private:
  // `later` is written at the op that last reads `earlier`: in place.
  bool InPlaceOk(const Group& earlier, const Group& later) const {
    const trace::Op& op = *at_[static_cast<size_t>(later.life.def)];
    for (uint32_t s : op.srcs()) {
      if (std::count(earlier.tiles.begin(), earlier.tiles.end(), s) &&
          !MayWriteInPlace(program_, op, s)) {
        return false;
      }
    }
    return true;
  }

  bool Disjoint(const Group& a, const Group& b) const {
    if (a.life.use < b.life.def || b.life.use < a.life.def) return true;
    if (a.life.use == b.life.def) return InPlaceOk(a, b);
    if (b.life.use == a.life.def) return InPlaceOk(b, a);
    return false;
  }

  bool CanShare(const Group& a, const Group& b, const std::vector<int32_t>& depth) const {
    if (!Disjoint(a, b)) return false;
    if (a.stage.group < 0 || a.stage.group != b.stage.group) return true;
    const int32_t d = depth[static_cast<size_t>(a.stage.group)];
    return a.stage.stage % d == b.stage.stage % d;
  }

  const trace::KernelProgram& program_;
  const std::vector<const trace::Op*>& at_;
  std::vector<Group> groups_;
};

uint64_t Footprint(const Packer& packer, const std::vector<std::vector<size_t>>& buffers) {
  uint64_t sum = 0;
  for (const auto& b : buffers) {
    uint64_t largest = 0;
    for (size_t g : b) largest = std::max(largest, packer.groups()[g].bytes);
    sum += largest;
  }
  return sum;
}

}  // namespace

uint64_t TileDeclBytes(const trace::TileDecl& tile) {
  uint64_t n = DTypeSize(tile.dtype());
  for (int64_t d : tile.shape()) n *= static_cast<uint64_t>(d);
  return n;
}

absl::StatusOr<BufferPlan> PlanBuffers(const trace::KernelProgram& program,
                                       const BufferPlanOptions& options,
                                       const std::string& kernel_name) {
  const size_t n = static_cast<size_t>(program.tiles_size());
  LifetimeWalk walk(program);
  walk.Run();
  std::vector<Lifetime>& life = walk.tiles();
  ExtendOverLoops(walk.loops(), &life);
  UnionFind aliases(n);
  JoinSemanticAliases(program.ops(), life, walk, &aliases);

  auto stage_of = [&](uint32_t t) {
    return t < options.stages.size() ? options.stages[t] : PipelineStage{};
  };
  std::vector<Group> groups;
  std::map<uint32_t, size_t> group_of_root;
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t root = aliases.Root(t);
    auto [it, fresh] = group_of_root.emplace(root, groups.size());
    if (fresh) {
      groups.emplace_back();
      groups.back().space = program.tiles(t).space();
      groups.back().stage = stage_of(t);
    }
    Group& g = groups[it->second];
    g.tiles.push_back(t);
    g.bytes = std::max(g.bytes, TileDeclBytes(program.tiles(t)));
    g.pinned = g.pinned || (t < options.pinned.size() && options.pinned[t]);
    const PipelineStage s = stage_of(t);
    if (s.group != g.stage.group || s.stage != g.stage.stage) g.stage = PipelineStage{};
    // A tile nothing writes or reads (never the case for ptoc's own) still
    // gets a buffer; it lives at no position.
    const Lifetime& l = life[t];
    if (l.def != kNone) g.life.Write(l.def);
    if (l.use != kNone) g.life.Read(l.use);
  }
  for (Group& g : groups) {
    if (g.life.def == kNone) g.life.def = g.life.use == kNone ? 0 : g.life.use;
    if (g.life.use < g.life.def) g.life.use = g.life.def;
  }

  Packer packer(program, walk.ops(), std::move(groups));
  BufferPlan plan;
  plan.buffer.assign(n, BufferPlan::kPinned);
  plan.same_as.assign(n, -1);
  for (const Group& g : packer.groups()) {
    if (!g.pinned) continue;
    int32_t bound = -1;
    for (uint32_t t : g.tiles) {
      if (t < options.pinned.size() && options.pinned[t]) bound = static_cast<int32_t>(t);
    }
    for (uint32_t t : g.tiles) {
      if (!(t < options.pinned.size() && options.pinned[t])) plan.same_as[t] = bound;
    }
  }
  std::set<trace::MemSpace> spaces;
  for (const Group& g : packer.groups()) spaces.insert(g.space);
  for (trace::MemSpace space : spaces) {
    std::vector<int32_t> depth;
    for (const PipelineGroup& p : options.groups) depth.push_back(std::max(1, p.depth));
    const uint64_t capacity = options.capacity ? options.capacity(space) : 0;
    std::vector<std::vector<size_t>> buffers = packer.Pack(space, depth);
    uint64_t used = Footprint(packer, buffers);
    while (capacity > 0 && used > capacity) {
      // Shed one copy of the pipeline that holds the most bytes here.
      std::vector<uint64_t> held(depth.size(), 0);
      for (const Group& g : packer.groups()) {
        if (g.space == space && g.stage.group >= 0) held[g.stage.group] += g.bytes;
      }
      int32_t shed = -1;
      for (size_t p = 0; p < depth.size(); ++p) {
        if (depth[p] > 1 && (shed < 0 || held[p] > held[static_cast<size_t>(shed)])) {
          shed = static_cast<int32_t>(p);
        }
      }
      if (shed < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Function '", kernel_name, "': its ", PlSpaceName(space), " tiles need ", used,
            " bytes of buffers even where their lifetimes let them share, over the ", capacity,
            " bytes of the space; use smaller tiles or fewer live at once"));
      }
      --depth[static_cast<size_t>(shed)];
      buffers = packer.Pack(space, depth);
      used = Footprint(packer, buffers);
    }
    for (size_t p = 0; p < depth.size(); ++p) {
      const int32_t requested = std::max(1, options.groups[p].depth);
      bool present = false;
      for (const Group& g : packer.groups()) {
        present |= g.space == space && g.stage.group == static_cast<int32_t>(p);
      }
      if (!present || depth[p] == requested) continue;
      plan.warnings.push_back(
          absl::StrCat(options.groups[p].origin, ": warning: pl.pipeline(stage=", requested,
                       ") gets depth ", depth[p], " in ", PlSpaceName(space), ": ", requested,
                       " copies of its tiles do not fit the ", capacity,
                       " bytes of the space; shrink the per-stage tiles or lower stage="));
    }
    for (const auto& members : buffers) {
      const uint32_t id = plan.count++;
      uint64_t largest = 0;
      for (size_t g : members) {
        largest = std::max(largest, packer.groups()[g].bytes);
        for (uint32_t t : packer.groups()[g].tiles) plan.buffer[t] = id;
      }
      plan.buffer_bytes.push_back(largest);
    }
  }
  return plan;
}

}  // namespace pto::ptoc
