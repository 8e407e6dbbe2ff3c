#ifndef PTO_COMMON_BLOCK_POOL_H_
#define PTO_COMMON_BLOCK_POOL_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace pto {

// A growable array of T in fixed blocks of `kBlock`: growing never moves an
// element, and memory follows the count instead of doubling past it (a
// vector's growth holds up to twice what it needs, and copies it all at
// once). For pools whose elements are recycled through a free list by
// index.
template <typename T, uint32_t kBlock = 512>
class BlockPool {
 public:
  T& operator[](uint32_t index) { return blocks_[index / kBlock][index % kBlock]; }
  const T& operator[](uint32_t index) const { return blocks_[index / kBlock][index % kBlock]; }
  uint32_t size() const { return size_; }
  // Appends a value-initialised element; returns its index.
  uint32_t Add() {
    if (size_ % kBlock == 0) blocks_.push_back(std::make_unique<T[]>(kBlock));
    return size_++;
  }
  void clear() {
    blocks_.clear();
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  uint32_t size_ = 0;
};

}  // namespace pto

#endif  // PTO_COMMON_BLOCK_POOL_H_
