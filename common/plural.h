#ifndef PTO_COMMON_PLURAL_H_
#define PTO_COMMON_PLURAL_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace pto {

// "1 cluster", "24 clusters": `count` and the noun in the matching number.
inline std::string CountOf(int64_t count, const std::string& singular, const std::string& plural) {
  return absl::StrCat(count, " ", count == 1 ? singular : plural);
}
inline std::string CountOf(int64_t count, const std::string& singular) {
  return CountOf(count, singular, singular + "s");
}

}  // namespace pto

#endif  // PTO_COMMON_PLURAL_H_
