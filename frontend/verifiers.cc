#include "frontend/verifiers.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/buffer_planner.h"
#include "frontend/interpreter.h"
#include "models/core/tile_executor.h"

namespace pto::ptoc {
namespace {

using OpList = google::protobuf::RepeatedPtrField<trace::Op>;

void ForEachOp(const OpList& ops, const std::function<void(const trace::Op&)>& fn) {
  for (const trace::Op& op : ops) {
    fn(op);
    if (op.kind() == trace::Op::LOOP) ForEachOp(op.loop().body(), fn);
    if (op.kind() == trace::Op::IF) {
      ForEachOp(op.branch().then_body(), fn);
      ForEachOp(op.branch().else_body(), fn);
    }
  }
}

const char* BarrierName(trace::CoreType t) {
  switch (t) {
    case trace::AIV:
      return "aiv_only";
    case trace::AIC:
      return "aic_only";
    default:
      return "mix";
  }
}

// HardSyncallOccupancy (pypto@e2d0f78a src/ir/verifier/verify_hard_syncall_occupancy.cpp): a hard
// (FFTS) barrier waits for every physical core of its type, so the SPMD launch must fill them all,
// at once.
class HardSyncallOccupancy : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    if (!site.kernel.has_program()) return absl::OkStatus();
    std::vector<trace::CoreType> barriers;
    ForEachOp(site.kernel.program().ops(), [&](const trace::Op& op) {
      if (op.kind() == trace::Op::SYNCALL && op.sync().mode() == trace::Op::HARD) {
        barriers.push_back(op.sync().core_type());
      }
    });
    if (barriers.empty()) return absl::OkStatus();
    const trace::CoreType kernel = site.kernel.core_type();
    // pypto checks SPMD launch sites only (a single-block task is not checked).
    if (!site.options.spmd) return absl::OkStatus();
    for (trace::CoreType barrier : barriers) {
      const std::string detail = kernel == trace::MIX
                                     ? absl::StrCat(" in mixed kernel '", site.kernel.name(), "'")
                                     : absl::StrCat("(core_type=\"", BarrierName(barrier), "\")");
      if (kernel != trace::MIX && barrier != kernel) {
        const bool vector = kernel == trace::AIV;
        return interp.Error(
            site.loc,
            absl::StrCat("hard pl.system.syncall(core_type=\"", BarrierName(barrier),
                         "\") can never complete in a ",
                         vector ? "vector-only (AIV)" : "cube-only (AIC)", " launch: it waits for ",
                         vector ? "all CUBE cores" : "all VECTOR cores",
                         ", but a single-core-type SPMD launch provides none of them. Use a "
                         "barrier core_type that matches the launch, or launch this barrier "
                         "from a mixed (cube+vector) kernel."));
      }
      const bool aiv = kernel == trace::AIV;
      const int physical = aiv ? kPhysicalAivCores : kPhysicalAicCores;
      const std::string fill =
          kernel == trace::MIX ? absl::StrCat("fill all ", kPhysicalAicCores,
                                              " core-groups (one block per core-group, i.e. all ",
                                              kPhysicalAicCores, " AIC cores)")
                               : absl::StrCat("fill all ", physical, aiv ? " AIV" : " AIC",
                                              " cores (one block per physical core)");
      const trace::BlockSymbol right = aiv ? trace::AVAILABLE_AIV : trace::AVAILABLE_CLUSTER;
      const auto symbol = site.submit.block_symbol();
      if (symbol != trace::BLOCK_SYMBOL_UNSPECIFIED && symbol != right) {
        const char* used =
            symbol == trace::AVAILABLE_AIV ? "available_aiv_count" : "available_cluster_count";
        const char* want = aiv ? "available_aiv_count" : "available_cluster_count";
        return interp.Error(
            site.loc,
            absl::StrCat("hard pl.system.syncall", detail, " requires the SPMD launch to ", fill,
                         ", but the launch sizes itself on pl.system.", used, "(). Use pl.system.",
                         want,
                         "() instead, or mode=\"soft\" (GM-polling) for partial "
                         "occupancy."));
      }
      if (symbol == trace::BLOCK_SYMBOL_UNSPECIFIED &&
          site.submit.block_num() != static_cast<uint32_t>(physical)) {
        return interp.Error(
            site.loc,
            absl::StrCat("hard pl.system.syncall", detail, " requires the SPMD launch to ", fill,
                         ", but the launch has ", site.submit.block_num(),
                         " blocks. Use mode=\"soft\" (GM-polling) for partial "
                         "occupancy."));
      }
      if (!site.submit.sync_start()) {
        return interp.Error(
            site.loc,
            absl::StrCat("hard pl.system.syncall", detail,
                         " requires the SPMD launch to set sync_start=True so all blocks are "
                         "co-resident at the FFTS barrier; without it the runtime may dispatch "
                         "blocks in waves and the barrier deadlocks on device (507018). Add "
                         "sync_start=True to the launch, or use mode=\"soft\" (GM-polling)."));
      }
      if (kernel == trace::MIX) break;  // a Group kernel is reported once
    }
    return absl::OkStatus();
  }
};

// The cross-core ring (pypto@e2d0f78a src/ir/transforms/allocate_memory_addr_pass.cpp) is reserved
// at the bottom of the consumer's on-chip space (UB for cube->vector, L1 for vector->cube) and the
// tiles go above it. ptoc counts the ring plus the largest other tile of that side — a lower bound
// of what the allocator needs, so a rejection is certain.
class CrossCoreRingFit : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    if (site.kernel.core_type() != trace::MIX || !site.kernel.has_program()) {
      return absl::OkStatus();
    }
    const trace::KernelProgram& p = site.kernel.program();
    // Which engine writes and which reads each tile.
    std::vector<trace::Engine> writer(p.tiles_size(), trace::ENGINE_UNSPECIFIED);
    std::vector<std::set<int>> readers(p.tiles_size());
    ForEachOp(p.ops(), [&](const trace::Op& op) {
      if (op.engine() == trace::ENGINE_UNSPECIFIED) return;
      if (op.kind() != trace::Op::STORE && op.kind() != trace::Op::LOOP &&
          op.dst() < static_cast<uint32_t>(p.tiles_size())) {
        writer[op.dst()] = op.engine();
      }
      for (uint32_t s : op.srcs()) {
        if (s < static_cast<uint32_t>(p.tiles_size())) readers[s].insert(op.engine());
      }
    });
    const uint32_t slots = p.slot_num() ? p.slot_num() : kDefaultSlotNum;
    const bool split = p.split() != trace::SPLIT_NONE;
    for (const bool c2v : {true, false}) {
      const trace::Engine from = c2v ? trace::ENGINE_CUBE : trace::ENGINE_VECTOR;
      const trace::Engine to = c2v ? trace::ENGINE_VECTOR : trace::ENGINE_CUBE;
      uint64_t slot_bytes = 0, largest_other = 0;
      for (int t = 0; t < p.tiles_size(); ++t) {
        const uint64_t bytes = TileDeclBytes(p.tiles(t));
        if (writer[t] == from && readers[t].count(to)) {
          slot_bytes = std::max(slot_bytes, bytes);
        } else if (writer[t] == to || (writer[t] == trace::ENGINE_UNSPECIFIED &&
                                       readers[t].count(to) && !readers[t].count(from))) {
          // The vector side of a split kernel holds half of each tile per lane.
          largest_other = std::max(largest_other, c2v && split ? bytes / 2 : bytes);
        }
      }
      if (slot_bytes == 0) continue;
      const uint64_t ring = slot_bytes * slots;
      const uint64_t used = ring + largest_other;
      const uint64_t limit = c2v ? kVecBudgetBytes : kMatBudgetBytes;
      if (used <= limit) continue;
      return interp.Error(
          site.loc,
          absl::StrCat(
              "Function '", site.kernel.name(), "': ", c2v ? "Vec" : "Mat", " buffer usage (", used,
              " bytes) exceeds platform limit (", limit, " bytes). The first ", ring,
              " bytes of that space are reserved by system.reserve_buffer, so tiles are "
              "allocated above them — this is the cross-core pipe ring (",
              c2v ? "cube->vector" : "vector->cube", ", ", slots, " slot(s) x ", slot_bytes,
              " bytes). Lower its depth with "
              "optimizations=[pl.cross_core_slot(slot_num=N)] on the enclosing "
              "pl.at(...), or shrink the tile that crosses the cube/vector boundary"));
    }
    return absl::OkStatus();
  }
};

// pypto@e2d0f78a python/pypto/language/parser/ast_parser.py: an inline SPMD body must use its block
// index, and a dispatch body launches exactly one kernel.
class SpmdBody : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    // The rules are the `with pl.spmd` scope's; pl.spmd_submit names its kernel.
    if (!site.options.spmd || site.options.method != "pl.spmd()") return absl::OkStatus();
    if (site.builder.kernel_calls() > 1) {
      return interp.Error(
          site.loc,
          absl::StrCat("`with pl.spmd(...)` dispatch body launches ", site.builder.kernel_calls(),
                       " kernels; only one kernel dispatch per SPMD scope is supported. "
                       "Give each kernel its own pl.spmd scope"));
    }
    if (site.builder.kernel_calls() == 0 && !site.builder.reads_block_idx()) {
      return interp.Error(
          site.loc,
          "`with pl.spmd(...)` body neither reads the per-block index via "
          "`pl.tile.get_block_idx()` nor dispatches a `self.<kernel>(...)` call, so every block "
          "would run identical work. Use pl.tile.get_block_idx() to give each block its share, "
          "or launch a single block with pl.at");
    }
    return absl::OkStatus();
  }
};

// pypto@e2d0f78a python/pypto/language/parser/ast_parser.py (_validate_predicate_deps):
// a producer the source names is in deps=. (The operand's rank fits
// the runtime's five indices because every GM tensor's does: Launch and
// pl.create_tensor check it where the tensor is declared.)
class PredicateRules : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    if (!site.options.predicate) return absl::OkStatus();
    const SourceLocation loc =
        site.options.predicate_loc.line ? site.options.predicate_loc : site.loc;
    const trace::Predicate& p = *site.options.predicate;
    const int producer = interp.launch()->LastWriter(p.tensor_id());
    if (producer < 0) return absl::OkStatus();
    const std::string tid = interp.launch()->BoundName(producer);
    if (tid.empty()) return absl::OkStatus();  // not statically provable
    for (const Value& d : site.options.deps) {
      if (d.As<TaskIdArray>()) return absl::OkStatus();
      auto* id = d.As<TaskIdValue>();
      if (!id) continue;
      if (id->from_array() || id->index() == producer) return absl::OkStatus();
    }
    const trace::Tensor& t = interp.program().tensor(p.tensor_id());
    return interp.Error(
        loc, absl::StrCat("'", site.options.method, "' predicate reads '", t.name(),
                          "', which is produced by the task bound to '", tid, "', but '", tid,
                          "' is not in deps=. Add the producer to the dependency list: deps=[", tid,
                          "]. The predicate is read when the task becomes ready, so without "
                          "the edge it may read the value before the producer wrote it"));
  }
};

// no_dep_args (pypto@e2d0f78a python/pypto/language/parser/ast_parser.py): every entry is a tensor
// the body actually captures.
class NoDepArgs : public TaskVerifier {
 public:
  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    for (size_t i = 0; i < site.options.no_dep.size(); ++i) {
      const uint32_t id = site.options.no_dep[i]->tensor_id();
      bool used = false;
      for (const auto& use : site.builder.tensors()) used |= use.ref->tensor_id() == id;
      if (!used) {
        const SourceLocation loc =
            site.options.no_dep_loc.line ? site.options.no_dep_loc : site.loc;
        return interp.Error(
            loc, absl::StrCat("pl.at(no_dep_args=...) lists '", site.options.no_dep_names[i],
                              "', which the task body never reads or writes; "
                              "list only tensors the body captures"));
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

// pto_sim's per-block limit on executed op instances
// (TileExecutor::kMaxOpInstancesPerBlock: the bound that ends a runaway
// loop): a kernel that certainly reaches it is an error here, at its task,
// not an exit 3 minutes into a simulation. Counted as a lower bound: every
// op and IF once per run, loops with literal bounds times their trip count,
// a loop whose bounds are only known at run time as 0, the shorter IF arm.
class OpInstanceBound : public TaskVerifier {
 public:
  static constexpr uint64_t kLimit = TileExecutor::kMaxOpInstancesPerBlock;

  absl::Status Check(Interpreter& interp, const TaskSite& site) override {
    const trace::Op* heaviest = nullptr;
    const uint64_t count = LowerBound(site.kernel.program().ops(), &heaviest);
    if (count <= kLimit) return absl::OkStatus();
    std::string where;
    if (heaviest != nullptr) {
      const trace::Op::Loop& loop = heaviest->loop();
      where = absl::StrCat(
          "; its loop ",
          heaviest->origin().empty() ? "" : absl::StrCat("at ", heaviest->origin(), " "), "runs ",
          Trips(loop), " times");
    }
    return interp.Error(
        site.loc, absl::StrCat("kernel '", site.kernel.name(), "' executes at least ",
                               count >= kSaturated ? std::string("2^62") : absl::StrCat(count),
                               " op instances per block", where, "; pto_sim runs at most ", kLimit,
                               " per block: split the work over more blocks (pl.spmd) or tasks"));
  }

 private:
  static constexpr uint64_t kSaturated = uint64_t{1} << 62;

  static uint64_t Trips(const trace::Op::Loop& loop) {
    if (loop.start().kind_case() != trace::IntExpr::kConstant ||
        loop.stop().kind_case() != trace::IntExpr::kConstant ||
        loop.step().kind_case() != trace::IntExpr::kConstant || loop.step().constant() <= 0) {
      return 0;
    }
    const int64_t start = loop.start().constant(), stop = loop.stop().constant();
    if (stop <= start) return 0;
    const uint64_t span = static_cast<uint64_t>(stop) - static_cast<uint64_t>(start);
    const uint64_t step = static_cast<uint64_t>(loop.step().constant());
    return span / step + (span % step != 0);
  }

  static uint64_t Add(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }
  static uint64_t Mul(uint64_t a, uint64_t b) {
    return b != 0 && a > kSaturated / b ? kSaturated : a * b;
  }

  // The fewest op instances `ops` executes; `heaviest` is the literal-bound
  // loop that contributes the most.
  static uint64_t LowerBound(const OpList& ops, const trace::Op** heaviest) {
    uint64_t count = 0, heaviest_count = 0;
    for (const trace::Op& op : ops) {
      if (op.kind() == trace::Op::LOOP) {
        const trace::Op* inner = nullptr;
        const uint64_t body = Mul(Trips(op.loop()), LowerBound(op.loop().body(), &inner));
        count = Add(count, body);
        if (body > heaviest_count) {
          heaviest_count = body;
          *heaviest = inner != nullptr && Trips(op.loop()) == 1 ? inner : &op;
        }
      } else if (op.kind() == trace::Op::IF) {
        const trace::Op* unused = nullptr;
        count = Add(count, 1 + std::min(LowerBound(op.branch().then_body(), &unused),
                                        LowerBound(op.branch().else_body(), &unused)));
      } else {
        count = Add(count, 1);
      }
    }
    return count;
  }
};

std::vector<std::unique_ptr<TaskVerifier>> StandardVerifiers() {
  std::vector<std::unique_ptr<TaskVerifier>> v;
  // HardSyncallOccupancy first: the runtime-overhead page's snippet (`...` around the syncall)
  // must fail with its sync_start message, not the SPMD body rule.
  v.push_back(std::make_unique<HardSyncallOccupancy>());
  v.push_back(std::make_unique<SpmdBody>());
  v.push_back(std::make_unique<NoDepArgs>());
  v.push_back(std::make_unique<PredicateRules>());
  v.push_back(std::make_unique<CrossCoreRingFit>());
  v.push_back(std::make_unique<OpInstanceBound>());
  return v;
}

}  // namespace pto::ptoc
