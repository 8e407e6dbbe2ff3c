#ifndef PTO_MODELS_BASE_CHIP_CONFIG_H_
#define PTO_MODELS_BASE_CHIP_CONFIG_H_

#include <cstdint>
#include <string>

namespace pto {

// The parameters of the modelled chip. Defaults are the a2a3 values; every
// field has a dotted config key (the section and field name, e.g.
// `aicpu.cond_poll_ns`), documented with its unit and source in
// sim/config_schema.cc, which is the single table that binds keys to fields.
// Times are in nanoseconds, rates per second, sizes in bytes.

struct ChipParams {
  std::string name = "a2a3";
  int64_t clusters = 24;            // 1 AIC + 2 AIV each
  double counter_hz = 50e6;         // profiling system counter (swimlane cycles)
  double aicore_clock_hz = 1.85e9;  // CANN's Ascend910C4 platform file (cube_freq)
};

struct AicpuParams {
  int64_t scheduler_threads = 3;
  // Orchestrator per-submit cost: base + per tensor argument + per tensor-map
  // entry probed.
  double submit_base_ns = 197;
  double submit_per_tensor_arg_ns = 32;
  double submit_per_probe_ns = 20;
  double submit_per_lookup_ns = 125;  // one tensor-map lookup (Step B)
  double submit_per_insert_ns = 113;  // one tensor-map registration (STEP 4)
  double alloc_ns = 200;              // alloc_tensors task
  double cond_poll_ns = 100;          // one COND MMIO read
  double dispatch_publish_ns = 5;     // one subtask's payload + DMB write
  double wmb_ns = 30;                 // write barrier shared by one pop batch
  double dispatch_to_core_ns = 140;   // DMB write until the core sees it
  double doorbell_ns = 5;             // one early-dispatch doorbell STR
  double fin_to_visible_ns = 180;     // core FIN until COND shows it
  // Fan-out walk of a completed task that has consumers (none: no walk).
  double resolve_base_ns = 361;
  double resolve_per_consumer_ns = 93;
  double dummy_retire_ns = 150;   // a dummy or predicate-false task
  double loop_overhead_ns = 115;  // one idle scheduler iteration
};

struct RingParams {
  int64_t task_window = 16384;  // per ring
  int64_t heap_bytes = 256ll << 20;
  int64_t dep_pool = 16384;
};

struct CoreParams {
  int64_t dispatch_slots = 2;             // running + pending
  double setup_ns = 320;                  // pending pickup right after a FIN: dcci + ACK
  double idle_setup_ns = 20;              // pickup by a warm idle core (dcci has nothing to do)
  double staged_setup_ns = 1356;          // early-dispatched: the core fills its own args
  double cold_start_ns = 900;             // extra setup of a core's first task
  double cold_propagation_ns = 800;       // extra delivery of a core's first dispatch
  double cold_far_propagation_ns = 2400;  // more of it on the upper half of the clusters
  double kernel_start_ns = 400;           // assumption: kernel prologue on the core
  double kernel_finish_ns = 200;          // assumption: epilogue before FIN
  double gm_latency_ns = 122;             // first byte of a GM access: calibrated
  // One core's GM transfer rate by path (measured on one 910B1 core): AIC
  // MTE2 into L1, AIV MTE2 into UB, AIV MTE3 out of UB. L0C -> GM is the
  // FIXPIPE drain (cube.drain_bytes_per_cycle).
  double gm_to_l1_bytes_per_cycle = 166.3;
  double gm_to_ub_bytes_per_cycle = 62.3;
  double ub_to_gm_bytes_per_cycle = 65.3;
  // Transfers each GM-facing pipe keeps in flight (assumptions).
  int64_t mte2_outstanding = 19;
  int64_t mte3_outstanding = 4;
  int64_t fixpipe_outstanding = 4;
  // On-chip buffer capacities (CANN's 910B-class platform file).
  int64_t ub_bytes = 196608;   // Vec: the AIV unified buffer
  int64_t l1_bytes = 524288;   // Mat
  int64_t l0a_bytes = 65536;   // Left
  int64_t l0b_bytes = 65536;   // Right
  int64_t l0c_bytes = 131072;  // Acc
  int64_t bt_bytes = 1024;     // Bias
  // Vector throughput in elements per cycle by dtype (assumptions).
  // The vector unit's throughput by instruction class (op_cost.h
  // VectorClassOf), in bytes of the input dtype per cycle, as measured.
  double vector_binary_bytes_per_cycle = 128;  // tile op tile
  double vector_unary_bytes_per_cycle = 256;   // tile op scalar, casts, neg
  double vector_exp_elements_per_cycle = 32;   // exp, sqrt
  double vector_div_bytes_per_cycle = 64;      // tile / tile
  // Data-cache maintenance and in-kernel barriers (ns).
  double dcci_ns = 200;               // one dcci + dsb (150-300 ns)
  double fence_ns = 30;               // fence with nothing outstanding (dsb st ~30 ns)
  double hard_syncall_ns = 100;       // assumption: FFTS release after the last arrival
  double soft_syncall_poll_ns = 300;  // assumption: one re-read (dcci + load) of the counter
  // The cross-core ring of MIX kernels (TPUSH/TPOP between AIC and AIVs).
  int64_t cross_core_slots = 0;            // 0 = the kernel's slot_num
  double cross_core_latency_ns = 150;      // assumption: an L2 hit (a2a3 GM ring)
  double cross_core_bytes_per_cycle = 64;  // assumption: the MTE rate
};

struct GmParams {
  double hbm_bandwidth_bytes_per_s = 1.6e12;  // peak
  double hbm_efficiency = 0.88;               // effective / peak: calibrated
  int64_t l2_line_bytes = 512;
  int64_t dcache_line_bytes = 64;
  int64_t l2_capacity_bytes = 192ll << 20;  // 910B (bytes)
  int64_t l2_associativity = 0;             // assumption: 0 = fully associative
  double l2_hit_latency_ns = 122;           // calibrated
  double l2_miss_latency_ns = 500;          // assumption (HBM round trip)
  // L2 bandwidth per AI core (CANN platform file); the L2's aggregate is
  // this × chip.clusters × chip.aicore_clock_hz.
  double l2_read_bytes_per_cycle = 110;
  double l2_write_bytes_per_cycle = 86;
  // Extra transfer time when the innermost contiguous run is shorter than
  // narrow_row_bytes (fraction): 128 B rows measured 16-25 % slower.
  double narrow_row_penalty = 0.2;
  int64_t narrow_row_bytes = 512;  // a5: 128
};

// The device-side self-cost of a profiled run (swimlane on), as the
// measured figures were captured (--enable-chip-swimlane; sources in config_schema.cc).
struct ProfilingParams {
  int64_t enabled = 0;               // 1 = emulate a profiled run (pto_sim --profiled)
  double timestamp_read_ns = 100;    // the end-time get_sys_cnt read before FIN
  double record_writeback_ns = 390;  // record dcci(OUT) + dsb after FIN
};

// The cube's L0 cost constants: pypto's L0CostModel for a2a3 (device-fitted
// MTE1 and FIXPIPE sweeps; op-sim MAD head). In AICore cycles.
struct CubeParams {
  double l0a_bytes_per_cycle = 129.7;  // MTE1: L1 -> L0A
  double l0b_bytes_per_cycle = 85.4;   // MTE1: L1 -> L0B
  double drain_bytes_per_cycle = 118;  // FIXPIPE: L0C bytes per cycle per row
  double drain_fixed_cycles = 164;     // per drained output tile
  double drain_row_cycles = 4.45;      // per M-row floor
  double drain_penalty_cycles = 2.6;   // per M-row per extra odd burst pass
  int64_t drain_c0_bytes = 32;         // NZ fractal C0: N0 = this / 4 for the FP32 L0C
  int64_t mad_head_cycles = 21;        // per K-block (TMATMUL issue)
  int64_t mad_k_fractal_bytes = 32;    // K-fractal width: kt = this / input bytes
  int64_t mad_fp32_passes = 2;         // cube passes per K-fractal for FP32 inputs
};

struct ChipConfig {
  ChipParams chip;
  AicpuParams aicpu;
  RingParams ring;
  CoreParams core;
  GmParams gm;
  ProfilingParams profiling;
  CubeParams cube;

  int64_t aic_count() const { return chip.clusters; }
  int64_t aiv_count() const { return chip.clusters * 2; }
  int64_t core_count() const { return chip.clusters * 3; }
};

}  // namespace pto

#endif  // PTO_MODELS_BASE_CHIP_CONFIG_H_
