#ifndef PTO_MODELS_CORE_TILE_CODEC_H_
#define PTO_MODELS_CORE_TILE_CODEC_H_

#include <cstdint>

#include "proto/task_stream.pb.h"

namespace pto {

// Tiles are computed in a wide type: FP32/FP16/BF16 tiles hold float values,
// every integer dtype (and BOOL) holds double values (exact for 32-bit
// integers, and for 64-bit ones up to 2^53). After every write a tile's values
// are rounded to what its dtype can represent, so a FP16 tile holds exactly
// the FP16 values the hardware would.
bool ComputesInFloat(trace::DType dtype);

// GM bytes (little-endian elements of `dtype`) -> T values, and back.
// T is float for ComputesInFloat dtypes and double otherwise.
template <typename T>
void DecodeElements(trace::DType dtype, const uint8_t* src, T* dst, int64_t count);
template <typename T>
void EncodeElements(trace::DType dtype, const T* src, uint8_t* dst, int64_t count);

// Rounds values to `dtype`: FP16/BF16 round to nearest even, integers
// truncate toward zero and saturate (NaN -> 0), BOOL becomes 0/1. FP32 tiles
// need nothing.
template <typename T>
void RoundToDType(trace::DType dtype, T* data, int64_t count);

// One element of a CAST to `to` under `mode` (Op.CastMode; CANN's AscendC
// RoundMode): x rounded to a value `to` represents -- RINT (and NONE) to
// nearest with ties to even, ROUND to nearest with ties away from zero,
// FLOOR / CEIL / TRUNC toward -inf / +inf / zero, ODD to the neighbour whose
// last bit is odd. Integers saturate (NaN -> 0); FP16 and BF16 pick between
// the two values of the format around x. FP32 (and wider sources) rounds to
// nearest even whatever the mode.
// What pl.tile.fillpad writes for `pad` in a `dtype` tile: 0; for a float
// dtype +inf (PAD_MAX) or -inf (PAD_MIN), as the device's TFILLPAD does
// (hw-native-sys/pypto@e2d0f78a tests/st/runtime/ops/test_fillpad.py expects
// inf from the chip); for an integer dtype its largest or lowest value.
double PadValueOf(trace::Op::PadValue pad, trace::DType dtype);

double CastElement(double x, trace::DType to, trace::Op::CastMode mode);

}  // namespace pto

#endif  // PTO_MODELS_CORE_TILE_CODEC_H_
