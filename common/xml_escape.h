#ifndef PTO_COMMON_XML_ESCAPE_H_
#define PTO_COMMON_XML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace pto {

// `text` with &, <, > and " replaced by their XML entities, safe inside SVG
// element text and double-quoted attributes.
std::string XmlEscape(absl::string_view text);

}  // namespace pto

#endif  // PTO_COMMON_XML_ESCAPE_H_
