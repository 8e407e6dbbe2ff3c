#ifndef PTO_MODELS_GM_GLOBAL_MEMORY_H_
#define PTO_MODELS_GM_GLOBAL_MEMORY_H_

#include "models/base/chip_config.h"
#include "models/gm/gm_timing.h"
#include "models/gm/memory_image.h"
#include "systemc"
#include "tlm"
#include "tlm_utils/multi_passthrough_target_socket.h"

namespace pto {

// Marks a write transaction as an atomic add of elements of `dtype`.
struct AtomicAddExtension : tlm::tlm_extension<AtomicAddExtension> {
  DType dtype = trace::DTYPE_UNSPECIFIED;
  tlm_extension_base* clone() const override { return new AtomicAddExtension(*this); }
  void copy_from(const tlm_extension_base& other) override {
    dtype = static_cast<const AtomicAddExtension&>(other).dtype;
  }
};

// Global memory as a TLM-2.0 target (loosely timed, blocking transport). It
// owns the memory image's access path, the shared L2 and the HBM bandwidth
// (GmTiming); every core's initiator socket binds here. The incoming delay is
// the initiator's local time offset; the outgoing one is when the transfer is
// done (read: last byte delivered; write: accepted by L2), so contention
// between cores and L2 hits show in the cores' kernel times. A core whose
// tile transfers the chip's MemoryService times moves their bytes through
// transport_dbg instead.
class GlobalMemory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<GlobalMemory> socket;

  GlobalMemory(sc_core::sc_module_name name, MemoryImage* image, const GmParams& params);

  GmTiming& timing() { return timing_; }

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // The data of a transfer timed elsewhere (MemoryService): moved, no time,
  // no L2 or HBM state touched — TLM-2.0's debug transport.
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& payload);
  // Reads, writes or atomically adds the payload's bytes in the image.
  absl::Status MoveData(tlm::tlm_generic_payload& payload);

  MemoryImage* image_;
  GmTiming timing_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_GLOBAL_MEMORY_H_
