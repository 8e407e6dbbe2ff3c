#include "frontend/program_builder.h"

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "frontend/kernel_sharing.h"
#include "proto/stream_version.h"

namespace pto::ptoc {

namespace {
constexpr uint64_t kGmAlignment = 1024;  // every tensor starts on its own 1 KiB boundary
}

std::shared_ptr<TensorRef> TensorRef::View(const std::vector<int64_t>& offsets,
                                           const std::vector<int64_t>& shape) const {
  auto view = std::make_shared<TensorRef>(*this);
  for (size_t d = 0; d < offsets.size() && d < view->offsets_.size(); ++d) {
    view->offsets_[d] += offsets[d];
  }
  view->shape_ = shape;
  return view;
}

ProgramBuilder::ProgramBuilder(std::string source_name) {
  header_.set_version(kTaskStreamVersion);
  header_.set_source(std::move(source_name));
  header_.set_recorder(absl::StrCat("ptoc ", PTO_VERSION));
}

namespace {
trace::Tensor* DeclareTensor(trace::StreamHeader* header, uint64_t* next_addr,
                             const std::string& name, trace::DType dtype,
                             const std::vector<int64_t>& shape, const std::string& origin) {
  trace::Tensor* t = header->add_tensors();
  t->set_id(header->tensors_size() - 1);
  t->set_name(name);
  t->set_dtype(dtype);
  for (int64_t d : shape) t->add_shape(d);
  const uint64_t size = NumElements(shape) * DTypeSize(dtype);
  t->set_gm_addr(*next_addr);
  t->set_size_bytes(size);
  t->set_origin(origin);
  *next_addr += (size + kGmAlignment - 1) / kGmAlignment * kGmAlignment;
  if (size == 0) *next_addr += kGmAlignment;
  return t;
}
}  // namespace

uint32_t ProgramBuilder::TensorForHost(const std::shared_ptr<HostTensor>& host,
                                       const std::string& name, const std::string& origin) {
  auto it = host_to_tensor_.find(host.get());
  if (it != host_to_tensor_.end()) return it->second;
  trace::Tensor* t =
      DeclareTensor(&header_, &next_addr_, name, host->dtype(), host->shape(), origin);
  tensor_names_.insert(name);
  *t->mutable_init() = host->ToInit();
  host_to_tensor_[host.get()] = t->id();
  return t->id();
}

uint32_t ProgramBuilder::NewDeviceTensor(const std::string& name, trace::DType dtype,
                                         const std::vector<int64_t>& shape, bool manual_dep,
                                         const trace::TensorInit& init, const std::string& origin) {
  trace::Tensor* t = DeclareTensor(&header_, &next_addr_, name, dtype, shape, origin);
  tensor_names_.insert(name);
  t->set_manual_dep(manual_dep);
  *t->mutable_init() = init;
  unnamed_device_tensors_.insert(t->id());
  return t->id();
}

bool ProgramBuilder::NameDeviceTensor(uint32_t id, const std::string& variable) {
  if (unnamed_device_tensors_.erase(id) == 0) return false;
  std::string name = variable;
  for (int k = 1; tensor_names_.contains(name); ++k) name = absl::StrCat(variable, "_", k);
  header_.mutable_tensors(static_cast<int>(id))->set_name(name);
  tensor_names_.insert(name);
  return true;
}

uint32_t ProgramBuilder::AddKernel(trace::Kernel kernel) {
  kernel.clear_id();
  trace::Kernel key = kernel;
  key.clear_name();
  key.clear_origin();
  std::string content;
  key.SerializeToString(&content);
  auto it = kernel_by_content_.find(content);
  if (it != kernel_by_content_.end()) return it->second;
  const uint32_t id = header_.kernels_size();
  kernel.set_id(id);
  *header_.add_kernels() = std::move(kernel);
  kernel_by_content_[content] = id;
  return id;
}

trace::TraceText ProgramBuilder::Finish() const {
  trace::TraceText text;
  *text.mutable_header() = header_;
  for (const auto& r : records_) *text.add_records() = r;
  ShareKernelsAcrossOffsets(&text);
  return text;
}

}  // namespace pto::ptoc
