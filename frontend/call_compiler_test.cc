#include "frontend/call_compiler.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/testing/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

// A script as the pypto package hands it over: line 1-3 the harness
// (blanked), the kernel at lines 4-9, then the prelude after the end.
constexpr int kCallLine = 2;  // the harness called the kernel from line 2
std::string ScriptText(const std::string& op) {
  std::vector<std::string> lines = {
      "",
      "scaled_copy(a, c, config=RunConfig(platform='a2a3sim'))",
      "",
      "@pl.jit",
      "def scaled_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):",
      "    with pl.at(level=pl.Level.CORE_GROUP):",
      absl::StrCat("        pl.store(", op, "(pl.load(a, [0, 0], [ROWS, 8]), SCALE), [0, 0], c)"),
      "    return c",
      "",
      "",
      "import pypto.language as pl",
      "import torch",
      "from pypto.runtime import RunConfig",
      "ROWS = 4",
      "SCALE = 2.0",
  };
  return absl::StrJoin(lines, "\n") + "\n";
}

CallRequest Request(const std::string& op, const std::vector<float>& a) {
  CallRequest request;
  request.source_name = "script.py";
  request.source_text = ScriptText(op);
  request.call_line = kCallLine;
  request.prelude_line = 11;
  for (const char* name : {"a", "c"}) {
    CallTensor t;
    t.name = name;
    t.dtype = trace::FP32;
    t.shape = {4, 8};
    t.has_contents = true;
    t.bytes.assign(32 * sizeof(float), '\0');
    if (std::string(name) == "a") std::memcpy(t.bytes.data(), a.data(), t.bytes.size());
    request.tensors.push_back(t);
  }
  return request;
}

TEST(CompileCall, TheCallRunsAfterTheDefinitionsItPrecedesInTheFile) {
  std::vector<float> a(32);
  for (int i = 0; i < 32; ++i) a[i] = static_cast<float>(i) - 3.5f;
  auto trace = CompileCall(Request("pl.mul", a), nullptr, {});
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(ValidateForPtoSim(*trace, "script.py").ok());
  ASSERT_EQ(trace->header().tensors_size(), 2);
  EXPECT_EQ(trace->header().tensors(0).name(), "a");
  // The argument's contents are the caller's bytes.
  std::vector<float> init(32);
  const trace::TensorInit& contents = trace->header().tensors(0).init();
  ASSERT_TRUE(contents.has_data());
  ASSERT_EQ(contents.data().size(), 32 * sizeof(float));
  std::memcpy(init.data(), contents.data().data(), contents.data().size());
  EXPECT_EQ(init, a);
  int launches = 0;
  for (const auto& r : trace->records()) launches += r.has_launch_begin();
  EXPECT_EQ(launches, 1);
}

TEST(CompileCall, TimingOnlyDropsTheContents) {
  CompileOptions options;
  options.timing_only = true;
  auto trace = CompileCall(Request("pl.mul", std::vector<float>(32, 1.0f)), nullptr, options);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->header().timing_only());
  EXPECT_FALSE(trace->header().tensors(0).has_init());
}

TEST(CompileCall, AKernelErrorNamesTheUsersLineAndColumn) {
  auto trace = CompileCall(Request("pl.no_such_op", std::vector<float>(32)), nullptr, {});
  ASSERT_FALSE(trace.ok());
  EXPECT_THAT(trace.status().message(), HasSubstr("script.py:7:21: error: pl.no_such_op"));
}

class ReadCallRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/call_request_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/args.bin", std::ios::binary) << std::string(16, '\x01');
  }
  absl::StatusOr<CallRequest> Read(const std::string& tensors_json, const std::string& extra = "") {
    const std::string path = dir_ + "/request.json";
    std::ofstream(path) << "{\"source_name\": \"k.py\", \"source_text\": \"x = 1\\n\", "
                        << "\"call_line\": 1, \"prelude_line\": 3, \"data_file\": \"args.bin\", "
                        << extra << "\"tensors\": " << tensors_json << "}";
    return ReadCallRequest(path);
  }
  std::string dir_;
};

TEST_F(ReadCallRequestTest, ReadsTensorsAndTheirBytes) {
  auto request = Read(
      R"([{"name": "a", "dtype": "INT32", "shape": [2, 2], "offset": 0, "nbytes": 16},
          {"name": "m", "dtype": "BF16", "shape": [8], "offset": 0, "nbytes": null}])");
  ASSERT_TRUE(request.ok()) << request.status();
  ASSERT_EQ(request->tensors.size(), 2u);
  EXPECT_EQ(request->tensors[0].dtype, trace::INT32);
  EXPECT_EQ(request->tensors[0].bytes, std::string(16, '\x01'));
  EXPECT_FALSE(request->tensors[1].has_contents);
  EXPECT_EQ(request->call_line, 1);
}

TEST_F(ReadCallRequestTest, BadFieldsAreNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {R"([{"name": "a", "dtype": "FP33", "shape": [2], "nbytes": null}])",
       "tensors[0].dtype: unknown dtype 'FP33'"},
      {R"([{"name": "a", "dtype": "INT32", "shape": [2, 2], "offset": 0, "nbytes": 8}])",
       "tensors[0].nbytes: 8 bytes for 16 bytes of shape and dtype"},
      {R"([{"name": "a", "dtype": "INT32", "shape": [4, 2], "offset": 0, "nbytes": 32}])",
       "tensors[0]: bytes [0, 32) beyond the data file's 16"},
      {R"([{"name": "a", "dtype": "INT32", "shape": [-1]}])",
       "tensors[0].shape: expected non-negative integers"},
      {R"({"a": 1})", "tensors: expected an array"},
  };
  for (const auto& [tensors, message] : cases) {
    auto request = Read(tensors);
    ASSERT_FALSE(request.ok()) << tensors;
    EXPECT_THAT(request.status().message(), HasSubstr(message)) << tensors;
  }
}

TEST_F(ReadCallRequestTest, SegmentsAreReadAndCheckedField) {
  auto good = Read("[]", R"("segments": [{"first_line": 3, "lines": 2, "file": "ops.py",
                                          "file_first_line": 1}], )");
  ASSERT_TRUE(good.ok()) << good.status();
  ASSERT_EQ(good->segments.size(), 1u);
  EXPECT_EQ(good->segments[0].file, "ops.py");
  EXPECT_EQ(good->segments[0].lines, 2);
  auto bad = Read("[]", R"("segments": [{"first_line": 3, "lines": 0, "file": "ops.py",
                                         "file_first_line": 1}], )");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("segments[0]: expected {first_line, lines, file, file_first_line}"));
}

TEST_F(ReadCallRequestTest, AMissingLineIsNamed) {
  const std::string path = dir_ + "/request.json";
  std::ofstream(path) << R"({"source_name": "k.py", "source_text": ""})";
  auto request = ReadCallRequest(path);
  ASSERT_FALSE(request.ok());
  EXPECT_THAT(request.status().message(), HasSubstr("call_line: expected a line number >= 1"));
  std::ofstream(path) << "not json";
  EXPECT_THAT(ReadCallRequest(path).status().message(), HasSubstr("expected a JSON object"));
}

// ptoc's fuzzer (fuzz/ptoc_fuzzer.cc) compiles its input as the kernels of
// the call k(a, out): every committed seed must compile that way, or the
// fuzzer would start from errors only.
TEST(CompileCall, EveryFuzzSeedCompilesAsTheFuzzerCallsIt) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PTO_FUZZ_SEEDS_DIR)) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<CallTensor> tensors(2);
    for (size_t i = 0; i < tensors.size(); ++i) {
      tensors[i].name = i == 0 ? "a" : "out";
      tensors[i].dtype = trace::FP32;
      tensors[i].shape = {64, 64};
    }
    CompileOptions options;
    options.timing_only = true;
    auto trace = CompileCall(
        RequestForSource(entry.path().filename().string(), text, "k(a, out)", std::move(tensors)),
        nullptr, options);
    ASSERT_TRUE(trace.ok()) << trace.status();
    int submits = 0;
    for (const auto& r : trace->records()) submits += r.has_submit();
    EXPECT_GT(submits, 0) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 4);
}

}  // namespace
}  // namespace pto::ptoc
