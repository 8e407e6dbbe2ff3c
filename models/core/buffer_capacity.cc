#include "models/core/buffer_capacity.h"

#include <map>
#include <utility>

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
  return CheckBufferFootprints(kernel, core);
}

absl::Status CheckBufferFootprints(const CompiledKernel& kernel, const CoreParams& core) {
  // Per (space, buffer): its largest member; a split kernel's vector lanes
  // each hold half of every Vec tile.
  std::map<std::pair<trace::MemSpace, uint32_t>, int64_t> largest;
  for (size_t i = 0; i < kernel.tiles.size() && i < kernel.tile_buffers.size(); ++i) {
    const CompiledTile& tile = kernel.tiles[i];
    int64_t bytes = tile.elements() * static_cast<int64_t>(DTypeSize(tile.dtype));
    if (tile.space == trace::VEC && kernel.split != trace::SPLIT_NONE) bytes /= 2;
    int64_t& slot = largest[{tile.space, kernel.tile_buffers[i]}];
    slot = std::max(slot, bytes);
  }
  std::map<trace::MemSpace, std::pair<int64_t, int>> used;  // bytes, buffers
  for (const auto& [key, bytes] : largest) {
    used[key.first].first += bytes;
    ++used[key.first].second;
  }
  for (const auto& [space, footprint] : used) {
    const int64_t capacity = SpaceCapacityBytes(space, core);
    if (capacity <= 0 || footprint.first <= capacity) continue;
    const SpaceInfo info = InfoOf(space);
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", kernel.name, "'", kernel.origin.empty() ? "" : " (", kernel.origin,
        kernel.origin.empty() ? "" : ")", ": its ", footprint.second, " ",
        trace::MemSpace_Name(space), " buffers (TileDecl.buffer) hold ", footprint.first,
        " bytes, more than the space (", info.device_name, ", ", info.key, " = ", capacity,
        "); share buffers between tiles whose lifetimes do not overlap (ptoc plans them), or "
        "use smaller tiles"));
  }
  return absl::OkStatus();
}

}  // namespace pto
