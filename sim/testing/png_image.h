#ifndef PTO_SIM_TESTING_PNG_IMAGE_H_
#define PTO_SIM_TESTING_PNG_IMAGE_H_

// The pixels of a PNG file, for tests that check what a browser drew
// (headless Chromium's screenshots): 8-bit RGB or RGBA, not interlaced --
// what Chromium writes. zlib inflates; the scanline filters are undone here.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pto::testing {

struct PngImage {
  int width = 0;
  int height = 0;
  int channels = 0;           // 3 (RGB) or 4 (RGBA)
  std::vector<uint8_t> data;  // rows top to bottom, `channels` bytes a pixel

  std::array<uint8_t, 3> Rgb(int x, int y) const {
    const uint8_t* p = &data[(static_cast<size_t>(y) * width + x) * channels];
    return {p[0], p[1], p[2]};
  }
};

// Decodes `bytes` (a whole PNG file); an error names what it could not read.
absl::StatusOr<PngImage> DecodePng(const std::string& bytes);

// "#rrggbb" as three bytes.
std::array<uint8_t, 3> HexColour(const std::string& hex);

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_PNG_IMAGE_H_
