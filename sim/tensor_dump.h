#ifndef PTO_SIM_TENSOR_DUMP_H_
#define PTO_SIM_TENSOR_DUMP_H_

// The final contents of a run's tensors, for a caller that wants the
// simulated results back (the pypto package writes them into the script's
// torch tensors). `pto_sim --write-tensors DIR` writes
//
//   DIR/tensors.json  {"tensors": [{"id", "name", "dtype", "shape", "file"}]}
//   DIR/<id>.bin      the tensor's GM bytes: little-endian, row-major
//
// after the last launch, and `pto_sim --serve DIR` the same for each
// launch's argument tensors into DIR/launch_<n>. A timing-only run has no
// contents: its index lists the tensors with "file": null.

#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "models/gm/memory_image.h"
#include "proto/task_stream.pb.h"

namespace pto {

// Every tensor of `header`, or only those of `ids` when it is not empty.
absl::Status WriteTensorDump(const std::string& dir, const trace::StreamHeader& header,
                             const MemoryImage& memory, bool with_contents,
                             absl::Span<const uint32_t> ids = {});

}  // namespace pto

#endif  // PTO_SIM_TENSOR_DUMP_H_
