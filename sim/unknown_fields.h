#ifndef PTO_SIM_UNKNOWN_FIELDS_H_
#define PTO_SIM_UNKNOWN_FIELDS_H_

#include <string>

#include "google/protobuf/message.h"
#include "proto/task_stream.pb.h"

namespace pto {

// True when `message` or a message inside it holds a field the schema does
// not know; `path` then names the first one in field order, e.g.
// "args[1].tensor.<field number 99>". Such fields come from a newer writer,
// and dropping them silently would change behaviour, so readers refuse them.
// Runs on every trace record: the message-typed fields of each type are
// listed once, a oneof is asked once for its set member, and nothing is
// allocated unless a field is found.
bool FindUnknownField(const google::protobuf::Message& message, std::string* path);

// True when `record` is a submit and none of its messages (the record, the
// submit, each arg with its tensor or scalar, the predicate) holds an
// unknown field, asked of each through the generated accessors: the
// reader's fast path for its commonest record, about a tenth of the cost of
// the reflective walk. False otherwise; FindUnknownField then decides and
// names the field. unknown_fields_test checks that these are every message
// type a submit can hold.
bool SubmitRecordIsKnown(const trace::StreamRecord& record);

// True when no message of `header` (its tensors with their contents, its
// kernels with their programs down to every op, loop and expression) holds
// an unknown field, asked of each through the generated accessors as
// SubmitRecordIsKnown does: a header of ten thousand kernels holds about a
// million messages, which the reflective walk took 0.5 G instructions to
// visit. False otherwise; FindUnknownField then names the field.
bool HeaderIsKnown(const trace::StreamHeader& header);

}  // namespace pto

#endif  // PTO_SIM_UNKNOWN_FIELDS_H_
