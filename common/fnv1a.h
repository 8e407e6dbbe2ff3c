#ifndef PTO_COMMON_FNV1A_H_
#define PTO_COMMON_FNV1A_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pto {

// FNV-1a, 64 bits (http://www.isthe.com/chongo/tech/comp/fnv/): a stable
// fingerprint of bytes, the same on every machine and run (absl::Hash is
// seeded per process). Not a cryptographic hash.
class Fnv1a64 {
 public:
  void Update(absl::string_view bytes) {
    for (const char c : bytes) Mix(static_cast<uint8_t>(c));
  }
  // The low `bytes` bytes of `value`, least significant first.
  void UpdateLittleEndian(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) Mix(static_cast<uint8_t>(value >> (8 * i)));
  }
  uint64_t value() const { return hash_; }

 private:
  void Mix(uint8_t byte) {
    hash_ ^= byte;
    hash_ *= 0x100000001b3ULL;
  }
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// The FNV-1a 64 of a file's bytes as 16 lowercase hex digits, read in
// chunks; NotFound when it cannot be read.
absl::StatusOr<std::string> HashFileFnv1a64(const std::string& path);

}  // namespace pto

#endif  // PTO_COMMON_FNV1A_H_
