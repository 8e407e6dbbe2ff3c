#include "models/core/tile_codec.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/dtype.h"

namespace pto {
namespace {

template <typename I>
double SaturateAs(double v) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  const double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  return v < lo ? lo : (v > hi ? hi : v);
}

double SaturateInt(trace::DType dtype, double v) {
  switch (dtype) {
    case trace::INT8:
      return SaturateAs<int8_t>(v);
    case trace::UINT8:
      return SaturateAs<uint8_t>(v);
    case trace::INT16:
      return SaturateAs<int16_t>(v);
    case trace::UINT16:
      return SaturateAs<uint16_t>(v);
    case trace::INT32:
      return SaturateAs<int32_t>(v);
    case trace::UINT32:
      return SaturateAs<uint32_t>(v);
    case trace::INT64:
      return SaturateAs<int64_t>(v);
    case trace::UINT64:
      return SaturateAs<uint64_t>(v);
    case trace::BOOL:
      return v != 0 && !std::isnan(v) ? 1.0 : 0.0;
    default:
      return v;
  }
}

}  // namespace

bool ComputesInFloat(trace::DType dtype) {
  return dtype == trace::FP32 || dtype == trace::FP16 || dtype == trace::BF16;
}

template <typename T>
void DecodeElements(trace::DType dtype, const uint8_t* src, T* dst, int64_t count) {
  switch (dtype) {
    case trace::FP32:
      if constexpr (std::is_same_v<T, float>) {
        std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(float));
        return;
      }
      break;
    case trace::FP16:
      for (int64_t i = 0; i < count; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = static_cast<T>(HalfToFloat(h));
      }
      return;
    case trace::BF16:
      for (int64_t i = 0; i < count; ++i) {
        uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        dst[i] = static_cast<T>(Bf16ToFloat(b));
      }
      return;
    case trace::INT32:
      for (int64_t i = 0; i < count; ++i) {
        int32_t v;
        std::memcpy(&v, src + 4 * i, 4);
        dst[i] = static_cast<T>(v);
      }
      return;
    default:
      break;
  }
  const size_t size = DTypeSize(dtype);
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = static_cast<T>(LoadAsDouble(dtype, src + size * i));
  }
}

template <typename T>
void EncodeElements(trace::DType dtype, const T* src, uint8_t* dst, int64_t count) {
  switch (dtype) {
    case trace::FP32:
      if constexpr (std::is_same_v<T, float>) {
        std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(float));
        return;
      }
      break;
    case trace::FP16:
      for (int64_t i = 0; i < count; ++i) {
        const uint16_t h = FloatToHalf(static_cast<float>(src[i]));
        std::memcpy(dst + 2 * i, &h, 2);
      }
      return;
    case trace::BF16:
      for (int64_t i = 0; i < count; ++i) {
        const uint16_t b = FloatToBf16(static_cast<float>(src[i]));
        std::memcpy(dst + 2 * i, &b, 2);
      }
      return;
    case trace::INT32:
      for (int64_t i = 0; i < count; ++i) {
        const int32_t v = static_cast<int32_t>(SaturateAs<int32_t>(static_cast<double>(src[i])));
        std::memcpy(dst + 4 * i, &v, 4);
      }
      return;
    default:
      break;
  }
  const size_t size = DTypeSize(dtype);
  for (int64_t i = 0; i < count; ++i) {
    StoreFromDouble(dtype, static_cast<double>(src[i]), dst + size * i);
  }
}

template <typename T>
void RoundToDType(trace::DType dtype, T* data, int64_t count) {
  switch (dtype) {
    case trace::FP32:
      if constexpr (std::is_same_v<T, double>) {
        for (int64_t i = 0; i < count; ++i) data[i] = static_cast<float>(data[i]);
      }
      return;
    case trace::FP16:
      for (int64_t i = 0; i < count; ++i) {
        data[i] = static_cast<T>(HalfToFloat(FloatToHalf(static_cast<float>(data[i]))));
      }
      return;
    case trace::BF16:
      for (int64_t i = 0; i < count; ++i) {
        data[i] = static_cast<T>(Bf16ToFloat(FloatToBf16(static_cast<float>(data[i]))));
      }
      return;
    default:
      for (int64_t i = 0; i < count; ++i) {
        data[i] = static_cast<T>(SaturateInt(dtype, static_cast<double>(data[i])));
      }
      return;
  }
}

namespace {

// x rounded to an integer under `mode`.
double RoundIntegral(double x, trace::Op::CastMode mode) {
  switch (mode) {
    case trace::Op::CAST_FLOOR:
      return std::floor(x);
    case trace::Op::CAST_CEIL:
      return std::ceil(x);
    case trace::Op::CAST_TRUNC:
      return std::trunc(x);
    case trace::Op::CAST_ROUND:
      return std::round(x);
    case trace::Op::CAST_ODD: {
      const double t = std::trunc(x);
      if (t == x || std::fmod(t, 2.0) != 0) return t;
      return t + (x > 0 ? 1.0 : -1.0);
    }
    default:  // RINT, NONE: the default rounding mode rounds half to even
      return std::nearbyint(x);
  }
}

// x rounded to a 16-bit float format: `encode` rounds to nearest even, and
// stepping the magnitude bits by one gives the other neighbour.
double RoundHalfFormat(double x, trace::Op::CastMode mode, uint16_t (*encode)(float),
                       float (*decode)(uint16_t)) {
  const float f = static_cast<float>(x);
  const uint16_t nearest = encode(f);
  const double r = decode(nearest);
  if (std::isnan(x) || std::isinf(r) || r == x) return r;
  const bool nearest_larger = std::fabs(r) > std::fabs(x);
  const uint16_t other_bits = nearest_larger ? nearest - 1 : nearest + 1;
  const double other = decode(other_bits);
  const double small = nearest_larger ? other : r;  // toward zero
  const double large = nearest_larger ? r : other;  // away from zero
  const uint16_t small_bits = nearest_larger ? other_bits : nearest;
  switch (mode) {
    case trace::Op::CAST_TRUNC:
      return small;
    case trace::Op::CAST_FLOOR:
      return x > 0 ? small : large;
    case trace::Op::CAST_CEIL:
      return x > 0 ? large : small;
    case trace::Op::CAST_ROUND:
      return std::fabs(x - small) == std::fabs(large - x) ? large : r;
    case trace::Op::CAST_ODD:
      return (small_bits & 1) != 0 ? small : large;
    default:
      return r;
  }
}

}  // namespace

double PadValueOf(trace::Op::PadValue pad, trace::DType dtype) {
  if (pad != trace::Op::PAD_MAX && pad != trace::Op::PAD_MIN) return 0;
  const bool max = pad == trace::Op::PAD_MAX;
  switch (dtype) {
    case trace::FP32:
    case trace::FP16:
    case trace::BF16:
      return max ? std::numeric_limits<double>::infinity()
                 : -std::numeric_limits<double>::infinity();
    case trace::INT8:
      return max ? 127 : -128;
    case trace::INT16:
      return max ? 32767 : -32768;
    case trace::INT32:
      return max ? 2147483647.0 : -2147483648.0;
    case trace::INT64:
      return max ? 9223372036854775807.0 : -9223372036854775808.0;
    case trace::UINT8:
      return max ? 255 : 0;
    case trace::UINT16:
      return max ? 65535 : 0;
    case trace::UINT32:
      return max ? 4294967295.0 : 0;
    case trace::UINT64:
      return max ? 18446744073709551615.0 : 0;
    case trace::BOOL:
      return max ? 1 : 0;
    default:
      return 0;
  }
}

double CastElement(double x, trace::DType to, trace::Op::CastMode mode) {
  switch (to) {
    case trace::FP32:
      return static_cast<float>(x);
    case trace::FP16:
      return RoundHalfFormat(x, mode, FloatToHalf, HalfToFloat);
    case trace::BF16:
      return RoundHalfFormat(x, mode, FloatToBf16, Bf16ToFloat);
    default:
      if (std::isnan(x)) return 0;
      return SaturateInt(to, RoundIntegral(x, mode));
  }
}

template void DecodeElements<float>(trace::DType, const uint8_t*, float*, int64_t);
template void DecodeElements<double>(trace::DType, const uint8_t*, double*, int64_t);
template void EncodeElements<float>(trace::DType, const float*, uint8_t*, int64_t);
template void EncodeElements<double>(trace::DType, const double*, uint8_t*, int64_t);
template void RoundToDType<float>(trace::DType, float*, int64_t);
template void RoundToDType<double>(trace::DType, double*, int64_t);

}  // namespace pto
