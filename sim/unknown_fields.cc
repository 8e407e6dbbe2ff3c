#include "sim/unknown_fields.h"

#include <memory>
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

// What the walk needs of one message type: its reflection, its
// message-typed fields in field order (each with its type's plan) and the
// oneofs that have one among their members. Built once per type; the walk
// then makes no descriptor or reflection lookups of its own.
struct Plan {
  struct Field {
    const FieldDescriptor* descriptor;
    const OneofDescriptor* oneof;  // its real oneof, or null
    struct Plan* type = nullptr;   // resolved on first use
  };
  const Descriptor* descriptor = nullptr;
  const Reflection* reflection = nullptr;
  std::vector<Field> fields;
  std::vector<const OneofDescriptor*> oneofs;
  bool few_oneofs = true;
};

// Per thread, so concurrent readers need no lock; a handful of types.
class Plans {
 public:
  Plan* For(const Descriptor* descriptor, const Reflection* reflection) {
    std::unique_ptr<Plan>& plan = plans_[descriptor];
    if (plan == nullptr) {
      plan = std::make_unique<Plan>();
      plan->descriptor = descriptor;
      plan->reflection = reflection;
      for (int f = 0; f < descriptor->field_count(); ++f) {
        const FieldDescriptor* field = descriptor->field(f);
        if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
        const OneofDescriptor* oneof = field->real_containing_oneof();
        plan->fields.push_back(Plan::Field{field, oneof});
        if (oneof != nullptr && (plan->oneofs.empty() || plan->oneofs.back() != oneof)) {
          plan->oneofs.push_back(oneof);
        }
      }
      plan->few_oneofs = descriptor->oneof_decl_count() <= kMaxOneofs;
    }
    return plan.get();
  }
  static constexpr int kMaxOneofs = 8;

 private:
  absl::flat_hash_map<const Descriptor*, std::unique_ptr<Plan>> plans_;
};

bool Find(Plans& plans, const Message& message, Plan& plan, std::string* path) {
  const Reflection* reflection = plan.reflection;
  const auto& unknown = reflection->GetUnknownFields(message);
  if (!unknown.empty()) {
    *path = absl::StrCat("<field number ", unknown.field(0).number(), ">");
    return true;
  }
  if (plan.fields.empty()) return false;
  // The set member of each oneof, asked once rather than once per member.
  const FieldDescriptor* set_members[Plans::kMaxOneofs] = {};
  if (plan.few_oneofs) {
    for (const OneofDescriptor* oneof : plan.oneofs) {
      set_members[oneof->index()] = reflection->GetOneofFieldDescriptor(message, oneof);
    }
  }
  const auto type_of = [&](Plan::Field& field, const Message& nested) -> Plan& {
    if (field.type == nullptr) {
      field.type = plans.For(field.descriptor->message_type(), nested.GetReflection());
    }
    return *field.type;
  };
  for (Plan::Field& field : plan.fields) {
    const FieldDescriptor* descriptor = field.descriptor;
    if (descriptor->is_repeated()) {
      const int n = reflection->FieldSize(message, descriptor);
      for (int i = 0; i < n; ++i) {
        const Message& nested = reflection->GetRepeatedMessage(message, descriptor, i);
        if (Find(plans, nested, type_of(field, nested), path)) {
          *path = absl::StrCat(descriptor->name(), "[", i, "].", *path);
          return true;
        }
      }
      continue;
    }
    const bool set = field.oneof != nullptr && plan.few_oneofs
                         ? set_members[field.oneof->index()] == descriptor
                         : reflection->HasField(message, descriptor);
    if (!set) continue;
    const Message& nested = reflection->GetMessage(message, descriptor);
    if (Find(plans, nested, type_of(field, nested), path)) {
      *path = absl::StrCat(descriptor->name(), ".", *path);
      return true;
    }
  }
  return false;
}

}  // namespace

bool SubmitRecordIsKnown(const trace::StreamRecord& record) {
  // Generated messages keep their unknown fields out of reach of their own
  // API; each type's reflection reads them without a lookup.
  static const Reflection* const kRecord = trace::StreamRecord::GetReflection();
  static const Reflection* const kSubmit = trace::Submit::GetReflection();
  static const Reflection* const kArg = trace::Arg::GetReflection();
  static const Reflection* const kTensor = trace::TensorArg::GetReflection();
  static const Reflection* const kScalar = trace::ScalarArg::GetReflection();
  static const Reflection* const kPredicate = trace::Predicate::GetReflection();
  const auto known = [](const Reflection* type, const Message& message) {
    return type->GetUnknownFields(message).empty();
  };
  if (!record.has_submit() || !known(kRecord, record)) return false;
  const trace::Submit& submit = record.submit();
  if (!known(kSubmit, submit)) return false;
  for (const trace::Arg& arg : submit.args()) {
    if (!known(kArg, arg)) return false;
    if (arg.has_tensor() && !known(kTensor, arg.tensor())) return false;
    if (arg.has_scalar() && !known(kScalar, arg.scalar())) return false;
  }
  return !submit.has_predicate() || known(kPredicate, submit.predicate());
}

namespace {

// One generated type's unknown fields, read through its reflection (looked
// up once per type).
template <typename M>
bool Known(const M& message) {
  static const Reflection* const kReflection = M::GetReflection();
  return kReflection->GetUnknownFields(message).empty();
}

bool Known(const trace::IntExpr& expr) {
  if (!Known<trace::IntExpr>(expr)) return false;
  if (!expr.has_binary()) return true;
  const trace::IntExpr::Binary& binary = expr.binary();
  return Known<trace::IntExpr::Binary>(binary) && (!binary.has_lhs() || Known(binary.lhs())) &&
         (!binary.has_rhs() || Known(binary.rhs()));
}

bool Known(const trace::Op& op) {
  if (!Known<trace::Op>(op)) return false;
  if (op.has_scalar() && !Known<trace::ScalarOperand>(op.scalar())) return false;
  for (const trace::IntExpr& offset : op.offsets()) {
    if (!Known(offset)) return false;
  }
  if (op.has_init_cond() && !Known(op.init_cond())) return false;
  for (const trace::IntExpr& extent : op.valid_shape()) {
    if (!Known(extent)) return false;
  }
  if (op.has_diagonal() && !Known(op.diagonal())) return false;
  if (op.has_branch()) {
    const trace::Op::Branch& branch = op.branch();
    if (!Known<trace::Op::Branch>(branch) || (branch.has_cond() && !Known(branch.cond()))) {
      return false;
    }
    for (const auto* arm : {&branch.then_body(), &branch.else_body()}) {
      for (const trace::Op& inner : *arm) {
        if (!Known(inner)) return false;
      }
    }
    for (const trace::Op::Branch::Phi& phi : branch.phis()) {
      if (!Known<trace::Op::Branch::Phi>(phi)) return false;
    }
    for (const trace::Op::Branch::ScalarPhi& phi : branch.scalar_phis()) {
      if (!Known<trace::Op::Branch::ScalarPhi>(phi) || !Known(phi.then_expr()) ||
          !Known(phi.else_expr())) {
        return false;
      }
    }
  }
  if (op.has_sync()) {
    const trace::Op::Sync& sync = op.sync();
    if (!Known<trace::Op::Sync>(sync) || (sync.has_used_cores() && !Known(sync.used_cores()))) {
      return false;
    }
  }
  if (!op.has_loop()) return true;
  const trace::Op::Loop& loop = op.loop();
  if (!Known<trace::Op::Loop>(loop)) return false;
  for (const trace::IntExpr* bound : {&loop.start(), &loop.stop(), &loop.step()}) {
    if (!Known(*bound)) return false;  // an unset bound is the default instance
  }
  for (const trace::Op& body : loop.body()) {
    if (!Known(body)) return false;
  }
  for (const trace::Op::Loop::Carry& carry : loop.carries()) {
    if (!Known<trace::Op::Loop::Carry>(carry)) return false;
  }
  return true;
}

bool Known(const trace::Kernel& kernel) {
  if (!Known<trace::Kernel>(kernel)) return false;
  if (kernel.has_cost()) return Known<trace::CostSummary>(kernel.cost());
  if (!kernel.has_program()) return true;
  const trace::KernelProgram& program = kernel.program();
  if (!Known<trace::KernelProgram>(program)) return false;
  for (const trace::KernelParam& param : program.params()) {
    if (!Known<trace::KernelParam>(param)) return false;
  }
  for (const trace::TileDecl& tile : program.tiles()) {
    if (!Known<trace::TileDecl>(tile) || (tile.has_slot() && !Known(tile.slot()))) return false;
  }
  for (const trace::Op& op : program.ops()) {
    if (!Known(op)) return false;
  }
  return true;
}

bool Known(const trace::Tensor& tensor) {
  if (!Known<trace::Tensor>(tensor)) return false;
  if (!tensor.has_init()) return true;
  const trace::TensorInit& init = tensor.init();
  return Known<trace::TensorInit>(init) &&
         (!init.has_fill() || Known<trace::TensorInit::Fill>(init.fill())) &&
         (!init.has_generator() || Known<trace::TensorInit::Generator>(init.generator()));
}

}  // namespace

bool HeaderIsKnown(const trace::StreamHeader& header) {
  if (!Known<trace::StreamHeader>(header)) return false;
  if (header.has_ring_sizes() && !Known<trace::RingSizes>(header.ring_sizes())) return false;
  for (const trace::Tensor& tensor : header.tensors()) {
    if (!Known(tensor)) return false;
  }
  for (const trace::Kernel& kernel : header.kernels()) {
    if (!Known(kernel)) return false;
  }
  return true;
}

bool FindUnknownField(const Message& message, std::string* path) {
  thread_local Plans plans;
  thread_local const Descriptor* last_descriptor = nullptr;
  thread_local Plan* last_plan = nullptr;
  const Descriptor* descriptor = message.GetDescriptor();
  if (descriptor != last_descriptor) {
    last_plan = plans.For(descriptor, message.GetReflection());
    last_descriptor = descriptor;
  }
  return Find(plans, message, *last_plan, path);
}

}  // namespace pto
