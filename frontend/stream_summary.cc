#include "frontend/stream_summary.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace pto::ptoc {

std::vector<LaunchSummary> Summarize(const trace::TraceText& trace) {
  std::map<uint32_t, const trace::Kernel*> kernels;
  for (const trace::Kernel* k : Kernels(trace)) kernels[k->id()] = k;
  std::vector<LaunchSummary> launches;
  int index = 0;
  for (const auto& r : trace.records()) {
    if (r.has_launch_begin()) {
      launches.emplace_back();
      launches.back().name = r.launch_begin().name();
      index = 0;
      continue;
    }
    if (launches.empty()) continue;
    LaunchSummary& l = launches.back();
    if (r.has_check()) {
      ++l.checks_after;
    } else if (r.has_scope_begin()) {
      absl::StrAppend(&l.scope_shape,
                      r.scope_begin().mode() == trace::ScopeBegin::MANUAL ? "M" : "A",
                      r.scope_begin().depth(), " ");
    } else if (r.has_scope_end()) {
      absl::StrAppend(&l.scope_shape, "E", r.scope_end().depth(), " ");
    } else if (r.has_submit()) {
      const auto& s = r.submit();
      TaskSummary t;
      t.kind = "submit";
      t.index = index++;
      t.name = s.name();
      const int aic = s.kernel_ids(0), aiv = s.kernel_ids(1);
      const int kid = aic >= 0 ? aic : aiv;
      t.core_type = kernels.at(static_cast<uint32_t>(kid))->core_type();
      t.block_num = s.block_num();
      t.block_symbol = s.block_symbol();
      for (const auto& a : s.args()) {
        if (!a.has_tensor()) continue;
        t.directions.push_back(a.tensor().direction());
        t.tensor_ids.push_back(a.tensor().tensor_id());
      }
      t.deps.assign(s.deps().begin(), s.deps().end());
      t.scope_depth = s.scope_depth();
      t.has_predicate = s.has_predicate();
      t.allow_early_resolve = s.allow_early_resolve();
      t.sync_start = s.sync_start();
      l.tasks.push_back(t);
      absl::StrAppend(&l.scope_shape, "T ");
    } else if (r.has_dummy()) {
      TaskSummary t;
      t.kind = "dummy";
      t.index = index++;
      t.name = r.dummy().name();
      t.deps.assign(r.dummy().deps().begin(), r.dummy().deps().end());
      t.scope_depth = r.dummy().scope_depth();
      l.tasks.push_back(t);
      absl::StrAppend(&l.scope_shape, "D ");
    } else if (r.has_alloc()) {
      TaskSummary t;
      t.kind = "alloc";
      t.index = index++;
      t.scope_depth = r.alloc().scope_depth();
      l.tasks.push_back(t);
      absl::StrAppend(&l.scope_shape, "C ");
    }
  }
  // Checks follow their launch's LaunchEnd: attach them to the launch before.
  return launches;
}

std::vector<const trace::Kernel*> Kernels(const trace::TraceText& trace) {
  std::vector<const trace::Kernel*> out;
  for (const trace::Kernel& k : trace.header().kernels()) out.push_back(&k);
  for (const trace::StreamRecord& r : trace.records()) {
    if (!r.has_declare()) continue;
    for (const trace::Kernel& k : r.declare().kernels()) out.push_back(&k);
  }
  return out;
}

const trace::Tensor* TensorById(const trace::TraceText& trace, uint32_t id) {
  const trace::Tensor* found = nullptr;
  for (const trace::Tensor& t : trace.header().tensors()) {
    if (t.id() == id) found = &t;
  }
  for (const trace::StreamRecord& r : trace.records()) {
    if (!r.has_declare()) continue;
    for (const trace::Tensor& t : r.declare().tensors()) {
      if (t.id() == id) found = &t;
    }
  }
  return found;
}

}  // namespace pto::ptoc
