#include "common/close.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto {

bool IsClose(double actual, double expected, const CloseTolerance& tolerance) {
  if (std::isnan(actual) || std::isnan(expected)) {
    return tolerance.equal_nan && std::isnan(actual) && std::isnan(expected);
  }
  if (actual == expected) return true;  // equal infinities too
  // torch requires a finite difference: inf - finite never matches, whatever
  // atol + rtol * |expected| comes to.
  const double difference = std::fabs(actual - expected);
  return std::isfinite(difference) &&
         difference <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

bool CloseStats::Add(double actual, double expected, const CloseTolerance& tolerance) {
  const int64_t index = elements++;
  const bool close = IsClose(actual, expected, tolerance);
  // A match differs by a finite amount, or by nothing (NaN == NaN, inf == inf).
  const double difference =
      close && !std::isfinite(actual - expected) ? 0.0 : std::fabs(actual - expected);
  if (std::isnan(difference)) {
    max_abs_error = std::numeric_limits<double>::quiet_NaN();
  } else if (!std::isnan(max_abs_error) && difference > max_abs_error) {
    max_abs_error = difference;
  }
  if (close) return true;
  if (mismatches++ == 0) {
    first_mismatch = index;
    first_actual = actual;
    first_expected = expected;
  }
  if (std::isnan(difference)) {
    if (nan_mismatches++ == 0) first_nan = index;
  } else if (std::isinf(difference)) {
    if (inf_mismatches++ == 0) first_inf = index;
  }
  return false;
}

std::vector<int64_t> UnflattenIndex(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] <= 0) continue;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

std::string DescribeMismatches(const CloseStats& stats, const std::vector<int64_t>& shape,
                               const std::string& of) {
  auto at = [&](int64_t flat) {
    return absl::StrCat("[", absl::StrJoin(UnflattenIndex(flat, shape), ", "), "]");
  };
  std::string text = absl::StrCat(stats.mismatches, " element(s)", of, " outside tolerance");
  if (stats.nan_mismatches > 0) {
    absl::StrAppend(&text, ", ", stats.nan_mismatches, " of them NaN, first NaN at ",
                    at(stats.first_nan));
  }
  if (stats.inf_mismatches > 0) {
    absl::StrAppend(&text, ", ", stats.inf_mismatches, " of them infinite, first infinite at ",
                    at(stats.first_inf));
  }
  absl::StrAppend(&text, "; first at ", at(stats.first_mismatch), ": got ", stats.first_actual,
                  ", expected ", stats.first_expected, "; max abs error ", stats.max_abs_error);
  return text;
}

}  // namespace pto
