// What a kernel source may name of `torch`: its dtypes (the prelude the pypto
// package writes binds module constants such as DT = torch.float16). Tensors
// and their ops stay in CPython; ptoc only receives a call's arguments.
#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"

namespace pto::ptoc {

std::shared_ptr<Namespace> MakeTorchModule() {
  auto torch = std::make_shared<Namespace>("torch");
  const std::vector<std::pair<const char*, trace::DType>> dtypes = {
      {"float32", trace::FP32}, {"float", trace::FP32},    {"float16", trace::FP16},
      {"half", trace::FP16},    {"bfloat16", trace::BF16}, {"int32", trace::INT32},
      {"int", trace::INT32},    {"int64", trace::INT64},   {"long", trace::INT64},
      {"int16", trace::INT16},  {"int8", trace::INT8},     {"uint8", trace::UINT8},
      {"bool", trace::BOOL}};
  for (const auto& [name, dtype] : dtypes) {
    torch->Set(name, Value::Obj(std::make_shared<DTypeValue>(dtype, absl::StrCat("torch.", name))));
  }
  torch->set_missing_hint(
      "a kernel reads torch's dtypes only; tensors are made and checked by the script in CPython");
  return torch;
}

}  // namespace pto::ptoc
