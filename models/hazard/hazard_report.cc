#include "models/hazard/hazard_report.h"

#include "absl/strings/str_cat.h"

namespace pto {

const char* HazardKindName(HazardKind kind) {
  switch (kind) {
    case HazardKind::kRaw:
      return "RAW";
    case HazardKind::kWaw:
      return "WAW";
    case HazardKind::kWar:
      return "WAR";
    case HazardKind::kPredicate:
      return "predicate read";
    case HazardKind::kStaleRead:
      return "stale host read";
    case HazardKind::kUnpublished:
      return "unpublished hand-off";
    case HazardKind::kFalseSharing:
      return "false sharing";
  }
  return "?";
}

std::string FormatHazard(const HazardReport& report) {
  std::string region;
  if (report.tensor.id >= 0 && report.region_begin >= report.tensor.base) {
    region = absl::StrCat(report.tensor.name, " bytes [", report.region_begin - report.tensor.base,
                          ", ", report.region_end - report.tensor.base, ")");
  } else {
    region = absl::StrCat(report.tensor.name, " at GM [0x", absl::Hex(report.region_begin), ", 0x",
                          absl::Hex(report.region_end), ")");
  }
  std::string where;
  if (report.kind == HazardKind::kUnpublished || report.kind == HazardKind::kFalseSharing) {
    where = absl::StrCat(" in task '", report.task.name, "' (#", report.task.seq,
                         report.task.origin.empty() ? "" : ", ", report.task.origin, ")");
  }
  return absl::StrCat("hazard: ", HazardKindName(report.kind), where, " on ", region, ": ",
                      report.detail, "; fix: ", report.fix);
}

}  // namespace pto
