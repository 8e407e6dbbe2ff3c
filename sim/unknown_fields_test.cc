#include "sim/unknown_fields.h"

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

}  // namespace
}  // namespace pto
