#include "common/tensor_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "common/stop_request.h"

namespace pto {

RandomStream::RandomStream(uint64_t seed) : state_(seed) {}

// splitmix64: tiny, fast, fully specified, so every build agrees.
uint64_t RandomStream::NextBits() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double RandomStream::NextUniform() {
  return static_cast<double>((NextBits() >> 11) + 1) * 0x1.0p-53;
}

double RandomStream::NextNormal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box-Muller.
  const double u1 = NextUniform();
  const double u2 = NextUniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * M_PI * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

namespace {

// Runs element(i) for i in [0, count), polling for a stop request between
// chunks: a multi-GiB fill takes seconds and must honour --max-wall-seconds
// and Ctrl-C like the simulation after it.
template <typename Element>
absl::Status ForEachElement(size_t count, Element element) {
  constexpr size_t kChunk = size_t{1} << 20;
  for (size_t begin = 0; begin < count; begin += kChunk) {
    if (StopRequested()) return absl::CancelledError("stopped while filling a tensor");
    const size_t end = std::min(count, begin + kChunk);
    for (size_t i = begin; i < end; ++i) element(i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FillTensor(const trace::TensorInit& init, trace::DType dtype, size_t count,
                        void* dst) {
  const size_t elem = DTypeSize(dtype);
  if (elem == 0) return absl::InvalidArgumentError("tensor has no dtype");
  auto* out = static_cast<unsigned char*>(dst);
  switch (init.contents_case()) {
    case trace::TensorInit::CONTENTS_NOT_SET:
      return absl::OkStatus();
    case trace::TensorInit::kZeros:
      std::memset(out, 0, count * elem);
      return absl::OkStatus();
    case trace::TensorInit::kFill:
      return ForEachElement(
          count, [&](size_t i) { StoreFromDouble(dtype, init.fill().value(), out + i * elem); });
    case trace::TensorInit::kData:
      if (init.data().size() != count * elem) {
        return absl::InvalidArgumentError(
            absl::StrCat("data has ", init.data().size(), " bytes, expected ", count * elem, " (",
                         count, " elements of ", DTypeName(dtype), ")"));
      }
      std::memcpy(out, init.data().data(), count * elem);
      return absl::OkStatus();
    case trace::TensorInit::kGenerator: {
      const auto& gen = init.generator();
      switch (gen.kind()) {
        case trace::TensorInit::Generator::RANDN: {
          RandomStream random(gen.seed());
          return ForEachElement(count, [&](size_t i) {
            StoreFromDouble(dtype, random.NextNormal(), out + i * elem);
          });
        }
        case trace::TensorInit::Generator::UNIFORM: {
          RandomStream random(gen.seed());
          return ForEachElement(count, [&](size_t i) {
            const double u = random.NextUniform();
            StoreFromDouble(dtype, gen.low() + (gen.high() - gen.low()) * u, out + i * elem);
          });
        }
        case trace::TensorInit::Generator::ARANGE:
          return ForEachElement(count, [&](size_t i) {
            StoreFromDouble(dtype, gen.start() + gen.step() * static_cast<double>(i),
                            out + i * elem);
          });
        default:
          return absl::InvalidArgumentError("generator kind is not set");
      }
    }
  }
  return absl::InvalidArgumentError("unknown tensor init");
}

}  // namespace pto
