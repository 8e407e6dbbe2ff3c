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
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/input_file.h"
#include "common/utf8.h"
#include "sim/config_schema.h"
#include "yaml-cpp/eventhandler.h"
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

// How a scalar is written in the source, which yaml-cpp's node does not keep:
// Tag() is "!" both for a quoted scalar and for an explicit `! 24`.
enum class ScalarStyle { kPlain, kQuoted, kBlock, kTagged };

// `tag_text` receives the tag as written ("!!str"), for messages.
ScalarStyle StyleOf(const YAML::Node& scalar, absl::string_view source, std::string* tag_text) {
  // A node's mark is at its properties (anchor, tag), else at its value.
  absl::string_view at;
  if (!scalar.Mark().is_null() && static_cast<size_t>(scalar.Mark().pos) < source.size()) {
    at = source.substr(scalar.Mark().pos);
  }
  auto skip_token = [&at]() {
    while (!at.empty() && !absl::ascii_isspace(static_cast<unsigned char>(at.front()))) {
      at.remove_prefix(1);
    }
  };
  auto skip_spaces = [&at]() {
    while (!at.empty() && absl::ascii_isspace(static_cast<unsigned char>(at.front()))) {
      at.remove_prefix(1);
    }
  };
  if (absl::StartsWith(at, "&")) {  // an anchor may come before the tag
    skip_token();
    skip_spaces();
  }
  if (absl::StartsWith(at, "!<")) {  // verbatim: !<tag:yaml.org,2002:int>
    const size_t close = at.find('>');
    *tag_text = std::string(close == absl::string_view::npos ? at : at.substr(0, close + 1));
    return ScalarStyle::kTagged;
  }
  if (absl::StartsWith(at, "!")) {
    const absl::string_view tag =
        at.substr(0, std::min(at.size(), at.find_first_of(" \t\r\n,[]{}")));
    *tag_text = std::string(tag);
    return ScalarStyle::kTagged;
  }
  const std::string& tag = scalar.Tag();
  if (tag != "?" && tag != "!") {  // not found in the source: name the resolved tag
    *tag_text = tag;
    return ScalarStyle::kTagged;
  }
  if (tag == "?") return ScalarStyle::kPlain;
  return absl::StartsWith(at, "|") || absl::StartsWith(at, ">") ? ScalarStyle::kBlock
                                                                : ScalarStyle::kQuoted;
}

// Walks one YAML document, setting every leaf into the config. Remembers the
// line each key was set on so duplicates are reported, not silently merged.
class YamlConfigWalker {
 public:
  // `source` is the text the document was parsed from, for how values are
  // written (quotes, tags), which the nodes do not record.
  YamlConfigWalker(absl::string_view display_name, absl::string_view source, ChipConfig* config)
      : display_name_(display_name), source_(source), config_(config) {}

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
    // A tag changes how YAML reads the text (`!!str 24` is a string, `!!int
    // 0x10` sixteen); values are written bare, so no key takes one.
    std::string tag;
    const ScalarStyle style = StyleOf(value, source_, &tag);
    if (style == ScalarStyle::kTagged) {
      return Error(value.Mark(),
                   absl::StrCat(spec->key, ": expected ", spec->FormNoun(),
                                " written bare, found the YAML tag '", tag, "'; remove the tag"));
    }
    // A quoted scalar is a YAML string; numbers must be written bare.
    if (spec->type() != ConfigType::kString && style == ScalarStyle::kQuoted) {
      return Error(value.Mark(), absl::StrCat(spec->key, ": expected ", spec->TypeNoun(),
                                              ", found the quoted string \"", value.Scalar(),
                                              "\"; remove the quotes"));
    }
    if (spec->type() != ConfigType::kString && style == ScalarStyle::kBlock) {
      return Error(value.Mark(),
                   absl::StrCat(spec->key, ": expected ", spec->FormNoun(),
                                ", found a block scalar ('|' or '>'); write the value on the key's "
                                "line"));
    }
    if (absl::Status status = SetConfigValue(*spec, value.Scalar(), config_); !status.ok()) {
      return Error(value.Mark(), status.message());
    }
    return absl::OkStatus();
  }

  absl::string_view display_name_;
  absl::string_view source_;
  ChipConfig* config_;
  absl::flat_hash_map<std::string, int> line_of_key_;
};

// Records where a second document starts; the first's events are ignored.
class SecondDocumentFinder : public YAML::EventHandler {
 public:
  // The mark of the second document's first token, or nullptr.
  const YAML::Mark* second_start() const { return documents_ >= 2 ? &second_start_ : nullptr; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 2) second_start_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  int documents_ = 0;
  YAML::Mark second_start_;
};

absl::Status YamlSyntaxError(absl::string_view display_name, const YAML::Exception& e) {
  const std::string where =
      e.mark.is_null() ? std::string(display_name)
                       : absl::StrCat(display_name, ":", e.mark.line + 1, ":", e.mark.column + 1);
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": YAML syntax error: ", e.msg, "; fix the file's YAML syntax"));
}

// YAML::Load reads the first document only, so keys after a `---` would be
// ignored without a word; a config file holds exactly one.
absl::Status CheckSingleDocument(const std::string& text, absl::string_view display_name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  SecondDocumentFinder finder;
  absl::Status status;
  try {
    // The first document parsed once already (YAML::Load); parse the next
    // only to find where it starts.
    if (parser.HandleNextDocument(finder)) parser.HandleNextDocument(finder);
  } catch (const YAML::Exception& e) {
    // A syntax error inside a second document: the extra document is the
    // problem to report.
    status = YamlSyntaxError(display_name, e);
  }
  if (const YAML::Mark* start = finder.second_start()) {
    return absl::InvalidArgumentError(absl::StrCat(
        display_name, ":", start->line + 1,
        ": a second YAML document starts here; a config file holds one document: remove the "
        "'---' and what follows, or move its keys into the first document"));
  }
  return status;
}

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
  // yaml-cpp skips a byte-order mark without counting it in its marks'
  // positions; drop it here so that those positions index `source`.
  absl::string_view source = yaml_text;
  absl::ConsumePrefix(&source, "\xEF\xBB\xBF");
  const std::string text(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return YamlSyntaxError(display_name, e);
  }
  if (absl::Status status = CheckSingleDocument(text, display_name); !status.ok()) return status;
  YamlConfigWalker walker(display_name, source, &config);
  if (absl::Status status = walker.WalkRoot(root); !status.ok()) return status;
  for (const std::string& override_text : overrides) {
    if (absl::Status status = ApplyConfigOverride(override_text, &config); !status.ok()) {
      return status;
    }
  }
  return config;
}

// A config is a page of YAML; a bigger file is the wrong file.
constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;

absl::StatusOr<ChipConfig> LoadChipConfig(const std::string& yaml_path,
                                          const std::vector<std::string>& overrides) {
  // Bounded, and never opened when it is a FIFO or a device (/dev/zero
  // read 4 GiB before).
  absl::StatusOr<std::string> text =
      ReadInputFile(yaml_path, kMaxConfigBytes, "a YAML config file (e.g. configs/ascend.yaml)");
  if (!text.ok()) return text.status();
  return ParseChipConfig(*text, yaml_path, overrides);
}

std::string PrintConfig(const ChipConfig& config) {
  std::string out;
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    absl::StrAppend(&out, spec.key, ": ", FormatConfigValue(spec, config), "\n");
  }
  return out;
}

}  // namespace pto
