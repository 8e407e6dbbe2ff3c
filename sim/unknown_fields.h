#ifndef PTO_SIM_UNKNOWN_FIELDS_H_
#define PTO_SIM_UNKNOWN_FIELDS_H_

#include <string>

#include "google/protobuf/message.h"

namespace pto {

// True when `message` or a message inside it holds a field the schema does
// not know; `path` then names the first one in field order, e.g.
// "args[1].tensor.<field number 99>". Such fields come from a newer writer,
// and dropping them silently would change behaviour, so readers refuse them.
// Runs on every trace record: the message-typed fields of each type are
// listed once, a oneof is asked once for its set member, and nothing is
// allocated unless a field is found.
bool FindUnknownField(const google::protobuf::Message& message, std::string* path);

}  // namespace pto

#endif  // PTO_SIM_UNKNOWN_FIELDS_H_
