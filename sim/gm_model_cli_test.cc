// GM caches and the FFTS / soft barriers wired into the chip (issue #6),
// asserted as properties of whole runs: each test runs pto_sim in its own
// process on a compiled trace from traces/ or on a variant of one.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/core/testing/kernel_builder.h"
#include "sim/testing/cli_runner.h"
#include "sim/testing/trace_builder.h"

namespace pto {
namespace {

using ::pto::kernel_testing::BlockIdx;
using ::pto::kernel_testing::C;
using ::pto::kernel_testing::KernelBuilder;
using ::pto::kernel_testing::LoopVar;
using ::pto::kernel_testing::Plus;
using ::pto::kernel_testing::Times;
using ::pto::testing::LoadTraceFile;
using ::pto::testing::SaveTraceFile;
using ::pto::testing::SimRun;
using ::pto::testing::TraceBuilder;
using ::testing::HasSubstr;
using ::testing::Not;
using trace::Op;

const std::string kPtoSim = PTO_SIM_BINARY;
const std::string kSource = PTO_SOURCE_DIR;
const std::string kBuild = PTO_BUILD_DIR;

std::string Config() { return kSource + "/configs/ascend.yaml"; }
std::string Compiled(const std::string& name) { return kBuild + "/traces/" + name + ".pb"; }

SimRun Simulate(const trace::TraceText& text, const std::string& name,
                std::vector<std::string> extra = {}) {
  return ::pto::testing::Simulate(kPtoSim, Config(), SaveTraceFile(text, name), extra);
}

double Makespan(const SimRun& run) { return run.stats["makespan_us"].get<double>(); }

// The kernel that holds a SYNCALL (the traces have one).
trace::KernelProgram* SyncKernel(trace::TraceText* text) {
  for (auto& kernel : *text->mutable_header()->mutable_kernels()) {
    for (const auto& op : kernel.program().ops()) {
      if (op.kind() == Op::SYNCALL) return kernel.mutable_program();
    }
  }
  return nullptr;
}

// Drops every op of `kind` from the program's top level.
void DropOps(trace::KernelProgram* program, Op::Kind kind) {
  auto* ops = program->mutable_ops();
  for (int i = ops->size() - 1; i >= 0; --i) {
    if (ops->Get(i).kind() == kind) ops->DeleteSubrange(i, 1);
  }
}

// The syncall kernel of `text` without its cacheinvalid() and fence() calls:
// blocks still meet at the barrier, but nothing publishes their GM writes.
trace::TraceText WithoutPublishProtocol(trace::TraceText text) {
  trace::KernelProgram* program = SyncKernel(&text);
  EXPECT_NE(program, nullptr);
  if (program != nullptr) {
    DropOps(program, Op::CACHE_INVALID);
    DropOps(program, Op::FENCE);
  }
  return text;
}

trace::Submit* OnlySubmit(trace::TraceText* text) {
  trace::Submit* found = nullptr;
  for (auto& record : *text->mutable_records()) {
    if (record.has_submit()) found = record.mutable_submit();
  }
  return found;
}

// ---------------------------------------------------------------------------
// Soft syncall with the publish protocol of the runtime-overhead page.

TEST(SoftBarrierTest, SeedKernelWithCacheInvalidAndFencePassesItsChecks) {
  const SimRun run = Simulate(LoadTraceFile(Compiled("soft_barrier")), "soft_ok");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 0 failed"));
  EXPECT_THAT(run.cli.out, Not(HasSubstr("hazard:")));
}

TEST(SoftBarrierTest, NeighbourHandOffWithThePublishProtocolIsCorrectAndUnreported) {
  const SimRun run = Simulate(LoadTraceFile(Compiled("soft_handoff")), "soft_handoff_ok");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 0 failed"));
  EXPECT_THAT(run.cli.out, HasSubstr("hazards: 0"));
}

TEST(SoftBarrierTest, NeighbourHandOffWithoutThePublishProtocolIsStaleAndExplained) {
  const trace::TraceText text = WithoutPublishProtocol(LoadTraceFile(Compiled("soft_handoff")));
  const SimRun run = Simulate(text, "soft_handoff_stale");
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 0 passed, 1 failed"));
  // 16 x 128 FP32 bands of 8 KiB: block 0 reads band 1, which block 1 wrote.
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: unpublished hand-off in task 'soft_handoff_spmd0'"));
  EXPECT_THAT(run.cli.out, HasSubstr("on scratch bytes [8192, 16384): block 0"));
  EXPECT_THAT(run.cli.out, HasSubstr("fix: pl.system.cacheinvalid() + pl.system.fence()"));
  EXPECT_THAT(run.cli.out, HasSubstr("hazards: 4"));
}

// ---------------------------------------------------------------------------
// Hard (FFTS) syncall over every AIV core.

TEST(HardBarrierTest, FullLaunchWithSyncStartIsCorrect) {
  const SimRun run = Simulate(LoadTraceFile(Compiled("hard_barrier")), "hard_ok");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 0 failed"));
  EXPECT_THAT(run.cli.out, Not(HasSubstr("hazard:")));
}

TEST(HardBarrierTest, WithoutThePublishProtocolTheNeighbourBandIsStale) {
  // Block i reads band i + 1 after the barrier. Without cacheinvalid + fence
  // the writer's lines stay dirty in its own cache (and the reader's are not
  // refreshed): the simulated result is wrong, as on the device.
  const trace::TraceText text = WithoutPublishProtocol(LoadTraceFile(Compiled("hard_barrier")));
  const SimRun run = Simulate(text, "hard_stale");
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 0 passed, 1 failed"));
  // The detector explains it: block 1 wrote the band block 0 reads.
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: unpublished hand-off in task 'hard_barrier_spmd0'"));
  EXPECT_THAT(run.cli.out, HasSubstr("on scratch bytes [8192, 16384)"));
}

TEST(HardBarrierTest, RegionOverloadOnAMultiLineHandOffPublishesOnlyTheFirstLine) {
  // The writer's cacheinvalid(scratch) cleans the line of the view's base
  // only; each 16 x 128 FP32 band is 128 lines, so the rest stays dirty.
  trace::TraceText text = LoadTraceFile(Compiled("hard_barrier"));
  trace::KernelProgram* program = SyncKernel(&text);
  ASSERT_NE(program, nullptr);
  for (auto& op : *program->mutable_ops()) {
    if (op.kind() == Op::CACHE_INVALID) {
      op.set_whole_cache(false);
      op.set_param(1);  // scratch
    }
  }
  const SimRun run = Simulate(text, "hard_region");
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: unpublished hand-off"));
}

TEST(HardBarrierTest, BeatsTheSameWorkAsTwoDependentTasks) {
  // The same two phases as two tasks ordered by a dependency: the second
  // task waits for the AICPU to see every FIN and dispatch again.
  const trace::TraceText barrier = LoadTraceFile(Compiled("hard_barrier"));
  trace::TraceText split = barrier;
  trace::KernelProgram* program = SyncKernel(&split);
  ASSERT_NE(program, nullptr);
  DropOps(program, Op::CACHE_INVALID);
  DropOps(program, Op::FENCE);
  int sync_at = 0;
  while (program->ops(sync_at).kind() != Op::SYNCALL) ++sync_at;
  // Kernel 0 keeps phase 1; a new kernel gets phase 2.
  auto* kernels = split.mutable_header()->mutable_kernels();
  trace::Kernel phase2 = kernels->Get(0);
  phase2.set_id(kernels->size());
  phase2.set_name(phase2.name() + "_phase2");
  phase2.mutable_program()->mutable_ops()->DeleteSubrange(0, sync_at + 1);
  program->mutable_ops()->DeleteSubrange(sync_at, program->ops_size() - sync_at);
  *kernels->Add() = phase2;
  // Insert the second submit after the first, depending on it.
  auto* records = split.mutable_records();
  int first = 0;
  while (!records->Get(first).has_submit()) ++first;
  trace::StreamRecord second = records->Get(first);
  trace::Submit* s2 = second.mutable_submit();
  s2->set_name(s2->name() + "_phase2");
  for (int k = 0; k < s2->kernel_ids_size(); ++k) {
    if (s2->kernel_ids(k) >= 0) s2->set_kernel_ids(k, static_cast<int32_t>(phase2.id()));
  }
  s2->set_sync_start(false);
  int submit_index = 0;
  for (int r = 0; r < first; ++r) {
    const auto& rec = records->Get(r);
    if (rec.has_submit() || rec.has_dummy() || rec.has_alloc()) ++submit_index;
  }
  s2->add_deps(submit_index);
  records->Add();
  for (int r = records->size() - 1; r > first + 1; --r) records->SwapElements(r, r - 1);
  *records->Mutable(first + 1) = second;

  const SimRun one = Simulate(barrier, "hard_one_task");
  const SimRun two = Simulate(split, "hard_two_tasks");
  ASSERT_EQ(one.cli.exit_code, 0) << one.cli.out << one.cli.err;
  ASSERT_EQ(two.cli.exit_code, 0) << two.cli.out << two.cli.err;
  EXPECT_LT(Makespan(one), Makespan(two));
}

TEST(HardBarrierTest, PartialLaunchEndsWithTheBarrierReportNotAHang) {
  // Four blocks where the FFTS barrier needs all 48 AIV cores.
  trace::TraceText text = LoadTraceFile(Compiled("hard_barrier"));
  trace::Submit* submit = OnlySubmit(&text);
  ASSERT_NE(submit, nullptr);
  submit->set_block_num(4);
  submit->set_sync_start(false);
  const SimRun run = Simulate(text, "hard_partial");
  EXPECT_EQ(run.cli.exit_code, 3) << run.cli.out << run.cli.err;
  const std::string all = run.cli.out + run.cli.err;
  EXPECT_THAT(all, HasSubstr("507018-style barrier deadlock"));
  EXPECT_THAT(all, HasSubstr("4 arrived"));
  EXPECT_THAT(all, HasSubstr("44 never arrived"));
}

// ---------------------------------------------------------------------------
// GM bandwidth and L2

constexpr int64_t kTileRows = 16;
constexpr int64_t kCols = 512;  // 2 KiB rows: no narrow-row penalty

// The tile a copy kernel moves, and the row length of the tensors it moves it
// between.
struct CopyShape {
  int64_t tile_rows = kTileRows;
  int64_t tile_cols = kCols;
  int64_t tensor_cols = kCols;
};

// Which half of a copy a kernel keeps.
enum class CopyOps { kBoth, kLoadsOnly, kStoresOnly };

// y[block band] = x[block band]: `tiles` tiles of `shape` per block (or
// only its loads, or only its stores).
uint32_t AddCopyKernel(trace::TraceText* text, int64_t tiles, CopyShape shape = {},
                       CopyOps ops = CopyOps::kBoth) {
  KernelBuilder kb("copy");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t t = kb.Tile("t", {shape.tile_rows, shape.tile_cols}, trace::FP32);
  const auto row = [&] {
    return Plus(Times(BlockIdx(), C(tiles * shape.tile_rows)),
                Times(LoopVar(0), C(shape.tile_rows)));
  };
  if (ops == CopyOps::kStoresOnly) kb.Full(t, 0.0);  // before the loop: the tile stored
  kb.BeginLoop(0, C(0), C(tiles));
  if (ops != CopyOps::kStoresOnly) kb.Load(t, x, {row(), C(0)});
  if (ops != CopyOps::kLoadsOnly) kb.Store(t, y, {row(), C(0)});
  kb.EndLoop();
  trace::Kernel* kernel = text->mutable_header()->add_kernels();
  *kernel = kb.kernel();
  kernel->set_id(text->header().kernels_size() - 1);
  return kernel->id();
}

// `copies` copy tasks, one after the other, of `blocks` blocks each moving
// `rows` rows of x into y.
trace::TraceText CopyTrace(int64_t blocks, int64_t rows, int copies = 1, CopyShape shape = {},
                           CopyOps ops = CopyOps::kBoth) {
  TraceBuilder builder("copy");
  const uint32_t x = builder.Tensor("x", rows, shape.tensor_cols);
  const uint32_t y = builder.Tensor("y", rows, shape.tensor_cols);
  trace::TraceText text = builder.Finish();
  const uint32_t kernel = AddCopyKernel(&text, rows / shape.tile_rows / blocks, shape, ops);
  // records: launch_begin, scope_begin, [submits], scope_end, launch_end.
  auto* records = text.mutable_records();
  for (int c = 0; c < copies; ++c) {
    trace::StreamRecord submit;
    trace::Submit* s = submit.mutable_submit();
    s->set_name(c == 0 ? "copy" : "copy_again");
    s->add_kernel_ids(-1);
    s->add_kernel_ids(static_cast<int32_t>(kernel));
    s->add_kernel_ids(-1);
    s->set_block_num(blocks);
    s->set_scope_depth(1);
    for (auto [tensor, dir] : {std::pair{x, trace::INPUT}, std::pair{y, trace::OUTPUT_EXISTING}}) {
      trace::TensorArg* arg = s->add_args()->mutable_tensor();
      arg->set_tensor_id(tensor);
      arg->set_direction(dir);
    }
    if (c > 0) s->add_deps(c - 1);
    *records->Add() = submit;
    for (int r = records->size() - 1; r > 2 + c; --r) records->SwapElements(r, r - 1);
  }
  return text;
}

TEST(GmBandwidthTest, MemoryBoundKernelTimeScalesWithBytes) {
  const SimRun small = Simulate(CopyTrace(48, 48 * 4 * kTileRows), "bw_small");
  const SimRun large = Simulate(CopyTrace(48, 48 * 8 * kTileRows), "bw_large");
  ASSERT_EQ(small.cli.exit_code, 0) << small.cli.out << small.cli.err;
  ASSERT_EQ(large.cli.exit_code, 0) << large.cli.out << large.cli.err;
  const double ratio = Makespan(large) / Makespan(small);
  EXPECT_GT(ratio, 1.6);  // twice the bytes, about twice the time
  EXPECT_LT(ratio, 2.4);
}

// Each block reads its band of x, tile after tile (16 x 512 FP32, 32 KiB),
// and stores nothing: a pure HBM read stream.
trace::TraceText ReadStreamTrace(int64_t blocks, int64_t rows) {
  return CopyTrace(blocks, rows, 1, CopyShape{}, CopyOps::kLoadsOnly);
}

// Issue 19's sharing test. N identical read streams of 48 MiB in all start
// together; with the latencies and cold starts set to zero, each load takes
// its bytes over its max-min share, min(cap, HBM / N), so the streams end
// together and move min(N x cap, peak x efficiency) bytes per ns between the
// first start and the last end. cap = core.gm_to_ub_bytes_per_cycle 62.3 x
// 1.85 GHz = 115.3 B/ns; HBM = 1.6 TB/s x 0.88 = 1408 B/ns (saturated from
// N = 13 on).
TEST(GmSharingTest, IdenticalStreamsShareHbmFairlyAndReachItsRate) {
  const std::vector<std::string> isolated = {
      "--set",        "gm.l2_miss_latency_ns=0",    "--set", "gm.l2_hit_latency_ns=0",
      "--set",        "core.gm_latency_ns=0",       "--set", "core.cold_start_ns=0",
      "--set",        "core.cold_propagation_ns=0", "--set", "core.cold_far_propagation_ns=0",
      "--timing-only"};
  const int64_t total_rows = 48 * 32 * kTileRows;  // 48 MiB of 2 KiB rows
  const double bytes = static_cast<double>(total_rows) * kCols * 4;
  for (int64_t n : {1, 2, 4, 8, 12, 16, 24, 48}) {
    const SimRun run =
        Simulate(ReadStreamTrace(n, total_rows), "read_stream_" + std::to_string(n), isolated);
    ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
    double first_start = 1e300, first_end = 1e300, last_end = 0;
    for (const auto& interval : run.stats["core_intervals"]) {
      first_start = std::min(first_start, interval[5].get<double>());
      first_end = std::min(first_end, interval[6].get<double>());
      last_end = std::max(last_end, interval[6].get<double>());
    }
    ASSERT_EQ(run.stats["core_intervals"].size(), static_cast<size_t>(n));
    const double bytes_per_ns = bytes / ((last_end - first_start) * 1e3);
    const double expected = std::min(static_cast<double>(n) * 62.3 * 1.85, 1408.0);
    EXPECT_NEAR(bytes_per_ns / expected, 1.0, 0.03) << "N = " << n;
    EXPECT_LT((last_end - first_end) / (last_end - first_start), 0.05) << "N = " << n;
    // Every byte came from HBM (a cold L2), and the stats say so.
    const nlohmann::json& gm = run.stats["gm"];
    EXPECT_EQ(gm["hbm_read_bytes"].get<double>(), bytes) << "N = " << n;
    EXPECT_EQ(gm["l2_read_miss_bytes"].get<double>(), bytes) << "N = " << n;
    EXPECT_EQ(gm["l2_read_hit_bytes"].get<double>(), 0) << "N = " << n;
    EXPECT_EQ(gm["transfers"].get<double>(), bytes / (kTileRows * kCols * 4)) << "N = " << n;
    EXPECT_NEAR(gm["hbm_gb_per_s"].get<double>() / bytes_per_ns, 1.0, 0.03) << "N = " << n;
  }
}

TEST(GmSharingTest, AStoreOnlyStreamReadsNothingFromHbm) {
  // Stores are posted into the write-back L2: no write-allocate fill, and
  // 48 MiB fits the 192 MiB L2, so nothing is evicted to HBM either.
  const int64_t rows = 48 * 32 * kTileRows;
  const SimRun run = Simulate(CopyTrace(48, rows, 1, CopyShape{}, CopyOps::kStoresOnly),
                              "store_stream", {"--timing-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  const nlohmann::json& gm = run.stats["gm"];
  EXPECT_EQ(gm["hbm_read_bytes"].get<double>(), 0);
  EXPECT_EQ(gm["hbm_write_bytes"].get<double>(), 0);
  EXPECT_EQ(gm["l2_write_bytes"].get<double>(), static_cast<double>(rows) * kCols * 4);
  EXPECT_EQ(gm["aiv_stall_us"].get<double>(), 0);
}

// `text` run with `flags` at the configured HBM bandwidth (1.6 TB/s) and at
// half of it.
struct FullAndHalf {
  SimRun full;
  SimRun half;
};
FullAndHalf AtFullAndHalfHbm(const trace::TraceText& text, const std::string& name,
                             std::vector<std::string> flags = {"--timing-only"}) {
  FullAndHalf runs;
  runs.full = Simulate(text, name + "_full", flags);
  flags.insert(flags.end(), {"--set", "gm.hbm_bandwidth_bytes_per_s=0.8e12"});
  runs.half = Simulate(text, name + "_half", flags);
  return runs;
}

TEST(GmSharingTest, HalvingHbmBandwidthHalvesASaturatedStream) {
  const auto [full, half] =
      AtFullAndHalfHbm(ReadStreamTrace(48, 48 * 32 * kTileRows), "read_stream");
  ASSERT_EQ(full.cli.exit_code, 0) << full.cli.out << full.cli.err;
  ASSERT_EQ(half.cli.exit_code, 0) << half.cli.out << half.cli.err;
  const double ratio = Makespan(half) / Makespan(full);
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 2.2);
}

TEST(GmSharingTest, NoLaunchReadsFasterThanTheConfiguredPeak) {
  // 48 cores' MTEs could move 5 TB/s; 48 MiB cannot arrive sooner than at
  // peak x efficiency, whatever the latencies.
  const int64_t rows = 48 * 32 * kTileRows;
  const SimRun run = Simulate(ReadStreamTrace(48, rows), "read_stream_peak", {"--timing-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  const double floor_us = static_cast<double>(rows) * kCols * 4 / 1408.0 / 1e3;
  EXPECT_GT(Makespan(run), floor_us);
}

// An extern known by its cost only: `blocks` blocks reading `bytes_in` of
// x and writing `bytes_out` of y (rows x 512 FP32 each), with `fixed_cycles`
// per block or, when 0, `vector_elements` of work for the whole call.
struct ExternCost {
  trace::CoreType type = trace::AIV;
  uint64_t fixed_cycles = 0;
  double vector_elements = 1;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;
};

trace::TraceText ExternTrace(int64_t blocks, int64_t rows, const ExternCost& cost) {
  TraceBuilder builder("extern");
  const uint32_t x = builder.Tensor("x", rows, kCols);
  const uint32_t y = builder.Tensor("y", rows, kCols);
  const uint32_t kernel = builder.CostKernel("stream_extern", cost.type, cost.fixed_cycles);
  builder.BeginScope();
  builder.Submit("stream_extern", kernel, {{x, trace::INPUT}, {y, trace::OUTPUT_EXISTING}}, {},
                 blocks);
  builder.EndScope();
  trace::TraceText text = builder.Finish();
  trace::CostSummary* summary = text.mutable_header()->mutable_kernels(kernel)->mutable_cost();
  if (cost.fixed_cycles == 0) summary->set_vector_elements(cost.vector_elements);
  summary->set_bytes_in(cost.bytes_in);
  summary->set_bytes_out(cost.bytes_out);
  return text;
}

int Occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// An extern's bytes_in/bytes_out move over the shared memory system like
// any transfer: an extern that streams 48 MiB from HBM takes twice as long
// at half the bandwidth, single-engine or MIX (whose three lanes share the
// bytes).
TEST(ExternTrafficTest, HalvingHbmBandwidthSlowsAMemoryBoundExtern) {
  const int64_t rows = 48 * 32 * kTileRows;
  const uint64_t bytes = static_cast<uint64_t>(rows) * kCols * 4;
  for (const auto& [type, blocks] : {std::pair{trace::AIV, 48}, std::pair{trace::MIX, 24}}) {
    SCOPED_TRACE(trace::CoreType_Name(type));
    const auto [full, half] =
        AtFullAndHalfHbm(ExternTrace(blocks, rows, {type, 0, 1, bytes, 0}), "extern");
    ASSERT_EQ(full.cli.exit_code, 0) << full.cli.out << full.cli.err;
    ASSERT_EQ(half.cli.exit_code, 0) << half.cli.out << half.cli.err;
    const double ratio = Makespan(half) / Makespan(full);
    EXPECT_GT(ratio, 1.8);
    EXPECT_LT(ratio, 2.2);
    // No faster than peak x efficiency (1408 B/ns), and every byte from HBM
    // but where two lanes' shares meet inside a 512 B line (one fetch).
    EXPECT_GT(Makespan(full), static_cast<double>(bytes) / 1408.0 / 1e3);
    const nlohmann::json& gm = full.stats["gm"];
    EXPECT_EQ(gm["l2_read_hit_bytes"].get<double>() + gm["l2_read_miss_bytes"].get<double>(),
              static_cast<double>(bytes));
    EXPECT_NEAR(gm["hbm_read_bytes"].get<double>(), static_cast<double>(bytes), 3 * blocks * 512);
  }
}

// The bytes come from and go to the extern's own tensors, so L2 holds what
// it wrote: a copy kernel reading y after the extern wrote it hits.
TEST(ExternTrafficTest, AnExternsOutputIsInL2ForItsConsumer) {
  const int64_t rows = 48 * 4 * kTileRows;
  const uint64_t bytes = static_cast<uint64_t>(rows) * kCols * 4;
  trace::TraceText text = CopyTrace(48, rows, 2);
  // The first copy becomes an extern that writes y; the second copies y.
  const uint32_t ext = static_cast<uint32_t>(text.header().kernels_size());
  trace::Kernel* kernel = text.mutable_header()->add_kernels();
  kernel->set_id(ext);
  kernel->set_name("writer");
  kernel->set_core_type(trace::AIV);
  kernel->mutable_cost()->set_vector_elements(1);
  kernel->mutable_cost()->set_bytes_out(bytes);
  for (trace::StreamRecord& record : *text.mutable_records()) {
    if (!record.has_submit()) continue;
    trace::Submit* submit = record.mutable_submit();
    if (submit->name() == "copy") {
      submit->set_kernel_ids(1, static_cast<int32_t>(ext));
    } else {
      // copy_again reads y into x.
      submit->mutable_args(0)->mutable_tensor()->set_tensor_id(1);
      submit->mutable_args(1)->mutable_tensor()->set_tensor_id(0);
    }
  }
  const SimRun run = Simulate(text, "extern_then_copy", {"--timing-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  const nlohmann::json& gm = run.stats["gm"];
  EXPECT_EQ(gm["l2_write_bytes"].get<double>(), 2.0 * bytes);  // the extern's, the copy's
  EXPECT_EQ(gm["l2_read_hit_bytes"].get<double>(), static_cast<double>(bytes));
  EXPECT_EQ(gm["hbm_read_bytes"].get<double>(), 0);
}

// A MIX cost summary's phases are split by in-kernel hard barriers: no lane
// starts phase 1 before every lane ended phase 0. One block reads y, then z
// (bytes_in = 6 x |y|, two phases, three lanes): the AIC's share of phase 0
// is exactly y, which a copy just left in L2 (hits), while the AIVs' shares
// come from z (misses, here at a 5 us miss latency). The AIC waits for them
// at the barrier, so the three lanes end together, not the AIC ~5 us early.
TEST(ExternTrafficTest, AMixExternsLanesMeetAtItsPhaseBarrier) {
  constexpr int64_t kRows = 16;  // y: 16 x 512 FP32 = 32 KiB
  const uint64_t y_bytes = kRows * kCols * 4;
  TraceBuilder builder("mix_barrier");
  const uint32_t x = builder.Tensor("x", kRows, kCols);
  const uint32_t y = builder.Tensor("y", kRows, kCols);
  const uint32_t z = builder.Tensor("z", 5 * kRows, kCols);
  const uint32_t placeholder = builder.CostKernel("copy", trace::AIV, 1);
  const uint32_t ext = builder.CostKernel("fused", trace::MIX, 0);
  builder.BeginScope();
  const uint32_t copy =
      builder.Submit("copy", placeholder, {{x, trace::INPUT}, {y, trace::OUTPUT_EXISTING}});
  builder.Submit("fused", ext, {{y, trace::INPUT}, {z, trace::INPUT}}, {copy});
  builder.EndScope();
  trace::TraceText text = builder.Finish();
  const uint32_t copy_kernel = AddCopyKernel(&text, 1);
  for (trace::StreamRecord& record : *text.mutable_records()) {
    if (record.has_submit() && record.submit().name() == "copy") {
      record.mutable_submit()->set_kernel_ids(1, static_cast<int32_t>(copy_kernel));
    }
  }
  trace::CostSummary* cost = text.mutable_header()->mutable_kernels(ext)->mutable_cost();
  cost->set_vector_elements(1);
  cost->set_barrier_phases(1);
  cost->set_bytes_in(6 * y_bytes);
  const SimRun run =
      Simulate(text, "mix_barrier", {"--timing-only", "--set", "gm.l2_miss_latency_ns=5000"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  std::vector<double> ends;  // the fused task's three lanes
  for (const auto& interval : run.stats["core_intervals"]) {
    if (interval[1].get<int>() == 1) ends.push_back(interval[6].get<double>());
  }
  ASSERT_EQ(ends.size(), 3u);
  const auto [lo, hi] = std::minmax_element(ends.begin(), ends.end());
  EXPECT_LT(*hi - *lo, 0.5) << "lanes end at " << ends[0] << ", " << ends[1] << ", " << ends[2];
  // y hit and z missed: the barrier is what keeps the AIC from ending early.
  EXPECT_EQ(run.stats["gm"]["l2_read_hit_bytes"].get<double>(), static_cast<double>(y_bytes));
}

// A fixed-time extern whose bytes cannot move in that time takes what they
// take, and the run warns once per kernel: 1 MiB per block at one core's
// GM -> UB cap (62.3 B/cycle x 1.85 GHz = 115.3 B/ns) is ~9.1 us against
// 1 us of fixed_cycles.
TEST(ExternTrafficTest, AFixedTimeExternWhoseBytesCannotMoveStretchesWithOneWarning) {
  const int64_t rows = 24 * 64;
  const uint64_t per_block = 1 << 20;
  const SimRun run = Simulate(ExternTrace(24, rows * 2, {trace::AIV, 1850, 0, 24 * per_block, 0}),
                              "extern_stretch", {"--timing-only"});
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_EQ(Occurrences(run.cli.err, "warning: launch 0: extern kernel 'stream_extern'"), 1)
      << run.cli.err;
  EXPECT_THAT(run.cli.err, HasSubstr("fixed_cycles = 1.000 us"));
  const double at_cap_us = static_cast<double>(per_block) / (62.3 * 1.85) / 1e3;
  for (const auto& interval : run.stats["core_intervals"]) {
    const double us = interval[6].get<double>() - interval[5].get<double>();
    EXPECT_GT(us, at_cap_us);
    EXPECT_LT(us, at_cap_us + 2.0);
  }
  // The same bytes in ample time: no stretch, no warning.
  const SimRun ample =
      Simulate(ExternTrace(24, rows * 2, {trace::AIV, 1850 * 20, 0, 24 * per_block, 0}),
               "extern_ample", {"--timing-only"});
  ASSERT_EQ(ample.cli.exit_code, 0) << ample.cli.out << ample.cli.err;
  EXPECT_THAT(ample.cli.err, Not(HasSubstr("warning")));
}

// A MIX weight stream: each block's cube loads `tiles` weight tiles of
// 512 x 256 BF16 (256 KiB, rows of 512 B: no narrow-row penalty) and
// multiplies a 16-row activation by each; the vector side scales every
// 16 x 256 product (through the cross-core ring) and stores it.
trace::TraceText MixWeightStream(int64_t blocks, int64_t tiles) {
  constexpr int64_t kK = 512;
  constexpr int64_t kN = 256;
  TraceBuilder builder("mix_stream");
  const uint32_t x = builder.Tensor("x", 16, kK);
  const uint32_t w = builder.Tensor("w", blocks * tiles * kK, kN);
  const uint32_t y = builder.Tensor("y", blocks * tiles * 16, kN);
  trace::TraceText text = builder.Finish();
  for (const uint32_t t : {x, w}) {
    trace::Tensor* tensor = text.mutable_header()->mutable_tensors(t);
    tensor->set_dtype(trace::BF16);
    tensor->set_size_bytes(tensor->size_bytes() / 2);
  }
  KernelBuilder kb("mix_stream", trace::MIX);
  const uint32_t px = kb.TensorParam("x", trace::BF16, trace::KernelParam::IN);
  const uint32_t pw = kb.TensorParam("w", trace::BF16, trace::KernelParam::IN);
  const uint32_t py = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  const uint32_t tx = kb.Tile("tx", {16, kK}, trace::BF16, trace::MAT);
  const uint32_t tw = kb.Tile("tw", {kK, kN}, trace::BF16, trace::MAT);
  const uint32_t acc = kb.Tile("acc", {16, kN}, trace::FP32, trace::ACC);
  const uint32_t out = kb.Tile("out", {16, kN}, trace::FP32, trace::VEC);
  const auto tile = [&] { return Plus(Times(BlockIdx(), C(tiles)), LoopVar(0)); };
  kb.Load(tx, px, {C(0), C(0)});
  kb.BeginLoop(0, C(0), C(tiles));
  kb.Load(tw, pw, {Times(tile(), C(kK)), C(0)});
  kb.Matmul(acc, tx, tw);
  kb.WithScalar(Op::MUL, out, acc, 0.5);
  kb.Store(out, py, {Times(tile(), C(16)), C(0)});
  kb.EndLoop();
  trace::Kernel* kernel = text.mutable_header()->add_kernels();
  *kernel = kb.kernel();
  kernel->set_id(text.header().kernels_size() - 1);
  trace::StreamRecord submit;
  trace::Submit* s = submit.mutable_submit();
  s->set_name("mix_stream");
  for (int lane = 0; lane < 3; ++lane) s->add_kernel_ids(static_cast<int32_t>(kernel->id()));
  s->set_block_num(blocks);
  s->set_scope_depth(1);
  for (auto [tensor, dir] : {std::pair{x, trace::INPUT}, std::pair{w, trace::INPUT},
                             std::pair{y, trace::OUTPUT_EXISTING}}) {
    trace::TensorArg* arg = s->add_args()->mutable_tensor();
    arg->set_tensor_id(tensor);
    arg->set_direction(dir);
  }
  // records: launch_begin, scope_begin, scope_end, launch_end.
  auto* records = text.mutable_records();
  *records->Add() = submit;
  for (int r = records->size() - 1; r > 2; --r) records->SwapElements(r, r - 1);
  return text;
}

// MIX lanes stall on GM like any lane. Issue 19 measured a MIX weight
// stream at gm.hbm_efficiency = 0.2 running at twice the configured HBM
// rate; here, at that efficiency (320 B/ns), 24 clusters streaming 48 MiB
// are memory-bound (~20 us of load per tile against ~2.6 us of cube work),
// take about twice as long at half the bandwidth, and are never faster than
// the configured rate. The latencies and cold starts are zeroed as in the
// sharing test above.
TEST(GmSharingTest, HalvingHbmBandwidthHalvesAMixWeightStream) {
  const trace::TraceText text = MixWeightStream(24, 8);
  const std::vector<std::string> isolated = {
      "--set", "gm.l2_miss_latency_ns=0",    "--set",        "gm.l2_hit_latency_ns=0",
      "--set", "core.gm_latency_ns=0",       "--set",        "core.cold_start_ns=0",
      "--set", "core.cold_propagation_ns=0", "--set",        "core.cold_far_propagation_ns=0",
      "--set", "gm.hbm_efficiency=0.2",      "--timing-only"};
  const auto [full, half] = AtFullAndHalfHbm(text, "mix_stream", isolated);
  ASSERT_EQ(full.cli.exit_code, 0) << full.cli.out << full.cli.err;
  ASSERT_EQ(half.cli.exit_code, 0) << half.cli.out << half.cli.err;
  const double ratio = Makespan(half) / Makespan(full);
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 2.2);
  const double weight_bytes = 24.0 * 8 * 512 * 256 * 2;
  EXPECT_GT(Makespan(full), weight_bytes / 320.0 / 1e3);
  EXPECT_GE(full.stats["gm"]["hbm_read_bytes"].get<double>(), weight_bytes);
  EXPECT_GT(full.stats["gm"]["aic_stall_us"].get<double>(), 0);
}

TEST(GmBandwidthTest, NarrowRowsCostMoreThanWideRowsOfTheSameBytes) {
  // 32 KiB tiles: 128 rows of 256 B (below one 512 B L2 line) against 16
  // rows of 2 KiB, so both move the same bytes. Each narrow transfer takes
  // 1 + gm.narrow_row_penalty (1.2) times its bytes' worth of its share;
  // latency and the store's issue time are unaffected, and HBM fills whole
  // lines, so the next tile's half of each line is an L2 hit off HBM's
  // path: the whole copy slows by more than nothing and less than the full
  // 20 %.
  const int64_t tiles = 4;
  const CopyShape narrow{128, 64, 64};
  const CopyShape wide{16, 512, 512};
  const SimRun n = Simulate(CopyTrace(48, 48 * tiles * 128, 1, narrow), "bw_narrow");
  const SimRun w = Simulate(CopyTrace(48, 48 * tiles * 16, 1, wide), "bw_wide");
  ASSERT_EQ(n.cli.exit_code, 0) << n.cli.out << n.cli.err;
  ASSERT_EQ(w.cli.exit_code, 0) << w.cli.out << w.cli.err;
  const double ratio = Makespan(n) / Makespan(w);
  EXPECT_GT(ratio, 1.02);
  EXPECT_LT(ratio, 1.2);
}

TEST(GmBandwidthTest, ARepeatedReadHitsL2) {
  // The second copy reads x again (after the first, by its dependency): x is
  // in L2 now, so its kernel is shorter although it moves the same bytes.
  const SimRun run = Simulate(CopyTrace(48, 48 * 4 * kTileRows, 2), "l2_repeat");
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  std::vector<double> kernel_us;
  for (const auto& t : run.stats["task_records"]) {
    kernel_us.push_back(t["end_us"].get<double>() - t["start_us"].get<double>());
  }
  ASSERT_EQ(kernel_us.size(), 2u);
  EXPECT_LT(kernel_us[1], 0.8 * kernel_us[0]);
  // x's bytes came from HBM once; the second read of it hit.
  const double x_bytes = 48.0 * 4 * kTileRows * kCols * 4;
  EXPECT_EQ(run.stats["gm"]["hbm_read_bytes"].get<double>(), x_bytes);
  EXPECT_EQ(run.stats["gm"]["l2_read_hit_bytes"].get<double>(), x_bytes);
}

TEST(GmBandwidthTest, ATileTransferPaysTheGmLatencyOnceNotPerRow) {
  // One block copies one 64-row tile (128 KiB). Raising the L2 miss latency
  // from 0.5 to 2.5 us stalls the load once, by what GM then takes beyond the
  // transfer's core-side time (0.5 us latency + ~1.2 us at the MTE rate):
  // ~2 us. The store is posted into L2 and fetches nothing. Paying the
  // latency per row would add 64 x 2 us.
  const CopyShape tall{64, kCols, kCols};
  const trace::TraceText text = CopyTrace(1, 64, 1, tall);
  const SimRun base = Simulate(text, "latency_base");
  const SimRun slow = Simulate(text, "latency_slow", {"--set", "gm.l2_miss_latency_ns=2500"});
  ASSERT_EQ(base.cli.exit_code, 0) << base.cli.out << base.cli.err;
  ASSERT_EQ(slow.cli.exit_code, 0) << slow.cli.out << slow.cli.err;
  const double added_us = Makespan(slow) - Makespan(base);
  EXPECT_GT(added_us, 1.0);
  EXPECT_LT(added_us, 5.0);
}

// ---------------------------------------------------------------------------
// The runtime's cache protocol at task boundaries.

trace::StreamRecord SubmitRecord(const std::string& name, uint32_t kernel,
                                 std::vector<std::pair<uint32_t, trace::ArgDirection>> args,
                                 std::vector<uint32_t> deps) {
  trace::StreamRecord record;
  trace::Submit* s = record.mutable_submit();
  s->set_name(name);
  s->add_kernel_ids(-1);
  s->add_kernel_ids(static_cast<int32_t>(kernel));
  s->add_kernel_ids(-1);
  s->set_block_num(1);
  s->set_scope_depth(1);
  for (auto [tensor, dir] : args) {
    trace::TensorArg* arg = s->add_args()->mutable_tensor();
    arg->set_tensor_id(tensor);
    arg->set_direction(dir);
  }
  for (uint32_t dep : deps) s->add_deps(dep);
  return record;
}

TEST(CacheProtocolTest, ALaterTaskSeesWhatAnotherCoreWroteSinceItsLastRead) {
  // read x -> a; x := 5; read x -> b, chained by deps. Whichever cores run
  // them, the third task must see 5: the pickup dcci drops stale lines and
  // the writer's FIN waits for its write-backs.
  TraceBuilder builder("pickup");
  const uint32_t x = builder.Tensor("x", 16, 64);
  const uint32_t a = builder.Tensor("a", 16, 64);
  const uint32_t b = builder.Tensor("b", 16, 64);
  trace::TraceText text = builder.Finish();
  KernelBuilder copy("copy");
  {
    const uint32_t src = copy.TensorParam("src", trace::FP32, trace::KernelParam::IN);
    const uint32_t dst = copy.TensorParam("dst", trace::FP32, trace::KernelParam::OUT);
    const uint32_t t = copy.Tile("t", {16, 64}, trace::FP32);
    copy.Load(t, src, {C(0), C(0)});
    copy.Store(t, dst, {C(0), C(0)});
  }
  KernelBuilder fill("fill");
  {
    const uint32_t dst = fill.TensorParam("dst", trace::FP32, trace::KernelParam::OUT);
    const uint32_t t = fill.Tile("t", {16, 64}, trace::FP32);
    fill.Full(t, 5.0);
    fill.Store(t, dst, {C(0), C(0)});
  }
  auto* kernels = text.mutable_header()->mutable_kernels();
  *kernels->Add() = copy.kernel();
  kernels->Mutable(0)->set_id(0);
  *kernels->Add() = fill.kernel();
  kernels->Mutable(1)->set_id(1);
  auto* records = text.mutable_records();
  const std::vector<trace::StreamRecord> submits = {
      SubmitRecord("read1", 0, {{x, trace::INPUT}, {a, trace::OUTPUT_EXISTING}}, {}),
      SubmitRecord("write", 1, {{x, trace::OUTPUT_EXISTING}}, {0}),
      SubmitRecord("read2", 0, {{x, trace::INPUT}, {b, trace::OUTPUT_EXISTING}}, {1}),
  };
  for (size_t i = 0; i < submits.size(); ++i) {
    *records->Add() = submits[i];
    for (int r = records->size() - 1; r > 2 + static_cast<int>(i); --r) {
      records->SwapElements(r, r - 1);
    }
  }
  trace::Check* check = text.add_records()->mutable_check();
  check->set_tensor_id(b);
  check->set_name("b");
  check->mutable_expected()->mutable_fill()->set_value(5.0);
  trace::Check* old = text.add_records()->mutable_check();
  old->set_tensor_id(a);
  old->set_name("a");
  old->mutable_expected()->set_zeros(true);
  for (const std::string clusters : {"24", "1"}) {
    const SimRun run = Simulate(text, "pickup_" + clusters, {"--set", "chip.clusters=" + clusters});
    EXPECT_EQ(run.cli.exit_code, 0) << clusters << " clusters\n" << run.cli.out << run.cli.err;
    EXPECT_THAT(run.cli.out, HasSubstr("checks: 2 passed, 0 failed"));
  }
}

// ---------------------------------------------------------------------------
// Whole-line write-back and atomics

// One task per entry of `values` (or one SPMD task of values.size() blocks
// when `spmd`), each storing its value into y (1 x 16 FP32, one 64 B line):
// into its own 8-element half, or atomically adding into all of it.
trace::TraceText LineTrace(bool spmd, bool atomic, int tasks, double expected_first,
                           double expected_second) {
  TraceBuilder builder("line");
  const uint32_t y = builder.Tensor("y", 1, 16);
  trace::TraceText text = builder.Finish();
  KernelBuilder kb("put");
  const uint32_t dst = kb.TensorParam("y", trace::FP32, trace::KernelParam::INOUT);
  const uint32_t t = kb.Tile("t", {1, atomic ? 16 : 8}, trace::FP32);
  kb.Full(t, 1.0);
  if (atomic) {
    kb.Store(t, dst, {C(0), C(0)}, /*atomic_add=*/true);
  } else {
    kb.Store(t, dst, {C(0), Times(BlockIdx(), C(8))});
  }
  *text.mutable_header()->add_kernels() = kb.kernel();
  auto* records = text.mutable_records();
  for (int i = 0; i < (spmd ? 1 : tasks); ++i) {
    trace::StreamRecord record = SubmitRecord("put", 0, {{y, trace::NO_DEP}}, {});
    record.mutable_submit()->set_block_num(spmd ? tasks : 1);
    *records->Add() = record;
    for (int r = records->size() - 1; r > 2 + i; --r) records->SwapElements(r, r - 1);
  }
  trace::Check* check = text.add_records()->mutable_check();
  check->set_tensor_id(y);
  check->set_name("y");
  std::string bytes;
  for (int e = 0; e < 16; ++e) {
    const float v = static_cast<float>(e < 8 ? expected_first : expected_second);
    bytes.append(reinterpret_cast<const char*>(&v), 4);
  }
  check->mutable_expected()->set_data(bytes);
  return text;
}

TEST(WholeLineWriteBackTest, TwoBlocksWritingHalvesOfOneLineLoseAnUpdate) {
  // Each core fetches the line, writes its half and writes the WHOLE line
  // back: the last write-back wins, so one half is lost, as on silicon.
  const SimRun run = Simulate(LineTrace(/*spmd=*/true, /*atomic=*/false, 2, 1.0, 1.0), "halves");
  EXPECT_EQ(run.cli.exit_code, 1) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 0 passed, 1 failed"));
  EXPECT_THAT(run.cli.out, HasSubstr("hazard: false sharing"));
}

TEST(WholeLineWriteBackTest, FourTasksAddingAtomicallyIntoOneTensorSumCorrectly) {
  const SimRun run = Simulate(LineTrace(/*spmd=*/false, /*atomic=*/true, 4, 4.0, 4.0), "atomics");
  EXPECT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  EXPECT_THAT(run.cli.out, HasSubstr("checks: 1 passed, 0 failed"));
  EXPECT_THAT(run.cli.out, HasSubstr("hazards: 0"));
}

}  // namespace
}  // namespace pto
