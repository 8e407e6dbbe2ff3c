#include "frontend/reference.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/dtype.h"
#include "models/chip_config.h"
#include "models/core/flat_gm_port.h"
#include "models/core/kernel_program.h"
#include "models/core/tile_executor.h"

namespace pto::ptoc {
namespace {

bool PredicateHolds(const trace::Predicate& p, const trace::Tensor& t,
                    const std::vector<uint8_t>& gm) {
  int64_t flat = 0;
  for (int d = 0; d < t.shape_size(); ++d) flat = flat * t.shape(d) + p.indices(d);
  const uint8_t* elem = gm.data() + t.gm_addr() + flat * DTypeSize(t.dtype());
  const int64_t v = LoadAsInt64(t.dtype(), elem);  // sign-extended for signed types
  switch (p.op()) {
    case trace::Predicate::EQ:
      return v == p.target();
    case trace::Predicate::NE:
      return v != p.target();
    case trace::Predicate::GT:
      return v > p.target();
    case trace::Predicate::LT:
      return v < p.target();
    case trace::Predicate::GE:
      return v >= p.target();
    case trace::Predicate::LE:
      return v <= p.target();
    default:
      return true;
  }
}

class TileExecutorReference : public ReferenceEvaluator {
 public:
  TileExecutorReference() : executor_(config_) {}

  absl::Status RunLaunch(const trace::StreamHeader& header,
                         const std::vector<trace::StreamRecord>& launch,
                         std::vector<uint8_t>* gm) override {
    FlatGmPort port(0, gm->size());
    port.bytes() = *gm;
    for (const auto& record : launch) {
      if (!record.has_submit()) continue;
      const trace::Submit& s = record.submit();
      if (s.has_predicate() &&
          !PredicateHolds(s.predicate(), header.tensors(s.predicate().tensor_id()), port.bytes())) {
        continue;  // retired without running, as on the device
      }
      int kid = -1;
      for (int k : s.kernel_ids()) kid = std::max(kid, k);
      if (kid < 0) continue;
      auto phases = Phases(header, kid);
      if (!phases.ok()) return phases.status();
      std::vector<BoundArg> args;
      for (const auto& a : s.args()) {
        if (a.has_scalar()) {
          args.push_back(a.scalar().value_case() == trace::ScalarArg::kF
                             ? BoundArg::Float(a.scalar().f())
                             : BoundArg::Int(a.scalar().i()));
          continue;
        }
        const trace::Tensor& t = header.tensors(a.tensor().tensor_id());
        TensorBinding b;
        b.dtype = t.dtype();
        b.rank = t.shape_size();
        int64_t stride = 1;
        for (int d = b.rank - 1; d >= 0; --d) {
          b.strides[d] = stride;
          stride *= t.shape(d);
        }
        int64_t offset = 0;
        for (int d = 0; d < b.rank; ++d) {
          b.shape[d] = a.tensor().shape_size() ? a.tensor().shape(d) : t.shape(d);
          if (a.tensor().offsets_size()) offset += a.tensor().offsets(d) * b.strides[d];
        }
        b.gm_addr = t.gm_addr() + offset * DTypeSize(t.dtype());
        args.push_back(BoundArg::Tensor(b));
      }
      int64_t blocks = s.block_num();
      if (s.blocks_case() == trace::Submit::kBlockSymbol) {
        blocks =
            s.block_symbol() == trace::AVAILABLE_AIV ? config_.aiv_count() : config_.aic_count();
      }
      // Blocks run in index order, phase by phase: every block reaches a
      // barrier before any block passes it.
      for (const CompiledKernel& phase : **phases) {
        for (int64_t b = 0; b < blocks; ++b) {
          BlockContext block;
          block.block_idx = b;
          block.block_num = blocks;
          absl::Status st =
              executor_.Execute(phase, block, args, /*functional=*/true, &port, &profile_);
          if (!st.ok()) {
            return absl::InvalidArgumentError(
                absl::StrCat(s.origin(), ": reference evaluation of task '", s.name(), "' block ",
                             b, " failed: ", st.message()));
          }
          if (!port.status().ok()) {
            return absl::InvalidArgumentError(
                absl::StrCat(s.origin(), ": task '", s.name(),
                             "' accessed GM out of range: ", port.status().message()));
          }
        }
      }
    }
    *gm = std::move(port.bytes());
    return absl::OkStatus();
  }

 private:
  // The kernel split at its top-level syncalls into phases (one phase when
  // it has none); a syncall inside a device loop cannot be split and runs as
  // one phase, block after block.
  absl::StatusOr<const std::vector<CompiledKernel>*> Phases(const trace::StreamHeader& header,
                                                            int kid) {
    auto it = kernels_.find(kid);
    if (it != kernels_.end()) return &it->second;
    const trace::Kernel& kernel = header.kernels(kid);
    std::vector<trace::Kernel> parts;
    if (kernel.has_program()) {
      trace::Kernel current = kernel;
      current.mutable_program()->clear_ops();
      for (const trace::Op& op : kernel.program().ops()) {
        if (op.kind() == trace::Op::SYNCALL) {
          parts.push_back(current);
          current.mutable_program()->clear_ops();
          continue;
        }
        *current.mutable_program()->add_ops() = op;
      }
      parts.push_back(current);
    } else {
      parts.push_back(kernel);
    }
    std::vector<CompiledKernel> compiled;
    for (const trace::Kernel& part : parts) {
      auto c = CompileKernel(part);
      if (!c.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            kernel.origin(), ": the reference cannot run kernel '", kernel.name(), "'",
            parts.size() > 1 ? " split at its syncalls (a tile used across a barrier?)" : "", ": ",
            c.status().message()));
      }
      compiled.push_back(std::move(*c));
    }
    return &kernels_.emplace(kid, std::move(compiled)).first->second;
  }

  ChipConfig config_;
  TileExecutor executor_;
  ExecutionProfile profile_;
  std::map<int, std::vector<CompiledKernel>> kernels_;
};

}  // namespace

std::unique_ptr<ReferenceEvaluator> MakeTileExecutorReference() {
  return std::make_unique<TileExecutorReference>();
}

}  // namespace pto::ptoc
