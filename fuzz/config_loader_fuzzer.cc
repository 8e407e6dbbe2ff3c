// libFuzzer target: the YAML config loader (and one --set override taken
// from the input's last line) on arbitrary text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  if (const size_t last = text.rfind('\n'); last != std::string::npos && last + 1 < text.size()) {
    overrides.push_back(text.substr(last + 1));
  }
  (void)pto::ParseChipConfig(text, "fuzz.yaml", overrides);
  return 0;
}
