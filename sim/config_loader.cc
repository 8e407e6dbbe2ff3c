#include "sim/config_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "sim/config_schema.h"
#include "yaml-cpp/yaml.h"

namespace pto {
namespace {

absl::string_view NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "no value";
    case YAML::NodeType::Scalar:
      return "a scalar";
    default:
      return "nothing";
  }
}

// Keys an older config may still set, and what replaced them.
constexpr std::pair<absl::string_view, absl::string_view> kReplacedKeys[] = {
    {"core.mte_bytes_per_cycle",
     "one rate per transfer path: core.gm_to_l1_bytes_per_cycle, core.gm_to_ub_bytes_per_cycle, "
     "core.ub_to_gm_bytes_per_cycle (and cube.drain_bytes_per_cycle out of L0C)"},
};

std::string UnknownKeyMessage(absl::string_view key) {
  for (const auto& [old_key, replacement] : kReplacedKeys) {
    if (key == old_key) {
      return absl::StrCat("unknown key '", key, "': it was replaced by ", replacement,
                          " (docs/config.md lists every key)");
    }
  }
  return absl::StrCat("unknown key '", key, "'; did you mean '", NearestConfigKey(key),
                      "'? (docs/config.md lists every key)");
}

// Walks one YAML document, setting every leaf into the config. Remembers the
// line each key was set on so duplicates are reported, not silently merged.
class YamlConfigWalker {
 public:
  YamlConfigWalker(absl::string_view display_name, ChipConfig* config)
      : display_name_(display_name), config_(config) {}

  absl::Status WalkRoot(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) return absl::OkStatus();  // empty file
    if (!root.IsMap()) {
      return Error(root.Mark(),
                   absl::StrCat("expected a mapping of config sections (e.g. 'chip:' ",
                                "with 'clusters: 24' under it), found ", NodeKind(root)));
    }
    return WalkMapping(root, "");
  }

 private:
  absl::Status Error(const YAML::Mark& mark, absl::string_view message) const {
    if (mark.is_null()) {
      return absl::InvalidArgumentError(absl::StrCat(display_name_, ": ", message));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(display_name_, ":", mark.line + 1, ": ", message));
  }

  absl::Status WalkMapping(const YAML::Node& mapping, absl::string_view prefix) {
    for (auto it = mapping.begin(); it != mapping.end(); ++it) {
      // Copies: yaml-cpp's iterator returns a temporary, so references to its
      // members dangle (ASan: stack-use-after-scope, found by the fuzzer).
      const YAML::Node key_node = it->first;
      const YAML::Node value = it->second;
      if (!key_node.IsScalar() || key_node.Scalar().empty()) {
        return Error(key_node.Mark(),
                     absl::StrCat("expected a key name", prefix.empty() ? "" : " under '", prefix,
                                  prefix.empty() ? "" : "'", ", found ", NodeKind(key_node)));
      }
      const std::string path =
          prefix.empty() ? key_node.Scalar() : absl::StrCat(prefix, ".", key_node.Scalar());
      if (absl::Status status = WalkEntry(key_node.Mark(), path, value); !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

  absl::Status WalkEntry(const YAML::Mark& key_mark, const std::string& path,
                         const YAML::Node& value) {
    const ConfigKeySpec* spec = FindConfigKey(path);
    if (spec == nullptr) {
      if (IsConfigSection(path)) {
        if (value.IsMap()) return WalkMapping(value, path);
        if (value.IsNull()) return absl::OkStatus();  // a section with every key commented out
        return Error(key_mark, absl::StrCat("'", path, "' is a section; expected a mapping of its ",
                                            "keys (e.g. '", NearestConfigKey(path), "'), found ",
                                            NodeKind(value)));
      }
      // An unknown section: report the misspelt keys under it with their
      // full paths, which find better suggestions than the section alone.
      if (value.IsMap() && value.size() > 0) return WalkMapping(value, path);
      return Error(key_mark, UnknownKeyMessage(path));
    }
    if (!value.IsScalar()) {
      return Error(key_mark, absl::StrCat(spec->key, ": ", spec->ExpectedText(), ", found ",
                                          NodeKind(value), "; write it as '",
                                          spec->key.substr(spec->key.find('.') + 1), ": <value>'"));
    }
    const int line = key_mark.line + 1;
    auto [first, inserted] = line_of_key_.try_emplace(path, line);
    if (!inserted) {
      return Error(key_mark, absl::StrCat("duplicate key '", path, "' (first set at line ",
                                          first->second, "); keep only one"));
    }
    // A quoted scalar is a YAML string; numbers must be written bare.
    if (spec->type() != ConfigType::kString && value.Tag() == "!") {
      return Error(value.Mark(), absl::StrCat(spec->key, ": expected ", spec->TypeNoun(),
                                              ", found the quoted string \"", value.Scalar(),
                                              "\"; remove the quotes"));
    }
    if (absl::Status status = SetConfigValue(*spec, value.Scalar(), config_); !status.ok()) {
      return Error(value.Mark(), status.message());
    }
    return absl::OkStatus();
  }

  absl::string_view display_name_;
  ChipConfig* config_;
  absl::flat_hash_map<std::string, int> line_of_key_;
};

}  // namespace

absl::Status ApplyConfigOverride(absl::string_view override_text, ChipConfig* config) {
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat("--set ", override_text, ": ", message));
  };
  const size_t equals = override_text.find('=');
  if (equals == absl::string_view::npos) {
    return error("expected key=value (e.g. --set chip.clusters=32)");
  }
  const absl::string_view key = absl::StripAsciiWhitespace(override_text.substr(0, equals));
  const absl::string_view value = absl::StripAsciiWhitespace(override_text.substr(equals + 1));
  if (key.empty()) return error("missing key before '='; expected key=value");
  const ConfigKeySpec* spec = FindConfigKey(key);
  if (spec == nullptr) return error(UnknownKeyMessage(key));
  if (value.empty()) {
    return error(absl::StrCat(spec->key, ": missing value after '='; ", spec->ExpectedText()));
  }
  if (absl::Status status = SetConfigValue(*spec, value, config); !status.ok()) {
    return error(status.message());
  }
  return absl::OkStatus();
}

absl::StatusOr<ChipConfig> ParseChipConfig(absl::string_view yaml_text,
                                           absl::string_view display_name,
                                           const std::vector<std::string>& overrides) {
  ChipConfig config;
  // YAML is Unicode text; name the first byte that is not, with its line.
  if (const size_t bad = FirstInvalidUtf8(yaml_text); bad < yaml_text.size()) {
    const auto before = yaml_text.substr(0, bad);
    return absl::InvalidArgumentError(
        absl::StrCat(display_name, ":", 1 + std::count(before.begin(), before.end(), '\n'),
                     ": byte 0x", absl::Hex(static_cast<unsigned char>(yaml_text[bad])),
                     " is not valid UTF-8; expected a UTF-8 YAML file"));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    const std::string where =
        e.mark.is_null() ? std::string(display_name)
                         : absl::StrCat(display_name, ":", e.mark.line + 1, ":", e.mark.column + 1);
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": YAML syntax error: ", e.msg, "; fix the file's YAML syntax"));
  }
  YamlConfigWalker walker(display_name, &config);
  if (absl::Status status = walker.WalkRoot(root); !status.ok()) return status;
  for (const std::string& override_text : overrides) {
    if (absl::Status status = ApplyConfigOverride(override_text, &config); !status.ok()) {
      return status;
    }
  }
  return config;
}

absl::StatusOr<ChipConfig> LoadChipConfig(const std::string& yaml_path,
                                          const std::vector<std::string>& overrides) {
  std::error_code error;
  if (!std::filesystem::exists(yaml_path, error)) {
    return absl::NotFoundError(absl::StrCat(yaml_path, ": config file not found; pass an ",
                                            "existing YAML file (e.g. configs/ascend.yaml)"));
  }
  if (std::filesystem::is_directory(yaml_path, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat(yaml_path, ": is a directory; expected a YAML config file"));
  }
  std::ifstream in(yaml_path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(yaml_path, ": cannot open for reading (",
                                                   std::strerror(errno), "); check permissions"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(yaml_path, ": read failed (", std::strerror(errno), ")"));
  }
  return ParseChipConfig(text.str(), yaml_path, overrides);
}

std::string PrintConfig(const ChipConfig& config) {
  std::string out;
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    absl::StrAppend(&out, spec.key, ": ", FormatConfigValue(spec, config), "\n");
  }
  return out;
}

}  // namespace pto
