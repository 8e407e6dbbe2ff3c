#include "common/tensor_fill.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(TensorFillTest, RandnIsDeterministicAndRoughlyStandard) {
  trace::TensorInit init;
  init.mutable_generator()->set_kind(trace::TensorInit::Generator::RANDN);
  init.mutable_generator()->set_seed(7);
  std::vector<float> a(20000), b(20000);
  ASSERT_TRUE(FillTensor(init, trace::FP32, a.size(), a.data()).ok());
  ASSERT_TRUE(FillTensor(init, trace::FP32, b.size(), b.data()).ok());
  EXPECT_EQ(a, b);
  double sum = 0, sum_sq = 0;
  for (float v : a) {
    sum += v;
    sum_sq += v * v;
  }
  EXPECT_NEAR(sum / a.size(), 0.0, 0.03);
  EXPECT_NEAR(sum_sq / a.size(), 1.0, 0.05);
}

TEST(TensorFillTest, DataMustMatchTheElementCount) {
  trace::TensorInit init;
  init.set_data(std::string(12, '\0'));
  std::vector<float> out(4);
  const absl::Status status = FillTensor(init, trace::FP32, out.size(), out.data());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("expected 16"), std::string::npos) << status;
}

TEST(TensorFillTest, FillConvertsToTheDtype) {
  trace::TensorInit init;
  init.mutable_fill()->set_value(-3);
  std::vector<int32_t> out(3);
  ASSERT_TRUE(FillTensor(init, trace::INT32, out.size(), out.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{-3, -3, -3}));
}

}  // namespace
}  // namespace pto
