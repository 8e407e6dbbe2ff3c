#ifndef PTO_COMMON_TENSOR_FILL_H_
#define PTO_COMMON_TENSOR_FILL_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Writes `count` elements of `dtype` described by `init` into `dst`
// (count * DTypeSize(dtype) bytes). The generators are deterministic and
// portable: ptoc and pto_sim produce identical bytes from the same seed.
// An `init` with no contents leaves `dst` untouched.
absl::Status FillTensor(const trace::TensorInit& init, trace::DType dtype, size_t count, void* dst);

// The random source of the generators: splitmix64 bits, uniform doubles in
// (0, 1] and standard normals by Box-Muller.
class RandomStream {
 public:
  explicit RandomStream(uint64_t seed);
  double NextNormal();
  double NextUniform();

 private:
  uint64_t NextBits();

  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace pto

#endif  // PTO_COMMON_TENSOR_FILL_H_
