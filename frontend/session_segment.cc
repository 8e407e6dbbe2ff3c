#include "frontend/session_segment.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {
namespace {

constexpr uint64_t kGmAlignment = 1024;  // as ProgramBuilder places tensors

uint64_t AlignUp(uint64_t value) {
  return (value + kGmAlignment - 1) / kGmAlignment * kGmAlignment;
}

// Every tensor id a record names, through `map`.
void MapTensorIds(trace::StreamRecord* record, const std::vector<uint32_t>& map) {
  auto args = [&map](google::protobuf::RepeatedPtrField<trace::Arg>* list) {
    for (trace::Arg& arg : *list) {
      if (arg.has_tensor()) arg.mutable_tensor()->set_tensor_id(map[arg.tensor().tensor_id()]);
    }
  };
  switch (record->kind_case()) {
    case trace::StreamRecord::kLaunchBegin:
      for (uint32_t& id : *record->mutable_launch_begin()->mutable_arg_tensor_ids()) id = map[id];
      break;
    case trace::StreamRecord::kSubmit: {
      trace::Submit* submit = record->mutable_submit();
      args(submit->mutable_args());
      if (submit->has_predicate()) {
        submit->mutable_predicate()->set_tensor_id(map[submit->predicate().tensor_id()]);
      }
      break;
    }
    case trace::StreamRecord::kDummy:
      args(record->mutable_dummy()->mutable_args());
      break;
    case trace::StreamRecord::kAlloc:
      for (uint32_t& id : *record->mutable_alloc()->mutable_tensor_ids()) id = map[id];
      break;
    case trace::StreamRecord::kHostRead:
      record->mutable_host_read()->set_tensor_id(map[record->host_read().tensor_id()]);
      break;
    case trace::StreamRecord::kCheck:
      record->mutable_check()->set_tensor_id(map[record->check().tensor_id()]);
      break;
    default:
      break;
  }
}

}  // namespace

absl::Status ToSessionSegment(const std::vector<KnownTensor>& known, SessionState* state,
                              trace::TraceText* text, std::vector<PlacedTensor>* placed) {
  trace::StreamHeader* header = text->mutable_header();
  const int count = header->tensors_size();
  std::vector<const KnownTensor*> known_of(static_cast<size_t>(count), nullptr);
  for (const KnownTensor& k : known) {
    if (k.local_id >= static_cast<uint32_t>(count)) {
      return absl::InternalError(absl::StrCat("session: known tensor ", k.id, " has local id ",
                                              k.local_id, " of ", count));
    }
    known_of[k.local_id] = &k;
  }

  // Tensors: the known keep their place (re-declared when uploaded), the
  // rest take the next ids and addresses above the script's so far.
  trace::Declare declare;
  std::vector<uint32_t> id_map(static_cast<size_t>(count));
  uint64_t local_end = 0;
  for (const trace::Tensor& t : header->tensors()) {
    local_end = std::max(local_end, t.gm_addr() + t.size_bytes());
  }
  placed->assign(static_cast<size_t>(count), PlacedTensor{});
  for (int i = 0; i < count; ++i) {
    trace::Tensor tensor = std::move(*header->mutable_tensors(i));
    if (const KnownTensor* k = known_of[static_cast<size_t>(i)]) {
      id_map[static_cast<size_t>(i)] = k->id;
      (*placed)[static_cast<size_t>(i)] = {k->id, k->gm_addr};
      if (!k->upload) continue;
      tensor.set_id(k->id);
      tensor.set_gm_addr(k->gm_addr);
      *declare.add_tensors() = std::move(tensor);
      continue;
    }
    const uint32_t id = state->next_tensor_id++;
    id_map[static_cast<size_t>(i)] = id;
    tensor.set_id(id);
    tensor.set_gm_addr(state->next_gm_addr + tensor.gm_addr());
    (*placed)[static_cast<size_t>(i)] = {id, tensor.gm_addr()};
    *declare.add_tensors() = std::move(tensor);
  }
  state->next_gm_addr = AlignUp(state->next_gm_addr + local_end);

  // Kernels: ids after the script's so far.
  const uint32_t kernel_base = state->next_kernel_id;
  for (trace::Kernel& kernel : *header->mutable_kernels()) {
    kernel.set_id(kernel_base + kernel.id());
    *declare.add_kernels() = std::move(kernel);
  }
  state->next_kernel_id += static_cast<uint32_t>(header->kernels_size());
  header->clear_tensors();
  header->clear_kernels();

  // Records: ids through the maps; each launch carries the call's ring sizes.
  const trace::RingSizes rings = header->ring_sizes();
  header->clear_ring_sizes();
  google::protobuf::RepeatedPtrField<trace::StreamRecord> records;
  records.Swap(text->mutable_records());
  if (state->first) {
    // The header declares the first segment's tensors and kernels (ids from
    // 0, addresses from 0: as they were), so a one-call run reads like any
    // single-launch stream.
    *header->mutable_tensors() = std::move(*declare.mutable_tensors());
    *header->mutable_kernels() = std::move(*declare.mutable_kernels());
  } else {
    *text->add_records()->mutable_declare() = std::move(declare);
  }
  for (trace::StreamRecord& record : records) {
    MapTensorIds(&record, id_map);
    if (record.has_submit()) {
      for (int s = 0; s < record.submit().kernel_ids_size(); ++s) {
        const int32_t id = record.submit().kernel_ids(s);
        if (id >= 0) {
          record.mutable_submit()->set_kernel_ids(s, static_cast<int32_t>(kernel_base) + id);
        }
      }
    }
    if (record.has_launch_begin() && (rings.task_window_size() > 0 || rings.heap_bytes_size() > 0 ||
                                      rings.dep_pool_size() > 0)) {
      *record.mutable_launch_begin()->mutable_ring_sizes() = rings;
    }
    *text->add_records() = std::move(record);
  }
  state->first = false;
  return absl::OkStatus();
}

}  // namespace pto::ptoc
