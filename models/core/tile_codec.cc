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

template void DecodeElements<float>(trace::DType, const uint8_t*, float*, int64_t);
template void DecodeElements<double>(trace::DType, const uint8_t*, double*, int64_t);
template void EncodeElements<float>(trace::DType, const float*, uint8_t*, int64_t);
template void EncodeElements<double>(trace::DType, const double*, uint8_t*, int64_t);
template void RoundToDType<float>(trace::DType, float*, int64_t);
template void RoundToDType<double>(trace::DType, double*, int64_t);

}  // namespace pto
