// libFuzzer target: the trace reader on arbitrary bytes, as a binary stream
// or (first byte odd) as protobuf text. It must return an error or records,
// never crash, hang or exhaust memory.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/trace_reader.h"

namespace {

std::string ScratchPath(const char* suffix) {
  return std::string("/tmp/pto_fuzz_trace_") + std::to_string(getpid()) + suffix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = ScratchPath((data[0] & 1) ? ".pbtxt" : ".pb");
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return 0;
  std::fwrite(data + 1, 1, size - 1, file);
  std::fclose(file);
  auto reader = pto::TraceReader::Open(path);
  if (reader.ok()) {
    pto::trace::StreamRecord record;
    for (int i = 0; i < 100000; ++i) {
      absl::StatusOr<bool> more = (*reader)->Next(&record);
      if (!more.ok() || !*more) break;
    }
  }
  std::remove(path.c_str());
  return 0;
}
