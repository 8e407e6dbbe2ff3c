#include "sim/tensor_dump.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/dtype.h"
#include "nlohmann/json.hpp"

namespace pto {

absl::Status WriteTensorDump(const std::string& dir, const trace::StreamHeader& header,
                             const MemoryImage& memory, bool with_contents,
                             absl::Span<const uint32_t> ids) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat(dir, ": cannot create the tensors directory: ", ec.message()));
  }
  nlohmann::json tensors = nlohmann::json::array();
  std::string bytes;
  std::vector<uint32_t> chosen(ids.begin(), ids.end());
  if (chosen.empty()) {
    for (const trace::Tensor& tensor : header.tensors()) chosen.push_back(tensor.id());
  }
  for (uint32_t id : chosen) {
    const trace::Tensor& tensor = header.tensors(static_cast<int>(id));
    nlohmann::json entry = {
        {"id", tensor.id()},
        {"name", tensor.name()},
        {"dtype", DTypeName(tensor.dtype())},
        {"shape", std::vector<int64_t>(tensor.shape().begin(), tensor.shape().end())},
        {"file", nullptr}};
    if (with_contents) {
      bytes.resize(tensor.size_bytes());
      if (absl::Status s = memory.Read(tensor.gm_addr(), bytes.data(), bytes.size()); !s.ok()) {
        return s;
      }
      const std::string file = absl::StrCat(tensor.id(), ".bin");
      if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", file), bytes); !s.ok()) {
        return s;
      }
      entry["file"] = file;
    }
    tensors.push_back(std::move(entry));
  }
  const nlohmann::json index = {{"tensors", std::move(tensors)}};
  return WriteFileAtomically(absl::StrCat(dir, "/tensors.json"), index.dump(1) + "\n");
}

}  // namespace pto
