#ifndef PTO_SIM_CLI_CHECKS_H_
#define PTO_SIM_CLI_CHECKS_H_

#include <cmath>
#include <string>

#include "CLI/CLI.hpp"

namespace pto {

// A finite number above 0. CLI::PositiveNumber lets "nan" through (NaN > 0
// is false, but so is NaN <= 0), and a NaN limit would disable itself.
inline CLI::Validator FinitePositive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || !(value > 0)) {
          return "expected a finite number above 0, got '" + text + "'";
        }
        return std::string();
      },
      "POSITIVE");
}

}  // namespace pto

#endif  // PTO_SIM_CLI_CHECKS_H_
