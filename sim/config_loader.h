#ifndef PTO_SIM_CONFIG_LOADER_H_
#define PTO_SIM_CONFIG_LOADER_H_

// Loads a ChipConfig from a YAML file (configs/ascend.yaml) plus `--set
// key=value` overrides, validating every key against sim/config_schema.h.
//
// The YAML is nested by section (`chip:` then `clusters: 24`); a dotted key
// (`chip.clusters: 24`) at any level is also accepted. Keys absent from the
// file keep the ChipConfig default (a2a3). Errors name the file and line (or
// the `--set` text), the dotted key, what was expected and what to do.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/base/chip_config.h"

namespace pto {

// Reads `yaml_path`, then applies `overrides` in order (later wins).
// NotFoundError when the file does not exist; InvalidArgumentError for
// anything else wrong (unreadable file, YAML syntax, unknown key, wrong type,
// out of range, malformed override).
absl::StatusOr<ChipConfig> LoadChipConfig(const std::string& yaml_path,
                                          const std::vector<std::string>& overrides);

// As LoadChipConfig on text already in memory; `display_name` stands for the
// file in messages. Empty text (or only comments) means all defaults.
absl::StatusOr<ChipConfig> ParseChipConfig(absl::string_view yaml_text,
                                           absl::string_view display_name,
                                           const std::vector<std::string>& overrides);

// Applies one `--set` text ("chip.clusters=32") to `config`.
absl::Status ApplyConfigOverride(absl::string_view override_text, ChipConfig* config);

// The effective configuration, one `dotted.key: value` line per key in schema
// order. Each line, with ": " replaced by "=", is a valid `--set` text that
// reproduces the value exactly.
std::string PrintConfig(const ChipConfig& config);

}  // namespace pto

#endif  // PTO_SIM_CONFIG_LOADER_H_
