#ifndef PTO_FRONTEND_STATUS_MACROS_H_
#define PTO_FRONTEND_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Debian's Abseil ships no status macros; these are the usual two.
#define PTOC_CONCAT_INNER(a, b) a##b
#define PTOC_CONCAT(a, b) PTOC_CONCAT_INNER(a, b)

#define PTOC_ASSIGN_OR_RETURN(lhs, expr) \
  PTOC_ASSIGN_OR_RETURN_IMPL(PTOC_CONCAT(status_or_, __LINE__), lhs, expr)
#define PTOC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  auto lhs = std::move(*tmp)

#define PTOC_RETURN_IF_ERROR(expr)               \
  do {                                           \
    absl::Status ptoc_status_ = (expr);          \
    if (!ptoc_status_.ok()) return ptoc_status_; \
  } while (0)

#endif  // PTO_FRONTEND_STATUS_MACROS_H_
