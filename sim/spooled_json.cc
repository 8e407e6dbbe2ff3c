#include "sim/spooled_json.h"

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace pto {

SpooledArray::~SpooledArray() {
  if (out_.is_open()) out_.close();
  std::remove(path_.c_str());
}

absl::Status SpooledArray::Open() {
  out_.open(path_, std::ios::trunc | std::ios::binary);
  if (!out_) return absl::UnavailableError(absl::StrCat(path_, ": cannot open for writing"));
  return absl::OkStatus();
}

void SpooledArray::Append(absl::string_view element) {
  // One element per line; SpliceInto puts the separators in.
  out_.write(element.data(), static_cast<std::streamsize>(element.size()));
  out_.put('\n');
  ++size_;
}

absl::Status SpooledArray::SpliceInto(std::ostream& out, absl::string_view indent,
                                      absl::string_view separator) {
  out_.close();
  if (out_.fail()) return absl::DataLossError(absl::StrCat(path_, ": write failed"));
  out << '[';
  if (size_ > 0) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return absl::DataLossError(absl::StrCat(path_, ": cannot reopen"));
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
      if (!first) out << separator;
      if (first && separator.find('\n') != absl::string_view::npos) out << '\n';
      out << indent << line;
      first = false;
    }
    if (separator.find('\n') != absl::string_view::npos) out << '\n';
  }
  out << ']';
  std::remove(path_.c_str());
  size_ = 0;
  return absl::OkStatus();
}

}  // namespace pto
