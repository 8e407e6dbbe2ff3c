#ifndef PTO_MODELS_CORE_TESTING_TILE_EXECUTOR_FIXTURE_H_
#define PTO_MODELS_CORE_TESTING_TILE_EXECUTOR_FIXTURE_H_

// A TileExecutor over a flat GM for op-level tests: put inputs, compile a
// kernel_testing::KernelBuilder kernel, run one block, read results.
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/dtype.h"
#include "gtest/gtest.h"
#include "models/core/flat_gm_port.h"
#include "models/core/kernel_program.h"
#include "models/core/testing/kernel_builder.h"
#include "models/core/tile_executor.h"

namespace pto {

constexpr uint64_t kGmBase = 0x10000;

// Row-major view of a whole [rows, cols] tensor at `addr`.
inline TensorBinding Matrix(uint64_t addr, trace::DType dtype, int64_t rows, int64_t cols) {
  TensorBinding t;
  t.gm_addr = addr;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  return t;
}

class TileExecutorFixture : public ::testing::Test {
 protected:
  TileExecutorFixture() : gm_(kGmBase, 1 << 22), exec_(config_) {}

  void PutF32(uint64_t addr, const std::vector<float>& v) {
    std::memcpy(gm_.data(addr), v.data(), v.size() * 4);
  }
  std::vector<float> GetF32(uint64_t addr, size_t n) {
    std::vector<float> v(n);
    std::memcpy(v.data(), gm_.data(addr), n * 4);
    return v;
  }
  void PutAs(trace::DType dtype, uint64_t addr, const std::vector<double>& v) {
    for (size_t i = 0; i < v.size(); ++i) {
      StoreFromDouble(dtype, v[i], gm_.data(addr) + i * DTypeSize(dtype));
    }
  }
  std::vector<double> GetAs(trace::DType dtype, uint64_t addr, size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = LoadAsDouble(dtype, gm_.data(addr) + i * DTypeSize(dtype));
    return v;
  }

  CompiledKernel Compile(const kernel_testing::KernelBuilder& b) {
    absl::StatusOr<CompiledKernel> k = CompileKernel(b.kernel());
    EXPECT_TRUE(k.ok()) << k.status();
    return k.ok() ? *std::move(k) : CompiledKernel{};
  }

  absl::Status Run(const CompiledKernel& k, std::vector<BoundArg> args, BlockContext block = {},
                   bool functional = true) {
    absl::Status s =
        exec_.Execute(k, block, args, functional, functional ? &gm_ : nullptr, &profile_);
    EXPECT_TRUE(gm_.status().ok()) << gm_.status();
    return s;
  }

  ChipConfig config_;
  FlatGmPort gm_;
  TileExecutor exec_;
  ExecutionProfile profile_;
};

// x, y: [rows, cols] FP32 at kA/kB, out at kOut.
constexpr uint64_t kA = kGmBase;
constexpr uint64_t kB = kGmBase + 0x40000;
constexpr uint64_t kOut = kGmBase + 0x80000;

inline std::vector<float> Ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

}  // namespace pto

#endif  // PTO_MODELS_CORE_TESTING_TILE_EXECUTOR_FIXTURE_H_
