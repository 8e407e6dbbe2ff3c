#ifndef PTO_COMMON_UTF8_H_
#define PTO_COMMON_UTF8_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace pto {

// The byte offset of the first byte of `text` that is not well-formed UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or
// text.size() when all of it is.
size_t FirstInvalidUtf8(absl::string_view text);

}  // namespace pto

#endif  // PTO_COMMON_UTF8_H_
