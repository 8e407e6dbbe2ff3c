#include "sim/sweep/sweep_grid.h"

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace pto {

absl::StatusOr<SweepAxis> ParseVary(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--vary '", spec, "': expected key=v1,v2,... (e.g. --vary chip.clusters=8,16,24)"));
  }
  SweepAxis axis;
  axis.key = spec.substr(0, eq);
  std::set<std::string> seen;
  for (absl::string_view value : absl::StrSplit(spec.substr(eq + 1), ',')) {
    value = absl::StripAsciiWhitespace(value);
    if (value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--vary '", spec, "': an empty value in the list"));
    }
    if (!seen.insert(std::string(value)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--vary '", spec, "': value '", value, "' is listed twice"));
    }
    axis.values.emplace_back(value);
  }
  return axis;
}

std::vector<SweepPoint> ExpandGrid(const std::vector<std::string>& traces,
                                   const std::vector<SweepAxis>& axes) {
  std::vector<SweepPoint> points;
  for (const std::string& trace : traces) {
    std::vector<size_t> digit(axes.size(), 0);  // an odometer over the axes
    while (true) {
      SweepPoint p;
      p.index = static_cast<int>(points.size());
      p.trace = trace;
      for (size_t a = 0; a < axes.size(); ++a) p.values.push_back(axes[a].values[digit[a]]);
      points.push_back(std::move(p));
      size_t a = axes.size();
      while (a > 0 && ++digit[a - 1] == axes[a - 1].values.size()) digit[--a] = 0;
      if (a == 0) break;
    }
  }
  return points;
}

absl::StatusOr<Shard> ParseShard(const std::string& spec) {
  std::vector<std::string> parts = absl::StrSplit(spec, '/');
  Shard shard;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &shard.index) ||
      !absl::SimpleAtoi(parts[1], &shard.count) || shard.count < 1 || shard.index < 0 ||
      shard.index >= shard.count) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard '", spec, "': expected I/N with 0 <= I < N (e.g. --shard 0/4)"));
  }
  return shard;
}

}  // namespace pto
