#include "sim/provenance.h"

#include <filesystem>
#include <system_error>

#include "common/fnv1a.h"
#include "common/version.h"

namespace pto {
namespace {

nlohmann::json FileOf(const std::string& path) {
  // Only a regular file: hashing a pipe (--serve's stream) would eat it.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {{"path", path}, {"fnv1a64", nullptr}};
  absl::StatusOr<std::string> hash = HashFileFnv1a64(path);
  return {{"path", path}, {"fnv1a64", hash.ok() ? nlohmann::json(*hash) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json Provenance(const ProvenanceInputs& inputs) {
  nlohmann::json traces = nlohmann::json::array();
  for (const std::string& path : inputs.trace_paths) traces.push_back(FileOf(path));
  return {{"tool", "pto_sim"},
          {"version", ToolVersion()},
          {"git_revision", GitRevision()},
          {"config", FileOf(inputs.config_path)},
          {"overrides", inputs.overrides},
          {"traces", traces}};
}

}  // namespace pto
