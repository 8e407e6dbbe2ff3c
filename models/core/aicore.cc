#include "models/core/aicore.h"

#include "models/base/sc_time.h"
#include "models/core/op_cost.h"
#include "models/gm/global_memory.h"
#include "models/gm/hbm_model.h"

namespace pto {

AiCore::AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster,
               const AiCoreEnv& env)
    : sc_module(name),
      socket("socket"),
      kernels_(env.kernels),
      memory_(env.memory),
      memory_service_(env.memory_service),
      l2_(env.l2),
      gm_params_(env.config->gm),
      calendar_(*env.calendar),
      wake_(calendar_.Add(this, sc_module::name())),
      phases_(id, kind, cluster,
              CoreDeps{env.config, env.functional, env.tasks, env.observer, env.failure,
                       /*host=*/this, env.mix_board, /*scalars=*/env.memory}) {
  if (memory_service_ != nullptr) {
    const CoreGmRates rates = CoreGmRatesOf(*env.config, kind == CoreKind::kAic);
    requester_ = memory_service_->AddRequester(
        RequesterCaps{rates.read_bytes_per_ns, rates.write_bytes_per_ns}, this);
  }
}

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
  if (transaction.untimed) {
    // The bytes of a transfer the memory service times: debug transport.
    socket->transport_dbg(payload);
    if (is_atomic) payload.clear_extension(&atomic);
    return GmCompletion{0, payload.get_response_status() == tlm::TLM_OK_RESPONSE};
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

uint64_t AiCore::StartTransfer(const GmRuns& runs, GmDirection direction) {
  int64_t evicted = 0;
  const L2Split split = l2_->AccessRuns(runs, direction == GmDirection::kWrite, &evicted);
  if (evicted > 0) memory_service_->StartWriteBack(evicted);
  // The MTE moves a tile one row (burst) at a time, so narrow tile rows pay
  // the penalty even where they happen to abut in GM.
  const double factor = NarrowRowFactor(static_cast<int64_t>(runs.row_bytes), gm_params_);
  return memory_service_->Start(requester_, direction, split, factor);
}

uint64_t AiCore::StartUnplacedTransfer(uint64_t bytes, GmDirection direction) {
  const int64_t n = static_cast<int64_t>(bytes);
  if (direction == GmDirection::kRead) {
    return memory_service_->Start(requester_, direction, L2Split{0, n});
  }
  // Nothing holds the lines in L2 to write them back later: they go on now.
  memory_service_->StartWriteBack(n);
  return memory_service_->Start(requester_, direction, L2Split{n, 0});
}

bool AiCore::Contains(uint64_t addr, size_t size) const {
  // Timing-only: no bytes exist; the executor's window checks still hold.
  return !memory_->allocated() || memory_->Span(addr, size) != nullptr;
}

}  // namespace pto
