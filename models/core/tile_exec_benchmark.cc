// One 128x128 FP32 add and one 128x128x128 FP16 matmul kernel through the
// TileExecutor, each against the same work done by hand with Eigen (the same
// GM bytes in, the same math, the same bytes out). Target: within 2x.

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

constexpr int kN = 128;
constexpr uint64_t kBase = 0x100000;
constexpr uint64_t kA = kBase;
constexpr uint64_t kB = kBase + 0x20000;
constexpr uint64_t kOut = kBase + 0x40000;

TensorBinding Matrix(uint64_t addr, trace::DType dtype) {
  TensorBinding t;
  t.gm_addr = addr;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = t.shape[1] = kN;
  t.strides[0] = kN;
  t.strides[1] = 1;
  return t;
}

void FillGm(FlatGmPort& gm, trace::DType dtype) {
  for (int i = 0; i < kN * kN; ++i) {
    const size_t size = DTypeSize(dtype);
    StoreFromDouble(dtype, 0.001 * (i % 97), gm.data(kA) + i * size);
    StoreFromDouble(dtype, 0.002 * (i % 89), gm.data(kB) + i * size);
  }
}

CompiledKernel AddKernel() {
  KernelBuilder kb("add");
  uint32_t x = kb.TensorParam("x", trace::FP32);
  uint32_t y = kb.TensorParam("y", trace::FP32);
  uint32_t o = kb.TensorParam("o", trace::FP32);
  uint32_t tx = kb.Tile("tx", {kN, kN}, trace::FP32);
  uint32_t ty = kb.Tile("ty", {kN, kN}, trace::FP32);
  kb.Load(tx, x, {C(0), C(0)});
  kb.Load(ty, y, {C(0), C(0)});
  kb.Binary(trace::Op::ADD, tx, tx, ty);
  kb.Store(tx, o, {C(0), C(0)});
  return *CompileKernel(kb.kernel());
}

CompiledKernel MatmulKernel() {
  KernelBuilder kb("mm", trace::AIC);
  uint32_t a = kb.TensorParam("a", trace::FP16);
  uint32_t b = kb.TensorParam("b", trace::FP16);
  uint32_t c = kb.TensorParam("c", trace::FP32);
  uint32_t ta = kb.Tile("ta", {kN, kN}, trace::FP16, trace::MAT);
  uint32_t tb = kb.Tile("tb", {kN, kN}, trace::FP16, trace::MAT);
  uint32_t tc = kb.Tile("tc", {kN, kN}, trace::FP32, trace::ACC);
  kb.Load(ta, a, {C(0), C(0)});
  kb.Load(tb, b, {C(0), C(0)});
  kb.Matmul(tc, ta, tb);
  kb.Store(tc, c, {C(0), C(0)});
  return *CompileKernel(kb.kernel());
}

void BM_ExecutorAddFp32(benchmark::State& state) {
  FlatGmPort gm(kBase, 0x80000);
  FillGm(gm, trace::FP32);
  const CompiledKernel k = AddKernel();
  const std::vector<BoundArg> args = {BoundArg::Tensor(Matrix(kA, trace::FP32)),
                                      BoundArg::Tensor(Matrix(kB, trace::FP32)),
                                      BoundArg::Tensor(Matrix(kOut, trace::FP32))};
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
BENCHMARK(BM_ExecutorAddFp32);

void BM_EigenAddFp32(benchmark::State& state) {
  FlatGmPort gm(kBase, 0x80000);
  FillGm(gm, trace::FP32);
  Eigen::ArrayXf x(kN * kN), y(kN * kN);
  for (auto _ : state) {
    std::memcpy(x.data(), gm.data(kA), kN * kN * 4);
    std::memcpy(y.data(), gm.data(kB), kN * kN * 4);
    x += y;
    std::memcpy(gm.data(kOut), x.data(), kN * kN * 4);
    benchmark::DoNotOptimize(gm.data(kOut));
  }
}
BENCHMARK(BM_EigenAddFp32);

void BM_ExecutorMatmulFp16(benchmark::State& state) {
  FlatGmPort gm(kBase, 0x80000);
  FillGm(gm, trace::FP16);
  const CompiledKernel k = MatmulKernel();
  const std::vector<BoundArg> args = {BoundArg::Tensor(Matrix(kA, trace::FP16)),
                                      BoundArg::Tensor(Matrix(kB, trace::FP16)),
                                      BoundArg::Tensor(Matrix(kOut, trace::FP32))};
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
BENCHMARK(BM_ExecutorMatmulFp16);

void BM_EigenMatmulFp16(benchmark::State& state) {
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  FlatGmPort gm(kBase, 0x80000);
  FillGm(gm, trace::FP16);
  RowMajor a(kN, kN), b(kN, kN), c(kN, kN);
  for (auto _ : state) {
    for (int i = 0; i < kN * kN; ++i) {
      uint16_t h;
      std::memcpy(&h, gm.data(kA) + 2 * i, 2);
      a.data()[i] = HalfToFloat(h);
      std::memcpy(&h, gm.data(kB) + 2 * i, 2);
      b.data()[i] = HalfToFloat(h);
    }
    c.noalias() = a * b;
    std::memcpy(gm.data(kOut), c.data(), kN * kN * 4);
    benchmark::DoNotOptimize(gm.data(kOut));
  }
}
BENCHMARK(BM_EigenMatmulFp16);

void BM_ExecutorMatmulTimingOnly(benchmark::State& state) {
  const CompiledKernel k = MatmulKernel();
  const std::vector<BoundArg> args = {BoundArg::Tensor(Matrix(kA, trace::FP16)),
                                      BoundArg::Tensor(Matrix(kB, trace::FP16)),
                                      BoundArg::Tensor(Matrix(kOut, trace::FP32))};
  TileExecutor exec{ChipConfig{}};
  ExecutionProfile profile;
  for (auto _ : state) {
    benchmark::DoNotOptimize(exec.Execute(k, {}, args, /*functional=*/false, nullptr, &profile));
  }
}
BENCHMARK(BM_ExecutorMatmulTimingOnly);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
