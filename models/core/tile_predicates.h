#ifndef PTO_MODELS_CORE_TILE_PREDICATES_H_
#define PTO_MODELS_CORE_TILE_PREDICATES_H_

#include <cstdint>

#include "proto/task_stream.pb.h"

namespace pto {

// The packed predicate masks of Op.CMP and Op.SELECT (pl.tile.cmp / cmps and
// pl.tile.sel / sels; CANN's TCMP, TSEL): column c of row r is bit c % 8 of
// byte c / 8 of the mask's row r, an integer tile whose elements' bytes are
// little-endian. upstream's tests/st/runtime/ops/test_sels.py
// (hw-native-sys/pypto@e2d0f78a) loads a mask of 0xAA bytes to select the odd
// columns, whatever the mask's integer dtype.
struct MaskShape {
  trace::DType dtype = trace::UINT8;
  int64_t rows = 0;
  int64_t cols = 0;  // elements a row
};

bool Compare(trace::Op::Compare compare, double a, double b);

// A scalar operand as an integer tile's element takes it: an integral value
// wraps to the dtype's width, as C's conversion to an unsigned type does
// (TSELS with -3 into a UINT32 tile selects 0xFFFFFFFD). Other dtypes keep x.
double WrapScalar(trace::DType dtype, double x);

// Writes `mask` (the mask tile's element values) for a [rows, cols] compare
// of `a` against `b` (nullptr: against `scalar`); bytes past `cols` bits are
// 0.
template <typename T>
void PackCompare(trace::Op::Compare compare, const T* a, const T* b, double scalar, int64_t rows,
                 int64_t cols, const MaskShape& mask_shape, double* mask);

// Bit (r, c) of a mask whose element values are `mask`.
bool MaskBit(const double* mask, const MaskShape& mask_shape, int64_t r, int64_t c);

// TRI over the top-left [rows, cols] of a tile `tile_cols` wide: 1 where
// (upper ? c >= r + diagonal : c <= r + diagonal), 0 elsewhere in it.
template <typename T>
void FillTriangle(int64_t diagonal, bool upper, int64_t rows, int64_t cols, int64_t tile_cols,
                  T* out);

}  // namespace pto

#endif  // PTO_MODELS_CORE_TILE_PREDICATES_H_
