#include "models/core/buffer_capacity.h"

#include "absl/strings/str_cat.h"
#include "common/dtype.h"

namespace pto {
namespace {

// The space's name on the device and the key that sizes it.
struct SpaceInfo {
  const char* device_name;
  const char* key;
};

SpaceInfo InfoOf(trace::MemSpace space) {
  switch (space) {
    case trace::VEC:
      return {"UB", "core.ub_bytes"};
    case trace::MAT:
      return {"L1", "core.l1_bytes"};
    case trace::ACC:
      return {"L0C", "core.l0c_bytes"};
    case trace::LEFT:
      return {"L0A", "core.l0a_bytes"};
    case trace::RIGHT:
      return {"L0B", "core.l0b_bytes"};
    case trace::BIAS:
      return {"BT", "core.bt_bytes"};
    default:
      return {"?", "?"};
  }
}

}  // namespace

int64_t SpaceCapacityBytes(trace::MemSpace space, const CoreParams& core) {
  switch (space) {
    case trace::VEC:
      return core.ub_bytes;
    case trace::MAT:
      return core.l1_bytes;
    case trace::ACC:
      return core.l0c_bytes;
    case trace::LEFT:
      return core.l0a_bytes;
    case trace::RIGHT:
      return core.l0b_bytes;
    case trace::BIAS:
      return core.bt_bytes;
    default:
      return 0;
  }
}

absl::Status CheckTileCapacities(const CompiledKernel& kernel, const CoreParams& core) {
  for (size_t i = 0; i < kernel.tiles.size(); ++i) {
    const CompiledTile& tile = kernel.tiles[i];
    const int64_t capacity = SpaceCapacityBytes(tile.space, core);
    const int64_t bytes = tile.elements() * static_cast<int64_t>(DTypeSize(tile.dtype));
    if (capacity <= 0 || bytes <= capacity) continue;
    const SpaceInfo info = InfoOf(tile.space);
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", kernel.name, "'", kernel.origin.empty() ? "" : " (", kernel.origin,
                     kernel.origin.empty() ? "" : ")", ": tile ", i, " ('", tile.name, "') is ",
                     tile.rows, " x ", tile.cols, " ", DTypeName(tile.dtype), ", ", bytes,
                     " bytes, larger than its space ", trace::MemSpace_Name(tile.space), " (",
                     info.device_name, ", ", info.key, " = ", capacity, "); use a smaller tile"));
  }
  return absl::OkStatus();
}

}  // namespace pto
