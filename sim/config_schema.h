#ifndef PTO_SIM_CONFIG_SCHEMA_H_
#define PTO_SIM_CONFIG_SCHEMA_H_

// The one table that binds every chip-configuration key (`chip.clusters`,
// `aicpu.scheduler_threads`, ...) to its ChipConfig member, with its type,
// unit, valid range, source and meaning. The YAML loader, `--set`,
// `--print-config`, docs/config.md and configs/ascend.yaml all derive from it.
// Adding a key = one field in models/base/chip_config.h + one row in
// config_schema.cc.

#include <cstdint>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "models/base/chip_config.h"

namespace pto {

enum class ConfigType { kInt, kDouble, kString };

// Where a key's value lives inside a ChipConfig. The alternative held fixes
// the key's type, so a row cannot claim a type its field does not have.
using ConfigField = std::variant<int64_t* (*)(ChipConfig&), double* (*)(ChipConfig&),
                                 std::string* (*)(ChipConfig&)>;

struct ConfigKeySpec {
  absl::string_view key;  // dotted `<section>.<field>`
  ConfigField field;
  absl::string_view unit;  // "ns", "Hz", "bytes", "count", ...
  // Inclusive bounds on the value (numbers) or on the length (strings).
  double min;
  double max;
  bool power_of_two;         // int keys only: value must be a power of two
  absl::string_view source;  // "hw-native-sys/<repo>@<commit> <path> ..." or "assumption ..."
  absl::string_view doc;     // one line: what the key means

  ConfigType type() const;
  // "an integer", "a number", "a string": for error messages.
  absl::string_view TypeNoun() const;
  // The one accepted spelling: "a decimal integer", "a decimal number", "a
  // plain string" (docs/config.md, File format).
  absl::string_view FormNoun() const;
  // Human-readable valid range, e.g. "[1, 4096]" or "power of two in [4, 16777216]".
  std::string RangeText() const;
  // "expected an integer in [1, 4096] (count)": the tail of error messages.
  std::string ExpectedText() const;
};

// Every key, in print and documentation order (section by section).
absl::Span<const ConfigKeySpec> ConfigSchema();

// The row for `key`, or nullptr.
const ConfigKeySpec* FindConfigKey(absl::string_view key);

// The valid key nearest to `key` by edit distance (ties: schema order). Never
// empty: a mistyped key always gets a suggestion.
absl::string_view NearestConfigKey(absl::string_view key);

// True when `prefix` names a section (the part before a dot of some key).
bool IsConfigSection(absl::string_view prefix);

// The value of `spec` in `config`, formatted so that parsing it back with
// SetConfigValue yields the identical value (doubles: shortest exact form).
std::string FormatConfigValue(const ConfigKeySpec& spec, const ChipConfig& config);

// Parses `text` as the value of `spec` and stores it in `config`. Rejects
// text of the wrong type, numbers not in their canonical decimal form (`+24`,
// `024`, `0x10`, `1_000`, `.5`, `0x1p3`, surrounding spaces: callers strip
// what they allow) and values outside the range. The message names the key,
// the expected type/range and the text, but not the location: callers prefix
// `file:line: ` or `--set <text>: `.
absl::Status SetConfigValue(const ConfigKeySpec& spec, absl::string_view text, ChipConfig* config);

// Shortest decimal text that parses back to exactly `value` ("500", "5e7",
// "1.65e9", "0.625").
std::string FormatShortestDouble(double value);

// docs/config.md's key table: key, type, unit, default, range, source,
// meaning. Defaults come from ChipConfig{}.
std::string ConfigMarkdownTable();

// configs/ascend.yaml: nested YAML of `config`, every key preceded by a
// comment with its meaning, unit, range and source.
std::string AnnotatedConfigYaml(const ChipConfig& config, absl::string_view header_comment);

}  // namespace pto

#endif  // PTO_SIM_CONFIG_SCHEMA_H_
