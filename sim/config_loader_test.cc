#include "sim/config_loader.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/config_schema.h"
#include "sim/testing/generated_block.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kSourceDir = PTO_SOURCE_DIR;

// Compares two configs key by key, exactly (doubles bit for bit).
void ExpectSameConfig(const ChipConfig& actual, const ChipConfig& expected,
                      absl::string_view context) {
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    ChipConfig& a = const_cast<ChipConfig&>(actual);
    ChipConfig& e = const_cast<ChipConfig&>(expected);
    std::visit(
        [&](auto accessor) {
          EXPECT_EQ(*accessor(a), *accessor(e)) << context << ": key " << spec.key;
        },
        spec.field);
  }
}

std::string ParseError(absl::string_view yaml, const std::vector<std::string>& overrides = {}) {
  absl::StatusOr<ChipConfig> config = ParseChipConfig(yaml, "configs/x.yaml", overrides);
  EXPECT_FALSE(config.ok()) << "accepted:\n" << yaml;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(config.status().message());
}

ChipConfig ParseOk(absl::string_view yaml, const std::vector<std::string>& overrides = {}) {
  absl::StatusOr<ChipConfig> config = ParseChipConfig(yaml, "configs/x.yaml", overrides);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : ChipConfig{};
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- the shipped configs ----

TEST(ShippedConfigs, AscendYamlEqualsTheStructDefaults) {
  absl::StatusOr<ChipConfig> config = LoadChipConfig(kSourceDir + "/configs/ascend.yaml", {});
  ASSERT_TRUE(config.ok()) << config.status();
  ExpectSameConfig(*config, ChipConfig{}, "configs/ascend.yaml");
}

TEST(ShippedConfigs, A5YamlDiffersFromA2a3InExactlyItsDocumentedKeys) {
  absl::StatusOr<ChipConfig> config = LoadChipConfig(kSourceDir + "/configs/a5.yaml", {});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->chip.name, "a5");
  EXPECT_EQ(config->chip.clusters, 36);
  EXPECT_EQ(config->aicpu.scheduler_threads, 4);
  EXPECT_EQ(config->chip.counter_hz, 1e9);
  ChipConfig expected;
  expected.chip.name = "a5";
  expected.chip.clusters = 36;
  expected.aicpu.scheduler_threads = 4;
  expected.chip.counter_hz = 1e9;
  expected.gm.hbm_efficiency = 1;
  expected.gm.l2_capacity_bytes = 134217728;
  expected.gm.l2_read_bytes_per_cycle = 100;
  expected.gm.l2_write_bytes_per_cycle = 100;
  expected.chip.aicore_clock_hz = 1.65e9;
  expected.core.ub_bytes = 253952;
  expected.core.l0c_bytes = 262144;
  expected.core.bt_bytes = 4096;
  expected.core.gm_to_l1_bytes_per_cycle = 162.3;
  expected.core.gm_to_ub_bytes_per_cycle = 68.7;
  expected.core.ub_to_gm_bytes_per_cycle = 55.8;
  expected.cube.mad_fp32_passes = 8;
  ExpectSameConfig(*config, expected, "configs/a5.yaml");
  EXPECT_EQ(config->core_count(), 108);  // PLATFORM_MAX_CORES on a5
}

// ---- generated files cannot drift from the schema ----

const char kRegenerateHint[] =
    "regenerate with: PTO_UPDATE_GENERATED=1 <build>/sim/config_test "
    "--gtest_filter='GeneratedFiles.*' (then review the diff)";

const char kAscendHeader[] =
    "a2a3 (Atlas A2/A3, 910B / one 910_93 die): the default chip of pto_sim.\n"
    "\n"
    "Every key of the chip model, with its meaning, unit, valid range and source\n"
    "(a public document, or \"assumption\"; docs/config.md lists them).\n"
    "Values equal the ChipConfig defaults in models/base/chip_config.h.\n"
    "GENERATED from sim/config_schema.cc by sim/config_loader_test.cc; do not edit by hand.\n"
    "Variants need only the keys they change (see configs/a5.yaml); any key can also be\n"
    "overridden on the command line: --set chip.clusters=32. Table: docs/config.md.";

TEST(GeneratedFiles, AscendYamlIsTheAnnotatedDefaults) {
  const std::string path = kSourceDir + "/configs/ascend.yaml";
  const std::string expected = AnnotatedConfigYaml(ChipConfig{}, kAscendHeader);
  if (testing::UpdateGenerated()) std::ofstream(path) << expected;
  EXPECT_EQ(ReadFile(path), expected) << path << " is stale; " << kRegenerateHint;
}

TEST(GeneratedFiles, ConfigDocContainsTheSchemaTable) {
  const std::string path = kSourceDir + "/docs/config.md";
  const std::string table = ConfigMarkdownTable();
  const std::optional<std::string> block =
      testing::CurrentGeneratedBlock(path, "ConfigMarkdownTable", table);
  ASSERT_TRUE(block.has_value())
      << path << " lacks the lines '<!-- BEGIN GENERATED: ConfigMarkdownTable() -->' and "
      << "'<!-- END GENERATED -->' (in that order) around the key table";
  EXPECT_EQ(*block, table) << path << " is stale; " << kRegenerateHint;
}

// ---- loading ----

TEST(ParseChipConfig, EmptyOrCommentOnlyTextMeansDefaults) {
  ExpectSameConfig(ParseOk(""), ChipConfig{}, "empty");
  ExpectSameConfig(ParseOk("# nothing here\n"), ChipConfig{}, "comments");
  ExpectSameConfig(ParseOk("gm:\n  # l2_line_bytes: 256\n"), ChipConfig{}, "empty section");
}

TEST(ParseChipConfig, NestedAndDottedKeysSetTheirFields) {
  const ChipConfig config = ParseOk(
      "chip:\n"
      "  clusters: 32\n"
      "  name: what-if\n"
      "aicpu.scheduler_threads: 5\n"
      "core: {dispatch_slots: 3, setup_ns: 250.5}\n"
      "gm:\n"
      "  hbm_efficiency: 0.8\n");
  EXPECT_EQ(config.chip.clusters, 32);
  EXPECT_EQ(config.chip.name, "what-if");
  EXPECT_EQ(config.aicpu.scheduler_threads, 5);
  EXPECT_EQ(config.core.dispatch_slots, 3);
  EXPECT_EQ(config.core.setup_ns, 250.5);
  EXPECT_EQ(config.gm.hbm_efficiency, 0.8);
  // Untouched keys keep their defaults.
  EXPECT_EQ(config.ring.task_window, ChipConfig{}.ring.task_window);
  EXPECT_EQ(config.chip.counter_hz, ChipConfig{}.chip.counter_hz);
}

TEST(ParseChipConfig, UnknownKeyNamesFileLineKeyAndSuggestion) {
  const std::string yaml =
      "chip:\n"
      "  clusters: 24\n"
      "aicpu:\n"
      "  scheduler_thread: 3\n";
  EXPECT_THAT(ParseError(yaml),
              StartsWith("configs/x.yaml:4: unknown key 'aicpu.scheduler_thread'; did you mean "
                         "'aicpu.scheduler_threads'?"));
}

TEST(ParseChipConfig, AReplacedKeyNamesItsReplacements) {
  EXPECT_THAT(ParseError("core:\n  mte_bytes_per_cycle: 64\n"),
              StartsWith("configs/x.yaml:2: unknown key 'core.mte_bytes_per_cycle': it was "
                         "replaced by one rate per transfer path: "
                         "core.gm_to_l1_bytes_per_cycle, core.gm_to_ub_bytes_per_cycle, "
                         "core.ub_to_gm_bytes_per_cycle"));
}

TEST(ParseChipConfig, UnknownSectionReportsItsKeysWithSuggestions) {
  EXPECT_THAT(ParseError("\naicpuu:\n  cond_poll_ns: 90\n"),
              StartsWith("configs/x.yaml:3: unknown key 'aicpuu.cond_poll_ns'; did you mean "
                         "'aicpu.cond_poll_ns'?"));
  EXPECT_THAT(ParseError("clusters: 24\n"),
              StartsWith("configs/x.yaml:1: unknown key 'clusters'; did you mean "
                         "'chip.clusters'?"));
  EXPECT_THAT(ParseError("foo: {}\n"), StartsWith("configs/x.yaml:1: unknown key 'foo'"));
  EXPECT_THAT(
      ParseError("chip:\n  clusters:\n    count: 3\n"),
      HasSubstr("chip.clusters: expected an integer in [1, 4096] (count), found a mapping"));
}

TEST(ParseChipConfig, WrongTypesAreErrorsWithLine) {
  EXPECT_EQ(ParseError("chip:\n  clusters: many\n"),
            "configs/x.yaml:2: chip.clusters: got 'many', not a decimal integer; expected an "
            "integer in [1, 4096] (count)");
  EXPECT_THAT(ParseError("chip:\n  clusters: 24.5\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '24.5', not a decimal integer"));
  EXPECT_THAT(
      ParseError("chip:\n  clusters: [24]\n"),
      StartsWith("configs/x.yaml:2: chip.clusters: expected an integer in [1, 4096] (count), "
                 "found a list; write it as 'clusters: <value>'"));
  EXPECT_THAT(
      ParseError("chip:\n  clusters:\n"),
      StartsWith("configs/x.yaml:2: chip.clusters: expected an integer in [1, 4096] (count), "
                 "found no value"));
  EXPECT_THAT(ParseError("chip:\n\n  clusters: \"24\"\n"),
              StartsWith("configs/x.yaml:3: chip.clusters: expected an integer, found the quoted "
                         "string \"24\"; remove the quotes"));
  EXPECT_THAT(ParseError("core:\n  setup_ns: quick\n"),
              StartsWith("configs/x.yaml:2: core.setup_ns: got 'quick', not a decimal number"));
  EXPECT_THAT(ParseError("chip: 24\n"),
              StartsWith("configs/x.yaml:1: 'chip' is a section; expected a mapping of its keys"));
  EXPECT_THAT(ParseError("- chip\n- aicpu\n"),
              StartsWith("configs/x.yaml:1: expected a mapping of config sections"));
  EXPECT_THAT(ParseError("[1, 2]: 3\n"), StartsWith("configs/x.yaml:1: expected a key name"));
}

// docs/config.md: one spelling per value, which YAML 1.1, YAML 1.2 and --set
// all read alike.
TEST(ParseChipConfig, NonCanonicalNumbersAreErrorsWithLine) {
  EXPECT_EQ(ParseError("chip:\n  clusters: +24\n"),
            "configs/x.yaml:2: chip.clusters: got '+24', not a decimal integer (no '+' sign); "
            "expected an integer in [1, 4096] (count)");
  EXPECT_THAT(ParseError("chip:\n  clusters: 0x10\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '0x10', not a decimal integer "
                         "(hexadecimal, octal and binary forms are not accepted"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 0o17\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '0o17', not a decimal integer"));
  EXPECT_THAT(ParseError("\nchip.clusters: 1_000\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '1_000', not a decimal integer (no "
                         "'_' digit separators)"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 030\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '030', not a decimal integer (no "
                         "leading zeros"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 2 4\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: got '2 4', not a decimal integer (no "
                         "spaces"));
  EXPECT_THAT(ParseError("profiling:\n  enabled: true\n"),
              StartsWith("configs/x.yaml:2: profiling.enabled: got 'true', not a decimal integer "
                         "(write 1 for true, 0 for false)"));
  EXPECT_THAT(ParseError("core:\n  setup_ns: 0x1p3\n"),
              StartsWith("configs/x.yaml:2: core.setup_ns: got '0x1p3', not a decimal number "
                         "(hexadecimal"));
  EXPECT_THAT(ParseError("core:\n  setup_ns: .5\n"),
              StartsWith("configs/x.yaml:2: core.setup_ns: got '.5', not a decimal number"));
  EXPECT_THAT(ParseError("core:\n  setup_ns: +1.5\n"),
              StartsWith("configs/x.yaml:2: core.setup_ns: got '+1.5', not a decimal number (no "
                         "'+' sign)"));
  for (const char* value : {".inf", "-.inf", ".nan", ".NaN"}) {
    EXPECT_THAT(ParseError(absl::StrCat("core:\n  setup_ns: ", value, "\n")),
                StartsWith(absl::StrCat("configs/x.yaml:2: core.setup_ns: got '", value,
                                        "', which is not finite")));
  }
}

TEST(ParseChipConfig, CanonicalNeighboursAreAccepted) {
  const ChipConfig config = ParseOk(
      "chip:\n"
      "  clusters: 24\n"
      "  counter_hz: 1e9\n"
      "core:\n"
      "  setup_ns: 1.5\n"
      "  idle_setup_ns: 0\n"
      "  kernel_start_ns: 2.5e+2\n"
      "  cross_core_slots: 0\n"
      "gm.hbm_efficiency: 0.5\n"
      "profiling.enabled: 1\n");
  EXPECT_EQ(config.chip.clusters, 24);
  EXPECT_EQ(config.chip.counter_hz, 1e9);
  EXPECT_EQ(config.core.setup_ns, 1.5);
  EXPECT_EQ(config.core.idle_setup_ns, 0);
  EXPECT_EQ(config.core.kernel_start_ns, 250);
  EXPECT_EQ(config.core.cross_core_slots, 0);
  EXPECT_EQ(config.gm.hbm_efficiency, 0.5);
  EXPECT_EQ(config.profiling.enabled, 1);
  // -3 is a well-formed integer; it fails on range, not on form.
  EXPECT_EQ(ParseError("chip:\n  clusters: -3\n"),
            "configs/x.yaml:2: chip.clusters: -3 is out of range; expected an integer in [1, "
            "4096] (count)");
  // Comments, an anchor and an alias do not change how a value is written.
  const ChipConfig aliased =
      ParseOk("chip:\n  clusters: &n 16   # a what-if\naicpu:\n  scheduler_threads: *n\n");
  EXPECT_EQ(aliased.chip.clusters, 16);
  EXPECT_EQ(aliased.aicpu.scheduler_threads, 16);
  // A string key may be quoted (a name YAML would read as a boolean).
  EXPECT_EQ(ParseOk("chip:\n  name: \"yes\"\n").chip.name, "yes");
  EXPECT_EQ(ParseOk("chip:\n  name: 'a5'\n").chip.name, "a5");
}

TEST(ParseChipConfig, ExplicitTagsAreErrorsWithLine) {
  EXPECT_EQ(ParseError("chip:\n  clusters: !!str 24\n"),
            "configs/x.yaml:2: chip.clusters: expected a decimal integer written bare, found the "
            "YAML tag '!!str'; remove the tag");
  // Any tag, even one that agrees with the key's type.
  EXPECT_THAT(ParseError("chip:\n  clusters: !!int 24\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: expected a decimal integer written "
                         "bare, found the YAML tag '!!int'"));
  EXPECT_THAT(ParseError("chip:\n  clusters: ! 24\n"), HasSubstr("found the YAML tag '!'"));
  EXPECT_THAT(ParseError("chip:\n  clusters: !count 24\n"),
              HasSubstr("found the YAML tag '!count'"));
  EXPECT_THAT(ParseError("chip:\n  clusters: !<tag:yaml.org,2002:int> 24\n"),
              HasSubstr("found the YAML tag '!<tag:yaml.org,2002:int>'"));
  EXPECT_THAT(ParseError("chip:\n  clusters: &n !!str 24\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: expected a decimal integer written "
                         "bare, found the YAML tag '!!str'"));
  EXPECT_THAT(ParseError("core: {setup_ns: !!float 250}\n"),
              StartsWith("configs/x.yaml:1: core.setup_ns: expected a decimal number written "
                         "bare, found the YAML tag '!!float'; remove the tag"));
  EXPECT_THAT(ParseError("chip:\n  name: !!str a5\n"),
              StartsWith("configs/x.yaml:2: chip.name: expected a plain string written bare, "
                         "found the YAML tag '!!str'"));
  EXPECT_THAT(ParseError("chip:\n  clusters: !!str \"24\"\n"), HasSubstr("YAML tag '!!str'"));
  // The source positions survive a byte-order mark and CRLF line ends.
  EXPECT_THAT(ParseError("\xEF\xBB\xBF# caf\xC3\xA9\r\nchip:\r\n  clusters: !!str 24\r\n"),
              StartsWith("configs/x.yaml:3: chip.clusters: expected a decimal integer written "
                         "bare, found the YAML tag '!!str'"));
  EXPECT_THAT(ParseError("\xEF\xBB\xBF"
                         "chip:\r\n  clusters: \"24\"\r\n"),
              HasSubstr("found the quoted string \"24\""));
  EXPECT_EQ(ParseOk("\xEF\xBB\xBF"
                    "chip:\r\n  clusters: 30\r\n")
                .chip.clusters,
            30);
}

TEST(ParseChipConfig, QuotedAndBlockNumbersAreErrors) {
  EXPECT_THAT(ParseError("chip:\n  clusters: ' 24'\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: expected an integer, found the quoted "
                         "string \" 24\"; remove the quotes"));
  EXPECT_THAT(ParseError("chip:\n  clusters: |\n    24\n"),
              StartsWith("configs/x.yaml:2: chip.clusters: expected a decimal integer, found a "
                         "block scalar"));
  EXPECT_THAT(ParseError("chip:\n  name: \" a5\"\n"),
              StartsWith("configs/x.yaml:2: chip.name: got ' a5'"));
}

TEST(ParseChipConfig, ASecondDocumentIsAnErrorAtItsStart) {
  EXPECT_EQ(ParseError("chip:\n  clusters: 24\n---\nchip:\n  clusters: 30\n"),
            "configs/x.yaml:3: a second YAML document starts here; a config file holds one "
            "document: remove the '---' and what follows, or move its keys into the first "
            "document");
  // Empty, after an explicit end, with a syntax error, or after an empty first.
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n\n---\n"),
              StartsWith("configs/x.yaml:4: a second YAML document starts here"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n...\naicpu:\n  scheduler_threads: 4\n"),
              StartsWith("configs/x.yaml:4: a second YAML document starts here"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n--- [\n"),
              StartsWith("configs/x.yaml:3: a second YAML document starts here"));
  EXPECT_THAT(ParseError("---\n---\nchip:\n  clusters: 24\n"),
              StartsWith("configs/x.yaml:2: a second YAML document starts here"));
  // One document with explicit markers is fine.
  EXPECT_EQ(ParseOk("# chip\n---\nchip:\n  clusters: 30\n...\n# end\n").chip.clusters, 30);
  EXPECT_EQ(ParseOk("--- {chip.clusters: 30}\n").chip.clusters, 30);
}

TEST(ParseChipConfig, OutOfRangeValuesAreErrorsWithLine) {
  EXPECT_EQ(ParseError("chip:\n  clusters: 0\n"),
            "configs/x.yaml:2: chip.clusters: 0 is out of range; expected an integer in [1, 4096] "
            "(count)");
  EXPECT_THAT(ParseError("chip:\n  clusters: -24\n"), HasSubstr(":2: chip.clusters: -24 is out"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 5000\n"), HasSubstr(":2: chip.clusters: 5000 is out"));
  EXPECT_THAT(ParseError("core:\n  dispatch_slots: 0\n"),
              HasSubstr(":2: core.dispatch_slots: 0 is out of range"));
  EXPECT_THAT(ParseError("aicpu:\n  cond_poll_ns: -5\n"),
              HasSubstr(":2: aicpu.cond_poll_ns: -5 is out of range"));
  EXPECT_THAT(ParseError("aicpu:\n  cond_poll_ns: .inf\n"),
              HasSubstr(":2: aicpu.cond_poll_ns: got '.inf', which is not finite"));
  EXPECT_THAT(ParseError("ring:\n  task_window: 1000\n"),
              HasSubstr(":2: ring.task_window: 1000 is not a power of two"));
}

TEST(ParseChipConfig, DuplicateKeysAreErrors) {
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n  name: x\n  clusters: 30\n"),
              StartsWith("configs/x.yaml:4: duplicate key 'chip.clusters' (first set at line 2)"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\nchip.clusters: 30\n"),
              StartsWith("configs/x.yaml:3: duplicate key 'chip.clusters' (first set at line 2)"));
}

TEST(ParseChipConfig, YamlSyntaxErrorNamesTheLine) {
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n  name: [a2a3\n"), StartsWith("configs/x.yaml:"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n  name: [a2a3\n"), HasSubstr("YAML syntax error"));
  EXPECT_THAT(ParseError("chip:\n  clusters: 24\n bad indent: 1\n"),
              StartsWith("configs/x.yaml:3:"));
}

// ---- overrides ----

TEST(Overrides, ApplyAfterTheFileInOrder) {
  const ChipConfig config = ParseOk(
      "chip:\n  clusters: 30\n",
      {"chip.clusters=32", " core.dispatch_slots = 3 ", "chip.counter_hz=1e9", "chip.clusters=16"});
  EXPECT_EQ(config.chip.clusters, 16);
  EXPECT_EQ(config.core.dispatch_slots, 3);
  EXPECT_EQ(config.chip.counter_hz, 1e9);
}

TEST(Overrides, MalformedOverridesQuoteTheSetText) {
  EXPECT_EQ(ParseError("", {"chip.clusters"}),
            "--set chip.clusters: expected key=value (e.g. --set chip.clusters=32)");
  EXPECT_THAT(ParseError("", {"aicpu.scheduler_thread=4"}),
              StartsWith("--set aicpu.scheduler_thread=4: unknown key 'aicpu.scheduler_thread'; "
                         "did you mean 'aicpu.scheduler_threads'?"));
  EXPECT_EQ(ParseError("", {"chip.clusters=lots"}),
            "--set chip.clusters=lots: chip.clusters: got 'lots', not a decimal integer; expected "
            "an integer in [1, 4096] (count)");
  EXPECT_THAT(ParseError("", {"chip.clusters=0"}),
              StartsWith("--set chip.clusters=0: chip.clusters: 0 is out of range"));
  EXPECT_THAT(ParseError("", {"chip.clusters="}),
              StartsWith("--set chip.clusters=: chip.clusters: missing value after '='"));
  EXPECT_THAT(ParseError("", {"=3"}), StartsWith("--set =3: missing key before '='"));
}

TEST(Overrides, NonCanonicalValuesQuoteTheSetText) {
  EXPECT_EQ(ParseError("", {"core.setup_ns=0x10"}),
            "--set core.setup_ns=0x10: core.setup_ns: got '0x10', not a decimal number "
            "(hexadecimal, octal and binary forms are not accepted; write it in decimal); expected "
            "a number in [0, 1e9] (ns)");
  EXPECT_THAT(ParseError("", {"chip.clusters=+24"}),
              StartsWith("--set chip.clusters=+24: chip.clusters: got '+24', not a decimal "
                         "integer (no '+' sign)"));
  EXPECT_THAT(ParseError("", {"chip.clusters=1_000"}), HasSubstr("(no '_' digit separators)"));
  EXPECT_THAT(ParseError("", {"chip.clusters=2 4"}),
              StartsWith("--set chip.clusters=2 4: chip.clusters: got '2 4', not a decimal "
                         "integer (no spaces"));
  EXPECT_THAT(ParseError("", {"gm.hbm_efficiency=.inf"}), HasSubstr("which is not finite"));
  // --set has no YAML: a tag or quotes are just characters that are not digits.
  EXPECT_THAT(ParseError("", {"chip.clusters=!!str 24"}), HasSubstr("not a decimal integer"));
  EXPECT_THAT(ParseError("", {"chip.clusters=\"24\""}), HasSubstr("not a decimal integer"));
}

TEST(Overrides, SpacesAroundTheValueAreIgnored) {
  const ChipConfig config = ParseOk("", {"chip.clusters= 24 ", "core.setup_ns =\t1.5e2"});
  EXPECT_EQ(config.chip.clusters, 24);
  EXPECT_EQ(config.core.setup_ns, 150);
}

TEST(Overrides, FileErrorsComeBeforeOverrides) {
  EXPECT_THAT(ParseError("chip:\n  clusters: 0\n", {"chip.clusters=24"}),
              StartsWith("configs/x.yaml:2:"));
}

// ---- files ----

TEST(LoadChipConfig, MissingFileIsNotFound) {
  absl::StatusOr<ChipConfig> config = LoadChipConfig("/nonexistent/chip.yaml", {});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("/nonexistent/chip.yaml: no such file; expected a YAML config file"));
}

TEST(LoadChipConfig, DirectoryIsRejected) {
  absl::StatusOr<ChipConfig> config = LoadChipConfig(kSourceDir + "/configs", {});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("configs: is a directory"));
}

class TempYaml {
 public:
  explicit TempYaml(absl::string_view text)
      : path_(std::filesystem::temp_directory_path() /
              absl::StrCat("pto_config_test_", getpid(), "_", counter_++, ".yaml")) {
    std::ofstream(path_) << text;
  }
  ~TempYaml() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(LoadChipConfig, UnreadableFileIsRejected) {
  if (geteuid() == 0) GTEST_SKIP() << "root can read any file";
  TempYaml file("chip:\n  clusters: 24\n");
  std::filesystem::permissions(file.path(), std::filesystem::perms::none);
  absl::StatusOr<ChipConfig> config = LoadChipConfig(file.path(), {});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("permission denied"));
}

TEST(LoadChipConfig, ErrorsNameThePathGiven) {
  TempYaml file("chip:\n  clusters: 24\n  clusterz: 3\n");
  absl::StatusOr<ChipConfig> config = LoadChipConfig(file.path(), {"core.dispatch_slots=1"});
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith(file.path() + ":3: unknown key 'chip.clusterz'"));
}

TEST(LoadChipConfig, AppliesOverridesToTheFile) {
  TempYaml file("chip:\n  clusters: 36\n");
  absl::StatusOr<ChipConfig> config = LoadChipConfig(file.path(), {"aicpu.scheduler_threads=4"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->chip.clusters, 36);
  EXPECT_EQ(config->aicpu.scheduler_threads, 4);
}

// ---- printing ----

// PrintConfig's lines turned into `--set` texts.
std::vector<std::string> PrintedAsOverrides(const ChipConfig& config) {
  std::vector<std::string> overrides;
  for (absl::string_view line : absl::StrSplit(PrintConfig(config), '\n', absl::SkipEmpty())) {
    const size_t colon = line.find(": ");
    EXPECT_NE(colon, absl::string_view::npos) << line;
    overrides.push_back(absl::StrCat(line.substr(0, colon), "=", line.substr(colon + 2)));
  }
  return overrides;
}

TEST(PrintConfig, OneLinePerKeyInSchemaOrder) {
  const std::vector<std::string> lines =
      absl::StrSplit(PrintConfig(ChipConfig{}), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), ConfigSchema().size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_THAT(lines[i], StartsWith(absl::StrCat(ConfigSchema()[i].key, ": ")));
  }
  EXPECT_EQ(lines[0], "chip.name: a2a3");
  EXPECT_EQ(lines[1], "chip.clusters: 24");
  EXPECT_EQ(lines[2], "chip.counter_hz: 5e7");
  EXPECT_EQ(lines[3], "chip.aicore_clock_hz: 1.85e9");
}

TEST(PrintConfig, RoundTripsThroughOverridesExactly) {
  ChipConfig tricky;
  tricky.chip.name = "what-if.2";
  tricky.chip.clusters = 4096;
  tricky.chip.counter_hz = 1e9 / 3;
  tricky.aicpu.cond_poll_ns = 0.1 + 0.2;
  tricky.core.setup_ns = 1.0 / 7;
  tricky.gm.hbm_efficiency = 0.01;
  tricky.gm.hbm_bandwidth_bytes_per_s = 1.2345678901234567e12;
  tricky.ring.heap_bytes = (1ll << 40) - 1;
  for (const ChipConfig& original : {ChipConfig{}, tricky}) {
    const ChipConfig reparsed = ParseOk("", PrintedAsOverrides(original));
    ExpectSameConfig(reparsed, original, "print -> --set");
    EXPECT_EQ(PrintConfig(reparsed), PrintConfig(original));
  }
}

}  // namespace
}  // namespace pto
