#include "common/fnv1a.h"

#include <fstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto {

absl::StatusOr<std::string> HashFileFnv1a64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be read"));
  Fnv1a64 hash;
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    hash.Update(absl::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) return absl::NotFoundError(absl::StrCat(path, ": read failed"));
  return absl::StrFormat("%016x", hash.value());
}

}  // namespace pto
