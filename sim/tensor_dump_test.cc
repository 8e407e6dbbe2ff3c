#include "sim/tensor_dump.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace pto {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TensorDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/tensor_dump_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    AddTensor("a", trace::FP32, {2, 3}, 0x1000);
    AddTensor("idx", trace::INT32, {4}, 0x2000);
  }
  void AddTensor(const std::string& name, trace::DType dtype, std::vector<int64_t> shape,
                 uint64_t addr) {
    trace::Tensor* t = header_.add_tensors();
    t->set_id(static_cast<uint32_t>(header_.tensors_size() - 1));
    t->set_name(name);
    t->set_dtype(dtype);
    int64_t n = 1;
    for (int64_t d : shape) {
      t->add_shape(d);
      n *= d;
    }
    t->set_gm_addr(addr);
    t->set_size_bytes(static_cast<uint64_t>(n) * 4);
    memory_.AddRegion(addr, t->size_bytes(), name, /*allocate=*/true);
  }

  std::string dir_;
  trace::StreamHeader header_;
  MemoryImage memory_;
};

TEST_F(TensorDumpTest, WritesEachTensorsFinalBytesAndAnIndex) {
  const std::vector<float> a = {1.5f, -2, 3, 4, 5, 6.25f};
  const std::vector<int32_t> idx = {7, -8, 9, 10};
  ASSERT_TRUE(memory_.Write(0x1000, a.data(), 24).ok());
  ASSERT_TRUE(memory_.Write(0x2000, idx.data(), 16).ok());
  ASSERT_TRUE(WriteTensorDump(dir_, header_, memory_, /*with_contents=*/true).ok());

  const nlohmann::json index = nlohmann::json::parse(ReadFile(dir_ + "/tensors.json"));
  ASSERT_EQ(index["tensors"].size(), 2u);
  EXPECT_EQ(index["tensors"][0]["name"], "a");
  EXPECT_EQ(index["tensors"][0]["dtype"], "FP32");
  EXPECT_EQ(index["tensors"][0]["shape"], nlohmann::json({2, 3}));
  EXPECT_EQ(index["tensors"][1]["dtype"], "INT32");
  const std::string a_bytes = ReadFile(dir_ + "/" + index["tensors"][0]["file"].get<std::string>());
  ASSERT_EQ(a_bytes.size(), 24u);
  std::vector<float> back(6);
  std::memcpy(back.data(), a_bytes.data(), 24);
  EXPECT_EQ(back, a);
  const std::string i_bytes = ReadFile(dir_ + "/" + index["tensors"][1]["file"].get<std::string>());
  std::vector<int32_t> idx_back(4);
  ASSERT_EQ(i_bytes.size(), 16u);
  std::memcpy(idx_back.data(), i_bytes.data(), 16);
  EXPECT_EQ(idx_back, idx);
}

TEST_F(TensorDumpTest, TimingOnlyListsTheTensorsWithoutContents) {
  ASSERT_TRUE(WriteTensorDump(dir_, header_, memory_, /*with_contents=*/false).ok());
  const nlohmann::json index = nlohmann::json::parse(ReadFile(dir_ + "/tensors.json"));
  ASSERT_EQ(index["tensors"].size(), 2u);
  EXPECT_TRUE(index["tensors"][0]["file"].is_null());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/0.bin"));
}

TEST_F(TensorDumpTest, AnUnwritableDirectoryIsAnError) {
  const std::string file = dir_ + "_file";
  std::ofstream(file) << "x";
  const absl::Status s = WriteTensorDump(file + "/sub", header_, memory_, true);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot create the tensors directory"), std::string::npos) << s;
}

TEST_F(TensorDumpTest, ChosenIdsOnlyInTheirOrder) {
  ASSERT_TRUE(WriteTensorDump(dir_, header_, memory_, true, {1}).ok());
  const nlohmann::json index = nlohmann::json::parse(ReadFile(dir_ + "/tensors.json"));
  ASSERT_EQ(index["tensors"].size(), 1u);
  EXPECT_EQ(index["tensors"][0]["id"], 1);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/1.bin"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/0.bin"));
}

}  // namespace
}  // namespace pto
