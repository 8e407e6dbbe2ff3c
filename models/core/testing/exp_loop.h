#ifndef PTO_MODELS_CORE_TESTING_EXP_LOOP_H_
#define PTO_MODELS_CORE_TESTING_EXP_LOOP_H_

// The hand-timed loop of the core-pipes tests: load -> exp -> store over the
// four tiles of a [1, 64] FP32 row.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/core/kernel_program.h"
#include "models/core/testing/fake_task_port.h"
#include "models/core/testing/kernel_builder.h"

namespace pto::core_testing {

// A [1, 64] FP32 view: four 1x16 tiles side by side.
inline BoundArg Row64(uint64_t addr) {
  BoundArg arg = Matrix1x16(addr);
  arg.tensor.shape[1] = 64;
  arg.tensor.strides[0] = 64;
  return arg;
}

// load -> exp -> store over the four tiles of a [1, 64] row (params x, y):
// one tile per iteration (single-buffered), or `copies` tiles of their own
// per iteration.
inline CompiledKernel ExpLoop(int copies) {
  using ::pto::kernel_testing::C;
  using ::pto::kernel_testing::LoopVar;
  using ::pto::kernel_testing::Plus;
  using ::pto::kernel_testing::Times;
  ::pto::kernel_testing::KernelBuilder kb(copies == 1 ? "single" : "double");
  const uint32_t x = kb.TensorParam("x", trace::FP32, trace::KernelParam::IN);
  const uint32_t y = kb.TensorParam("y", trace::FP32, trace::KernelParam::OUT);
  std::vector<std::pair<uint32_t, uint32_t>> tiles;
  for (int c = 0; c < copies; ++c) {
    tiles.emplace_back(kb.Tile("t" + std::to_string(c), {1, 16}, trace::FP32),
                       kb.Tile("u" + std::to_string(c), {1, 16}, trace::FP32));
  }
  kb.BeginLoop(0, C(0), C(4 / copies));
  for (int c = 0; c < copies; ++c) {
    const trace::IntExpr col = Times(Plus(Times(LoopVar(0), C(copies)), C(c)), C(16));
    kb.Load(tiles[c].first, x, {C(0), col});
    kb.Unary(trace::Op::EXP, tiles[c].second, tiles[c].first);
    kb.Store(tiles[c].second, y, {C(0), col});
  }
  kb.EndLoop();
  return *CompileKernel(kb.kernel());
}

}  // namespace pto::core_testing

#endif  // PTO_MODELS_CORE_TESTING_EXP_LOOP_H_
