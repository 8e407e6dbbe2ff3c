#ifndef PTO_MODELS_BASE_CALENDAR_H_
#define PTO_MODELS_BASE_CALENDAR_H_

// The chip's calendar: one time-ordered queue of the model's own events, in
// plain C++. Every component that keeps time (a core, a scheduler thread,
// the orchestrator; the memory system's flows and the cores' pipes later)
// is a client with at most one pending wake; the calendar calls it back at
// that time. One SystemC process (CalendarProcess, calendar_process.h)
// drains the calendar once per simulated time step, so the simulation
// kernel pays one activation per distinct time instead of one per
// component event.
//
//   Calendar calendar;
//   const Calendar::ClientId core = calendar.Add(&my_core, "aic0");
//   calendar.WakeAt(core, Ns(10));       // my_core.OnWake(10'000) at 10 ns
//   while (calendar.next_at() != kNever) calendar.RunUntil(calendar.next_at());
//
// Order: wakes run in time order. Within one time step they run in SystemC's
// delta order, which the model's outputs were first produced with: first
// every wake asked for earlier (first asked, first run), then the wakes
// asked for during that delta, and so on, each later delta running its
// wakes last asked first (SystemC 2.3 triggers a delta's notifications in
// reverse; sc_simcontext::crunch).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "models/base/time.h"

namespace pto {

class Calendar {
 public:
  // A component whose events the calendar keeps.
  class Client {
   public:
    virtual ~Client() = default;
    // The wake asked for is due: `now` is its time.
    virtual void OnWake(TimePs now) = 0;
  };

  // Who must be told when the earliest wake moves earlier while the calendar
  // is not running (the SystemC process that drains it).
  class Driver {
   public:
    virtual ~Driver() = default;
    virtual void EarliestMoved(TimePs at) = 0;
  };

  using ClientId = uint32_t;

  Calendar() = default;
  Calendar(const Calendar&) = delete;
  Calendar& operator=(const Calendar&) = delete;

  // `client` outlives the calendar; `name` labels its counts. At most 2^24
  // clients.
  ClientId Add(Client* client, absl::string_view name);
  void set_driver(Driver* driver) { driver_ = driver; }

  // Asks for `client` to be woken at `at` (not before now()). A client has
  // at most one pending wake: an earlier request replaces it, a later or
  // equal one is ignored (as for a timed sc_event).
  void WakeAt(ClientId client, TimePs at);
  // Drops the client's pending wake, if any.
  void Cancel(ClientId client);
  // When the client's pending wake is due, or kNever.
  TimePs wake_at(ClientId client) const { return slots_[client].wake_at; }

  // The time of the wake being run, or of the last one run.
  TimePs now() const { return now_; }
  // When the earliest pending wake is due, or kNever.
  TimePs next_at() const { return heap_.empty() ? kNever : heap_.front().at; }
  // Runs every wake due at or before `until`, in order, including those
  // asked for while it runs. Returns how many ran.
  uint64_t RunUntil(TimePs until);
  // Ends the running RunUntil after the current wake (the run failed); the
  // pending wakes stay, and a later RunUntil runs them.
  void Stop() { stop_ = true; }

  // Wakes run so far, in total and per client.
  uint64_t events() const { return events_; }
  size_t clients() const { return slots_.size(); }
  const std::string& name(ClientId client) const { return names_[client]; }
  uint64_t events(ClientId client) const { return counts_[client]; }

 private:
  // A wake: its time, then the order it was asked in (high bits) and its
  // client (low bits), so ties compare as one integer.
  static constexpr int kClientBits = 24;
  static constexpr uint64_t kClientMask = (uint64_t{1} << kClientBits) - 1;
  struct Entry {
    TimePs at;
    uint64_t key;
  };
  static bool Later(const Entry& a, const Entry& b) {
    return a.at != b.at ? a.at > b.at : a.key > b.key;
  }
  static ClientId ClientOf(const Entry& entry) {
    return static_cast<ClientId>(entry.key & kClientMask);
  }
  // Where a client's pending wake is: a heap position, or one of these.
  static constexpr int32_t kNotPending = -1;
  static constexpr int32_t kInDelta = -2;
  static constexpr ClientId kNoClient = ~ClientId{0};
  // What the run needs of a client, packed.
  struct Slot {
    Client* client = nullptr;
    TimePs wake_at = kNever;
    uint64_t key = 0;  // of the pending wake
    int32_t pos = kNotPending;
  };

  // The heap of pending wakes, one per client (indexed: a client's slot
  // knows its position, so an earlier request moves it up in place).
  void Place(size_t i) { slots_[ClientOf(heap_[i])].pos = static_cast<int32_t>(i); }
  void SiftUp(size_t i);
  void SiftDown(size_t i);
  void Remove(size_t i);
  // Runs the wake of `entry`, the heap's top. The entry stays on top while
  // the client runs: a client that asks for its next wake then (most do)
  // replaces it with one sift-down instead of a pop and a push.
  void RunTop();
  // Runs the wake of a delta entry, no longer pending.
  void RunDelta(const Entry& entry);
  void Call(ClientId client, TimePs at);

  std::vector<Slot> slots_;
  std::vector<uint64_t> counts_;  // wakes run, by client
  std::vector<std::string> names_;
  std::vector<Entry> heap_;
  // Wakes asked for now while running: the step's next delta. An entry
  // whose client was asked again or cancelled since is skipped.
  std::vector<Entry> delta_;
  std::vector<Entry> running_delta_;  // the delta being run
  uint64_t next_order_ = 0;
  uint64_t events_ = 0;
  TimePs now_ = 0;
  bool running_ = false;
  bool stop_ = false;
  // The client whose spent entry is still the heap's top while it runs.
  ClientId on_top_ = kNoClient;
  Driver* driver_ = nullptr;
};

}  // namespace pto

#endif  // PTO_MODELS_BASE_CALENDAR_H_
