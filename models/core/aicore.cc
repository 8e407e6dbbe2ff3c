#include "models/core/aicore.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/core/op_cost.h"
#include "models/gm/global_memory.h"

namespace pto {
namespace {

bool Later(const auto& a, const auto& b) { return a.at > b.at; }

}  // namespace

AiCore::AiCore(sc_core::sc_module_name name, int id, CoreKind kind, int cluster,
               ChipContext* context)
    : sc_module(name),
      socket("socket"),
      id_(id),
      kind_(kind),
      cluster_(cluster),
      context_(context),
      port_(this),
      executor_(context->config()) {
  events_.reserve(8);
  SC_METHOD(Step);
  sensitive << wake_;
  dont_initialize();
}

TimePs AiCore::Now() const { return sc_core::sc_time_stamp().value(); }

void AiCore::Schedule(TimePs at, EventKind kind, uint32_t token, CondValue cond) {
  events_.push_back(Event{at, kind, token, cond});
  std::push_heap(events_.begin(), events_.end(), Later<Event, Event>);
  if (wake_at_ == kNever || at < wake_at_) {
    wake_at_ = at;
    wake_.notify(sc_core::sc_time::from_value(at - Now()));
  }
}

void AiCore::Dispatch(const BlockWork& work, TimePs publish_delay) {
  if (!running_assigned_) {
    running_ = work;
    running_assigned_ = true;
  } else {
    pending_ = work;
    has_pending_ = true;
    pending_arrived_ = false;
  }
  const TimePs propagation = Ns(context_->config().aicpu.dispatch_to_core_ns);
  Schedule(Now() + publish_delay + propagation, EventKind::kArrive, work.token);
}

void AiCore::RingDoorbell(TimePs delay) {
  Schedule(Now() + delay + Ns(context_->config().aicpu.dispatch_to_core_ns), EventKind::kDoorbell);
}

const CoreInterval* AiCore::IntervalOf(uint32_t token) const {
  const CoreInterval& interval = recent_[token % recent_.size()];
  return interval.reg_task_id == token && interval.task != kNoTask ? &interval : nullptr;
}

void AiCore::Step() {
  const TimePs now = Now();
  wake_at_ = kNever;
  while (!events_.empty() && events_.front().at <= now && context_->fatal().ok()) {
    std::pop_heap(events_.begin(), events_.end(), Later<Event, Event>);
    const Event event = events_.back();
    events_.pop_back();
    switch (event.kind) {
      case EventKind::kArrive:
        if (event.token == running_.token && phase_ == Phase::kIdle && running_assigned_) {
          Receive(running_);
        } else if (has_pending_ && event.token == pending_.token) {
          pending_arrived_ = true;
        }
        break;
      case EventKind::kSetupDone:
        if (running_.gated && !doorbell_rung_) {
          phase_ = Phase::kGated;  // prepared; waits for the doorbell
        } else {
          Start();
        }
        break;
      case EventKind::kDoorbell:
        if (phase_ == Phase::kGated) {
          Start();
        } else {
          doorbell_rung_ = true;  // arrived while still setting up
        }
        break;
      case EventKind::kEnd:
        End();
        break;
      case EventKind::kCondVisible:
        owner_->OnCondVisible(id_, event.cond);
        break;
    }
  }
  if (!events_.empty()) {
    wake_at_ = events_.front().at;
    wake_.notify(sc_core::sc_time::from_value(wake_at_ - now));
  }
}

void AiCore::Receive(const BlockWork& work) {
  const CoreParams& params = context_->config().core;
  current_ = CoreInterval{};
  current_.core = id_;
  current_.task = work.task;
  current_.block = work.block;
  current_.reg_task_id = work.token;
  current_.thread = work.thread;
  current_.dispatch = work.dispatch;
  current_.receive = Now();
  TimePs setup = Ns(work.gated ? params.staged_setup_ns : params.setup_ns);
  if (!warmed_up_) {
    setup += Ns(params.cold_start_ns);
    warmed_up_ = true;
  }
  doorbell_rung_ = false;
  phase_ = Phase::kSetup;
  Schedule(Now() + setup, EventKind::kSetupDone);
}

void AiCore::WriteCond(uint32_t token, bool fin) {
  Schedule(Now() + Ns(context_->config().aicpu.fin_to_visible_ns), EventKind::kCondVisible, 0,
           CondValue{token, fin});
}

void AiCore::Start() {
  phase_ = Phase::kRunning;
  current_.start = Now();
  WriteCond(running_.token, /*fin=*/false);
  LaunchCounters& counters = context_->counters();
  if (counters.first_kernel_start == kNever) counters.first_kernel_start = current_.start;
  Task* task = context_->tasks().Find(running_.task);  // live until its last FIN
  if (task->times.first_start == kNever) task->times.first_start = current_.start;

  args_.clear();
  for (const TaskArg& arg : task->args) {
    if (arg.is_tensor) {
      TensorBinding binding;
      binding.gm_addr = arg.view.first_byte();
      binding.dtype = arg.view.dtype;
      binding.rank = arg.view.ndims;
      for (int d = 0; d < arg.view.ndims; ++d) {
        binding.shape[d] = arg.view.shape[d];
        binding.strides[d] = arg.view.strides[d];
      }
      args_.push_back(BoundArg::Tensor(binding));
    } else {
      args_.push_back(arg.scalar_is_float ? BoundArg::Float(arg.scalar_f)
                                          : BoundArg::Int(arg.scalar_i));
    }
  }
  const BlockContext block{running_.block, running_.block_num, running_.subblock};
  const bool functional = context_->functional() && running_.executes_data;
  const absl::Status status =
      executor_.Execute(context_->kernel(running_.kernel), block, args_, functional,
                        functional ? &port_ : nullptr, &profile_);
  if (!status.ok()) {
    context_->Fail(
        absl::Status(status.code(), absl::StrCat("task '", task->name, "' block ", running_.block,
                                                 " on core ", id_, ": ", status.message())));
    return;
  }
  Schedule(Now() + Ns(KernelDurationNs(profile_, context_->config())), EventKind::kEnd);
}

void AiCore::End() {
  current_.end = Now();
  LaunchCounters& counters = context_->counters();
  counters.last_kernel_end = std::max(counters.last_kernel_end, current_.end);
  (kind_ == CoreKind::kAic ? counters.aic_busy : counters.aiv_busy) +=
      current_.end - current_.start;
  if (Task* task = context_->tasks().Find(running_.task)) {
    task->times.last_end = std::max(task->times.last_end, current_.end);
  }
  recent_[current_.reg_task_id % recent_.size()] = current_;
  WriteCond(running_.token, /*fin=*/true);
  phase_ = Phase::kIdle;
  running_assigned_ = false;
  if (has_pending_) {
    // The latched task is picked up right after FIN.
    running_ = pending_;
    running_assigned_ = true;
    has_pending_ = false;
    if (pending_arrived_) Receive(running_);
  }
}

void AiCore::TlmGmPort::Transport(tlm::tlm_command command, uint64_t addr, void* data, size_t size,
                                  DType atomic_dtype) {
  tlm::tlm_generic_payload payload;
  AtomicAddExtension atomic;
  payload.set_command(command);
  payload.set_address(addr);
  payload.set_data_ptr(static_cast<unsigned char*>(data));
  payload.set_data_length(size);
  payload.set_streaming_width(size);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (atomic_dtype != trace::DTYPE_UNSPECIFIED) {
    atomic.dtype = atomic_dtype;
    payload.set_extension(&atomic);
  }
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  core_->socket->b_transport(payload, delay);
  if (atomic_dtype != trace::DTYPE_UNSPECIFIED) payload.clear_extension(&atomic);
  if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) {
    core_->context_->Fail(absl::InternalError(absl::StrCat(
        "core ", core_->id_, ": GM ", command == tlm::TLM_READ_COMMAND ? "read" : "write", " of ",
        size, " bytes at 0x", absl::Hex(addr), " hit no tensor")));
  }
}

void AiCore::TlmGmPort::Read(uint64_t addr, void* dst, size_t size) {
  Transport(tlm::TLM_READ_COMMAND, addr, dst, size, trace::DTYPE_UNSPECIFIED);
}

void AiCore::TlmGmPort::Write(uint64_t addr, const void* src, size_t size) {
  Transport(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), size, trace::DTYPE_UNSPECIFIED);
}

void AiCore::TlmGmPort::AtomicAdd(uint64_t addr, DType dtype, const void* src, size_t count) {
  Transport(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), count * DTypeSize(dtype), dtype);
}

}  // namespace pto
