#ifndef PTO_MODELS_GM_MEMORY_SERVICE_H_
#define PTO_MODELS_GM_MEMORY_SERVICE_H_

// The memory system on the chip calendar: a requester starts a transfer at
// the calendar's now and is told when it completes. A completion time is not
// known when the transfer starts (shares change as transfers come and go),
// so it cannot be a TLM b_transport delay fixed at the request: the service
// wakes at each flow end, advances the memory system and tells each finished
// transfer's requester (TransferSink::OnTransferDone) the time its last byte
// plus latency lands, which is now or later. One wake per flow end, shared
// by every transfer ending then.

#include <utility>
#include <vector>

#include "models/base/calendar.h"
#include "models/gm/memory_system.h"

namespace pto {

class TransferSink {
 public:
  virtual ~TransferSink() = default;
  // `transfer` is done at `done` (>= the calendar's now). The sink may start
  // new transfers from here.
  virtual void OnTransferDone(MemorySystem::TransferId transfer, TimePs done) = 0;
};

class MemoryService : private Calendar::Client {
 public:
  MemoryService(Calendar* calendar, const MemorySystemParams& params);

  MemorySystem::RequesterId AddRequester(const RequesterCaps& caps, TransferSink* sink);
  // Starts a transfer now (MemorySystem::Start).
  MemorySystem::TransferId Start(MemorySystem::RequesterId requester, GmDirection direction,
                                 const L2Split& split, double bandwidth_factor = 1.0);
  void StartWriteBack(int64_t bytes);

  const MemorySystem& system() const { return system_; }
  void set_hbm_rate_listener(MemorySystem::RateListener listener) {
    system_.set_hbm_rate_listener(std::move(listener));
  }

 private:
  void OnWake(TimePs now) override;
  // Asks to be woken at the next flow end.
  void Arm();
  // Finishes the transfers due by `now` before a start.
  void FinishDue(TimePs now);
  // After a start: woken in the next delta of this instant.
  void ArmNow(TimePs now);

  Calendar& calendar_;
  Calendar::ClientId wake_;
  MemorySystem system_;
  std::vector<TransferSink*> sinks_;  // by requester
  std::vector<MemorySystem::Completion> completed_;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_MEMORY_SERVICE_H_
