#ifndef PTO_SIM_TESTING_GENERATED_BLOCK_H_
#define PTO_SIM_TESTING_GENERATED_BLOCK_H_

// Docs that embed a generated table (docs/config.md, docs/stats.md) mark it
// with "<!-- BEGIN GENERATED: <Function>() -->" and "<!-- END GENERATED -->"
// lines. A test compares the block with the function's output and, run with
// PTO_UPDATE_GENERATED=1, rewrites it.

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace pto::testing {

inline bool UpdateGenerated() { return std::getenv("PTO_UPDATE_GENERATED") != nullptr; }

inline std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text between the markers of `function`'s block in `doc`, as an offset
// and length; nullopt when a marker is missing.
inline std::optional<std::pair<size_t, size_t>> GeneratedBlock(const std::string& doc,
                                                               const std::string& function) {
  const std::string begin = "<!-- BEGIN GENERATED: " + function + "() -->\n";
  const size_t begin_pos = doc.find(begin);
  const size_t end_pos = doc.find("<!-- END GENERATED -->\n", begin_pos);
  if (begin_pos == std::string::npos || end_pos == std::string::npos) return std::nullopt;
  const size_t table_pos = begin_pos + begin.size();
  return std::make_pair(table_pos, end_pos - table_pos);
}

// The block of `function` in the file at `path`, after rewriting it with
// `generated` when PTO_UPDATE_GENERATED is set; nullopt without markers.
inline std::optional<std::string> CurrentGeneratedBlock(const std::string& path,
                                                        const std::string& function,
                                                        const std::string& generated) {
  std::string doc = ReadTextFile(path);
  std::optional<std::pair<size_t, size_t>> block = GeneratedBlock(doc, function);
  if (!block.has_value()) return std::nullopt;
  if (UpdateGenerated()) {
    doc.replace(block->first, block->second, generated);
    std::ofstream(path, std::ios::binary) << doc;
    return generated;
  }
  return doc.substr(block->first, block->second);
}

}  // namespace pto::testing

#endif  // PTO_SIM_TESTING_GENERATED_BLOCK_H_
