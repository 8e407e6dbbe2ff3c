#include "models/gm/global_memory.h"

#include <algorithm>

#include "models/base/sc_time.h"
#include "models/gm/memory_image_backend.h"

namespace pto {

GlobalMemory::GlobalMemory(sc_core::sc_module_name name, MemoryImage* image, const GmParams& params)
    : sc_module(name), socket("socket"), image_(image), timing_(params) {
  socket.register_b_transport(this, &GlobalMemory::b_transport);
  socket.register_transport_dbg(this, &GlobalMemory::transport_dbg);
}

absl::Status GlobalMemory::MoveData(tlm::tlm_generic_payload& payload) {
  const uint64_t addr = payload.get_address();
  const size_t size = payload.get_data_length();
  absl::Status status;
  if (!image_->allocated()) {
    // Timing-only: no bytes to move, the time still counts.
  } else if (const auto* atomic = payload.get_extension<AtomicAddExtension>()) {
    status = image_->AtomicAdd(addr, atomic->dtype, payload.get_data_ptr(),
                               size / DTypeSize(atomic->dtype));
  } else if (payload.is_read()) {
    // Whole cache lines may run past a tensor's end: clipped, not refused
    // (the core's cache checked the bytes the kernel asked for).
    ReadClipped(*image_, addr, payload.get_data_ptr(), size);
  } else {
    WriteClipped(*image_, addr, payload.get_data_ptr(), size);
  }
  return status;
}

unsigned int GlobalMemory::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  const absl::Status status = MoveData(payload);
  payload.set_response_status(status.ok() ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  return status.ok() ? payload.get_data_length() : 0;
}

void GlobalMemory::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const absl::Status status = MoveData(payload);
  const uint64_t addr = payload.get_address();
  const size_t size = payload.get_data_length();
  const TimePs now = NowPs();
  const TimePs start = now + static_cast<TimePs>(delay.value());
  // A line transfer is one contiguous run: the narrow-row penalty applies to
  // strided tile rows, which the cache coalesces into whole lines.
  const GmTransfer t =
      timing_.Transfer(start, addr, size, !payload.is_read(), static_cast<int64_t>(size));
  delay = ScTime(std::max(t.done_ps, start) - now);
  payload.set_response_status(status.ok() ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace pto
