#include "sim/testing/png_image.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace pto::testing {
namespace {

uint32_t BigEndian32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 3]));
}

uint8_t Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  return static_cast<uint8_t>(pb <= pc ? b : c);
}

}  // namespace

absl::StatusOr<PngImage> DecodePng(const std::string& bytes) {
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 || bytes.compare(0, 8, kSignature, 8) != 0) {
    return absl::InvalidArgumentError("not a PNG file (no signature)");
  }
  PngImage image;
  std::string compressed;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t length = BigEndian32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + length > bytes.size()) return absl::InvalidArgumentError("a chunk is cut short");
    const size_t body = at + 8;
    if (type == "IHDR") {
      image.width = static_cast<int>(BigEndian32(bytes, body));
      image.height = static_cast<int>(BigEndian32(bytes, body + 4));
      const int depth = static_cast<uint8_t>(bytes[body + 8]);
      const int colour = static_cast<uint8_t>(bytes[body + 9]);
      const int interlace = static_cast<uint8_t>(bytes[body + 12]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) {
        return absl::UnimplementedError(absl::StrCat("PNG of depth ", depth, ", colour type ",
                                                     colour, ", interlace ", interlace,
                                                     "; expected 8-bit RGB(A), not interlaced"));
      }
      image.channels = colour == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      compressed.append(bytes, body, length);
    } else if (type == "IEND") {
      break;
    }
    at = body + length + 4;  // the CRC follows
  }
  if (image.channels == 0) return absl::InvalidArgumentError("no IHDR chunk");
  const size_t stride = static_cast<size_t>(image.width) * image.channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    return absl::InvalidArgumentError("the image data does not inflate to its size");
  }
  image.data.assign(stride * image.height, 0);
  const int bpp = image.channels;
  for (int y = 0; y < image.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &image.data[y * stride];
    const uint8_t* up = y > 0 ? &image.data[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(bpp) ? out[i - bpp] : 0;
      const int b = up != nullptr ? up[i] : 0;
      const int c = up != nullptr && i >= static_cast<size_t>(bpp) ? up[i - bpp] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4:
          predicted = Paeth(a, b, c);
          break;
        default:
          return absl::InvalidArgumentError(absl::StrCat("row ", y, ": filter ", filter));
      }
      out[i] = static_cast<uint8_t>(in[i] + predicted);
    }
  }
  return image;
}

std::array<uint8_t, 3> HexColour(const std::string& hex) {
  const unsigned long v = std::strtoul(hex.c_str() + (hex[0] == '#'), nullptr, 16);
  return {static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}

}  // namespace pto::testing
