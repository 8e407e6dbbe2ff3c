#include "sim/unknown_fields.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace pto {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::OneofDescriptor;
using google::protobuf::Reflection;

// The message-typed fields of one type, in field order, and the oneofs
// that have one among their members.
struct Plan {
  std::vector<const FieldDescriptor*> fields;
  std::vector<const OneofDescriptor*> oneofs;
};

const Plan& PlanFor(const Descriptor* descriptor) {
  // Per thread, so concurrent readers need no lock; a handful of types.
  thread_local absl::flat_hash_map<const Descriptor*, Plan> plans;
  auto [it, inserted] = plans.try_emplace(descriptor);
  if (inserted) {
    for (int f = 0; f < descriptor->field_count(); ++f) {
      const FieldDescriptor* field = descriptor->field(f);
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      it->second.fields.push_back(field);
      const OneofDescriptor* oneof = field->real_containing_oneof();
      std::vector<const OneofDescriptor*>& oneofs = it->second.oneofs;
      if (oneof != nullptr && (oneofs.empty() || oneofs.back() != oneof)) oneofs.push_back(oneof);
    }
  }
  return it->second;
}

}  // namespace

bool FindUnknownField(const Message& message, std::string* path) {
  const Descriptor* descriptor = message.GetDescriptor();
  const Reflection* reflection = message.GetReflection();
  const auto& unknown = reflection->GetUnknownFields(message);
  if (!unknown.empty()) {
    *path = absl::StrCat("<field number ", unknown.field(0).number(), ">");
    return true;
  }
  const Plan& plan = PlanFor(descriptor);
  if (plan.fields.empty()) return false;
  // The set member of each oneof, asked once rather than once per member.
  constexpr int kMaxOneofs = 8;
  const FieldDescriptor* set_members[kMaxOneofs] = {};
  const bool few_oneofs = descriptor->oneof_decl_count() <= kMaxOneofs;
  if (few_oneofs) {
    for (const OneofDescriptor* oneof : plan.oneofs) {
      set_members[oneof->index()] = reflection->GetOneofFieldDescriptor(message, oneof);
    }
  }
  for (const FieldDescriptor* field : plan.fields) {
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(message, field);
      for (int i = 0; i < n; ++i) {
        if (FindUnknownField(reflection->GetRepeatedMessage(message, field, i), path)) {
          *path = absl::StrCat(field->name(), "[", i, "].", *path);
          return true;
        }
      }
      continue;
    }
    const OneofDescriptor* oneof = field->real_containing_oneof();
    const bool set = oneof != nullptr && few_oneofs ? set_members[oneof->index()] == field
                                                    : reflection->HasField(message, field);
    if (set && FindUnknownField(reflection->GetMessage(message, field), path)) {
      *path = absl::StrCat(field->name(), ".", *path);
      return true;
    }
  }
  return false;
}

}  // namespace pto
