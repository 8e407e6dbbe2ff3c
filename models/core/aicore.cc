#include "models/core/aicore.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/core/op_cost.h"
#include "models/gm/global_memory.h"

namespace pto {

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
  SC_METHOD(Step);
  sensitive << wake_;
  dont_initialize();
}

TimePs AiCore::Now() const { return sc_core::sc_time_stamp().value(); }

void AiCore::Dispatch(const BlockWork& work, sc_core::sc_time publish_delay) {
  work_ = work;
  state_ = State::kInFlight;
  const TimePs propagation = Ns(context_->config().aicpu.dispatch_to_core_ns);
  wake_.notify(publish_delay + sc_core::sc_time::from_value(propagation));
}

void AiCore::Step() {
  const CoreParams& params = context_->config().core;
  switch (state_) {
    case State::kInFlight: {
      interval_ = CoreInterval{id_, work_.task, work_.block, work_.dispatch, Now(), 0, 0};
      TimePs setup = Ns(params.setup_ns);
      if (!warmed_up_) {
        setup += Ns(params.cold_start_ns);
        warmed_up_ = true;
      }
      state_ = State::kSetup;
      wake_.notify(sc_core::sc_time::from_value(setup));
      return;
    }
    case State::kSetup:
      StartKernel();
      return;
    case State::kRunning: {
      interval_.end = Now();
      LaunchCounters& counters = context_->counters();
      if (counters.last_kernel_end == kNever || interval_.end > counters.last_kernel_end) {
        counters.last_kernel_end = interval_.end;
      }
      (kind_ == CoreKind::kAic ? counters.aic_busy : counters.aiv_busy) +=
          interval_.end - interval_.start;
      if (Task* task = context_->tasks().Find(work_.task)) {
        task->times.last_end = std::max(task->times.last_end, interval_.end);
      }
      context_->observer().OnCoreInterval(interval_);
      state_ = State::kFinRaised;
      wake_.notify(sc_core::sc_time::from_value(Ns(context_->config().aicpu.fin_to_visible_ns)));
      return;
    }
    case State::kFinRaised:
      state_ = State::kIdle;
      owner_->OnFinVisible(id_);
      return;
    case State::kIdle:
      return;
  }
}

void AiCore::StartKernel() {
  interval_.start = Now();
  LaunchCounters& counters = context_->counters();
  if (counters.first_kernel_start == kNever) counters.first_kernel_start = interval_.start;
  Task* task = context_->tasks().Find(work_.task);  // live until its last FIN
  if (task->times.first_start == kNever) task->times.first_start = interval_.start;

  const CompiledKernel& kernel = context_->kernel(work_.kernel);
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
  const BlockContext block{work_.block, work_.block_num, work_.subblock};
  const bool functional = context_->functional() && work_.executes_data;
  const absl::Status status =
      executor_.Execute(kernel, block, args_, functional, functional ? &port_ : nullptr, &profile_);
  if (!status.ok()) {
    context_->Fail(
        absl::Status(status.code(), absl::StrCat("task '", task->name, "' block ", work_.block,
                                                 " on core ", id_, ": ", status.message())));
    return;
  }
  const double duration_ns = KernelDurationNs(profile_, context_->config());
  state_ = State::kRunning;
  wake_.notify(sc_core::sc_time::from_value(Ns(duration_ns)));
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
