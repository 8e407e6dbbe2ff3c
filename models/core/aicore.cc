#include "models/core/aicore.h"

#include "models/base/sc_time.h"
#include "models/gm/global_memory.h"

namespace pto {

AiCore::AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster,
               const AiCoreEnv& env)
    : sc_module(name),
      socket("socket"),
      kernels_(env.kernels),
      memory_(env.memory),
      calendar_(*env.calendar),
      wake_(calendar_.Add(this, sc_module::name())),
      phases_(id, kind, cluster,
              CoreDeps{env.config, env.functional, env.tasks, env.observer, env.failure,
                       /*host=*/this}) {}

void AiCore::set_sync_fabric(SyncFabric* fabric) {
  fabric_ = fabric;
  phases_.set_barrier(fabric != nullptr ? this : nullptr);
}

GmCompletion AiCore::Transport(const GmTransaction& transaction) {
  tlm::tlm_generic_payload payload;
  AtomicAddExtension atomic;
  payload.set_command(transaction.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload.set_address(transaction.addr);
  payload.set_data_ptr(static_cast<unsigned char*>(transaction.data));
  payload.set_data_length(transaction.size);
  payload.set_streaming_width(transaction.size);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const bool is_atomic = transaction.atomic_dtype != trace::DTYPE_UNSPECIFIED;
  if (is_atomic) {
    atomic.dtype = transaction.atomic_dtype;
    payload.set_extension(&atomic);
  }
  // Loosely timed: the delay counts from SystemC's time, which the calendar
  // (the core's clock) runs ahead of by up to a quantum.
  const TimePs lead = Now() - NowPs();
  sc_core::sc_time delay = ScTime(lead + transaction.delay);
  socket->b_transport(payload, delay);
  if (is_atomic) payload.clear_extension(&atomic);
  return GmCompletion{static_cast<TimePs>(delay.value()) - lead,
                      payload.get_response_status() == tlm::TLM_OK_RESPONSE};
}

bool AiCore::Contains(uint64_t addr, size_t size) const {
  // Timing-only: no bytes exist; the executor's window checks still hold.
  return !memory_->allocated() || memory_->Span(addr, size) != nullptr;
}

}  // namespace pto
