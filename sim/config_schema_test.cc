#include "sim/config_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/config_loader.h"

namespace pto {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ---- counting the members of an aggregate (so a new ChipConfig field
// without a schema row fails here) ----

struct AnyField {
  template <typename T>
  operator T() const;  // never defined: used in unevaluated contexts only
};

template <typename T, typename... Args>
auto BraceInitializable(int) -> decltype(T{std::declval<Args>()...}, std::true_type{});
template <typename T, typename... Args>
std::false_type BraceInitializable(...);

template <typename T, typename... Args>
constexpr size_t AggregateFieldCount() {
  if constexpr (decltype(BraceInitializable<T, Args..., AnyField>(0))::value) {
    return AggregateFieldCount<T, Args..., AnyField>();
  } else {
    return sizeof...(Args);
  }
}

size_t SchemaRowsInSection(absl::string_view section) {
  size_t rows = 0;
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    if (spec.key.substr(0, spec.key.find('.')) == section) ++rows;
  }
  return rows;
}

TEST(ConfigSchema, EveryChipConfigFieldHasExactlyOneRow) {
  const char* kHint = "; add a row in sim/config_schema.cc for each new ChipConfig field";
  EXPECT_EQ(AggregateFieldCount<ChipConfig>(), 7u) << "a new ChipConfig section" << kHint;
  EXPECT_EQ(SchemaRowsInSection("chip"), AggregateFieldCount<ChipParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("aicpu"), AggregateFieldCount<AicpuParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("ring"), AggregateFieldCount<RingParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("core"), AggregateFieldCount<CoreParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("gm"), AggregateFieldCount<GmParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("profiling"), AggregateFieldCount<ProfilingParams>()) << kHint;
  EXPECT_EQ(SchemaRowsInSection("cube"), AggregateFieldCount<CubeParams>()) << kHint;
  EXPECT_EQ(ConfigSchema().size(), 82u);
}

TEST(ConfigSchema, KeysAreUniqueDottedSectionFieldNames) {
  const std::set<std::string> sections = {"chip", "aicpu",     "ring", "core",
                                          "gm",   "profiling", "cube"};
  std::set<std::string> keys;
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    const std::vector<std::string> parts = absl::StrSplit(spec.key, '.');
    ASSERT_EQ(parts.size(), 2u) << spec.key;
    EXPECT_TRUE(sections.count(parts[0])) << spec.key;
    EXPECT_TRUE(keys.insert(std::string(spec.key)).second) << "duplicate " << spec.key;
    EXPECT_TRUE(IsConfigSection(parts[0]));
  }
  EXPECT_FALSE(IsConfigSection("chips"));
  EXPECT_FALSE(IsConfigSection("chip.clusters"));
}

TEST(ConfigSchema, FixedKeyNamesExistWithTheirTypes) {
  ASSERT_NE(FindConfigKey("chip.clusters"), nullptr);
  EXPECT_EQ(FindConfigKey("chip.clusters")->type(), ConfigType::kInt);
  ASSERT_NE(FindConfigKey("aicpu.scheduler_threads"), nullptr);
  EXPECT_EQ(FindConfigKey("aicpu.scheduler_threads")->type(), ConfigType::kInt);
  ASSERT_NE(FindConfigKey("core.dispatch_slots"), nullptr);
  EXPECT_EQ(FindConfigKey("core.dispatch_slots")->type(), ConfigType::kInt);
  EXPECT_EQ(FindConfigKey("chip.counter_hz")->type(), ConfigType::kDouble);
  EXPECT_EQ(FindConfigKey("chip.name")->type(), ConfigType::kString);
  EXPECT_EQ(FindConfigKey("chip.cluster"), nullptr);
}

// ---- where a source may point ----

// The length of the pinned citation "<owner>/<repo>@<commit>" of a public repository that `s`
// starts with (the commit 7 to 40 lowercase hex digits, not followed by a letter or digit), or 0.
size_t PinnedCitationLength(absl::string_view s) {
  const size_t slash = s.find('/');
  if (slash == absl::string_view::npos || slash == 0) return 0;
  for (char c : s.substr(0, slash)) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') return 0;
  }
  const size_t at = s.find('@', slash + 1);
  if (at == absl::string_view::npos || at == slash + 1) return 0;
  const absl::string_view repo = s.substr(slash + 1, at - slash - 1);
  if (repo.find_first_of(" /") != absl::string_view::npos) return 0;
  size_t end = at + 1;
  while (end < s.size() && absl::ascii_isxdigit(s[end]) && !absl::ascii_isupper(s[end])) ++end;
  const size_t digits = end - at - 1;
  if (digits < 7 || digits > 40 || (end < s.size() && absl::ascii_isalnum(s[end]))) return 0;
  return end;
}

// Why `source` is not a citation a reader of this repository can check, or "" when it is.
// A source starts with a file of a public repository at a pinned commit
// ("<owner>/<repo>@<commit> <path> ...", e.g. hw-native-sys/simpler@6ebaf771 ...), a CANN document
// ("CANN <document> ..."), "assumption" or "calibrated (docs/calibration.md)"; every upstream
// repository it names is pinned to a commit; a section sign (§) only follows such a pinned
// citation; and it names no internal note (the design notes, the semantics notes, seed pages or
// /work paths).
std::string SourceProblem(absl::string_view source) {
  const size_t pinned = PinnedCitationLength(source);
  const bool upstream_file = pinned > 0 && source.size() > pinned + 1 && source[pinned] == ' ' &&
                             source[pinned + 1] != ' ';
  if (!upstream_file && !absl::StartsWith(source, "CANN ") &&
      !absl::StartsWith(source, "assumption") &&
      !absl::StartsWith(source, "calibrated (docs/calibration.md)")) {
    return "starts with neither '<owner>/<repo>@<commit> <path>', 'CANN ', 'assumption' "
           "nor 'calibrated (docs/calibration.md)'";
  }
  for (absl::string_view note :
       {"semantics.md", "systemc-engineering", "DESIGN", "seeds/", "/work/"}) {
    if (absl::StrContains(source, note)) return absl::StrCat("names an internal note: ", note);
  }
  size_t first_pinned = absl::string_view::npos;
  for (size_t pos = source.find("hw-native-sys/"); pos != absl::string_view::npos;
       pos = source.find("hw-native-sys/", pos + 1)) {
    if (PinnedCitationLength(source.substr(pos)) == 0) {
      return "names an upstream repository without '@<commit>'";
    }
    first_pinned = std::min(first_pinned, pos);
  }
  const size_t section = source.find("§");
  if (section != absl::string_view::npos &&
      (first_pinned == absl::string_view::npos || section < first_pinned)) {
    return "cites a section (§) of no pinned upstream file";
  }
  return "";
}

TEST(ConfigSchema, SourceRuleAcceptsOnlyCheckablePublicCitations) {
  for (absl::string_view ok : {
           "hw-native-sys/simpler@6ebaf771 docs/hardware/mmio-performance.md (LDR 95-105 ns)",
           "hw-native-sys/simpler@6ebaf77156313aaeb5c9457c57b16c45b84ae7e8 docs/tpush-tpop.md",
           "hw-native-sys/simpler@6ebaf771 src/a2a3/runtime/tensormap_and_ringbuffer/docs/"
           "MULTI_RING.md §7.1; calibrated (docs/calibration.md)",
           "CANN Ascend C operator development guide, 'Data cache'",
           "assumption",
           "assumption (an L2 hit away: hw-native-sys/pypto@e2d0f78a docs/en/dev/passes/x.md)",
           "calibrated (docs/calibration.md)",
           "Ascend/mskpp@065b75cc csrc/prof_data/resource910b.cpp (VADD 128 B/cycle)",
           "mirror-cann/asc-devkit@82b89a15 examples/data_copy/README_en.md (215.82 us)",
       }) {
    EXPECT_EQ(SourceProblem(ok), "") << ok;
  }
  // The internal notes' names are assembled here, so that the repository spells none in full.
  for (const std::string& bad : std::vector<std::string>{
           absl::StrCat("runtime-semantics", ".md §1.2"),
           absl::StrCat("frontend-semantics", ".md §3.3"),
           absl::StrCat("assumption (DESIGN", ".md §7)"),
           "assumption (DESIGN §8)",
           absl::StrCat("assumption (runtime-semantics", ".md §3: a re-read needs dcci + dsb)"),
           absl::StrCat("hw-native-sys/simpler@6ebaf771 docs/x.md (and runtime-semantics", ".md)"),
           absl::StrCat("/work/", "shared/", "reference/notes.md"),
           absl::StrCat("seeds/", "001 Runtime Overhead"),
           "assumption (§3 of the notes)",
           "hw-native-sys/simpler docs/hardware/mmio-performance.md",
           "hw-native-sys/simpler@main docs/hardware/mmio-performance.md",
           "hw-native-sys/simpler@6ebaf7 docs/hardware/mmio-performance.md",
           "hw-native-sys/simpler@6ebaf771",
           "Ascend/mskpp csrc/prof_data/resource910b.cpp",
           "Ascend/mskpp@latest csrc/prof_data/resource910b.cpp",
           "assumption (as hw-native-sys/pypto docs say)",
           "docs/hardware/mmio-performance.md",
           "calibrated",
           "",
       }) {
    EXPECT_NE(SourceProblem(bad), "") << bad;
  }
}

TEST(ConfigSchema, EveryRowIsDocumentedWithUnitSourceAndMeaning) {
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    EXPECT_FALSE(spec.unit.empty()) << spec.key;
    EXPECT_FALSE(spec.doc.empty()) << spec.key;
    EXPECT_EQ(SourceProblem(spec.source), "") << spec.key << " source '" << spec.source << "'";
    EXPECT_LE(spec.min, spec.max) << spec.key;
    EXPECT_EQ(spec.doc.find('|'), absl::string_view::npos) << "breaks the markdown table";
    EXPECT_EQ(spec.source.find('|'), absl::string_view::npos) << "breaks the markdown table";
    if (spec.power_of_two) {
      EXPECT_EQ(spec.type(), ConfigType::kInt) << spec.key;
    }
  }
}

// Issue 21: a calibrated key says what a5 takes, a value with its source or
// "the a2a3 value, unsourced for a5".
TEST(ConfigSchema, EveryCalibratedKeyNamesItsA5Value) {
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    if (spec.source.find("calibrated") == absl::string_view::npos) continue;
    EXPECT_NE(spec.source.find("a5: "), absl::string_view::npos) << spec.key;
  }
}

TEST(ConfigSchema, DefaultsAreInRangeAndReparseToThemselves) {
  const ChipConfig defaults;
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    ChipConfig reparsed;
    const std::string text = FormatConfigValue(spec, defaults);
    EXPECT_TRUE(SetConfigValue(spec, text, &reparsed).ok()) << spec.key << " default " << text;
    EXPECT_EQ(FormatConfigValue(spec, reparsed), text) << spec.key;
  }
}

// A different valid value for `spec`, given its current text.
std::string OtherValidValue(const ConfigKeySpec& spec, const ChipConfig& config) {
  switch (spec.type()) {
    case ConfigType::kInt: {
      const int64_t value = std::stoll(FormatConfigValue(spec, config));
      if (spec.power_of_two) return absl::StrCat(value * 2 <= spec.max ? value * 2 : value / 2);
      return absl::StrCat(value + 1 <= spec.max ? value + 1 : value - 1);
    }
    case ConfigType::kDouble: {
      const double value = std::stod(FormatConfigValue(spec, config));
      const double other = value * 1.5 + 1;
      return FormatShortestDouble(other <= spec.max ? other : (spec.min + value) / 2);
    }
    case ConfigType::kString:
      return "variant7";
  }
  return "";
}

TEST(ConfigSchema, EachKeyWritesItsOwnFieldAndNoOther) {
  const ChipConfig defaults;
  const std::vector<std::string> default_lines = absl::StrSplit(PrintConfig(defaults), '\n');
  for (size_t row = 0; row < ConfigSchema().size(); ++row) {
    const ConfigKeySpec& spec = ConfigSchema()[row];
    ChipConfig changed;
    const std::string value = OtherValidValue(spec, changed);
    ASSERT_TRUE(SetConfigValue(spec, value, &changed).ok()) << spec.key << "=" << value;
    const std::vector<std::string> lines = absl::StrSplit(PrintConfig(changed), '\n');
    ASSERT_EQ(lines.size(), default_lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i == row) {
        EXPECT_EQ(lines[i], absl::StrCat(spec.key, ": ", value)) << spec.key;
      } else {
        EXPECT_EQ(lines[i], default_lines[i]) << "setting " << spec.key << " changed another key";
      }
    }
  }
}

TEST(FormatShortestDouble, PicksReadableShortestForms) {
  EXPECT_EQ(FormatShortestDouble(500), "500");
  EXPECT_EQ(FormatShortestDouble(50e6), "5e7");
  EXPECT_EQ(FormatShortestDouble(1.65e9), "1.65e9");
  EXPECT_EQ(FormatShortestDouble(1.6e12), "1.6e12");
  EXPECT_EQ(FormatShortestDouble(0.625), "0.625");
  EXPECT_EQ(FormatShortestDouble(10000), "10000");
  EXPECT_EQ(FormatShortestDouble(0.001), "0.001");
  EXPECT_EQ(FormatShortestDouble(1e-7), "1e-7");
  EXPECT_EQ(FormatShortestDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatShortestDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatShortestDouble(0), "0");
}

TEST(FormatShortestDouble, RoundTripsExactly) {
  std::mt19937_64 random(12345);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int i = 0; i < 5000; ++i) {
    const double value = mantissa(random) * std::pow(10.0, exponent(random));
    const std::string text = FormatShortestDouble(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
}

TEST(SetConfigValue, ParsesEachType) {
  ChipConfig config;
  ASSERT_TRUE(SetConfigValue(*FindConfigKey("chip.clusters"), "32", &config).ok());
  EXPECT_EQ(config.chip.clusters, 32);
  ASSERT_TRUE(SetConfigValue(*FindConfigKey("chip.counter_hz"), "1e9", &config).ok());
  EXPECT_EQ(config.chip.counter_hz, 1e9);
  ASSERT_TRUE(SetConfigValue(*FindConfigKey("gm.hbm_efficiency"), "0.5", &config).ok());
  EXPECT_EQ(config.gm.hbm_efficiency, 0.5);
  ASSERT_TRUE(SetConfigValue(*FindConfigKey("core.setup_ns"), "0", &config).ok());
  EXPECT_EQ(config.core.setup_ns, 0.0);
  ASSERT_TRUE(SetConfigValue(*FindConfigKey("chip.name"), "a5-32c", &config).ok());
  EXPECT_EQ(config.chip.name, "a5-32c");
}

std::string SetError(absl::string_view key, absl::string_view text) {
  ChipConfig config;
  const absl::Status status = SetConfigValue(*FindConfigKey(key), text, &config);
  EXPECT_FALSE(status.ok()) << key << "=" << text << " was accepted";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // A rejected value leaves the config untouched.
  EXPECT_EQ(PrintConfig(config), PrintConfig(ChipConfig{}));
  return std::string(status.message());
}

TEST(SetConfigValue, RejectsWrongTypes) {
  EXPECT_EQ(SetError("chip.clusters", "many"),
            "chip.clusters: got 'many', not a decimal integer; expected an integer in [1, 4096] "
            "(count)");
  EXPECT_THAT(SetError("chip.clusters", "2.5"), HasSubstr("got '2.5', not a decimal integer"));
  EXPECT_THAT(SetError("chip.clusters", "1e3"), HasSubstr("not a decimal integer"));
  EXPECT_THAT(SetError("chip.clusters", "true"), HasSubstr("not a decimal integer;"));
  EXPECT_THAT(SetError("core.setup_ns", "fast"),
              HasSubstr("core.setup_ns: got 'fast', not a decimal number"));
  EXPECT_THAT(SetError("core.setup_ns", "12ns"), HasSubstr("not a decimal number"));
  EXPECT_THAT(SetError("core.setup_ns", ""), HasSubstr("not a decimal number"));
}

TEST(SetConfigValue, RejectsNonFiniteDoubles) {
  for (const char* text : {"inf", "-inf", "+inf", ".inf", "-.Inf", "Infinity", "nan", ".NaN"}) {
    EXPECT_THAT(SetError("core.setup_ns", text), HasSubstr("which is not finite")) << text;
  }
}

TEST(SetConfigValue, OverflowIsOutOfRange) {
  EXPECT_THAT(SetError("chip.clusters", "99999999999999999999"),
              HasSubstr("chip.clusters: 99999999999999999999 is out of range"));
  EXPECT_EQ(SetError("core.setup_ns", "1e999"),
            "core.setup_ns: 1e999 is out of range; expected a number in [0, 1e9] (ns)");
}

// docs/config.md: integers are -?(0|[1-9][0-9]*), nothing else.
TEST(SetConfigValue, RejectsNonCanonicalIntegers) {
  EXPECT_EQ(SetError("chip.clusters", "+24"),
            "chip.clusters: got '+24', not a decimal integer (no '+' sign); expected an integer "
            "in [1, 4096] (count)");
  const std::string kHex =
      "not a decimal integer (hexadecimal, octal and binary forms are not accepted; write it in "
      "decimal)";
  for (const char* text : {"0x10", "0X10", "0o17", "0O17", "0b11", "-0x10", "0x"}) {
    EXPECT_THAT(SetError("chip.clusters", text), HasSubstr(kHex)) << text;
  }
  EXPECT_THAT(SetError("chip.clusters", "1_000"),
              HasSubstr("got '1_000', not a decimal integer (no '_' digit separators)"));
  EXPECT_THAT(SetError("chip.clusters", "024"),
              HasSubstr("got '024', not a decimal integer (no leading zeros: YAML 1.1 reads 017 "
                        "as octal)"));
  EXPECT_THAT(SetError("chip.clusters", "-024"), HasSubstr("(no leading zeros"));
  EXPECT_THAT(SetError("chip.clusters", "00"), HasSubstr("(no leading zeros"));
  for (const char* text : {" 24", "24 ", "2 4", "\t24", "24\n"}) {
    EXPECT_THAT(SetError("chip.clusters", text), HasSubstr("not a decimal integer (no spaces"))
        << text;
  }
  for (const char* text : {"24.0", "2.4e1", "24e0", "--24", "-", "+-24", "2,4", "1:30", "~",
                           "\xef\xbc\x92\xef\xbc\x94"}) {  // the last: fullwidth "24"
    EXPECT_THAT(SetError("chip.clusters", text), HasSubstr("not a decimal integer")) << text;
  }
  // Booleans are not integers; a flag says how to write one.
  EXPECT_THAT(SetError("chip.clusters", "true"), Not(HasSubstr("write 1")));
  for (const char* text : {"true", "False", "yes", "no", "on", "OFF"}) {
    EXPECT_THAT(SetError("profiling.enabled", text),
                HasSubstr("not a decimal integer (write 1 for true, 0 for false)"))
        << text;
  }
}

// docs/config.md: numbers are -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?.
TEST(SetConfigValue, RejectsNonCanonicalNumbers) {
  EXPECT_EQ(SetError("core.setup_ns", "0x10"),
            "core.setup_ns: got '0x10', not a decimal number (hexadecimal, octal and binary forms "
            "are not accepted; write it in decimal); expected a number in [0, 1e9] (ns)");
  for (const char* text : {"0x1p3", "0X1P3", "0x1.8p1", "0o17", "0b1"}) {
    EXPECT_THAT(SetError("core.setup_ns", text), HasSubstr("(hexadecimal, octal and binary"))
        << text;
  }
  EXPECT_THAT(SetError("core.setup_ns", "+1.5"), HasSubstr("not a decimal number (no '+' sign)"));
  EXPECT_THAT(SetError("core.setup_ns", "1_000.5"), HasSubstr("(no '_' digit separators)"));
  EXPECT_THAT(SetError("core.setup_ns", "01.5"),
              HasSubstr("not a decimal number (no leading zeros)"));
  EXPECT_THAT(SetError("core.setup_ns", ".5"),
              HasSubstr("not a decimal number (write a digit before the '.', e.g. 0.5)"));
  EXPECT_THAT(SetError("core.setup_ns", "-.5"), HasSubstr("(write a digit before the '.'"));
  for (const char* text : {"5.", "5.e3"}) {
    EXPECT_THAT(SetError("core.setup_ns", text),
                HasSubstr("not a decimal number (write a digit after the '.', e.g. 5.0)"))
        << text;
  }
  EXPECT_THAT(SetError("core.setup_ns", " 1.5"), HasSubstr("not a decimal number (no spaces"));
  for (const char* text : {"1e", "1e+", "1.5.2", "1d3", "e3", "1,5", "1.5f", "5e7ns", "0.1e-"}) {
    EXPECT_THAT(SetError("core.setup_ns", text), HasSubstr("not a decimal number")) << text;
  }
}

// The legal neighbours of the forms above.
TEST(SetConfigValue, AcceptsCanonicalForms) {
  auto value_of = [](absl::string_view key, absl::string_view text) {
    ChipConfig config;
    const absl::Status status = SetConfigValue(*FindConfigKey(key), text, &config);
    EXPECT_TRUE(status.ok()) << key << "=" << text << ": " << status;
    return FormatConfigValue(*FindConfigKey(key), config);
  };
  EXPECT_EQ(value_of("chip.clusters", "24"), "24");
  EXPECT_EQ(value_of("chip.clusters", "4096"), "4096");
  EXPECT_EQ(value_of("core.cross_core_slots", "0"), "0");
  EXPECT_EQ(value_of("core.cross_core_slots", "-0"), "0");
  EXPECT_EQ(value_of("profiling.enabled", "1"), "1");
  EXPECT_EQ(value_of("ring.heap_bytes", "1099511627776"), "1099511627776");
  EXPECT_EQ(value_of("core.setup_ns", "0"), "0");
  EXPECT_EQ(value_of("core.setup_ns", "1.5"), "1.5");
  EXPECT_EQ(value_of("core.setup_ns", "0.5"), "0.5");
  EXPECT_EQ(value_of("core.setup_ns", "10.0"), "10");
  EXPECT_EQ(value_of("core.setup_ns", "1e3"), "1000");
  EXPECT_EQ(value_of("core.setup_ns", "1E3"), "1000");
  EXPECT_EQ(value_of("core.setup_ns", "2.5e+2"), "250");  // printf's and Python's spelling
  EXPECT_EQ(value_of("core.setup_ns", "5e-07"), "5e-7");
  EXPECT_EQ(value_of("core.setup_ns", "0e5"), "0");
  EXPECT_EQ(value_of("core.setup_ns", "1e-999"), "0");  // underflows to 0, which is in range
  EXPECT_EQ(value_of("gm.hbm_bandwidth_bytes_per_s", "1.6e12"), "1.6e12");
  // Negative numbers are well formed, then out of range on every key today.
  EXPECT_EQ(SetError("chip.clusters", "-3"),
            "chip.clusters: -3 is out of range; expected an integer in [1, 4096] (count)");
  EXPECT_EQ(SetError("core.setup_ns", "-1.5e2"),
            "core.setup_ns: -1.5e2 is out of range; expected a number in [0, 1e9] (ns)");
}

TEST(SetConfigValue, RejectsOutOfRange) {
  EXPECT_EQ(SetError("chip.clusters", "0"),
            "chip.clusters: 0 is out of range; expected an integer in [1, 4096] (count)");
  EXPECT_THAT(SetError("chip.clusters", "-3"), HasSubstr("-3 is out of range"));
  EXPECT_THAT(SetError("chip.clusters", "4097"), HasSubstr("4097 is out of range"));
  EXPECT_THAT(SetError("core.dispatch_slots", "0"), HasSubstr("core.dispatch_slots: 0 is out"));
  EXPECT_THAT(SetError("aicpu.scheduler_threads", "0"), HasSubstr("out of range"));
  EXPECT_EQ(SetError("aicpu.cond_poll_ns", "-1"),
            "aicpu.cond_poll_ns: -1 is out of range; expected a number in [0, 1e9] (ns)");
  EXPECT_THAT(SetError("aicpu.loop_overhead_ns", "0"), HasSubstr("in [1, 1e9]"));
  EXPECT_THAT(SetError("gm.hbm_efficiency", "1.5"), HasSubstr("in [0.01, 1] (ratio)"));
  EXPECT_THAT(SetError("chip.counter_hz", "0"), HasSubstr("out of range"));
}

TEST(SetConfigValue, RejectsNonPowerOfTwoWhereRequired) {
  EXPECT_EQ(
      SetError("ring.task_window", "1000"),
      "ring.task_window: 1000 is not a power of two; expected a power of two in [4, 16777216] "
      "(tasks)");
  EXPECT_THAT(SetError("gm.dcache_line_bytes", "48"), HasSubstr("not a power of two"));
}

TEST(SetConfigValue, RejectsMalformedNames) {
  EXPECT_THAT(SetError("chip.name", "has space"), HasSubstr("chip.name: got 'has space'"));
  EXPECT_THAT(SetError("chip.name", " a5"), HasSubstr("chip.name: got ' a5'"));
  EXPECT_THAT(SetError("chip.name", "-leading"), HasSubstr("starting alphanumeric"));
  EXPECT_THAT(SetError("chip.name", std::string(65, 'a')), HasSubstr("1-64 characters"));
}

TEST(NearestConfigKey, SuggestsTheIntendedKey) {
  EXPECT_EQ(NearestConfigKey("aicpu.scheduler_thread"), "aicpu.scheduler_threads");
  EXPECT_EQ(NearestConfigKey("chip.cluster"), "chip.clusters");
  EXPECT_EQ(NearestConfigKey("clusters"), "chip.clusters");
  EXPECT_EQ(NearestConfigKey("scheduler_threads"), "aicpu.scheduler_threads");
  EXPECT_EQ(NearestConfigKey("core.dispatch_slot"), "core.dispatch_slots");
  EXPECT_EQ(NearestConfigKey("aicpuu.cond_poll_ns"), "aicpu.cond_poll_ns");
  EXPECT_EQ(NearestConfigKey("gm.l2_line"), "gm.l2_line_bytes");
  EXPECT_FALSE(NearestConfigKey("zzzzzz").empty());
}

TEST(ConfigMarkdownTable, HasOneRowPerKeyWithDefaultAndRange) {
  const std::string table = ConfigMarkdownTable();
  const std::vector<absl::string_view> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), ConfigSchema().size() + 2);
  EXPECT_EQ(lines[0], "| key | type | unit | default | range | source | meaning |");
  EXPECT_THAT(table, HasSubstr("| `chip.clusters` | int | count | 24 | [1, 4096] | "
                               "hw-native-sys/simpler@6ebaf771 "
                               "src/a2a3/platform/include/common/platform_config.h "
                               "(PLATFORM_MAX_BLOCKDIM = 24) | "));
  EXPECT_THAT(table, HasSubstr("| `chip.counter_hz` | double | Hz | 5e7 | "));
  EXPECT_THAT(table, HasSubstr("| `ring.task_window` | int | tasks | 16384 | power of two in "));
}

TEST(AnnotatedConfigYaml, CommentsEveryKeyWithMeaningUnitRangeAndSource) {
  ChipConfig config;
  config.chip.name = "null";  // must be quoted or YAML reads it as null
  const std::string yaml = AnnotatedConfigYaml(config, "header line\n\nmore");
  EXPECT_TRUE(absl::StartsWith(yaml, "# header line\n#\n# more\n\nchip:\n"));
  for (const ConfigKeySpec& spec : ConfigSchema()) {
    const std::string leaf(spec.key.substr(spec.key.find('.') + 1));
    EXPECT_THAT(yaml, HasSubstr(absl::StrCat("  # ", spec.doc, ".\n  # unit: ", spec.unit,
                                             "; range: ", spec.RangeText(),
                                             "; source: ", spec.source, "\n  ", leaf, ": ")))
        << spec.key;
  }
  EXPECT_THAT(yaml, HasSubstr("  name: \"null\"\n"));
  // And it loads back to the same values.
  absl::StatusOr<ChipConfig> reloaded = ParseChipConfig(yaml, "generated.yaml", {});
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ(PrintConfig(*reloaded), PrintConfig(config));
}

}  // namespace
}  // namespace pto
