#ifndef PTO_COMMON_DTYPE_H_
#define PTO_COMMON_DTYPE_H_

#include <cstddef>
#include <cstdint>

#include "proto/task_stream.pb.h"

namespace pto {

using trace::DType;

// Bytes per element; 0 for DTYPE_UNSPECIFIED.
size_t DTypeSize(DType dtype);

// The runtime's dtype names as deps.json prints them ("FLOAT32", "BFLOAT16").
const char* DTypeRuntimeName(DType dtype);

// The PyPTO spelling ("FP32", "BF16", "INT32").
const char* DTypeName(DType dtype);

bool IsFloat(DType dtype);
bool IsSignedInt(DType dtype);
bool IsUnsignedInt(DType dtype);

// IEEE half and bfloat16 conversions (round to nearest even).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float Bf16ToFloat(uint16_t b);
uint16_t FloatToBf16(float f);

// Reads one element at `p` as double / writes a double converted to `dtype`
// (integers truncate toward zero and saturate; BOOL is value != 0).
double LoadAsDouble(DType dtype, const void* p);
void StoreFromDouble(DType dtype, double value, void* p);

// Reads one integer element, sign-extended for signed types, zero-extended for
// unsigned ones (the predicate path sign-extends explicitly).
int64_t LoadAsInt64(DType dtype, const void* p);

}  // namespace pto

#endif  // PTO_COMMON_DTYPE_H_
