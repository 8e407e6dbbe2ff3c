#include "sim/testing/png_image.h"

#include <zlib.h>

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::testing {
namespace {

void Put32(std::string* s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s->push_back(static_cast<char>(v >> shift));
}

void Chunk(std::string* png, const std::string& type, const std::string& body) {
  Put32(png, static_cast<uint32_t>(body.size()));
  *png += type + body;
  Put32(png, 0);  // CRC, which the reader does not check
}

// A PNG of `pixels` (RGB rows), row y filtered with filter y % 5 -- each of
// None, Sub, Up, Average and Paeth, forward as the PNG spec defines them.
std::string EncodeRgb(const std::vector<std::vector<uint8_t>>& pixels) {
  const int height = static_cast<int>(pixels.size());
  const int stride = static_cast<int>(pixels[0].size());
  std::string raw;
  for (int y = 0; y < height; ++y) {
    const int filter = y % 5;
    raw.push_back(static_cast<char>(filter));
    for (int i = 0; i < stride; ++i) {
      const int x = pixels[y][i];
      const int a = i >= 3 ? pixels[y][i - 3] : 0;
      const int b = y > 0 ? pixels[y - 1][i] : 0;
      const int c = y > 0 && i >= 3 ? pixels[y - 1][i - 3] : 0;
      const int p = a + b - c;
      const int paeth = std::abs(p - a) <= std::abs(p - b) && std::abs(p - a) <= std::abs(p - c)
                            ? a
                            : (std::abs(p - b) <= std::abs(p - c) ? b : c);
      const int predicted[] = {0, a, b, (a + b) / 2, paeth};
      raw.push_back(static_cast<char>(x - predicted[filter]));
    }
  }
  std::vector<Bytef> deflated(compressBound(raw.size()));
  uLongf size = deflated.size();
  compress(deflated.data(), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size());
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  Put32(&header, static_cast<uint32_t>(stride / 3));
  Put32(&header, static_cast<uint32_t>(height));
  header += std::string("\x08\x02\x00\x00\x00", 5);
  Chunk(&png, "IHDR", header);
  Chunk(&png, "IDAT", std::string(reinterpret_cast<const char*>(deflated.data()), size));
  Chunk(&png, "IEND", "");
  return png;
}

TEST(PngImageTest, UndoesEveryScanlineFilter) {
  std::vector<std::vector<uint8_t>> pixels(6, std::vector<uint8_t>(4 * 3));
  for (size_t y = 0; y < pixels.size(); ++y) {
    for (size_t i = 0; i < pixels[y].size(); ++i) pixels[y][i] = (y * 37 + i * 91 + 13) % 256;
  }
  absl::StatusOr<PngImage> image = DecodePng(EncodeRgb(pixels));
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->width, 4);
  EXPECT_EQ(image->height, 6);
  for (int y = 0; y < 6; ++y) {
    for (int x = 0; x < 4; ++x) {
      const std::array<uint8_t, 3> want = {pixels[y][3 * x], pixels[y][3 * x + 1],
                                           pixels[y][3 * x + 2]};
      EXPECT_EQ(image->Rgb(x, y), want) << x << "," << y;
    }
  }
}

TEST(PngImageTest, RejectsWhatItCannotRead) {
  EXPECT_FALSE(DecodePng("GIF89a").ok());
  std::string cut = EncodeRgb({{1, 2, 3}});
  cut.resize(cut.size() - 20);
  EXPECT_FALSE(DecodePng(cut).ok());
  EXPECT_EQ(HexColour("#b03a2e"), (std::array<uint8_t, 3>{0xb0, 0x3a, 0x2e}));
}

}  // namespace
}  // namespace pto::testing
