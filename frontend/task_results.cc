// What a pl.at / pl.spmd body leaves behind in the orchestration's names.
//
// A tile the body bound to a name that the orchestration reads later is a
// value crossing tasks. PyPTO outlines each scope into a function whose
// results are such values, returned as tensors (upstream hw-native-sys/pypto
// examples/advanced/03_mixed_kernel.py, staged_matmul_bias: `acc` of the
// cube scope is the vector scope's input). ptoc does the same: the value
// gets an intermediate GM tensor that the producing task stores (a runtime
// allocated OUTPUT of its submit) and later tasks load; the orchestrator
// orders them by creator retention like any task output.
//
// A pl.Out parameter the body rebinds to a tile without ever writing it is
// a kernel that writes nothing to its output; upstream rejects it at code
// generation (PartialCodegenError, examples/utils/error_handling.py).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontend/interpreter.h"
#include "frontend/status_macros.h"
#include "frontend/tile_ops.h"

namespace pto::ptoc {

absl::Status Interpreter::FinishTaskBody(const std::shared_ptr<Env>& env, bool spmd) {
  KernelBuilder& k = *kernel_;
  std::vector<std::pair<std::string, std::shared_ptr<Tile>>> tiles;
  for (const auto& [name, value] : env->vars()) {
    auto tile = value.AsShared<Tile>();
    if (tile && tile->kernel() == k.serial()) tiles.emplace_back(name, tile);
  }
  for (const auto& [name, tile] : tiles) {
    const SourceLocation at = k.AssignedAt(name).value_or(current_loc_);
    if (env.get() == launch_env_) {
      auto out = out_params_.find(name);
      if (out != out_params_.end() && !k.WritesTensor(out->second->tensor_id())) {
        return Error(at, absl::StrCat("'", name, "' is a pl.Out parameter of '", launch_->name(),
                                      "', but this task rebinds the name to a tile and never "
                                      "stores into the tensor, so the task writes nothing to '",
                                      name, "'; store the tile (pl.store(t, offsets, ", name,
                                      ") or ", name, "[:] = t), or give the tile its own name"));
      }
    }
    if (!MayReadLater(name)) continue;
    if (spmd) {
      return Error(at, absl::StrCat("'", name,
                                    "' is a tile of a pl.spmd body, which every block computes "
                                    "for itself, but it is read after the task; store each "
                                    "block's part into a tensor (e.g. pl.store(",
                                    name,
                                    ", [pl.tile.get_block_idx() * ROWS, 0], out)) and read "
                                    "that tensor instead"));
    }
    const uint32_t id = program_.NewDeviceTensor(absl::StrCat(launch_->name(), "_", name),
                                                 tile->dtype(), tile->shape(), /*manual_dep=*/false,
                                                 trace::TensorInit(), Origin(at));
    program_.NameDeviceTensor(id, name);
    auto ref =
        std::make_shared<TensorRef>(id, program_.tensor(id).name(), tile->dtype(), tile->shape());
    k.AddIntermediate(id);
    const std::vector<Value> origin(tile->shape().size(), Value::Int(0));
    PTOC_RETURN_IF_ERROR(EmitStore(this, tile, origin, ref, /*atomic_add=*/false, at));
    env->Set(name, Value::Obj(ref));
  }
  return absl::OkStatus();
}

}  // namespace pto::ptoc
