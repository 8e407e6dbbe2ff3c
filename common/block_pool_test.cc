#include "common/block_pool.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(BlockPoolTest, ElementsKeepTheirPlaceAsThePoolGrows) {
  BlockPool<int64_t, 4> pool;
  EXPECT_EQ(pool.Add(), 0u);
  pool[0] = 42;
  const int64_t* first = &pool[0];
  for (uint32_t i = 1; i < 10; ++i) {
    EXPECT_EQ(pool.Add(), i);
    EXPECT_EQ(pool[i], 0);  // value-initialised
    pool[i] = i * 10;
  }
  EXPECT_EQ(pool.size(), 10u);
  EXPECT_EQ(&pool[0], first);  // three blocks later, not moved
  EXPECT_EQ(pool[0], 42);
  EXPECT_EQ(pool[9], 90);
  const BlockPool<int64_t, 4>& view = pool;
  EXPECT_EQ(view[5], 50);
  pool.clear();
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(pool.Add(), 0u);
  EXPECT_EQ(pool[0], 0);
}

}  // namespace
}  // namespace pto
