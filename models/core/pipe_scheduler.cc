#include "models/core/pipe_scheduler.h"

#include <algorithm>
#include <cassert>
#include <functional>

namespace pto {

absl::string_view PipeName(Pipe pipe) {
  switch (pipe) {
    case Pipe::kScalar:
      return "scalar";
    case Pipe::kMte2:
      return "mte2";
    case Pipe::kMte1:
      return "mte1";
    case Pipe::kCube:
      return "cube";
    case Pipe::kFixpipe:
      return "fixpipe";
    case Pipe::kVector:
      return "vector";
    case Pipe::kMte3:
      return "mte3";
  }
  return "?";
}

PipeScheduler::PipeScheduler(const PipeLimits& limits) : limits_(limits) {
  for (int& n : limits_.in_flight) n = std::max(n, 1);
}

void PipeScheduler::Clear() {
  now_ = 0;
  end_time_ = kNever;
  started_ = false;
  completed_ = 0;
  ops_.clear();
  preds_.clear();
  gm_ops_.clear();
  gm_pending_.clear();
  gm_pending_head_ = 0;
  gm_pending_ended_ = 0;
  barriers_pending_.clear();
  barriers_pending_head_ = 0;
  for (PipeState& pipe : pipes_) {
    pipe.queue.clear();
    pipe.head = 0;
    pipe.running = 0;
    pipe.busy_since = 0;
    pipe.busy = 0;
  }
  for (uint32_t b : touched_buffers_) {
    buffers_[b].writer = -1;
    buffers_[b].readers.clear();
    buffers_[b].touched = false;
  }
  touched_buffers_.clear();
  running_compute_.clear();
  started_external_.clear();
}

void PipeScheduler::Reserve(uint32_t buffer) {
  if (buffer >= buffers_.size()) buffers_.resize(buffer + 1);
}

PipeScheduler::BufferState& PipeScheduler::Touch(uint32_t buffer) {
  BufferState& state = buffers_[buffer];
  if (!state.touched) {
    state.touched = true;
    touched_buffers_.push_back(buffer);
  }
  return state;
}

uint32_t PipeScheduler::Add(const PipeOpSpec& spec) {
  assert(!started_);
  const auto id = static_cast<uint32_t>(ops_.size());
  Op op{};
  op.pipe = spec.pipe;
  op.external = spec.external;
  op.barrier = spec.barrier;
  op.state = State::kWaiting;
  op.duration = std::max<TimePs>(0, spec.duration);
  op.preds_begin = op.preds_done = static_cast<uint32_t>(preds_.size());
  uint32_t top = 0;
  for (uint32_t b : spec.reads) top = std::max(top, b);
  for (uint32_t b : spec.writes) top = std::max(top, b);
  if (!spec.reads.empty() || !spec.writes.empty()) Reserve(top);
  // An op waits for each predecessor once: a matmul step's MAD reads both
  // L0 blocks of one move.
  auto wait_for = [this, &op](int64_t pred) {
    // A predecessor on the op's own pipe is ordered by the queue.
    if (pred < 0 || ops_[static_cast<size_t>(pred)].pipe == op.pipe) return;
    if (preds_.size() > op.preds_begin && preds_.back() == static_cast<uint32_t>(pred)) return;
    preds_.push_back(static_cast<uint32_t>(pred));
  };
  // RAW: the value's producer.
  for (uint32_t b : spec.reads) wait_for(Touch(b).writer);
  // WAR and WAW: the previous value's readers and its producer (an op that
  // reads and writes one buffer, in place, does not wait for itself).
  for (uint32_t b : spec.writes) {
    BufferState& state = Touch(b);
    wait_for(state.writer);
    for (uint32_t reader : state.readers) wait_for(reader);
  }
  for (uint32_t b : spec.reads) {
    if (std::find(spec.writes.begin(), spec.writes.end(), b) == spec.writes.end()) {
      buffers_[b].readers.push_back(id);
    }
  }
  for (uint32_t b : spec.writes) {
    BufferState& state = buffers_[b];
    state.writer = id;
    state.readers.clear();
  }
  op.preds_end = static_cast<uint32_t>(preds_.size());
  if (spec.touches_gm) {
    op.gm = static_cast<int32_t>(gm_ops_.size());
    gm_ops_.push_back({id, spec.gm, spec.gm_write});
    gm_pending_.push_back(id);
  }
  op.blocks_later = spec.barrier || spec.stalls_issue;
  if (op.blocks_later) barriers_pending_.push_back(id);
  ops_.push_back(op);
  pipes_[static_cast<int>(spec.pipe)].queue.push_back(id);
  return id;
}

void PipeScheduler::Start(TimePs now) {
  assert(!started_);
  started_ = true;
  now_ = now;
  if (ops_.empty()) end_time_ = now;
  StartReady();
}

bool PipeScheduler::CanStart(uint32_t id) {
  Op& op = ops_[id];
  if (barriers_pending_head_ < barriers_pending_.size() &&
      barriers_pending_[barriers_pending_head_] < id) {
    return false;
  }
  if (op.barrier && completed_ < id) {
    // Every earlier op must have ended: they are exactly the first `id`
    // when none later has ended (later ones wait for the barrier).
    return false;
  }
  while (op.preds_done < op.preds_end && ops_[preds_[op.preds_done]].state == State::kDone) {
    ++op.preds_done;
  }
  if (op.preds_done < op.preds_end) return false;
  if (op.gm >= 0) {
    const GmOp& mine = gm_ops_[static_cast<size_t>(op.gm)];
    for (size_t i = gm_pending_head_; i < gm_pending_.size(); ++i) {
      const uint32_t other = gm_pending_[i];
      if (other >= id) break;
      if (ops_[other].state == State::kDone) continue;
      const GmOp& earlier = gm_ops_[static_cast<size_t>(ops_[other].gm)];
      if ((mine.write || earlier.write) && RunsOverlap(mine.runs, earlier.runs)) return false;
    }
  }
  return true;
}

void PipeScheduler::StartOp(uint32_t id) {
  Op& op = ops_[id];
  PipeState& pipe = pipes_[static_cast<int>(op.pipe)];
  op.state = State::kRunning;
  op.timing.start = now_;
  ++pipe.head;
  if (pipe.running++ == 0) pipe.busy_since = now_;
  if (op.external) {
    started_external_.push_back(id);
    return;
  }
  running_compute_.emplace_back(now_ + op.duration, id);
  std::push_heap(running_compute_.begin(), running_compute_.end(), std::greater<>());
}

void PipeScheduler::StartReady() {
  // Starting an op frees no other (every wait is for an end), so the heads
  // need another look only after zero-time ops ended at once.
  for (bool ended = true; ended;) {
    ended = false;
    for (int p = 0; p < kPipeCount; ++p) {
      PipeState& pipe = pipes_[p];
      while (pipe.head < pipe.queue.size() && pipe.running < limits_.in_flight[p] &&
             !WaitsForItsNextPred(pipe.queue[pipe.head]) && CanStart(pipe.queue[pipe.head])) {
        StartOp(pipe.queue[pipe.head]);
      }
    }
    while (!running_compute_.empty() && running_compute_.front().first <= now_) {
      const uint32_t id = running_compute_.front().second;
      std::pop_heap(running_compute_.begin(), running_compute_.end(), std::greater<>());
      running_compute_.pop_back();
      Finish(id, now_);
      ended = true;
    }
  }
}

void PipeScheduler::Finish(uint32_t id, TimePs at) {
  Op& op = ops_[id];
  op.state = State::kDone;
  op.timing.end = at;
  PipeState& pipe = pipes_[static_cast<int>(op.pipe)];
  if (--pipe.running == 0) pipe.busy += at - pipe.busy_since;
  ++completed_;
  if (op.gm >= 0) DropEndedGmOp();
  // Nothing starts after a pending barrier, so barriers end in order.
  if (op.blocks_later) ++barriers_pending_head_;
  if (completed_ == ops_.size()) end_time_ = at;
}

void PipeScheduler::DropEndedGmOp() {
  // The list drops its ended front at once; an op that ends out of order
  // stays (done by its state) until the ended ones are half the list, when
  // one pass removes them all: amortised O(1) per end, and CanStart's scan
  // meets at most as many ended entries as pending ones.
  ++gm_pending_ended_;
  while (gm_pending_head_ < gm_pending_.size() &&
         ops_[gm_pending_[gm_pending_head_]].state == State::kDone) {
    ++gm_pending_head_;
    --gm_pending_ended_;
  }
  if (gm_pending_ended_ * 2 <= gm_pending_.size() - gm_pending_head_) return;
  size_t kept = 0;
  for (size_t i = gm_pending_head_; i < gm_pending_.size(); ++i) {
    if (ops_[gm_pending_[i]].state != State::kDone) gm_pending_[kept++] = gm_pending_[i];
  }
  gm_pending_.resize(kept);
  gm_pending_head_ = 0;
  gm_pending_ended_ = 0;
}

void PipeScheduler::RunUntil(TimePs now) {
  assert(started_ && now >= now_);
  while (!running_compute_.empty() && running_compute_.front().first <= now) {
    now_ = running_compute_.front().first;
    // Everything due at this instant ends before anything new starts.
    while (!running_compute_.empty() && running_compute_.front().first == now_) {
      const uint32_t id = running_compute_.front().second;
      std::pop_heap(running_compute_.begin(), running_compute_.end(), std::greater<>());
      running_compute_.pop_back();
      Finish(id, now_);
    }
    StartReady();
  }
  now_ = now;
}

void PipeScheduler::Complete(uint32_t id, TimePs at) {
  assert(ops_[id].external && ops_[id].state == State::kRunning);
  RunUntil(at);
  Finish(id, at);
  StartReady();
}

void PipeScheduler::TakeStarted(std::vector<uint32_t>* out) {
  out->clear();
  out->swap(started_external_);
}

TimePs PipeScheduler::next_internal_at() const {
  return running_compute_.empty() ? kNever : running_compute_.front().first;
}

}  // namespace pto
