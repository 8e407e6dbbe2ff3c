#include "models/core/tile_predicates.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/dtype.h"

namespace pto {

bool Compare(trace::Op::Compare compare, double a, double b) {
  switch (compare) {
    case trace::Op::CMP_EQ:
      return a == b;
    case trace::Op::CMP_NE:
      return a != b;
    case trace::Op::CMP_LT:
      return a < b;
    case trace::Op::CMP_LE:
      return a <= b;
    case trace::Op::CMP_GT:
      return a > b;
    case trace::Op::CMP_GE:
      return a >= b;
    default:
      return false;
  }
}

double WrapScalar(trace::DType dtype, double x) {
  if (IsFloat(dtype) || dtype == trace::BOOL || x != std::trunc(x) || std::fabs(x) >= 9.2e18) {
    return x;
  }
  uint8_t bytes[8];
  const auto bits = static_cast<uint64_t>(static_cast<int64_t>(x));
  std::memcpy(bytes, &bits, sizeof(bytes));  // little-endian: the low bytes first
  return LoadAsDouble(dtype, bytes);
}

template <typename T>
void PackCompare(trace::Op::Compare compare, const T* a, const T* b, double scalar, int64_t rows,
                 int64_t cols, const MaskShape& mask_shape, double* mask) {
  // Element by element: each mask element holds the bits of 8 * esize
  // columns, assembled little-endian in a word (no buffer per op).
  const int64_t esize = static_cast<int64_t>(DTypeSize(mask_shape.dtype));
  const int64_t bits_per_element = 8 * esize;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t e = 0; e < mask_shape.cols; ++e) {
      uint64_t word = 0;
      const int64_t first = e * bits_per_element;
      const int64_t last = std::min(cols, first + bits_per_element);
      for (int64_t c = first; c < last; ++c) {
        const int64_t i = r * cols + c;
        const double rhs = b != nullptr ? static_cast<double>(b[i]) : scalar;
        if (Compare(compare, static_cast<double>(a[i]), rhs)) word |= uint64_t{1} << (c - first);
      }
      uint8_t bytes[8];
      std::memcpy(bytes, &word, sizeof(bytes));  // little-endian hosts (x86, Arm)
      mask[r * mask_shape.cols + e] = LoadAsDouble(mask_shape.dtype, bytes);
    }
  }
}

template void PackCompare<float>(trace::Op::Compare, const float*, const float*, double, int64_t,
                                 int64_t, const MaskShape&, double*);
template void PackCompare<double>(trace::Op::Compare, const double*, const double*, double, int64_t,
                                  int64_t, const MaskShape&, double*);

bool MaskBit(const double* mask, const MaskShape& mask_shape, int64_t r, int64_t c) {
  const int64_t esize = static_cast<int64_t>(DTypeSize(mask_shape.dtype));
  const int64_t byte = c / 8;
  uint8_t bytes[8] = {};
  StoreFromDouble(mask_shape.dtype, mask[r * mask_shape.cols + byte / esize], bytes);
  return (bytes[byte % esize] >> (c % 8)) & 1u;
}

template <typename T>
void FillTriangle(int64_t diagonal, bool upper, int64_t rows, int64_t cols, int64_t tile_cols,
                  T* out) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const bool in = upper ? c >= r + diagonal : c <= r + diagonal;
      out[r * tile_cols + c] = in ? T{1} : T{0};
    }
  }
}

template void FillTriangle<float>(int64_t, bool, int64_t, int64_t, int64_t, float*);
template void FillTriangle<double>(int64_t, bool, int64_t, int64_t, int64_t, double*);

}  // namespace pto
