#include "models/gm/global_memory.h"

namespace pto {

GlobalMemory::GlobalMemory(sc_core::sc_module_name name, MemoryImage* image)
    : sc_module(name), socket("socket"), image_(image) {
  socket.register_b_transport(this, &GlobalMemory::b_transport);
}

void GlobalMemory::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
  const uint64_t addr = payload.get_address();
  const size_t size = payload.get_data_length();
  absl::Status status;
  if (payload.is_read()) {
    status = image_->Read(addr, payload.get_data_ptr(), size);
  } else if (const auto* atomic = payload.get_extension<AtomicAddExtension>()) {
    status = image_->AtomicAdd(addr, atomic->dtype, payload.get_data_ptr(),
                               size / DTypeSize(atomic->dtype));
  } else {
    status = image_->Write(addr, payload.get_data_ptr(), size);
  }
  payload.set_response_status(status.ok() ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace pto
