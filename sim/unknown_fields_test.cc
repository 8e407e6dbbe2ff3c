#include "sim/unknown_fields.h"

#include <set>
#include <string>

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

}  // namespace
}  // namespace pto
