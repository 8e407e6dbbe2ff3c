#include "models/core/op_cost.h"

#include <algorithm>
#include <cmath>

#include "common/dtype.h"

namespace pto {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t OddPart(int64_t x) {
  if (x <= 0) return 1;
  while ((x & 1) == 0) x >>= 1;
  return x;
}

// Halves an L0 tile dimension, keeping it a multiple of the 16-element fractal.
int64_t HalveDim(int64_t x) { return std::max<int64_t>(16, CeilDiv(CeilDiv(x, 2), 16) * 16); }

// MOVE: the tile's bytes at the L1 -> L0A rate into LEFT and BIAS, L1 -> L0B
// into RIGHT; out of L0C at the drain rate; between L1 and UB at the MTE3
// rate (no single-core measurement of those moves on a2a3).
double MoveNs(const CompiledTile& from, const CompiledTile& to, const ChipConfig& config) {
  double rate = config.core.ub_to_gm_bytes_per_cycle;
  if (from.space == trace::ACC) rate = config.cube.drain_bytes_per_cycle;
  if (to.space == trace::LEFT || to.space == trace::BIAS) rate = config.cube.l0a_bytes_per_cycle;
  if (to.space == trace::RIGHT) rate = config.cube.l0b_bytes_per_cycle;
  return CyclesToNs(static_cast<double>(to.elements() * DTypeSize(to.dtype)) / rate, config);
}

// A column reduction of [rows, cols] folds row after row into the first:
// rows - 1 tile-tile ops of `cols` elements (one row's copy if rows is 1).
double ColumnReduceNs(const CompiledTile& in, const ChipConfig& config) {
  if (in.rows == 1) return VectorOpNs(VectorClass::kUnary, in.dtype, in.cols, config);
  return VectorOpNs(VectorClass::kBinary, in.dtype, (in.rows - 1) * in.cols, config);
}

// ASSEMBLE copies its source into the target's buffer: out of L0C at the
// FIXPIPE's drain rate (the cube's TINSERT), within UB at the vector copy
// rate (the unary class), within L1 at the MTE rate a MOVE between L1 and UB
// takes.
double AssembleNs(const CompiledTile& source, const CompiledTile& target,
                  const ChipConfig& config) {
  if (source.space == trace::VEC) {
    return VectorOpNs(VectorClass::kUnary, source.dtype, source.elements(), config);
  }
  const double rate = source.space == trace::ACC ? config.cube.drain_bytes_per_cycle
                                                 : config.core.ub_to_gm_bytes_per_cycle;
  const double bytes = static_cast<double>(source.elements() * DTypeSize(target.dtype));
  return CyclesToNs(bytes / rate, config);
}

}  // namespace

CubeCostModel CubeCostModelOf(const ChipConfig& config) {
  return CubeCostModel{config.cube, config.core.l0a_bytes, config.core.l0b_bytes,
                       config.core.l0c_bytes};
}

double CyclesToNs(double cycles, const ChipConfig& config) {
  return cycles / config.chip.aicore_clock_hz * 1e9;
}

GmPath GmPathOf(const CompiledOp& op, const CompiledKernel& kernel) {
  // A load's engine is its destination's (kernel_program.cc: cube spaces).
  if (op.kind == trace::Op::LOAD) {
    return op.engine == EngineKind::kCube ? GmPath::kGmToL1 : GmPath::kGmToUb;
  }
  return kernel.tiles[static_cast<size_t>(op.src0)].space == trace::ACC ? GmPath::kL0cToGm
                                                                        : GmPath::kUbToGm;
}

double GmPathBytesPerCycle(GmPath path, const ChipConfig& config) {
  switch (path) {
    case GmPath::kGmToL1:
      return config.core.gm_to_l1_bytes_per_cycle;
    case GmPath::kGmToUb:
      return config.core.gm_to_ub_bytes_per_cycle;
    case GmPath::kUbToGm:
      return config.core.ub_to_gm_bytes_per_cycle;
    case GmPath::kL0cToGm:
      return config.cube.drain_bytes_per_cycle;
  }
  return config.core.ub_to_gm_bytes_per_cycle;
}

double GmTransferNs(int64_t bytes, GmPath path, const ChipConfig& config) {
  return config.core.gm_latency_ns +
         CyclesToNs(static_cast<double>(bytes) / GmPathBytesPerCycle(path, config), config);
}

CoreGmRates CoreGmRatesOf(const ChipConfig& config, bool cube) {
  const double ghz = config.chip.aicore_clock_hz / 1e9;
  return cube ? CoreGmRates{GmPathBytesPerCycle(GmPath::kGmToL1, config) * ghz,
                            GmPathBytesPerCycle(GmPath::kL0cToGm, config) * ghz}
              : CoreGmRates{GmPathBytesPerCycle(GmPath::kGmToUb, config) * ghz,
                            GmPathBytesPerCycle(GmPath::kUbToGm, config) * ghz};
}

VectorClass VectorClassOf(trace::Op::Kind kind, bool has_scalar) {
  switch (kind) {
    case trace::Op::EXP:
    case trace::Op::SQRT:
    case trace::Op::LOG:
    case trace::Op::SIN:
    case trace::Op::COS:
    case trace::Op::EXPDIF:
      return VectorClass::kExp;
    case trace::Op::DIV:
      return has_scalar ? VectorClass::kUnary : VectorClass::kDivide;
    case trace::Op::FMOD:  // a divide, a truncation and a multiply-subtract
      return VectorClass::kDivide;
    case trace::Op::CMP:
      return has_scalar ? VectorClass::kUnary : VectorClass::kBinary;
    case trace::Op::PRELU:
    case trace::Op::SELECT:
      return VectorClass::kBinary;
    case trace::Op::ADD:
    case trace::Op::SUB:
    case trace::Op::MUL:
    case trace::Op::MAX:
    case trace::Op::MIN:
      return has_scalar ? VectorClass::kUnary : VectorClass::kBinary;
    case trace::Op::ROW_SUM:
    case trace::Op::ROW_MAX:
    case trace::Op::ROW_MIN:
    case trace::Op::ROW_PROD:
    case trace::Op::COL_SUM:
    case trace::Op::COL_MAX:
    case trace::Op::COL_MIN:
    case trace::Op::COL_PROD:
      return VectorClass::kBinary;
    default:  // CAST, NEG, RSQRT, RECIP, FULL, EXPAND, CONCAT, ASSEMBLE, FILLPAD,
              // ABS, NOT, LRELU, TRI
      return VectorClass::kUnary;
  }
}

double VectorOpNs(VectorClass vector_class, trace::DType dtype, int64_t elements,
                  const ChipConfig& config) {
  const CoreParams& core = config.core;
  const auto n = static_cast<double>(elements);
  const double bytes = n * static_cast<double>(std::max<size_t>(1, DTypeSize(dtype)));
  double cycles = 0;
  switch (vector_class) {
    case VectorClass::kBinary:
      cycles = std::ceil(bytes / core.vector_binary_bytes_per_cycle);
      break;
    case VectorClass::kUnary:
      cycles = std::ceil(bytes / core.vector_unary_bytes_per_cycle);
      break;
    case VectorClass::kExp:
      cycles = std::ceil(n / core.vector_exp_elements_per_cycle);
      break;
    case VectorClass::kDivide:
      cycles = std::ceil(bytes / core.vector_div_bytes_per_cycle);
      break;
  }
  return CyclesToNs(cycles, config);
}

int64_t CubeInputBytes(trace::DType in_dtype) {
  return std::max<int64_t>(1, static_cast<int64_t>(DTypeSize(in_dtype)));
}

L0Tiling ChooseL0Tiling(int64_t m, int64_t n, int64_t k, trace::DType in_dtype,
                        const CubeCostModel& model) {
  const int64_t bytes_ab = CubeInputBytes(in_dtype);
  constexpr int64_t kBytesC = 4;  // L0C accumulates in FP32 / INT32
  // Shrink until A, B and C fit their L0 buffers.
  int64_t m0 = m, n0 = n, k0 = k;
  for (int guard = 0; guard < 64; ++guard) {
    const bool a_over = m0 * k0 * bytes_ab > model.l0a_bytes;
    const bool b_over = k0 * n0 * bytes_ab > model.l0b_bytes;
    const bool c_over = m0 * n0 * kBytesC > model.l0c_bytes;
    if (!a_over && !b_over && !c_over) break;
    if (m0 <= 16 && n0 <= 16 && k0 <= 16) break;
    if (c_over) {
      (m0 >= n0 ? m0 : n0) = HalveDim(std::max(m0, n0));
    } else if (a_over && b_over) {
      k0 = HalveDim(k0);
    } else if (a_over) {
      (m0 >= k0 ? m0 : k0) = HalveDim(std::max(m0, k0));
    } else {
      (n0 >= k0 ? n0 : k0) = HalveDim(std::max(n0, k0));
    }
  }
  return L0Tiling{std::min(m0, m), std::min(n0, n), std::min(k0, k)};
}

double MadCycles(int64_t mt, int64_t nt, int64_t k, int64_t k_blocks, trace::DType in_dtype,
                 const CubeParams& cube) {
  const int64_t kt = std::max<int64_t>(1, cube.mad_k_fractal_bytes / CubeInputBytes(in_dtype));
  const int64_t cpr = in_dtype == trace::FP32 ? cube.mad_fp32_passes : 1;
  return static_cast<double>(k_blocks * cube.mad_head_cycles +
                             cpr * CeilDiv(mt, 16) * CeilDiv(k, kt) * CeilDiv(nt, 16));
}

double OperandLoadCycles(int64_t mt, int64_t nt, int64_t k, trace::DType in_dtype,
                         const CubeParams& cube) {
  const int64_t bytes_ab = CubeInputBytes(in_dtype);
  return static_cast<double>(mt * k * bytes_ab) / cube.l0a_bytes_per_cycle +
         static_cast<double>(k * nt * bytes_ab) / cube.l0b_bytes_per_cycle;
}

double DrainCycles(int64_t mt, int64_t nt, const CubeParams& cube) {
  constexpr int64_t kBytesC = 4;
  const int64_t n0 = std::max<int64_t>(1, cube.drain_c0_bytes / kBytesC);
  const double per_row =
      std::max(cube.drain_row_cycles,
               static_cast<double>(kBytesC * nt) / cube.drain_bytes_per_cycle) +
      cube.drain_penalty_cycles * static_cast<double>(OddPart(CeilDiv(nt, n0)) - 1);
  return cube.drain_fixed_cycles + static_cast<double>(mt) * per_row;
}

double MatmulCycles(int64_t m, int64_t n, int64_t k, trace::DType in_dtype,
                    const CubeCostModel& model) {
  const CubeParams& cube = model.rates;
  const L0Tiling tile = ChooseL0Tiling(m, n, k, in_dtype, model);
  const int64_t k_blocks = CeilDiv(k, tile.k0);
  const auto tile_wall = [&](int64_t mt, int64_t nt) {
    const double mad = MadCycles(mt, nt, k, k_blocks, in_dtype, cube);
    const double load = OperandLoadCycles(mt, nt, k, in_dtype, cube);
    return std::max(load, mad) + DrainCycles(mt, nt, cube);
  };
  // Full tiles and the edge remainders in each output dimension.
  const int64_t m_full = m / tile.m0, m_rem = m % tile.m0;
  const int64_t n_full = n / tile.n0, n_rem = n % tile.n0;
  double total = 0;
  total += static_cast<double>(m_full * n_full) * tile_wall(tile.m0, tile.n0);
  if (n_rem) total += static_cast<double>(m_full) * tile_wall(tile.m0, n_rem);
  if (m_rem) total += static_cast<double>(n_full) * tile_wall(m_rem, tile.n0);
  if (m_rem && n_rem) total += tile_wall(m_rem, n_rem);
  return total;
}

double MatmulNs(int64_t m, int64_t n, int64_t k, trace::DType in_dtype, const ChipConfig& config) {
  return CyclesToNs(MatmulCycles(m, n, k, in_dtype, CubeCostModelOf(config)), config);
}

double OpCostNs(const CompiledOp& op, const CompiledKernel& kernel, const ChipConfig& config) {
  switch (op.kind) {
    case trace::Op::LOAD:
    case trace::Op::STORE:
      return GmTransferNs(op.gm_bytes, GmPathOf(op, kernel), config);
    case trace::Op::MATMUL:  // accumulating or not
      return MatmulNs(op.m, op.n, op.k, kernel.tiles[op.src0].dtype, config);
    case trace::Op::MOVE:
      return MoveNs(kernel.tiles[op.src0], kernel.tiles[op.dst], config);
    case trace::Op::CAST:  // rated on its input, as VCONV was measured
      return VectorOpNs(VectorClass::kUnary, kernel.tiles[op.src0].dtype, op.elements, config);
    case trace::Op::ADD:
    case trace::Op::SUB:
    case trace::Op::MUL:
    case trace::Op::DIV:
    case trace::Op::MAX:
    case trace::Op::MIN:
    case trace::Op::EXP:
    case trace::Op::NEG:
    case trace::Op::SQRT:
    case trace::Op::RSQRT:
    case trace::Op::RECIP:
    case trace::Op::ROW_SUM:
    case trace::Op::ROW_MAX:
    case trace::Op::ROW_MIN:
    case trace::Op::FULL:
    case trace::Op::EXPAND:
    case trace::Op::CONCAT:
    case trace::Op::FILLPAD:  // rewrites the whole tile, as a one-input op
    case trace::Op::ABS:
    case trace::Op::LOG:
    case trace::Op::SIN:
    case trace::Op::COS:
    case trace::Op::NOT:
    case trace::Op::LRELU:
    case trace::Op::PRELU:
    case trace::Op::FMOD:
    case trace::Op::CMP:  // over its operands' elements
    case trace::Op::ROW_PROD:
    case trace::Op::TRI:
    case trace::Op::EXPDIF:
      return VectorOpNs(VectorClassOf(op.kind, op.has_scalar),
                        kernel.tiles[op.src0 >= 0 ? op.src0 : op.dst].dtype, op.elements, config);
    case trace::Op::SELECT:  // over the selected values (srcs[0] is the mask)
      return VectorOpNs(VectorClass::kBinary, kernel.tiles[op.dst].dtype, op.elements, config);
    case trace::Op::COL_SUM:
    case trace::Op::COL_MAX:
    case trace::Op::COL_MIN:
    case trace::Op::COL_PROD:
      return ColumnReduceNs(kernel.tiles[op.src0], config);
    case trace::Op::ASSEMBLE:
      return AssembleNs(kernel.tiles[op.src1], kernel.tiles[op.dst], config);
    case trace::Op::EXTRACT:  // a window's copy, priced as assembling it
      return AssembleNs(kernel.tiles[op.dst], kernel.tiles[op.dst], config);
    case trace::Op::READ:
      // A scalar load from GM: the scalar unit waits out the access's
      // latency before the value can decide anything (BlockPipes stalls
      // issue on it).
      return config.core.gm_latency_ns;
    default:  // views (RESHAPE, TRANSPOSE_VIEW), CREATE, IF and the chip's ops
      return 0;
  }
}

CostSummaryTiming CostSummaryTime(const trace::CostSummary& cost, trace::CoreType core_type,
                                  int64_t block_num, const ChipConfig& config) {
  CostSummaryTiming t;
  t.phases = static_cast<int64_t>(cost.barrier_phases()) + 1;
  const double clock = config.chip.aicore_clock_hz;
  double total_ns;
  double compute_ns;
  bool cube_bound = false;
  if (cost.fixed_cycles() > 0) {
    total_ns = CyclesToNs(static_cast<double>(cost.fixed_cycles()), config);
    compute_ns = total_ns;
  } else {
    const double cube_ns = cost.cube_flops() / (2.0 * 4096.0 * clock) * 1e9;
    const double vector_ns =
        cost.vector_elements() / (config.core.vector_binary_bytes_per_cycle / 4 * clock) * 1e9;
    // A MIX call's bytes move on its cluster's three cores: one AIC, two AIV.
    const CoreGmRates aic = CoreGmRatesOf(config, /*cube=*/true);
    const CoreGmRates aiv = CoreGmRatesOf(config, /*cube=*/false);
    CoreGmRates rates = core_type == trace::AIC ? aic : aiv;
    if (core_type == trace::MIX) {
      rates = {aic.read_bytes_per_ns + 2 * aiv.read_bytes_per_ns,
               aic.write_bytes_per_ns + 2 * aiv.write_bytes_per_ns};
    }
    const double mte_ns = static_cast<double>(cost.bytes_in()) / rates.read_bytes_per_ns +
                          static_cast<double>(cost.bytes_out()) / rates.write_bytes_per_ns;
    const double blocks = static_cast<double>(std::max<int64_t>(1, block_num));
    total_ns = std::max({cube_ns, vector_ns, mte_ns}) / blocks;
    compute_ns = std::max(cube_ns, vector_ns) / blocks;
    cube_bound = cube_ns > 0 && cube_ns >= vector_ns;
  }
  // A single-engine kernel runs on its core's engine; a MIX summary is
  // attributed to whichever engine's work dominates.
  if (core_type == trace::AIC) {
    t.engine = EngineKind::kCube;
  } else if (core_type == trace::AIV) {
    t.engine = EngineKind::kVector;
  } else {
    t.engine = cube_bound ? EngineKind::kCube : EngineKind::kVector;
  }
  t.phase_ns = total_ns / static_cast<double>(t.phases);
  t.compute_phase_ns = compute_ns / static_cast<double>(t.phases);
  return t;
}

double KernelDurationNs(const ExecutionProfile& profile, const ChipConfig& config) {
  return config.core.kernel_start_ns + profile.op_ns() + config.core.kernel_finish_ns;
}

}  // namespace pto
