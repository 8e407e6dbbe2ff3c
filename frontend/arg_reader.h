#ifndef PTO_FRONTEND_ARG_READER_H_
#define PTO_FRONTEND_ARG_READER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/interpreter.h"

namespace pto::ptoc {

// Matches a builtin call's arguments to a fixed parameter list (positional
// or keyword), rejecting unknown keywords with the list of valid ones.
class ArgReader {
 public:
  ArgReader(Interpreter* interp, const CallArgs& args, std::string function,
            std::vector<std::string> params)
      : interp_(interp), args_(args), function_(std::move(function)), params_(std::move(params)) {
    values_.assign(params_.size(), nullptr);
    locs_.assign(params_.size(), args.loc);
  }

  absl::Status Check() {
    if (args_.positional.size() > params_.size()) {
      return interp_->Error(args_.loc, absl::StrCat(function_, "() takes at most ", params_.size(),
                                                    " arguments, got ", args_.positional.size()));
    }
    for (size_t i = 0; i < args_.positional.size(); ++i) {
      values_[i] = &args_.positional[i];
      locs_[i] = args_.ArgLoc(i);
    }
    for (size_t k = 0; k < args_.keywords.size(); ++k) {
      const std::string& name = args_.keywords[k].first;
      size_t i = 0;
      while (i < params_.size() && params_[i] != name) ++i;
      if (i == params_.size()) {
        return interp_->Error(args_.keyword_locs[k],
                              absl::StrCat("Unknown keyword argument '", name, "' in ", function_,
                                           "(); valid: ", absl::StrJoin(params_, ", ")));
      }
      if (values_[i]) {
        return interp_->Error(args_.keyword_locs[k],
                              absl::StrCat(function_, "() got multiple values for '", name, "'"));
      }
      values_[i] = &args_.keywords[k].second;
      locs_[i] = args_.keyword_locs[k];
    }
    return absl::OkStatus();
  }

  // The first `count` parameters must be given: the first one missing, named.
  absl::Status Require(size_t count) const {
    for (size_t i = 0; i < count && i < params_.size(); ++i) {
      if (!Has(i)) return Missing(i);
    }
    return absl::OkStatus();
  }

  const Value* Get(size_t i) const { return values_[i]; }
  bool Has(size_t i) const { return values_[i] != nullptr && !values_[i]->is_none(); }
  SourceLocation Loc(size_t i) const { return locs_[i]; }
  absl::Status Missing(size_t i) const {
    return interp_->Error(args_.loc,
                          absl::StrCat(function_, "() requires argument '", params_[i], "'"));
  }
  absl::Status Wrong(size_t i, absl::string_view expected) const {
    return interp_->Error(
        locs_[i], absl::StrCat(function_, "() argument '", params_[i], "' must be ", expected,
                               ", got ", values_[i] ? values_[i]->TypeName() : "nothing"));
  }

 private:
  Interpreter* interp_;
  const CallArgs& args_;
  std::string function_;
  std::vector<std::string> params_;
  std::vector<const Value*> values_;
  std::vector<SourceLocation> locs_;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_ARG_READER_H_
