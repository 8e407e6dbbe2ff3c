// A Python dict display (`{"split": pl.SplitMode.UP_DOWN}`) as the DSL sees
// it: keys in insertion order, compared by value. Decorator options
// (`@pl.function(attrs={...})`) and kernel helpers take them; the host code
// that builds large dicts runs in CPython, so a linear lookup is enough.
#ifndef PTO_SIM_FRONTEND_DICT_VALUE_H_
#define PTO_SIM_FRONTEND_DICT_VALUE_H_

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "frontend/value.h"

namespace pto::ptoc {

class DictValue : public Object {
 public:
  // Whether two keys are the same key (Python ==); the interpreter's.
  using KeyEquals = std::function<bool(const Value&, const Value&)>;

  std::string TypeName() const override { return "dict"; }
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }

  std::optional<Value> Find(const Value& key, const KeyEquals& equals) const {
    for (const auto& [k, v] : entries_) {
      if (equals(k, key)) return v;
    }
    return std::nullopt;
  }
  // A repeated key keeps its first position and takes the later value.
  void Set(const Value& key, Value value, const KeyEquals& equals) {
    for (auto& [k, v] : entries_) {
      if (equals(k, key)) {
        v = std::move(value);
        return;
      }
    }
    entries_.emplace_back(key, std::move(value));
  }
  std::vector<Value> Keys() const {
    std::vector<Value> out;
    for (const auto& [k, v] : entries_) out.push_back(k);
    return out;
  }
  std::vector<Value> Values() const {
    std::vector<Value> out;
    for (const auto& [k, v] : entries_) out.push_back(v);
    return out;
  }
  std::vector<Value> Items() const {
    std::vector<Value> out;
    for (const auto& [k, v] : entries_) out.push_back(Value::Tuple({k, v}));
    return out;
  }

 private:
  std::vector<std::pair<Value, Value>> entries_;
};

}  // namespace pto::ptoc

#endif  // PTO_SIM_FRONTEND_DICT_VALUE_H_
