#include "sim/unknown_fields.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/task_stream.pb.h"

namespace pto {
namespace {

void AddUnknown(google::protobuf::Message* message, int number) {
  message->GetReflection()->MutableUnknownFields(message)->AddVarint(number, 1);
}

trace::StreamRecord SubmitWithTwoArgs() {
  trace::StreamRecord record;
  trace::Submit* submit = record.mutable_submit();
  submit->set_name("t");
  submit->add_args()->mutable_tensor()->set_tensor_id(0);
  submit->add_args()->mutable_tensor()->set_tensor_id(1);
  submit->mutable_predicate()->set_tensor_id(2);
  return record;
}

TEST(FindUnknownFieldTest, AKnownMessageHasNone) {
  std::string path;
  EXPECT_FALSE(FindUnknownField(SubmitWithTwoArgs(), &path));
  EXPECT_EQ(path, "");
}

TEST(FindUnknownFieldTest, NamesTheFieldAtTheTop) {
  trace::StreamRecord record = SubmitWithTwoArgs();
  AddUnknown(&record, 77);
  std::string path;
  ASSERT_TRUE(FindUnknownField(record, &path));
  EXPECT_EQ(path, "<field number 77>");
}

TEST(FindUnknownFieldTest, NamesThePathThroughTheSetOneofMemberAndARepeatedField) {
  trace::StreamRecord record = SubmitWithTwoArgs();
  AddUnknown(record.mutable_submit()->mutable_args(1)->mutable_tensor(), 99);
  std::string path;
  ASSERT_TRUE(FindUnknownField(record, &path));
  EXPECT_EQ(path, "submit.args[1].tensor.<field number 99>");
}

TEST(FindUnknownFieldTest, TheFirstInFieldOrderIsNamed) {
  trace::StreamRecord record = SubmitWithTwoArgs();
  AddUnknown(record.mutable_submit()->mutable_predicate(), 5);                // field 8
  AddUnknown(record.mutable_submit()->mutable_args(0)->mutable_tensor(), 6);  // field 6
  std::string path;
  ASSERT_TRUE(FindUnknownField(record, &path));
  EXPECT_EQ(path, "submit.args[0].tensor.<field number 6>");
}

TEST(FindUnknownFieldTest, AnswersEveryTypeItMeets) {
  // The per-type plans are built as types are met: a header after records.
  trace::StreamHeader header;
  header.add_tensors()->set_name("a");
  header.add_tensors()->set_name("b");
  AddUnknown(header.mutable_tensors(1), 42);
  std::string path;
  EXPECT_FALSE(FindUnknownField(SubmitWithTwoArgs(), &path));
  ASSERT_TRUE(FindUnknownField(header, &path));
  EXPECT_EQ(path, "tensors[1].<field number 42>");
}

TEST(SubmitRecordIsKnownTest, AcceptsAKnownSubmitOnly) {
  EXPECT_TRUE(SubmitRecordIsKnown(SubmitWithTwoArgs()));
  trace::StreamRecord scope;
  scope.mutable_scope_begin()->set_depth(1);
  EXPECT_FALSE(SubmitRecordIsKnown(scope));  // not a submit: the walk decides
}

TEST(SubmitRecordIsKnownTest, SeesAnUnknownFieldInEveryMessageOfASubmit) {
  using Mutate = google::protobuf::Message* (*)(trace::StreamRecord*);
  const Mutate messages[] = {
      [](trace::StreamRecord* r) -> google::protobuf::Message* { return r; },
      [](trace::StreamRecord* r) -> google::protobuf::Message* { return r->mutable_submit(); },
      [](trace::StreamRecord* r) -> google::protobuf::Message* {
        return r->mutable_submit()->mutable_args(1);
      },
      [](trace::StreamRecord* r) -> google::protobuf::Message* {
        return r->mutable_submit()->mutable_args(1)->mutable_tensor();
      },
      [](trace::StreamRecord* r) -> google::protobuf::Message* {
        return r->mutable_submit()->add_args()->mutable_scalar();
      },
      [](trace::StreamRecord* r) -> google::protobuf::Message* {
        return r->mutable_submit()->mutable_predicate();
      },
  };
  for (const Mutate& message : messages) {
    trace::StreamRecord record = SubmitWithTwoArgs();
    AddUnknown(message(&record), 99);
    EXPECT_FALSE(SubmitRecordIsKnown(record)) << record.DebugString();
    std::string path;
    EXPECT_TRUE(FindUnknownField(record, &path));
  }
}

// The fast path asks the messages it knows a submit holds; a message-typed
// field added to the schema must be added there too.
void CollectMessageTypes(const google::protobuf::Descriptor* type, std::set<std::string>* names) {
  if (!names->insert(type->full_name()).second) return;
  for (int f = 0; f < type->field_count(); ++f) {
    const google::protobuf::FieldDescriptor* field = type->field(f);
    if (field->message_type() != nullptr) CollectMessageTypes(field->message_type(), names);
  }
}

TEST(SubmitRecordIsKnownTest, CoversEveryMessageTypeASubmitCanHold) {
  std::set<std::string> names;
  CollectMessageTypes(trace::Submit::descriptor(), &names);
  EXPECT_EQ(names,
            (std::set<std::string>{"pto.trace.Submit", "pto.trace.Arg", "pto.trace.TensorArg",
                                   "pto.trace.ScalarArg", "pto.trace.Predicate"}));
}

// A header with at least one message of every type a header can hold, set
// where the fast path must look: a loop's bounds and body, a nested
// expression's operands, a tile's runtime slot, each tensor contents form.
trace::StreamHeader HeaderWithEveryMessageType() {
  trace::StreamHeader header;
  header.mutable_ring_sizes()->add_task_window(16);
  header.add_tensors()->mutable_init()->mutable_fill()->set_value(1);
  header.add_tensors()->mutable_init()->mutable_generator()->set_seed(7);
  header.add_kernels()->mutable_cost()->set_cube_flops(1);
  trace::KernelProgram* program = header.add_kernels()->mutable_program();
  program->add_params()->set_name("x");
  trace::TileDecl* tile = program->add_tiles();
  tile->set_slots(2);
  tile->mutable_slot()->set_loop_var(0);
  trace::Op* loop_op = program->add_ops();
  loop_op->set_kind(trace::Op::LOOP);
  trace::Op::Loop* loop = loop_op->mutable_loop();
  loop->mutable_start()->set_constant(0);
  loop->mutable_stop()->set_constant(4);
  loop->mutable_step()->set_constant(1);
  loop->add_carries()->set_tile(0);
  trace::Op* body = loop->add_body();
  body->mutable_scalar()->set_literal(2);
  trace::IntExpr::Binary* binary = body->add_offsets()->mutable_binary();
  binary->mutable_lhs()->set_loop_var(0);
  binary->mutable_rhs()->set_constant(64);
  body->mutable_init_cond()->set_constant(1);
  trace::Op* sync = program->add_ops();
  sync->mutable_sync()->mutable_used_cores()->set_constant(2);
  // A branch with a phi, a scalar phi and an op in each arm (one with a
  // valid shape).
  trace::Op::Branch* branch = program->add_ops()->mutable_branch();
  branch->mutable_cond()->set_scalar_reg(0);
  branch->add_then_body()->add_valid_shape()->set_constant(3);
  branch->add_else_body()->set_kind(trace::Op::READ);
  branch->add_phis()->set_tile(0);
  trace::Op::Branch::ScalarPhi* phi = branch->add_scalar_phis();
  phi->mutable_then_expr()->set_constant(1);
  phi->mutable_else_expr()->set_constant(2);
  return header;
}

// Every message inside `message`, itself first, in field order.
void ListMessages(google::protobuf::Message* message,
                  std::vector<google::protobuf::Message*>* messages) {
  messages->push_back(message);
  const google::protobuf::Reflection* reflection = message->GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->message_type() == nullptr) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
        ListMessages(reflection->MutableRepeatedMessage(message, field, i), messages);
      }
    } else {
      ListMessages(reflection->MutableMessage(message, field), messages);
    }
  }
}

TEST(HeaderIsKnownTest, AcceptsAKnownHeader) {
  EXPECT_TRUE(HeaderIsKnown(HeaderWithEveryMessageType()));
  EXPECT_TRUE(HeaderIsKnown(trace::StreamHeader()));
}

TEST(HeaderIsKnownTest, SeesAnUnknownFieldInEveryMessageOfAHeader) {
  trace::StreamHeader reference = HeaderWithEveryMessageType();
  std::vector<google::protobuf::Message*> messages;
  ListMessages(&reference, &messages);
  for (size_t i = 0; i < messages.size(); ++i) {
    trace::StreamHeader header = reference;
    std::vector<google::protobuf::Message*> copies;
    ListMessages(&header, &copies);
    ASSERT_EQ(copies.size(), messages.size());
    AddUnknown(copies[i], 99);
    EXPECT_FALSE(HeaderIsKnown(header)) << "in a " << copies[i]->GetTypeName();
    std::string path;
    EXPECT_TRUE(FindUnknownField(header, &path));
  }
}

// The fast path asks the messages it knows a header holds; the header above
// must hold every type the schema allows, so that a message-typed field
// added to the schema fails here until both learn it.
TEST(HeaderIsKnownTest, TheTestHeaderHoldsEveryMessageTypeAHeaderCan) {
  std::set<std::string> schema;
  CollectMessageTypes(trace::StreamHeader::descriptor(), &schema);
  trace::StreamHeader header = HeaderWithEveryMessageType();
  std::vector<google::protobuf::Message*> messages;
  ListMessages(&header, &messages);
  std::set<std::string> held;
  for (const google::protobuf::Message* message : messages) held.insert(message->GetTypeName());
  EXPECT_EQ(held, schema);
}

}  // namespace
}  // namespace pto
