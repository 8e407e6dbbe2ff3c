#ifndef PTO_FRONTEND_PARSER_H_
#define PTO_FRONTEND_PARSER_H_

#include "absl/status/statusor.h"
#include "frontend/ast.h"
#include "frontend/source.h"

namespace pto::ptoc {

// Parses a whole file into a Module. Constructs outside the documented subset
// (while, class, try, lambda, yield, global, star-args, ...) are errors that
// name the construct and point at it.
absl::StatusOr<Module> Parse(const SourceFile& source);

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_PARSER_H_
