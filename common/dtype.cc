#include "common/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace pto {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

template <typename T>
T Saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) {
    return std::numeric_limits<T>::min();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

template <typename T>
T Load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void Store(T v, void* p) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case trace::FP32:
    case trace::INT32:
    case trace::UINT32:
      return 4;
    case trace::FP16:
    case trace::BF16:
    case trace::INT16:
    case trace::UINT16:
      return 2;
    case trace::INT8:
    case trace::UINT8:
    case trace::BOOL:
      return 1;
    case trace::INT64:
    case trace::UINT64:
      return 8;
    default:
      return 0;
  }
}

const char* DTypeRuntimeName(DType dtype) {
  switch (dtype) {
    case trace::FP32:
      return "FLOAT32";
    case trace::FP16:
      return "FLOAT16";
    case trace::BF16:
      return "BFLOAT16";
    case trace::INT32:
      return "INT32";
    case trace::INT16:
      return "INT16";
    case trace::INT8:
      return "INT8";
    case trace::INT64:
      return "INT64";
    case trace::UINT8:
      return "UINT8";
    case trace::UINT16:
      return "UINT16";
    case trace::UINT32:
      return "UINT32";
    case trace::UINT64:
      return "UINT64";
    case trace::BOOL:
      return "BOOL";
    default:
      return "UNKNOWN";
  }
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case trace::FP32:
      return "FP32";
    case trace::FP16:
      return "FP16";
    case trace::BF16:
      return "BF16";
    case trace::INT32:
      return "INT32";
    case trace::INT16:
      return "INT16";
    case trace::INT8:
      return "INT8";
    case trace::INT64:
      return "INT64";
    case trace::UINT8:
      return "UINT8";
    case trace::UINT16:
      return "UINT16";
    case trace::UINT32:
      return "UINT32";
    case trace::UINT64:
      return "UINT64";
    case trace::BOOL:
      return "BOOL";
    default:
      return "UNSPECIFIED";
  }
}

bool IsFloat(DType dtype) {
  return dtype == trace::FP32 || dtype == trace::FP16 || dtype == trace::BF16;
}

bool IsSignedInt(DType dtype) {
  return dtype == trace::INT8 || dtype == trace::INT16 || dtype == trace::INT32 ||
         dtype == trace::INT64;
}

bool IsUnsignedInt(DType dtype) {
  return dtype == trace::UINT8 || dtype == trace::UINT16 || dtype == trace::UINT32 ||
         dtype == trace::UINT64 || dtype == trace::BOOL;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return BitsFloat(sign);
    // Subnormal: normalise.
    exp = 127 - 15 + 1;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    mant &= 0x3ffu;
    return BitsFloat(sign | (exp << 23) | (mant << 13));
  }
  if (exp == 0x1f) return BitsFloat(sign | 0x7f800000u | (mant << 13));
  return BitsFloat(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                        // below the smallest normal half
    if (abs < 0x33000000u) return sign;           // rounds to zero
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t half = ((abs >> 13) - ((127 - 15) << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

uint16_t FloatToBf16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

double LoadAsDouble(DType dtype, const void* p) {
  switch (dtype) {
    case trace::FP32:
      return Load<float>(p);
    case trace::FP16:
      return HalfToFloat(Load<uint16_t>(p));
    case trace::BF16:
      return Bf16ToFloat(Load<uint16_t>(p));
    case trace::INT32:
      return Load<int32_t>(p);
    case trace::INT16:
      return Load<int16_t>(p);
    case trace::INT8:
      return Load<int8_t>(p);
    case trace::INT64:
      return static_cast<double>(Load<int64_t>(p));
    case trace::UINT8:
      return Load<uint8_t>(p);
    case trace::UINT16:
      return Load<uint16_t>(p);
    case trace::UINT32:
      return Load<uint32_t>(p);
    case trace::UINT64:
      return static_cast<double>(Load<uint64_t>(p));
    case trace::BOOL:
      return Load<uint8_t>(p) != 0 ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

void StoreFromDouble(DType dtype, double value, void* p) {
  switch (dtype) {
    case trace::FP32:
      Store(static_cast<float>(value), p);
      break;
    case trace::FP16:
      Store(FloatToHalf(static_cast<float>(value)), p);
      break;
    case trace::BF16:
      Store(FloatToBf16(static_cast<float>(value)), p);
      break;
    case trace::INT32:
      Store(Saturate<int32_t>(value), p);
      break;
    case trace::INT16:
      Store(Saturate<int16_t>(value), p);
      break;
    case trace::INT8:
      Store(Saturate<int8_t>(value), p);
      break;
    case trace::INT64:
      Store(Saturate<int64_t>(value), p);
      break;
    case trace::UINT8:
      Store(Saturate<uint8_t>(value), p);
      break;
    case trace::UINT16:
      Store(Saturate<uint16_t>(value), p);
      break;
    case trace::UINT32:
      Store(Saturate<uint32_t>(value), p);
      break;
    case trace::UINT64:
      Store(Saturate<uint64_t>(value), p);
      break;
    case trace::BOOL:
      Store<uint8_t>(value != 0.0 ? 1 : 0, p);
      break;
    default:
      break;
  }
}

int64_t LoadAsInt64(DType dtype, const void* p) {
  switch (dtype) {
    case trace::INT32:
      return Load<int32_t>(p);
    case trace::INT16:
      return Load<int16_t>(p);
    case trace::INT8:
      return Load<int8_t>(p);
    case trace::INT64:
      return Load<int64_t>(p);
    case trace::UINT8:
    case trace::BOOL:
      return Load<uint8_t>(p);
    case trace::UINT16:
      return Load<uint16_t>(p);
    case trace::UINT32:
      return Load<uint32_t>(p);
    case trace::UINT64:
      return static_cast<int64_t>(Load<uint64_t>(p));
    default:
      return static_cast<int64_t>(LoadAsDouble(dtype, p));
  }
}

}  // namespace pto
