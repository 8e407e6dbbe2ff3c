#ifndef PTO_FRONTEND_PROGRAM_BUILDER_H_
#define PTO_FRONTEND_PROGRAM_BUILDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "frontend/host_tensor.h"
#include "frontend/value.h"
#include "proto/task_stream.pb.h"

namespace pto::ptoc {

// A GM tensor, or a rectangular view of one, as orchestration and kernel code
// see it (a jit parameter, a pl.create_tensor result, a pl.slice).
class TensorRef : public Object {
 public:
  TensorRef(uint32_t tensor_id, std::string name, trace::DType dtype,
            std::vector<int64_t> full_shape)
      : tensor_id_(tensor_id),
        name_(std::move(name)),
        dtype_(dtype),
        offsets_(full_shape.size(), 0),
        shape_(full_shape),
        full_shape_(std::move(full_shape)) {}
  std::string TypeName() const override { return "pl.Tensor"; }

  uint32_t tensor_id() const { return tensor_id_; }
  const std::string& name() const { return name_; }
  // The variable a device tensor was first bound to (NameDeviceTensor), so
  // messages about it say what the user wrote.
  void set_name(std::string name) { name_ = std::move(name); }
  trace::DType dtype() const { return dtype_; }
  const std::vector<int64_t>& offsets() const { return offsets_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& full_shape() const { return full_shape_; }
  bool is_whole() const { return shape_ == full_shape_; }

  // A sub-view at `offsets` (relative to this view) of `shape`.
  std::shared_ptr<TensorRef> View(const std::vector<int64_t>& offsets,
                                  const std::vector<int64_t>& shape) const;
  // Same tensor and same region.
  bool SameView(const TensorRef& other) const {
    return tensor_id_ == other.tensor_id_ && offsets_ == other.offsets_ && shape_ == other.shape_;
  }

 private:
  uint32_t tensor_id_;
  std::string name_;
  trace::DType dtype_;
  std::vector<int64_t> offsets_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> full_shape_;
};

// The whole output: header tensors with GM addresses, deduplicated kernels,
// and the top-level record stream (launches and checks).
class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string source_name);

  // The GM tensor holding `host` (declared on first use with its current
  // contents as the initial value).
  uint32_t TensorForHost(const std::shared_ptr<HostTensor>& host, const std::string& name,
                         const std::string& origin);
  std::optional<uint32_t> FindTensorForHost(const HostTensor* host) const {
    auto it = host_to_tensor_.find(host);
    if (it == host_to_tensor_.end()) return std::nullopt;
    return it->second;
  }
  // A tensor created by the orchestration (pl.create_tensor).
  uint32_t NewDeviceTensor(const std::string& name, trace::DType dtype,
                           const std::vector<int64_t>& shape, bool manual_dep,
                           const trace::TensorInit& init, const std::string& origin);
  // Names a device-created tensor after the variable it is first assigned
  // to (`scratch = pl.create_tensor(...)`), so reports say `scratch`; later
  // bindings keep the first name, and a name already taken gets a suffix.
  // True when it named the tensor (its first binding).
  bool NameDeviceTensor(uint32_t id, const std::string& variable);
  const trace::Tensor& tensor(uint32_t id) const { return header_.tensors(id); }
  // A kernel's READ takes the tensor's values (Tensor.control).
  void MarkControl(uint32_t id) {
    header_.mutable_tensors(static_cast<int>(id))->set_control(true);
  }

  // Returns the id of an identical kernel if one exists, else adds it.
  uint32_t AddKernel(trace::Kernel kernel);
  const trace::Kernel& kernel(uint32_t id) const { return header_.kernels(id); }

  void AddRecord(trace::StreamRecord record) { records_.push_back(std::move(record)); }
  const std::vector<trace::StreamRecord>& records() const { return records_; }
  void set_platform(const std::string& platform) { header_.set_platform(platform); }
  trace::RingSizes* mutable_ring_sizes() { return header_.mutable_ring_sizes(); }

  const trace::StreamHeader& header() const { return header_; }
  trace::TraceText Finish() const;

 private:
  trace::StreamHeader header_;
  std::vector<trace::StreamRecord> records_;
  std::map<const HostTensor*, uint32_t> host_to_tensor_;
  absl::flat_hash_set<uint32_t> unnamed_device_tensors_;
  absl::flat_hash_set<std::string> tensor_names_;  // every name ever given a tensor
  std::map<std::string, uint32_t> kernel_by_content_;
  uint64_t next_addr_ = 0;
};

}  // namespace pto::ptoc

#endif  // PTO_FRONTEND_PROGRAM_BUILDER_H_
