#ifndef PTO_FRONTEND_KERNEL_SHARING_H_
#define PTO_FRONTEND_KERNEL_SHARING_H_

#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// ptoc traces a task body once per call, so a body inside a host loop
// (`for layer in range(40): with pl.at(...)`) becomes one kernel per
// iteration that differs only in the GM offsets the loop variables fed it.
// PyPTO outlines such a body into one InCore function whose parameters are
// the body's live-in variables, loop indices included (upstream
// hw-native-sys/pypto @e2d0f78a, docs/en/dev/passes/
// 08-outline_incore_scopes.md); this pass gives the stream that shape. Kernels that are equal
// except for integer constants in their LOAD / STORE / CACHE_INVALID offsets
// become one kernel in which each constant that differs among them is an
// INT64 scalar parameter (appended after the existing ones), and every
// submit of a merged kernel passes its own values as scalar arguments. Every
// offset evaluates to what it did, so the simulated times and results do
// not change; the header shrinks from one kernel per call to one per body.
// Kernel ids stay dense, in order of first use; a merged kernel keeps the
// first member's name and origin, and a tensor parameter the members name
// differently (after the tensors of their calls) becomes `arg<index>`. Kernels reached from a
// submit that names two different kernels, and cost-only kernels, are left alone.
void ShareKernelsAcrossOffsets(trace::TraceText* text);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_KERNEL_SHARING_H_
