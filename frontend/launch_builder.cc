#include "frontend/launch_builder.h"

namespace pto::ptoc {

void LaunchBuilder::BeginScope(trace::ScopeBegin::Mode mode) {
  scope_parent_[next_scope_serial_] = current_scope();
  scopes_.push_back(Scope{mode, {}, next_scope_serial_++});
  trace::StreamRecord r;
  r.mutable_scope_begin()->set_mode(mode);
  r.mutable_scope_begin()->set_depth(depth());
  records_.push_back(std::move(r));
}

void LaunchBuilder::EndScope() {
  trace::StreamRecord r;
  r.mutable_scope_end()->set_depth(depth());
  records_.push_back(std::move(r));
  scopes_.pop_back();
}

bool LaunchBuilder::in_manual_scope() const {
  for (const Scope& s : scopes_) {
    if (s.mode == trace::ScopeBegin::MANUAL) return true;
  }
  return false;
}

bool LaunchBuilder::scope_open(uint32_t serial) const {
  if (serial == 0) return true;
  for (const Scope& s : scopes_) {
    if (s.serial == serial) return true;
  }
  return false;
}

bool LaunchBuilder::task_id_usable(uint32_t serial) const {
  if (scope_open(serial)) return true;
  auto it = scope_parent_.find(serial);
  if (it == scope_parent_.end()) return false;
  return scope_open(it->second) && current_scope() != it->second;
}

void LaunchBuilder::NoteTaskWrites(int index, const std::vector<uint32_t>& roots) {
  for (uint32_t r : roots) last_writer_[r] = index;
}

int LaunchBuilder::LastWriter(uint32_t root) const {
  auto it = last_writer_.find(root);
  return it == last_writer_.end() ? -1 : it->second;
}

std::string LaunchBuilder::BoundName(int index) const {
  auto it = task_names_.find(index);
  return it == task_names_.end() ? "" : it->second;
}

trace::ArgDirection LaunchBuilder::CallSiteDirection(trace::KernelParam::Direction param,
                                                     uint32_t root_tensor, bool no_dep) const {
  if (no_dep) return trace::NO_DEP;
  switch (param) {
    case trace::KernelParam::INOUT:
      return trace::INOUT;
    case trace::KernelParam::OUT: {
      const Scope& scope = scopes_.empty() ? outer_ : scopes_.back();
      const bool r_seq = sequential_loops_ > 0;
      const bool r_prior = scope.written_roots.count(root_tensor) > 0;
      const bool r_enclosing = inout_roots_.count(root_tensor) > 0;
      return r_seq || r_prior || r_enclosing ? trace::INOUT : trace::OUTPUT_EXISTING;
    }
    default:
      return trace::INPUT;
  }
}

void LaunchBuilder::NoteWrites(const std::vector<uint32_t>& roots) {
  Scope& scope = scopes_.empty() ? outer_ : scopes_.back();
  scope.written_roots.insert(roots.begin(), roots.end());
}

int LaunchBuilder::AddSubmit(trace::Submit submit) {
  submit.set_scope_depth(depth());
  trace::StreamRecord r;
  *r.mutable_submit() = std::move(submit);
  records_.push_back(std::move(r));
  return next_index_++;
}

int LaunchBuilder::AddDummy(trace::Dummy dummy) {
  dummy.set_scope_depth(depth());
  trace::StreamRecord r;
  *r.mutable_dummy() = std::move(dummy);
  records_.push_back(std::move(r));
  return next_index_++;
}

int LaunchBuilder::AddAlloc(trace::Alloc alloc) {
  alloc.set_scope_depth(depth());
  trace::StreamRecord r;
  *r.mutable_alloc() = std::move(alloc);
  records_.push_back(std::move(r));
  return next_index_++;
}

void LaunchBuilder::AddHostRead(trace::HostRead read) {
  trace::StreamRecord r;
  *r.mutable_host_read() = std::move(read);
  records_.push_back(std::move(r));
}

}  // namespace pto::ptoc
