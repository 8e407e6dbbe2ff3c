#ifndef PTO_MODELS_CORE_OP_COST_H_
#define PTO_MODELS_CORE_OP_COST_H_

#include <cstdint>

#include "models/base/chip_config.h"
#include "models/core/execution_profile.h"
#include "models/core/kernel_program.h"
#include "proto/task_stream.pb.h"

namespace pto {

// First-order timing of tile ops on one AICore. All results in nanoseconds;
// cycles are AICore cycles at ChipParams.aicore_clock_hz.

// The cube's L0 cost constants (config section `cube`, after pypto's
// L0CostModel, hw-native-sys/pypto@e2d0f78a
// include/pypto/backend/common/backend_handler.h) and the L0 capacities it
// tiles against (core.l0a_bytes, core.l0b_bytes, core.l0c_bytes).
struct CubeCostModel {
  CubeParams rates;
  int64_t l0a_bytes = 64 << 10;
  int64_t l0b_bytes = 64 << 10;
  int64_t l0c_bytes = 128 << 10;
};
CubeCostModel CubeCostModelOf(const ChipConfig& config);

double CyclesToNs(double cycles, const ChipConfig& config);

// The paths a core's GM transfers take, each at its own single-core rate
// (Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp measures each on one
// 910B1 core): GM -> L1 (AIC MTE2), GM -> UB (AIV MTE2), UB -> GM (AIV MTE3;
// also an L1 tile's store) and L0C -> GM (the FIXPIPE drain).
enum class GmPath { kGmToL1, kGmToUb, kUbToGm, kL0cToGm };
// A LOAD's path by its engine (its destination's space), a STORE's by its
// source's space: L0C -> GM from an accumulator, UB -> GM otherwise.
GmPath GmPathOf(const CompiledOp& op, const CompiledKernel& kernel);
// core.gm_to_l1_bytes_per_cycle, ..., cube.drain_bytes_per_cycle.
double GmPathBytesPerCycle(GmPath path, const ChipConfig& config);

// GM <-> local transfer by the core's MTE (one LOAD or STORE):
//   core.gm_latency_ns + bytes / (the path's bytes per cycle * clock).
// GM contention and caches are the GM model's business, not this
// first-order term.
double GmTransferNs(int64_t bytes, GmPath path, const ChipConfig& config);

// One core's caps on the shared memory system: an AIC reads into L1 and
// drains L0C, an AIV reads into and writes from UB.
struct CoreGmRates {
  double read_bytes_per_ns = 0;
  double write_bytes_per_ns = 0;
};
CoreGmRates CoreGmRatesOf(const ChipConfig& config, bool cube);

// The vector unit's instruction classes, by throughput. Measured on one
// 910B1 AIV (Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp, at the
// peak, in bytes of the input dtype per cycle): a tile-tile op (VADD, VSUB,
// VMUL, VMAX) moves 128 B a cycle, a tile-scalar op and the one-input ops
// (VADDS, VMULS, VCONV, VDUP, VREC, VRSQRT) 256 B, VDIV 62-64 B; VEXP and
// VSQRT take about 32 elements a cycle in FP16 and FP32 alike.
enum class VectorClass { kBinary, kUnary, kExp, kDivide };
// DIV with a scalar divisor is a multiply by its inverse (kUnary); row and
// column reductions are taken as tile-tile ops (no isolating measurement);
// a broadcast (Op.broadcast) is a tile-tile op over the result's elements;
// EXPAND, CONCAT and a UB-side ASSEMBLE write their result like VDUP or a
// copy (kUnary). The version-10 ops have no isolating measurement either and
// are classed by their nearest measured instruction: LOG, SIN, COS and
// EXPDIF (one VEXP after a subtract) as VEXP; FMOD as VDIV (its divide
// dominates); ABS, NOT, LRELU and TRI as one-input ops; PRELU, SELECT and a
// tile-tile CMP as tile-tile ops, CMP against a scalar as a tile-scalar op;
// the products as the other reductions.
VectorClass VectorClassOf(trace::Op::Kind kind, bool has_scalar);

// A vector op over `elements` of `dtype` (its input's): ceil(bytes / rate)
// cycles for the byte-rated classes, ceil(elements / rate) for kExp.
double VectorOpNs(VectorClass vector_class, trace::DType dtype, int64_t elements,
                  const ChipConfig& config);

// The cube matmul dst[m,n] = a[m,k] @ b[k,n] with inputs of `in_dtype`, in
// cycles, after pypto's L0CostModel (backend_handler.h), single L0C buffer:
//   The matmul is split into L0 tiles (m0, n0, k0) that fit L0A/L0B/L0C
//   (halving the largest offending dimension, 16-aligned); per output tile
//   (mt, nt), accumulating all K blocks in one L0C:
//     kt = mad_k_fractal_bytes / bytes_a, cpr = mad_fp32_passes for FP32 else 1
//     mad   = k_blocks*mad_head + cpr*ceil(mt/16)*ceil(k/kt)*ceil(nt/16)
//     load  = mt*k*bytes_a/bw_l0a + k*nt*bytes_b/bw_l0b   (MTE1, serial)
//     drain = drain_fixed + mt*(max(drain_row, bytes_c*nt/bw_drain)
//                               + drain_penalty*(odd(ceil(nt/N0)) - 1))
//     wall  = max(load, mad) + drain
//   where bytes_c = 4 (the L0C accumulator is FP32/INT32 whatever the dst
//   dtype), N0 = drain_c0_bytes/bytes_c and odd(x) is x with all factors of
//   two removed (the odd part, per backend_handler.h). The total is the sum of
//   the output tiles' walls.
double MatmulCycles(int64_t m, int64_t n, int64_t k, trace::DType in_dtype,
                    const CubeCostModel& cube);

// The pieces of MatmulCycles, for the cube's pipes (cube_steps.h):
// the L0 tile (m0, n0, k0); the MAD of an (mt, nt) output tile over `k`
// in `k_blocks` TMATMULs; the MTE1 moves of its A and B operands over `k`;
// and the FIXPIPE drain of an (mt, nt) accumulator tile.
struct L0Tiling {
  int64_t m0 = 0, n0 = 0, k0 = 0;
};
L0Tiling ChooseL0Tiling(int64_t m, int64_t n, int64_t k, trace::DType in_dtype,
                        const CubeCostModel& model);
double MadCycles(int64_t mt, int64_t nt, int64_t k, int64_t k_blocks, trace::DType in_dtype,
                 const CubeParams& cube);
double OperandLoadCycles(int64_t mt, int64_t nt, int64_t k, trace::DType in_dtype,
                         const CubeParams& cube);
double DrainCycles(int64_t mt, int64_t nt, const CubeParams& cube);
double MatmulNs(int64_t m, int64_t n, int64_t k, trace::DType in_dtype, const ChipConfig& config);

// The cost of one instance of `op` of `kernel`: LOAD/STORE -> GmTransferNs of
// the tile bytes on its GmPathOf; MATMUL (accumulating too) -> MatmulNs; MOVE -> the tile
// bytes at the cube's L1 -> L0A (LEFT, BIAS) or L1 -> L0B (RIGHT) rate, out of
// ACC at the drain rate, core.ub_to_gm_bytes_per_cycle otherwise; vector ops -> VectorOpNs on the
// op's element count (for row reductions the input's, with a broadcast the result's); a column
// reduction of [r, c] -> (r - 1) * c elements at the tile-tile rate (c at the unary rate if r = 1),
// its scratch (COL_SUM's binary tree) reorders the adds but moves the same bytes; ASSEMBLE -> its
// source's bytes out of ACC at the drain rate, within VEC at the unary rate, within MAT at
// core.ub_to_gm_bytes_per_cycle; views (RESHAPE, TRANSPOSE_VIEW) and CREATE -> 0, no instruction;
// EXTRACT -> its window as an ASSEMBLE of it; FILLPAD -> the whole tile at the unary rate; READ (a
// scalar load from GM) -> core.gm_latency_ns; SYNCALL, FENCE, CACHE_INVALID, LOOP and IF -> 0
// (their time belongs to the chip model). A LOAD with a valid_shape, or a STORE of a partly valid
// tile, is priced per instance on the region's bytes (TileExecutor).
double OpCostNs(const CompiledOp& op, const CompiledKernel& kernel, const ChipConfig& config);

// One block of a CostSummary kernel: fixed_cycles / clock if fixed_cycles > 0
// (a duration: every block takes it), else its even share of the call's work
// (the work fields describe the whole call, all `block_num` blocks together,
// as a vendor kernel's profile does):
//   max(cube_flops / (2 * 4096 * clock)          [4096 FP16 MAC/cycle, L0CostModel],
//       vector_elements / (vector_binary_bytes_per_cycle / 4 * clock) (FP32
//       tile-tile elements),
//       bytes_in / read rate + bytes_out / write rate) / block_num,
// split evenly over barrier_phases + 1 phases (the barriers themselves are
// the chip model's); the rates are the core type's (CoreGmRatesOf), a MIX
// call's its cluster's one AIC and two AIV together. `engine`: cube for AIC kernels, vector for AIV
// ones; for MIX, cube when the cube term is at least the vector term. `compute_phase_ns` leaves the
// bytes out (fixed_cycles, or the cube and vector terms only): a core that moves them over the
// chip's shared memory system (CorePhases) takes the later of that and the bytes' transfers.
struct CostSummaryTiming {
  int64_t phases = 1;
  double phase_ns = 0;
  double compute_phase_ns = 0;
  EngineKind engine = EngineKind::kVector;
  double total_ns() const { return phase_ns * static_cast<double>(phases); }
};
CostSummaryTiming CostSummaryTime(const trace::CostSummary& cost, trace::CoreType core_type,
                                  int64_t block_num, const ChipConfig& config);

// The duration of one block on its core, first order: core.kernel_start_ns +
// the sum of all op costs (cube and vector serialised) + core.kernel_finish_ns.
double KernelDurationNs(const ExecutionProfile& profile, const ChipConfig& config);

}  // namespace pto

#endif  // PTO_MODELS_CORE_OP_COST_H_
