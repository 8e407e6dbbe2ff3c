#include "sim/config_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/ring_limits.h"

namespace pto {
namespace {

// A captureless accessor for `config.*kSection.*kField`, as a plain function
// pointer so that the table below is trivially destructible.
template <auto kSection, auto kField>
constexpr auto FieldOf() {
  return +[](ChipConfig& config) { return &((config.*kSection).*kField); };
}

// The key text is spelled from the member names, so a key cannot drift from
// the field it binds.
#define PTO_CONFIG_KEY(section, field) \
#section "." #field, FieldOf < &ChipConfig::section, &decltype(ChipConfig::section)::field>()

constexpr double kMaxNs = 1e9;  // one second for a single modelled step is absurd

// clang-format off
// constexpr: constant-initialized, so usable from other files' static initializers.
constexpr ConfigKeySpec kSchema[] = {
    // ---- chip ----
    {PTO_CONFIG_KEY(chip, name), "-", 1, 64, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/chip-architecture.md (a2/a3: src/a2a3/, a5: "
     "src/a5/)",
     "Chip identifier reported in outputs (a2a3 or a5 for the shipped configs)"},
    {PTO_CONFIG_KEY(chip, clusters), "count", 1, 4096, false,
     "hw-native-sys/simpler@6ebaf771 src/a2a3/platform/include/common/platform_config.h "
     "(PLATFORM_MAX_BLOCKDIM = 24)",
     "AICore clusters, each 1 AIC (cube) + 2 AIV (vector) cores"},
    {PTO_CONFIG_KEY(chip, counter_hz), "Hz", 1e3, 1e11, false,
     "hw-native-sys/simpler@6ebaf771 src/a2a3/platform/include/common/platform_config.h "
     "(PLATFORM_PROF_SYS_CNT_FREQ = 50 MHz)",
     "Profiling system counter rate; swimlane timestamps are in its ticks"},
    {PTO_CONFIG_KEY(chip, aicore_clock_hz), "Hz", 1e6, 1e11, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/"
     "simulation_platform/platform_config/910PR_9363.ini (Ascend910C4, 24 AI cores: [AICoreSpec] "
     "cube_freq = 1850 MHz; the file the L2 rates come from); a5: 1.65e9 (Ascend950PR_9579.ini "
     "@073ed654: cube_freq = vec_freq = 1650)",
     "AICore clock; converts per-cycle rates into time"},
    // ---- aicpu ----
    {PTO_CONFIG_KEY(aicpu, scheduler_threads), "count", 1, 64, false,
     "hw-native-sys/simpler@6ebaf771 src/a2a3/platform/include/common/platform_config.h "
     "(PLATFORM_DEFAULT_AICPU_THREAD_NUM = 4: 1 orch + 3 sched); round-robin: "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_cold_path.cpp",
     "AICPU scheduler threads (plus one orchestrator); clusters are dealt round-robin"},
    {PTO_CONFIG_KEY(aicpu, submit_base_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md (submit 0.874 us/task "
     "avg, its split); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Orchestrator cost per submitted task, fixed part"},
    {PTO_CONFIG_KEY(aicpu, submit_per_tensor_arg_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md (submit 0.874 us/task "
     "avg, its split); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Orchestrator submit cost per tensor argument (param copy, tensor-map insert)"},
    {PTO_CONFIG_KEY(aicpu, submit_per_probe_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md (submit 0.874 us/task "
     "avg, its split); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Orchestrator submit cost per tensor-map entry probed during dependency lookup"},
    {PTO_CONFIG_KEY(aicpu, submit_per_lookup_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md (lookup+dep 49.9 % of "
     "0.874 us); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Orchestrator submit cost per tensor-map lookup (Step B, INPUT/INOUT args)"},
    {PTO_CONFIG_KEY(aicpu, submit_per_insert_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/docs/device_log_profiling.md (tensormap_ins 12.9 % "
     "of 0.874 us); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Orchestrator submit cost per tensor-map registration (STEP 4, INOUT/OUTPUT_EXISTING)"},
    {PTO_CONFIG_KEY(aicpu, alloc_ns), "ns", 0, kMaxNs, false,
     "assumption",
     "Orchestrator cost of an alloc_tensors task"},
    {PTO_CONFIG_KEY(aicpu, cond_poll_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (COND MMIO LDR 95-105 ns); "
     "calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "One COND register read by a scheduler thread (serial per thread)"},
    {PTO_CONFIG_KEY(aicpu, dispatch_publish_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-aicore-cold-start-warmup.md "
     "(publish per dispatched core ~5 ns; 72 handles in ~360 ns)",
     "Scheduler cost to publish one subtask: payload fill and DMB write"},
    {PTO_CONFIG_KEY(aicpu, wmb_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-chip-swimlane-defer-wmb.md (wmb "
     "~30 ns, back-of-envelope)",
     "Write barrier shared by every task popped in one batch (cross-task batched publish)"},
    {PTO_CONFIG_KEY(aicpu, doorbell_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (MMIO STR burst ~5 ns each)",
     "One early-dispatch doorbell write (64-bit STR to DATA_MAIN_BASE)"},
    {PTO_CONFIG_KEY(aicpu, dispatch_to_core_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (DMB write -> AICore sees "
     "it ~140 ns)",
     "Delay from the DMB write until the core sees the dispatch"},
    {PTO_CONFIG_KEY(aicpu, fin_to_visible_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (FIN -> COND min ~180 ns, "
     "avg ~600 ns)",
     "Delay from a core's FIN until a COND read can observe it"},
    {PTO_CONFIG_KEY(aicpu, resolve_base_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_completion.cpp, "
     "pto_scheduler.h comments (resolve ~500 ns for 1-2 consumers, ~5 us for 50); calibrated "
     "(docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Fan-out walk of a completed task that has consumers, fixed part (a task without "
     "consumers walks nothing)"},
    {PTO_CONFIG_KEY(aicpu, resolve_per_consumer_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_completion.cpp, "
     "pto_scheduler.h comments (resolve ~500 ns for 1-2 consumers, ~5 us for 50); calibrated "
     "(docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Fan-out walk cost per consumer released"},
    {PTO_CONFIG_KEY(aicpu, dummy_retire_ns), "ns", 0, kMaxNs, false,
     "assumption",
     "Inline retirement of a dummy or predicate-false task"},
    {PTO_CONFIG_KEY(aicpu, loop_overhead_ns), "ns", 1, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_types.h (idle spin "
     "~115 ns/iter)",
     "One idle scheduler loop iteration (at least 1 ns so idle loops advance time)"},
    // ---- ring ----
    {PTO_CONFIG_KEY(ring, task_window), "tasks", kMinTaskWindow, kMaxTaskWindow, true,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/pto_runtime2_types.h "
     "(PTO2_TASK_WINDOW_SIZE; a power of 2 >= 4: RuntimeEnv::validate in "
     "src/common/task_interface/call_config.h; the upper bound is an assumption)",
     "Task slots per ring (at most task_window-1 live tasks per ring)"},
    {PTO_CONFIG_KEY(ring, heap_bytes), "bytes", kMinHeapBytes, kMaxHeapBytes, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/pto_runtime2_types.h (PTO2_HEAP_SIZE; >= "
     "1024: RuntimeEnv::validate in src/common/task_interface/call_config.h; the upper bound is an "
     "assumption)",
     "Output heap per ring for packed task outputs"},
    {PTO_CONFIG_KEY(ring, dep_pool), "entries", kMinDepPool, kMaxDepPool, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/pto_runtime2_types.h "
     "(PTO2_DEP_LIST_POOL_SIZE; range [4, INT32_MAX]: RuntimeEnv::validate in "
     "src/common/task_interface/call_config.h)",
     "Dependency-list pool entries per ring"},
    // ---- core ----
    {PTO_CONFIG_KEY(core, dispatch_slots), "count", 1, 16, false,
     "hw-native-sys/simpler@6ebaf771 "
     "src/a2a3/runtime/tensormap_and_ringbuffer/runtime/scheduler/scheduler_types.h (dual-slot "
     "layout: running + pending)",
     "Dispatch slots per core (running + pending)"},
    {PTO_CONFIG_KEY(core, setup_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "docs/investigations/2026-07-aicore-fills-all-args-ready-path.md (local setup 349 ns mean, "
     "0.28-0.35 us typical); switch ~0.3 us unprofiled, derived from "
     "docs/investigations/2026-07-aicore-swimlane-switch-overhead-and-ack-gate.md; calibrated "
     "(docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Core-local setup (receive to kernel start: payload dcci + ACK) when the core picks up its "
     "pending task right after a FIN"},
    {PTO_CONFIG_KEY(core, idle_setup_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-aicore-cold-start-warmup.md "
     "(local setup warm 0-0.02 us); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Core-local setup when the dispatch reaches a warm core idling on its dispatch register "
     "(the payload dcci finds nothing to clean)"},
    {PTO_CONFIG_KEY(core, staged_setup_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "docs/investigations/2026-07-aicore-fills-all-args-ready-path.md (setup when AICore fills its "
     "own args: 1356 ns vs 349 ns; its use for staged tasks is an assumption)",
     "Setup of an early-dispatched (staged) task: the core fills its args from the source "
     "payload before waiting for the doorbell"},
    {PTO_CONFIG_KEY(core, cold_start_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-aicore-cold-start-warmup.md "
     "(local setup cold 0.5-1 us); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Extra setup of each core's first task (cold instruction and data paths)"},
    {PTO_CONFIG_KEY(core, cold_propagation_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-aicore-cold-start-warmup.md "
     "(propagation cold 0.8-1.2 us vs warm 0.16-0.34); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Extra delivery time of the first dispatch a core receives"},
    {PTO_CONFIG_KEY(core, cold_far_propagation_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-aicore-cold-start-warmup.md "
     "(first-task head OH bimodal, 3-5 us on about half the cores; which half is an assumption); "
     "calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Further first-dispatch delivery time on the cores of the upper half of the clusters "
     "(NoC/FFTS routing)"},
    {PTO_CONFIG_KEY(core, kernel_start_ns), "ns", 0, kMaxNs, false,
     "assumption",
     "Kernel prologue on the core before the first op"},
    {PTO_CONFIG_KEY(core, kernel_finish_ns), "ns", 0, kMaxNs, false,
     "assumption",
     "Kernel epilogue after the last op, before FIN"},
    {PTO_CONFIG_KEY(core, gm_latency_ns), "ns", 0, kMaxNs, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (one 1 KiB GM -> UB copy on a "
     "910B1 AIV at 7.3 GiB/s: 131 ns, of which 1 KiB at the core's rate is 9); calibrated "
     "(docs/calibration.md: the mte2_latency workload); a5: the a2a3 value, unsourced for a5",
     "Latency to the first byte of a GM access, on the core's side: the least a transfer takes "
     "beyond its bytes"},
    {PTO_CONFIG_KEY(core, gm_to_l1_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (GM_TO_L1_910b1: one 910B1 AIC "
     "copying 1 KiB-512 KiB; from 16 KiB on each copy takes 123 ns + its bytes at 307.6 GB/s, "
     "within 8 %); calibrated (docs/calibration.md: the mte_paths workload); a5: 162.3 (the "
     "same file's GM_TO_L1_91095, the Ascend910_95 of src/core/arch/arch_info.cpp at 1650 MHz: "
     "its 16-32 KiB slope, the curve's largest sizes)",
     "One AIC's MTE2 rate from GM into L1"},
    {PTO_CONFIG_KEY(core, gm_to_ub_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (GM_TO_UB_910b1: one 910B1 AIV "
     "copying 1-200 KiB; with core.gm_latency_ns, the rate that keeps 4-64 KiB copies, the "
     "sizes a UB tile takes, closest: within 15 %; from 32 KiB on the copies add 82.7 GB/s); "
     "calibrated (docs/calibration.md: the mte_paths workload); a5: 68.7 (GM_TO_UB_91095's "
     "16-32 KiB slope at 1650 MHz)",
     "One AIV's MTE2 rate from GM into UB"},
    {PTO_CONFIG_KEY(core, ub_to_gm_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (UB_TO_GM_910b1: one 910B1 AIV "
     "copying 1-76 KiB; from 16 KiB on the copies add 120.9 GB/s); calibrated "
     "(docs/calibration.md: the mte_paths workload); a5: 55.8 (UB_TO_GM_91095's 16-32 KiB "
     "slope at 1650 MHz)",
     "One AIV's MTE3 rate from UB into GM (also an L1 tile's store, and moves between L1 and "
     "UB)"},
    {PTO_CONFIG_KEY(core, mte2_outstanding), "transfers", 1, 64, false,
     "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/05_best_practices/"
     "04_memory_access/data_copy/README_en.md (Atlas A2/A3, scenario 1: 48 AIV copy 301.99 MB "
     "GM -> UB 128 B at a time, back to back, in 564.84 us: about 11.5 ns a copy per core "
     "against 122-500 ns of latency); calibrated (docs/calibration.md: the copy_ub_small "
     "workload; no public source gives the queue's depth); a5: the a2a3 value, unsourced for "
     "a5",
     "Tile loads (GM -> UB/L1) one core's MTE2 pipe keeps in flight; each waits for its "
     "destination buffer, so a multi-buffered loop pays the GM latency once per pipeline fill"},
    {PTO_CONFIG_KEY(core, mte3_outstanding), "transfers", 1, 64, false,
     "assumption (no measured store stream; core.mte2_outstanding is fitted to a load "
     "stream; a5: the a2a3 value, unsourced for a5)",
     "Tile stores (UB -> GM) one core's MTE3 pipe keeps in flight"},
    {PTO_CONFIG_KEY(core, fixpipe_outstanding), "transfers", 1, 64, false,
     "assumption (no measured drain stream, as core.mte3_outstanding; a5: the a2a3 value, "
     "unsourced for a5)",
     "Accumulator stores (L0C -> GM) one core's FIXPIPE keeps in flight"},
    {PTO_CONFIG_KEY(core, ub_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] ub_size = 196608)"
     "; a5: 253952 (950PR_957x.ini @883e7dfb: ub_size = 253952)",
     "Unified buffer (Vec) of one AIV core: the capacity every Vec tile buffer must fit"},
    {PTO_CONFIG_KEY(core, l1_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] l1_size = 524288)"
     "; a5: the same (950PR_957x.ini @883e7dfb: l1_size = 524288)",
     "L1 (Mat) of one AIC core"},
    {PTO_CONFIG_KEY(core, l0a_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] l0_a_size = 65536)"
     "; a5: the same (950PR_957x.ini @883e7dfb: l0_a_size = 65536)",
     "L0A (Left): the cube's left operand buffer"},
    {PTO_CONFIG_KEY(core, l0b_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] l0_b_size = 65536)"
     "; a5: the same (950PR_957x.ini @883e7dfb: l0_b_size = 65536)",
     "L0B (Right): the cube's right operand buffer"},
    {PTO_CONFIG_KEY(core, l0c_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] l0_c_size = 131072)"
     "; a5: 262144 (950PR_957x.ini @883e7dfb: l0_c_size = 262144)",
     "L0C (Acc): the cube's accumulator"},
    {PTO_CONFIG_KEY(core, bt_bytes), "bytes", 1, 1ll << 30, false,
     "CANN platform file, hicann/pypto@a54925fd framework/src/platform/parser/simulation_platform/platform_config/910PR_9363.ini ([AICoreSpec] bt_size = 1024)"
     "; a5: 4096 (950PR_957x.ini @883e7dfb: bt_size = 4096)",
     "BT (Bias): the cube's bias table"},
    {PTO_CONFIG_KEY(core, vector_binary_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (single-AIV 910B1 measurements: "
     "VADD/VSUB/VMUL/VMAX 128 B of the input dtype per cycle at the peak); calibrated "
     "(docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Vector throughput of a tile-tile op (add, sub, mul, max, min; row sums and maxima)"},
    {PTO_CONFIG_KEY(core, vector_unary_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (single-AIV 910B1 measurements: "
     "VADDS/VMULS/VMAXS/VCONV/VDUP/VREC/VRSQRT 256 B of the input dtype per cycle at the peak); "
     "calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Vector throughput of a tile-scalar op, a cast, neg, recip, rsqrt or fill"},
    {PTO_CONFIG_KEY(core, vector_exp_elements_per_cycle), "elements/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (single-AIV 910B1 measurements: "
     "VEXP 65.7 B/cycle on FP16 and 127.9 on FP32, VSQRT 64 and 128: about 32 elements per "
     "cycle in either dtype); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced "
     "for a5",
     "Vector throughput of exp and sqrt, in elements whatever the dtype"},
    {PTO_CONFIG_KEY(core, vector_div_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (single-AIV 910B1 measurements: "
     "VDIV 62 B/cycle on FP16, 64 on FP32); calibrated (docs/calibration.md); a5: the a2a3 "
     "value, unsourced for a5",
     "Vector throughput of a tile-tile divide"},
    {PTO_CONFIG_KEY(core, dcci_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (write + dcci of one line "
     "150-300 ns)",
     "One data-cache maintenance instruction (cacheinvalid) with its dsb, before write-backs"},
    {PTO_CONFIG_KEY(core, fence_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 docs/investigations/2026-06-chip-swimlane-defer-wmb.md (wmb / "
     "dsb st ~30 ns)",
     "A fence with no write-back outstanding (it also waits for outstanding ones)"},
    {PTO_CONFIG_KEY(core, hard_syncall_ns), "ns", 0, kMaxNs, false,
     "assumption",
     "FFTS hard-syncall release latency after the last participant arrives"},
    {PTO_CONFIG_KEY(core, soft_syncall_poll_ns), "ns", 1, kMaxNs, false,
     "assumption (a re-read needs a dcci: 150-300 ns in hw-native-sys/simpler@6ebaf771 "
     "docs/hardware/mmio-performance.md)",
     "One poll of the soft-syncall GM counter (invalidate the line, load it)"},
    {PTO_CONFIG_KEY(core, cross_core_slots), "slots", 0, 64, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/ir/transforms/utils/cross_core_pipe.h "
     "(pl.cross_core_slot; kDefaultAutoPipeSlotNum = 2)",
     "Cross-core ring depth of every MIX kernel; 0 = each kernel's own slot_num (for sweeps)"},
    {PTO_CONFIG_KEY(core, cross_core_latency_ns), "ns", 0, kMaxNs, false,
     "assumption (the a2a3 ring lives in GM, an L2 hit away: hw-native-sys/pypto@e2d0f78a "
     "docs/en/dev/passes/22-inject_gm_pipe_buffer.md)",
     "Fixed time of one cross-core push (TPUSH) of a tile into the consumer's slot"},
    {PTO_CONFIG_KEY(core, cross_core_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "assumption (about one core's MTE rate, cf. core.ub_to_gm_bytes_per_cycle)",
     "Rate at which a cross-core push moves the tile's bytes"},
    // ---- gm ----
    {PTO_CONFIG_KEY(gm, hbm_bandwidth_bytes_per_s), "bytes/s", 1e6, 1e15, false,
     "hicann/ops-nn@e5c3fa93 docs/zh/develop/cross_platform_migration_guide.md (the A2 vs 950 "
     "spec table: A2 memory bandwidth 1.6 TB/s); a5: 1.6e12 (the same table: 950PR 1.6 TB/s)",
     "Peak HBM bandwidth shared by all cores"},
    {PTO_CONFIG_KEY(gm, hbm_efficiency), "ratio", 0.01, 1, false,
     "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/05_best_practices/"
     "04_memory_access/data_copy/README_en.md (Atlas A2/A3, scenario 3: 48 AIV copy 301.99 MB GM "
     "-> UB in 128 KiB copies in 215.82 us, msprof); calibrated (docs/calibration.md: the "
     "copy_ub_large workload); a5: 1 (the same table's Ascend 950 row: 188.52 us, 1.60 TB/s, at "
     "the 1.6 TB/s peak)",
     "Achieved fraction of the peak HBM bandwidth"},
    {PTO_CONFIG_KEY(gm, l2_line_bytes), "bytes", 32, 65536, true,
     "hw-native-sys/pypto@e2d0f78a docs/en/dev/passes/92-diagnostics.md (GetL2CacheLineBytes() = "
     "512)",
     "L2 cache line size"},
    {PTO_CONFIG_KEY(gm, dcache_line_bytes), "bytes", 16, 65536, true,
     "hw-native-sys/simpler@6ebaf771 docs/hardware/cache-coherency.md (one whole line, 64 B on "
     "a2a3)",
     "AICore data-cache line size (dcci granularity; whole-line write-back)"},
    {PTO_CONFIG_KEY(gm, l2_capacity_bytes), "bytes", 1024, 1ll << 32, false,
     "CANN platform file, hicann/pypto@eac69048 framework/src/platform/parser/"
     "simulation_platform/platform_config/A2A3.ini (Ascend910B1: l2_size = 201326592); a5: "
     "134217728 (950PR_957x.ini @b4350f7e: l2_size = 134217728)",
     "Shared L2 cache capacity (LRU over L2 lines)"},
    {PTO_CONFIG_KEY(gm, l2_associativity), "count", 0, 1024, false,
     "assumption (no public source gives the L2's ways; 0 models none; a5: the a2a3 value, "
     "unsourced for a5)",
     "L2 lines per set, replaced least recently used first; 0: fully associative, tracked per "
     "transfer (the fast model: no conflict misses); N > 0: N-way sets, tracked per 32 KiB "
     "region (slower)"},
    {PTO_CONFIG_KEY(gm, l2_hit_latency_ns), "ns", 0, kMaxNs, false,
     "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (an L2-resident 1 KiB GM -> UB copy "
     "alone: 131 ns, 9 of them its bytes); calibrated (docs/calibration.md: the mte2_latency "
     "workload); a5: the a2a3 value, unsourced for a5",
     "Latency to the first byte of a GM transfer whose lines all hit L2"},
    {PTO_CONFIG_KEY(gm, l2_miss_latency_ns), "ns", 0, kMaxNs, false,
     "assumption (no measured HBM round trip; the cost model of hicann/pypto@98139754 "
     "framework/src/cost_model/simulation/arch/PipeSimulatorFast.cpp adds rGmLatency = 1400 "
     "cycles at 2 GHz, 700 ns, to a read: a model constant; a5: the a2a3 value, unsourced for "
     "a5)",
     "Latency to the first byte of a GM transfer with at least one L2 miss (HBM round trip)"},
    {PTO_CONFIG_KEY(gm, l2_read_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "CANN platform file, hicann/pypto@a54925fd "
     "framework/src/platform/parser/simulation_platform/platform_config/"
     "910PR_9363.ini ([AICoreMemoryRates] l2_read_rate = 110, per AI core; the same in "
     "Ascend910B1's file); a5: 100 (Ascend950PR_9579.ini @073ed654)",
     "L2 read bandwidth per AI core; the L2's aggregate read bandwidth, shared by every core's "
     "transfers, is this x chip.clusters x chip.aicore_clock_hz"},
    {PTO_CONFIG_KEY(gm, l2_write_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "CANN platform file, hicann/pypto@a54925fd "
     "framework/src/platform/parser/simulation_platform/platform_config/"
     "910PR_9363.ini ([AICoreMemoryRates] l2_write_rate = 86, per AI core); a5: 100 "
     "(Ascend950PR_9579.ini @073ed654)",
     "L2 write bandwidth per AI core; the aggregate, shared by every core's stores, is this x "
     "chip.clusters x chip.aicore_clock_hz"},
    {PTO_CONFIG_KEY(gm, narrow_row_penalty), "ratio", 0, 10, false,
     "hw-native-sys/pypto@e2d0f78a docs/en/user/performance/04-incore.md (128 B rows measured "
     "16-25 % slower; 0.2 inside that range is an assumption)",
     "Extra transfer time when the innermost contiguous run is shorter than gm.narrow_row_bytes"},
    {PTO_CONFIG_KEY(gm, narrow_row_bytes), "bytes", 1, 65536, false,
     "hw-native-sys/pypto@e2d0f78a docs/en/dev/passes/92-diagnostics.md "
     "(GetRecommendedInnermostDimBytes(): 512 B on a2a3, 128 B on a5)",
     "Innermost contiguous run below which a GM transfer pays gm.narrow_row_penalty"},
    // ---- profiling ----
    {PTO_CONFIG_KEY(profiling, enabled), "flag", 0, 1, false,
     "hw-native-sys/simpler@6ebaf771 "
     "docs/investigations/2026-07-aicore-swimlane-switch-overhead-and-ack-gate.md, "
     "2026-07-aicore-fills-all-args-ready-path.md, 2026-06-aicore-cold-start-warmup.md (the "
     "measured figures were captured with --enable-chip-swimlane)",
     "1 = emulate a profiled run: each task pays the swimlane's device-side self-cost "
     "(pto_sim --profiled sets it)"},
    {PTO_CONFIG_KEY(profiling, timestamp_read_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "docs/investigations/2026-07-aicore-swimlane-switch-overhead-and-ack-gate.md (get_sys_cnt SPR "
     "read ~100-200 ns); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Profiled: the end-time counter read between the kernel's end and FIN"},
    {PTO_CONFIG_KEY(profiling, record_writeback_ns), "ns", 0, kMaxNs, false,
     "hw-native-sys/simpler@6ebaf771 "
     "docs/investigations/2026-07-aicore-swimlane-switch-overhead-and-ack-gate.md (switch 0.81 us "
     "= record write-back ~0.52 + setup ~0.29); calibrated (docs/calibration.md); a5: the a2a3 value, unsourced for a5",
     "Profiled: the swimlane record write-back (dcci OUT + dsb) after FIN, before the core "
     "picks up its next task"},
    // ---- cube ----
    {PTO_CONFIG_KEY(cube, l0a_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::bw_l0a = 129.7, a2a3 on-device MTE1 sweep); a5: the a2a3 value, unsourced for a5",
     "MTE1 rate from L1 into L0A (the left operand)"},
    {PTO_CONFIG_KEY(cube, l0b_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::bw_l0b = 85.4, a2a3 on-device MTE1 sweep); a5: the a2a3 value, unsourced for a5",
     "MTE1 rate from L1 into L0B (the right operand)"},
    {PTO_CONFIG_KEY(cube, drain_bytes_per_cycle), "bytes/cycle", 1, 65536, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::bw_drain = 118, a2a3 FIXPIPE sweep); a5: the a2a3 value, unsourced for a5",
     "FIXPIPE drain throughput per L0C row, in accumulator bytes"},
    {PTO_CONFIG_KEY(cube, drain_fixed_cycles), "cycles", 0, 1000000.0, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::drain_fixed_cycles = 164, a2a3 sweep); a5: the a2a3 value, unsourced for a5",
     "Fixed cycles of one FIXPIPE drain of an output tile"},
    {PTO_CONFIG_KEY(cube, drain_row_cycles), "cycles", 0, 1000000.0, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::drain_row_cycles = 4.45, a2a3 sweep); a5: the a2a3 value, unsourced for a5",
     "FIXPIPE cycles per M-row at least (the burst-issue floor)"},
    {PTO_CONFIG_KEY(cube, drain_penalty_cycles), "cycles", 0, 1000000.0, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::drain_penalty_cycles = 2.6, a2a3 on-device n=80 sweep); a5: the a2a3 value, unsourced for a5",
     "FIXPIPE cycles per M-row per extra burst pass (odd part of the N-fractal count - 1)"},
    {PTO_CONFIG_KEY(cube, drain_c0_bytes), "bytes", 1, 4096, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::drain_c0_bytes = 32, the NZ fractal C0); a5: the a2a3 value, unsourced for a5",
     "NZ fractal C0: the accumulator's N0 = this / 4 bytes"},
    {PTO_CONFIG_KEY(cube, mad_head_cycles), "cycles", 0, 1000000.0, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::mad_head_cycles = 21, a2a3 op-sim fit, device-confirmed within ~2 %); a5: the a2a3 value, unsourced for a5",
     "Fixed cycles of one TMATMUL (per K-block)"},
    {PTO_CONFIG_KEY(cube, mad_k_fractal_bytes), "bytes", 1, 4096, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::mad_k_fractal_bytes = 32); a5: the a2a3 value, unsourced for a5",
     "Cube K-fractal width in input bytes: kt = this / the input dtype's bytes"},
    {PTO_CONFIG_KEY(cube, mad_fp32_passes), "passes", 1, 64, false,
     "hw-native-sys/pypto@e2d0f78a include/pypto/backend/common/backend_handler.h (L0CostModel::mad_fp32_passes = 2); a5: 8 (the same field's comment: a5 FP32 MMAD ~4x a2a3 per fractal)",
     "Cube passes per K-fractal for FP32 inputs (1 for 2-byte inputs)"},
};
// clang-format on

#undef PTO_CONFIG_KEY

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
         c == '+';
}

// Words a plain YAML scalar would read as null or boolean.
bool NeedsYamlQuotes(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  return lower == "null" || lower == "true" || lower == "false" || lower == "yes" ||
         lower == "no" || lower == "on" || lower == "off";
}

absl::string_view SectionOf(absl::string_view key) { return key.substr(0, key.find('.')); }

absl::string_view LeafOf(absl::string_view key) { return key.substr(key.find('.') + 1); }

std::string DefaultText(const ConfigKeySpec& spec) {
  const ChipConfig defaults;
  return FormatConfigValue(spec, defaults);
}

// ASCII only: the locale must not widen what a config accepts.
bool IsDecimalDigit(char c) { return c >= '0' && c <= '9'; }

// Removes the leading run of decimal digits from `*text`; returns its length.
size_t ConsumeDigits(absl::string_view* text) {
  size_t n = 0;
  while (n < text->size() && IsDecimalDigit((*text)[n])) ++n;
  text->remove_prefix(n);
  return n;
}

// The canonical forms of docs/config.md: one spelling per value, which YAML
// 1.1, YAML 1.2 and `--set` all read as the same number. No '+', no leading
// zeros (YAML 1.1 reads 017 as octal), no 0x/0o/0b, no '_', no spaces.
// Integers: -?(0|[1-9][0-9]*).
bool IsCanonicalInteger(absl::string_view text) {
  absl::ConsumePrefix(&text, "-");
  const absl::string_view digits = text;
  const size_t n = ConsumeDigits(&text);
  return n > 0 && text.empty() && (n == 1 || digits[0] != '0');
}

// Numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, so 0.5 and 1e3
// but not .5, 5., 0x1p3, inf or nan.
bool IsCanonicalNumber(absl::string_view text) {
  absl::ConsumePrefix(&text, "-");
  const absl::string_view integer_part = text;
  const size_t n = ConsumeDigits(&text);
  if (n == 0 || (n > 1 && integer_part[0] == '0')) return false;
  if (absl::ConsumePrefix(&text, ".") && ConsumeDigits(&text) == 0) return false;
  if (absl::ConsumePrefix(&text, "e") || absl::ConsumePrefix(&text, "E")) {
    if (!absl::ConsumePrefix(&text, "+")) absl::ConsumePrefix(&text, "-");
    if (ConsumeDigits(&text) == 0) return false;
  }
  return text.empty();
}

// inf, .inf, -Infinity, NaN, .nan, ...: YAML's and C's spellings.
bool IsNonFiniteWord(absl::string_view text) {
  if (!absl::ConsumePrefix(&text, "-")) absl::ConsumePrefix(&text, "+");
  absl::ConsumePrefix(&text, ".");
  const std::string lower = absl::AsciiStrToLower(text);
  return lower == "inf" || lower == "infinity" || lower == "nan";
}

// Why `text` is not in the canonical form of `spec`'s type, when a common
// quirk explains it ("" otherwise): the message then says what to change.
std::string NonCanonicalHint(const ConfigKeySpec& spec, absl::string_view text) {
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); })) {
    return "no spaces in a value";
  }
  if (absl::StartsWith(text, "+")) return "no '+' sign";
  absl::string_view unsigned_text = text;
  absl::ConsumePrefix(&unsigned_text, "-");
  if (unsigned_text.size() > 1 && unsigned_text[0] == '0' &&
      absl::string_view("xXoObB").find(unsigned_text[1]) != absl::string_view::npos) {
    return "hexadecimal, octal and binary forms are not accepted; write it in decimal";
  }
  if (absl::StrContains(text, '_')) return "no '_' digit separators";
  if (unsigned_text.size() > 1 && unsigned_text[0] == '0' && IsDecimalDigit(unsigned_text[1])) {
    return spec.type() == ConfigType::kInt ? "no leading zeros: YAML 1.1 reads 017 as octal"
                                           : "no leading zeros";
  }
  if (spec.type() == ConfigType::kDouble) {
    if (absl::StartsWith(unsigned_text, ".")) return "write a digit before the '.', e.g. 0.5";
    const size_t dot = unsigned_text.find('.');
    if (dot != absl::string_view::npos &&
        (dot + 1 == unsigned_text.size() || !IsDecimalDigit(unsigned_text[dot + 1]))) {
      return "write a digit after the '.', e.g. 5.0";
    }
  }
  if (spec.type() == ConfigType::kInt && spec.min == 0 && spec.max == 1) {
    const std::string lower = absl::AsciiStrToLower(text);
    if (lower == "true" || lower == "false" || lower == "yes" || lower == "no" || lower == "on" ||
        lower == "off") {
      return "write 1 for true, 0 for false";
    }
  }
  return "";
}

}  // namespace

ConfigType ConfigKeySpec::type() const { return static_cast<ConfigType>(field.index()); }

absl::string_view ConfigKeySpec::TypeNoun() const {
  switch (type()) {
    case ConfigType::kInt:
      return "an integer";
    case ConfigType::kDouble:
      return "a number";
    case ConfigType::kString:
      return "a string";
  }
  return "a value";
}

absl::string_view ConfigKeySpec::FormNoun() const {
  switch (type()) {
    case ConfigType::kInt:
      return "a decimal integer";
    case ConfigType::kDouble:
      return "a decimal number";
    case ConfigType::kString:
      return "a plain string";
  }
  return "a value";
}

std::string ConfigKeySpec::RangeText() const {
  switch (type()) {
    case ConfigType::kInt:
      return absl::StrCat(power_of_two ? "power of two in " : "", "[", static_cast<int64_t>(min),
                          ", ", static_cast<int64_t>(max), "]");
    case ConfigType::kDouble:
      return absl::StrCat("[", FormatShortestDouble(min), ", ", FormatShortestDouble(max), "]");
    case ConfigType::kString:
      return absl::StrCat(static_cast<int64_t>(min), "-", static_cast<int64_t>(max),
                          " characters of A-Z a-z 0-9 _ . + -, starting alphanumeric");
  }
  return "";
}

std::string ConfigKeySpec::ExpectedText() const {
  if (type() == ConfigType::kString) {
    return absl::StrCat("expected ", TypeNoun(), " of ", RangeText());
  }
  if (power_of_two) return absl::StrCat("expected a ", RangeText(), " (", unit, ")");
  return absl::StrCat("expected ", TypeNoun(), " in ", RangeText(), " (", unit, ")");
}

absl::Span<const ConfigKeySpec> ConfigSchema() { return kSchema; }

const ConfigKeySpec* FindConfigKey(absl::string_view key) {
  for (const ConfigKeySpec& spec : kSchema) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

absl::string_view NearestConfigKey(absl::string_view key) {
  absl::string_view best;
  size_t best_distance = SIZE_MAX;
  for (const ConfigKeySpec& spec : kSchema) {
    // A bare field name (`clusters`) is one edit away from its full key, so a
    // missing section still finds the right key.
    const size_t distance =
        std::min(EditDistance(key, spec.key), EditDistance(key, LeafOf(spec.key)) + 1);
    if (distance < best_distance) {
      best_distance = distance;
      best = spec.key;
    }
  }
  return best;
}

bool IsConfigSection(absl::string_view prefix) {
  for (const ConfigKeySpec& spec : kSchema) {
    if (SectionOf(spec.key) == prefix) return true;
  }
  return false;
}

std::string FormatShortestDouble(double value) {
  if (!std::isfinite(value)) return absl::StrCat(value);
  if (value == 0) return "0";
  // Fewest significant digits that read back exactly.
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", digits - 1, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  // buffer is "[-]d[.ddd]e[+-]XX".
  absl::string_view text(buffer);
  std::string sign;
  if (absl::ConsumePrefix(&text, "-")) sign = "-";
  const size_t e_pos = text.find('e');
  std::string mantissa_digits = absl::StrReplaceAll(text.substr(0, e_pos), {{".", ""}});
  int exponent = 0;
  (void)absl::SimpleAtoi(text.substr(e_pos + 1), &exponent);
  while (mantissa_digits.size() > 1 && mantissa_digits.back() == '0') mantissa_digits.pop_back();

  std::string scientific = sign + mantissa_digits.substr(0, 1);
  if (mantissa_digits.size() > 1) absl::StrAppend(&scientific, ".", mantissa_digits.substr(1));
  if (exponent != 0) absl::StrAppend(&scientific, "e", exponent);

  std::string positional = sign;
  const int digit_count = static_cast<int>(mantissa_digits.size());
  if (exponent >= 0) {
    if (digit_count <= exponent + 1) {
      absl::StrAppend(&positional, mantissa_digits, std::string(exponent + 1 - digit_count, '0'));
    } else {
      absl::StrAppend(&positional, mantissa_digits.substr(0, exponent + 1), ".",
                      mantissa_digits.substr(exponent + 1));
    }
  } else {
    absl::StrAppend(&positional, "0.", std::string(-exponent - 1, '0'), mantissa_digits);
  }
  // Plain digits read better ("10000", "0.001") unless they get much longer.
  return positional.size() <= scientific.size() + 2 ? positional : scientific;
}

std::string FormatConfigValue(const ConfigKeySpec& spec, const ChipConfig& config) {
  // The accessors take a mutable config; reading through them changes nothing.
  ChipConfig& mutable_config = const_cast<ChipConfig&>(config);
  switch (spec.type()) {
    case ConfigType::kInt:
      return absl::StrCat(*std::get<int64_t* (*)(ChipConfig&)>(spec.field)(mutable_config));
    case ConfigType::kDouble:
      return FormatShortestDouble(*std::get<double* (*)(ChipConfig&)>(spec.field)(mutable_config));
    case ConfigType::kString:
      return *std::get<std::string* (*)(ChipConfig&)>(spec.field)(mutable_config);
  }
  return "";
}

absl::Status SetConfigValue(const ConfigKeySpec& spec, absl::string_view text, ChipConfig* config) {
  // `text` is taken exactly: spaces around a value are a caller's rule
  // (`--set`), and a quoted " 24" in a file is not a number.
  const std::string expected = spec.ExpectedText();
  // `reason` says why the text is not a value of the right type.
  auto type_error = [&](absl::string_view reason) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.key, ": got '", text, "'", reason, "; ", expected));
  };
  // ", not a decimal integer (no '+' sign)": the form expected, and the quirk
  // that breaks it when one does.
  auto form_error = [&]() {
    const std::string hint = NonCanonicalHint(spec, text);
    return type_error(
        absl::StrCat(", not ", spec.FormNoun(), hint.empty() ? "" : absl::StrCat(" (", hint, ")")));
  };
  auto range_error = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.key, ": ", text, " is out of range; ", expected));
  };
  switch (spec.type()) {
    case ConfigType::kInt: {
      if (!IsCanonicalInteger(text)) return form_error();
      int64_t parsed = 0;
      // The digits are well formed, so only overflow fails here.
      if (!absl::SimpleAtoi(text, &parsed)) return range_error();
      if (static_cast<double>(parsed) < spec.min || static_cast<double>(parsed) > spec.max) {
        return range_error();
      }
      if (spec.power_of_two && !IsPowerOfTwo(parsed)) {
        return absl::InvalidArgumentError(
            absl::StrCat(spec.key, ": ", text, " is not a power of two; ", expected));
      }
      *std::get<int64_t* (*)(ChipConfig&)>(spec.field)(*config) = parsed;
      return absl::OkStatus();
    }
    case ConfigType::kDouble: {
      if (IsNonFiniteWord(text)) return type_error(", which is not finite");
      if (!IsCanonicalNumber(text)) return form_error();
      double parsed = 0;
      if (!absl::SimpleAtod(text, &parsed)) return form_error();
      // 1e999 overflows to infinity: beyond every key's range.
      if (!std::isfinite(parsed) || parsed < spec.min || parsed > spec.max) return range_error();
      *std::get<double* (*)(ChipConfig&)>(spec.field)(*config) = parsed;
      return absl::OkStatus();
    }
    case ConfigType::kString: {
      const bool well_formed = !text.empty() && text.size() >= spec.min &&
                               text.size() <= spec.max &&
                               absl::ascii_isalnum(static_cast<unsigned char>(text.front())) &&
                               std::all_of(text.begin(), text.end(), IsNameChar);
      if (!well_formed) {
        return absl::InvalidArgumentError(absl::StrCat(spec.key, ": got '", text, "'; ", expected));
      }
      *std::get<std::string* (*)(ChipConfig&)>(spec.field)(*config) = std::string(text);
      return absl::OkStatus();
    }
  }
  return absl::InternalError(absl::StrCat(spec.key, ": unhandled config type"));
}

std::string ConfigMarkdownTable() {
  std::string table =
      "| key | type | unit | default | range | source | meaning |\n"
      "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const ConfigKeySpec& spec : kSchema) {
    absl::string_view type_name = spec.type() == ConfigType::kInt      ? "int"
                                  : spec.type() == ConfigType::kDouble ? "double"
                                                                       : "string";
    absl::StrAppend(&table, "| `", spec.key, "` | ", type_name, " | ", spec.unit, " | ",
                    DefaultText(spec), " | ", spec.RangeText(), " | ", spec.source, " | ", spec.doc,
                    " |\n");
  }
  return table;
}

std::string AnnotatedConfigYaml(const ChipConfig& config, absl::string_view header_comment) {
  std::string yaml;
  for (absl::string_view line : absl::StrSplit(header_comment, '\n')) {
    absl::StrAppend(&yaml, line.empty() ? "#" : absl::StrCat("# ", line), "\n");
  }
  absl::string_view section;
  for (const ConfigKeySpec& spec : kSchema) {
    if (SectionOf(spec.key) != section) {
      section = SectionOf(spec.key);
      absl::StrAppend(&yaml, "\n", section, ":\n");
    }
    std::string value = FormatConfigValue(spec, config);
    if (spec.type() == ConfigType::kString && NeedsYamlQuotes(value)) {
      value = absl::StrCat("\"", value, "\"");
    }
    absl::StrAppend(&yaml, "  # ", spec.doc, ".\n", "  # unit: ", spec.unit,
                    "; range: ", spec.RangeText(), "; source: ", spec.source, "\n", "  ",
                    LeafOf(spec.key), ": ", value, "\n");
  }
  return yaml;
}

}  // namespace pto
