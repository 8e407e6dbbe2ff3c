// Elementwise add and matmul kernels through the TileExecutor, each against
// the same work done by hand with Eigen (the same GM bytes in, the same math
// in FP32, the same bytes out), at 32x32 and 128x128 tiles, FP32 / FP16 /
// BF16 in GM. Target: within 2x. Each benchmark's argument is the tile edge.

#include <Eigen/Core>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/dtype.h"
#include "models/core/flat_gm_port.h"
#include "models/core/testing/kernel_builder.h"
#include "models/core/tile_executor.h"

namespace pto {
namespace {

using kernel_testing::C;
using kernel_testing::KernelBuilder;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr uint64_t kBase = 0x100000;
constexpr uint64_t kA = kBase;
constexpr uint64_t kB = kBase + 0x20000;
constexpr uint64_t kOut = kBase + 0x40000;
constexpr uint64_t kGmBytes = 0x80000;  // room for three 128x128 FP32 tiles

TensorBinding Matrix(uint64_t addr, trace::DType dtype, int64_t n) {
  TensorBinding t;
  t.gm_addr = addr;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = t.shape[1] = n;
  t.strides[0] = n;
  t.strides[1] = 1;
  return t;
}

void FillGm(FlatGmPort& gm, trace::DType dtype, int64_t n) {
  const size_t size = DTypeSize(dtype);
  for (int64_t i = 0; i < n * n; ++i) {
    StoreFromDouble(dtype, 0.001 * (i % 97), gm.data(kA) + i * size);
    StoreFromDouble(dtype, 0.002 * (i % 89), gm.data(kB) + i * size);
  }
}

// What the Eigen side does by hand: GM elements of `dtype` to FP32 and back.
void Decode(trace::DType dtype, const uint8_t* src, float* dst, int64_t count) {
  if (dtype == trace::FP32) {
    std::memcpy(dst, src, static_cast<size_t>(count) * 4);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    uint16_t bits;
    std::memcpy(&bits, src + 2 * i, 2);
    dst[i] = dtype == trace::FP16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
  }
}

void Encode(trace::DType dtype, const float* src, uint8_t* dst, int64_t count) {
  if (dtype == trace::FP32) {
    std::memcpy(dst, src, static_cast<size_t>(count) * 4);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const uint16_t bits = dtype == trace::FP16 ? FloatToHalf(src[i]) : FloatToBf16(src[i]);
    std::memcpy(dst + 2 * i, &bits, 2);
  }
}

CompiledKernel AddKernel(trace::DType dtype, int64_t n) {
  KernelBuilder kb("add");
  uint32_t x = kb.TensorParam("x", dtype);
  uint32_t y = kb.TensorParam("y", dtype);
  uint32_t o = kb.TensorParam("o", dtype);
  uint32_t tx = kb.Tile("tx", {n, n}, dtype);
  uint32_t ty = kb.Tile("ty", {n, n}, dtype);
  kb.Load(tx, x, {C(0), C(0)});
  kb.Load(ty, y, {C(0), C(0)});
  kb.Binary(trace::Op::ADD, tx, tx, ty);
  kb.Store(tx, o, {C(0), C(0)});
  return *CompileKernel(kb.kernel());
}

CompiledKernel MatmulKernel(trace::DType dtype, int64_t n) {
  KernelBuilder kb("mm", trace::AIC);
  uint32_t a = kb.TensorParam("a", dtype);
  uint32_t b = kb.TensorParam("b", dtype);
  uint32_t c = kb.TensorParam("c", trace::FP32);
  uint32_t ta = kb.Tile("ta", {n, n}, dtype, trace::MAT);
  uint32_t tb = kb.Tile("tb", {n, n}, dtype, trace::MAT);
  uint32_t tc = kb.Tile("tc", {n, n}, trace::FP32, trace::ACC);
  kb.Load(ta, a, {C(0), C(0)});
  kb.Load(tb, b, {C(0), C(0)});
  kb.Matmul(tc, ta, tb);
  kb.Store(tc, c, {C(0), C(0)});
  return *CompileKernel(kb.kernel());
}

void RunExecutor(benchmark::State& state, const CompiledKernel& k, trace::DType in,
                 trace::DType out) {
  const int64_t n = state.range(0);
  FlatGmPort gm(kBase, kGmBytes);
  FillGm(gm, in, n);
  const std::vector<BoundArg> args = {BoundArg::Tensor(Matrix(kA, in, n)),
                                      BoundArg::Tensor(Matrix(kB, in, n)),
                                      BoundArg::Tensor(Matrix(kOut, out, n))};
  TileExecutor exec{ChipConfig{}};
  ExecutionProfile profile;
  for (auto _ : state) {
    if (!exec.Execute(k, {}, args, /*functional=*/true, &gm, &profile).ok()) {
      state.SkipWithError("execution failed");
      break;
    }
    benchmark::DoNotOptimize(gm.data(kOut));
  }
}

template <trace::DType kDType>
void BM_ExecutorAdd(benchmark::State& state) {
  RunExecutor(state, AddKernel(kDType, state.range(0)), kDType, kDType);
}

template <trace::DType kDType>
void BM_EigenAdd(benchmark::State& state) {
  const int64_t n = state.range(0);
  FlatGmPort gm(kBase, kGmBytes);
  FillGm(gm, kDType, n);
  Eigen::ArrayXf x(n * n), y(n * n);
  for (auto _ : state) {
    Decode(kDType, gm.data(kA), x.data(), n * n);
    Decode(kDType, gm.data(kB), y.data(), n * n);
    x += y;
    Encode(kDType, x.data(), gm.data(kOut), n * n);
    benchmark::DoNotOptimize(gm.data(kOut));
  }
}

template <trace::DType kDType>
void BM_ExecutorMatmul(benchmark::State& state) {
  RunExecutor(state, MatmulKernel(kDType, state.range(0)), kDType, trace::FP32);
}

template <trace::DType kDType>
void BM_EigenMatmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  FlatGmPort gm(kBase, kGmBytes);
  FillGm(gm, kDType, n);
  RowMajor a(n, n), b(n, n), c(n, n);
  for (auto _ : state) {
    Decode(kDType, gm.data(kA), a.data(), n * n);
    Decode(kDType, gm.data(kB), b.data(), n * n);
    c.noalias() = a * b;
    std::memcpy(gm.data(kOut), c.data(), static_cast<size_t>(n * n) * 4);
    benchmark::DoNotOptimize(gm.data(kOut));
  }
}

BENCHMARK(BM_ExecutorAdd<trace::FP32>)->Arg(32)->Arg(128);
BENCHMARK(BM_EigenAdd<trace::FP32>)->Arg(32)->Arg(128);
BENCHMARK(BM_ExecutorAdd<trace::BF16>)->Arg(32)->Arg(128);
BENCHMARK(BM_EigenAdd<trace::BF16>)->Arg(32)->Arg(128);
BENCHMARK(BM_ExecutorMatmul<trace::FP16>)->Arg(32)->Arg(128);
BENCHMARK(BM_EigenMatmul<trace::FP16>)->Arg(32)->Arg(128);
BENCHMARK(BM_ExecutorMatmul<trace::BF16>)->Arg(32)->Arg(128);
BENCHMARK(BM_EigenMatmul<trace::BF16>)->Arg(32)->Arg(128);

void BM_ExecutorMatmulTimingOnly(benchmark::State& state) {
  const int64_t n = state.range(0);
  const CompiledKernel k = MatmulKernel(trace::FP16, n);
  const std::vector<BoundArg> args = {BoundArg::Tensor(Matrix(kA, trace::FP16, n)),
                                      BoundArg::Tensor(Matrix(kB, trace::FP16, n)),
                                      BoundArg::Tensor(Matrix(kOut, trace::FP32, n))};
  TileExecutor exec{ChipConfig{}};
  ExecutionProfile profile;
  for (auto _ : state) {
    benchmark::DoNotOptimize(exec.Execute(k, {}, args, /*functional=*/false, nullptr, &profile));
  }
}
BENCHMARK(BM_ExecutorMatmulTimingOnly)->Arg(128);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
