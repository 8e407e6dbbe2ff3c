#ifndef PTO_MODELS_CORE_BUFFER_CAPACITY_H_
#define PTO_MODELS_CORE_BUFFER_CAPACITY_H_

// A kernel's tiles against the on-chip buffers of the core that runs them
// (core.ub_bytes, core.l1_bytes, core.l0a_bytes, core.l0b_bytes,
// core.l0c_bytes, core.bt_bytes): a tile larger than its memory space cannot
// exist on the device.

#include <cstdint>

#include "absl/status/status.h"
#include "models/base/chip_config.h"
#include "models/core/kernel_program.h"
#include "proto/task_stream.pb.h"

namespace pto {

// The capacity of `space` on one core, in bytes; 0 for an unspecified space
// (not checked).
int64_t SpaceCapacityBytes(trace::MemSpace space, const CoreParams& core);

// InvalidArgument naming the kernel, the tile, its bytes and the space's
// key and capacity when a tile does not fit its space.
// Then CheckBufferFootprints.
absl::Status CheckTileCapacities(const CompiledKernel& kernel, const CoreParams& core);

// InvalidArgument naming the kernel, the space, its buffers' bytes and the
// space's key and capacity when a space's buffers (each as large as its
// largest tile) do not fit it together.
absl::Status CheckBufferFootprints(const CompiledKernel& kernel, const CoreParams& core);

}  // namespace pto

#endif  // PTO_MODELS_CORE_BUFFER_CAPACITY_H_
