#ifndef PTO_MODELS_GM_FLOW_MODEL_H_
#define PTO_MODELS_GM_FLOW_MODEL_H_

// Bandwidth shared among the transfers active at each moment: a flow-level
// model. Each transfer (a flow) crosses a path of resources (the HBM, the
// L2, its requester's port) and moves at its max-min fair rate, recomputed
// whenever a flow starts or ends. This is how flow-level network simulators
// avoid packet-level events (SimGrid: Velho, Casanova, Schnorr, Legrand, "On
// the validity of flow-level TCP network models for grid and cloud
// simulations", ACM TOMACS 23(4), 2013). The rates do not depend on the
// order in which flows were started, only on which are active.
//
//   FlowModel model;
//   const auto hbm = model.AddResource(/*bytes_per_ns=*/1000);
//   const auto port = model.AddResource(/*bytes_per_ns=*/64);
//   model.Start(/*now=*/0, /*bytes=*/1 << 20, {port, hbm});
//   std::vector<FlowModel::FlowId> done;
//   model.AdvanceTo(model.next_completion(), &done);
//
// Arithmetic: rates are doubles computed in a fixed order (resources and
// paths in a fixed order), bytes and times integers; a flow ends at the
// picosecond its last byte moves (rounded up), so runs are bit-for-bit
// repeatable. Rates are recomputed only when a starting or ending flow
// crosses a shared resource that is (or becomes) full: otherwise no other
// flow's bottleneck changes, and the others keep their rates and end times.
// The flows along one path (the same resources) always share one rate, so
// each path keeps a service clock (SimGrid's lazy update): the bytes each of
// its flows has moved since the path last had none. A flow is done when the
// clock passes its start reading plus its bytes, so a rate change costs the
// path, not each of its flows. Flows started at one instant share one
// recompute: a start that needs one only marks the rates stale, and the next
// query (or a start at a later time) brings them up to date.

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "models/base/time.h"

namespace pto {

class FlowModel {
 public:
  using ResourceId = int32_t;
  using FlowId = uint64_t;

  // A shared capacity in bytes per nanosecond (GB/s); must be > 0.
  ResourceId AddResource(double bytes_per_ns);

  // Starts moving `bytes` (> 0) at `now` through every resource of `path`
  // (non-empty, each once). `now` is at or after the last time the model
  // was advanced to, and no flow may complete before it (advance first).
  FlowId Start(TimePs now, int64_t bytes, absl::Span<const ResourceId> path);

  // When the earliest active flow moves its last byte, or kNever.
  TimePs next_completion() {
    Flush();
    return earliest_end_;
  }
  // The same without bringing stale rates up to date: no later than the
  // flows that were active before the stale starts complete (a start only
  // slows others down), and kNever when none was; the flows started since
  // complete after now().
  TimePs next_completion_bound() const { return earliest_end_; }
  // Whether a start left the rates to be recomputed at the next query.
  bool stale() const { return stale_; }

  // Moves every active flow's bytes up to `now`, finishing flows as they
  // complete (rates are recomputed after each completion). Appends the
  // finished flows to `completed` in completion order, ties by id.
  void AdvanceTo(TimePs now, std::vector<FlowId>* completed);

  // The flow's current rate in bytes per nanosecond (0 if not active).
  double rate(FlowId flow);
  // Bytes the flow has still to move (0 if not active).
  int64_t remaining(FlowId flow);
  // The summed rate of the active flows through `resource` (bytes per ns).
  double resource_rate(ResourceId resource);
  size_t active() const { return flows_.size(); }
  TimePs now() const { return now_; }

 private:
  // The flows that cross the same resources get the same max-min rate, so
  // the filling rounds go over paths, not flows: a path's flows freeze
  // together and take their shares off every resource it crosses.
  struct Path {
    uint32_t begin = 0;  // its resources: hops_[begin, begin + hops)
    uint32_t hops = 0;
    int flows = 0;        // active flows along it
    int position = -1;    // in active_paths_ (-1: no active flow)
    double share = 0;     // Recompute's scratch: its flows' new rate
    uint64_t frozen = 0;  // the recompute that froze it last
    double rate = 0;      // bytes per ns, each of its flows
    // The service clock: bytes each flow moved from the path's last idle
    // moment until `since`, when `rate` was set.
    double clock = 0;
    TimePs since = 0;
    double first_finish = 0;  // the smallest finish among its flows
    TimePs end = kNever;      // when that flow's last byte moves
  };
  using PathId = int32_t;

  struct Flow {
    FlowId id;
    PathId path;
    double finish;  // the path's clock reading when its last byte has moved
  };

  const Flow* Find(FlowId flow) const;
  // The resources `flow` crosses.
  absl::Span<const ResourceId> PathOf(const Flow& flow) const {
    const Path& path = paths_[static_cast<size_t>(flow.path)];
    return absl::MakeConstSpan(hops_.data() + path.begin, path.hops);
  }
  // The path along `resources`, made on first use; counts one more flow.
  PathId Enter(absl::Span<const ResourceId> resources);
  // One flow fewer along `path`.
  void Leave(PathId path);
  // The path's clock at now_.
  double ClockNow(const Path& path) const;
  // The bytes `flow` has left at now_.
  double RemainingNow(const Flow& flow) const;
  // Gives the path's flows a new rate from now_ on, and the end that follows.
  void SetRate(Path& path, double rate);
  // After flows joined or left `path`: its first finish and end.
  void UpdateFirstFinish(PathId path);
  // Max-min fair rates by progressive filling, then each path's end time.
  void Recompute();
  // Recomputes if a start left the rates stale.
  void Flush() {
    if (stale_) {
      stale_ = false;
      Recompute();
    }
  }
  // The shortcuts that spare most recomputes: a flow that starts (the last
  // in flows_) or ends while every shared resource on its path has room to
  // spare changes no other flow's rate, so those keep their rates and end
  // times. StartAlone sets the new flow's rate and end and says whether it
  // applied; EndsAlone says whether an ending flow qualifies.
  bool StartAlone(const Flow& flow);
  bool EndsAlone(const Flow& flow) const;
  // Whether `resource` carrying `load` has more than `extra` to spare.
  bool Unsaturated(ResourceId resource, double load, double extra) const;
  // The picosecond the path's flow with `finish` moves its last byte at the
  // path's rate (kNever at 0).
  TimePs EndOf(const Path& path, double finish) const;
  // The earliest end among the active paths, or kNever.
  TimePs EarliestEnd() const;

  std::vector<double> capacity_;  // by resource
  std::vector<Flow> flows_;       // active, by id
  // Every path a flow has taken (never removed: a chip has few), where to
  // find each, and those some active flow takes, in no order.
  std::vector<Path> paths_;
  std::vector<ResourceId> hops_;  // the paths' resources, end to end
  absl::flat_hash_map<absl::InlinedVector<ResourceId, 4>, PathId> path_ids_;
  std::vector<PathId> active_paths_;
  TimePs earliest_end_ = kNever;  // the earliest path end (Recompute keeps it)
  bool stale_ = false;            // flows started at now_ await their rates
  // Recompute's scratch, kept so that it allocates nothing: per resource,
  // what is left of it and how many unfrozen flows cross it (all 0 between
  // calls).
  std::vector<double> residual_;
  std::vector<int> unfrozen_users_;
  // Per resource, the active paths crossing it (a saturating resource
  // freezes them).
  std::vector<std::vector<PathId>> through_;
  uint64_t recomputes_ = 0;   // stamps the paths each recompute froze
  std::vector<PathId> left_;  // AdvanceTo's scratch: paths flows left
  std::vector<int> users_;    // per resource, the active flows crossing it
  // The resources some active flow crosses, in no order, and each one's
  // place in it (-1: none crosses it).
  std::vector<ResourceId> used_;
  std::vector<int> used_position_;
  // Per resource, the summed rate of the active flows crossing it: summed
  // afresh by Recompute (as paths freeze), kept up by the shortcuts in
  // between.
  std::vector<double> load_;
  std::vector<ResourceId> saturating_;  // Recompute's scratch: a round's saturating resources
  FlowId next_id_ = 0;
  TimePs now_ = 0;
};

}  // namespace pto

#endif  // PTO_MODELS_GM_FLOW_MODEL_H_
