#include "sim/deps_writer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/testing/output_fixtures.h"

namespace pto {
namespace {

using ::pto::testing::Edge;
using ::pto::testing::FreshOutputDir;
using ::pto::testing::MakeTask;
using ::pto::testing::ReadWholeFile;
using ::pto::testing::TensorArgOf;

TEST(DepsTensorIdTest, IsFnv1aOverAddressThenVersion) {
  // The runtime's own example (dep-gen docs): buffer 29204938752 -> "1345...".
  EXPECT_EQ(DepsTensorId(29204938752ull), 13451765318376212391ull);
  EXPECT_EQ(DepsTensorId(0x1000), 5247134848181355493ull);
  EXPECT_NE(DepsTensorId(0x1000, 1), DepsTensorId(0x1000, 0));
}

TEST(DepsArgTypeNameTest, NoDepPrintsUnknownLikeTheRuntime) {
  EXPECT_STREQ(DepsArgTypeName(trace::INPUT), "INPUT");
  EXPECT_STREQ(DepsArgTypeName(trace::OUTPUT), "OUTPUT");
  EXPECT_STREQ(DepsArgTypeName(trace::INOUT), "INOUT");
  EXPECT_STREQ(DepsArgTypeName(trace::OUTPUT_EXISTING), "OUTPUT_EXISTING");
  EXPECT_STREQ(DepsArgTypeName(trace::NO_DEP), "UNKNOWN");
}

class DepsWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    trace::Tensor* x = header_.add_tensors();
    x->set_id(0);
    x->set_dtype(trace::FP32);
    x->set_size_bytes(64 * 4);
    x->set_gm_addr(0x1000);
    trace::Tensor* y = header_.add_tensors();
    y->set_id(1);
    y->set_dtype(trace::FP32);
    y->set_size_bytes(8 * 8 * 4);
    y->set_gm_addr(0x2000);
    trace::Kernel* k0 = header_.add_kernels();
    k0->set_id(0);
    k0->set_name("produce");
    trace::Kernel* k1 = header_.add_kernels();
    k1->set_id(1);
    k1->set_name("consume");
  }

  // Launch base seq 40: alloc t0 (creates y); AIC t1 writes x[0:32] and y;
  // dummy t2 waits explicitly on t1; AIV t3 (ring 2, manual scope) takes a
  // scalar, reads x[0:16] (tensormap edge from t1, overlap "other") and y as
  // NO_DEP (creator t0), and waits explicitly on t2.
  nlohmann::json Run(const std::string& dir) {
    LaunchLog log;
    DepsWriter writer(dir, "attn/case 1", header_, &log);
    EXPECT_TRUE(writer.Open().ok());
    auto submit = [&](const Task& t, std::vector<DepEdge> edges) {
      log.AddTask(t, edges, 0, 0);
      writer.OnTaskSubmitted(t, edges, 0, 0);
    };
    Task alloc = MakeTask(40, 0, "alloc", TaskShape::kAlloc);
    alloc.allow_early_resolve = true;  // as the orchestrator marks allocs
    submit(alloc, {});
    Task t1 = MakeTask(41, 1, "produce", TaskShape::kAic);
    t1.block_num = 4;
    t1.args = {TensorArgOf(0, 0x1000, trace::OUTPUT_EXISTING, 32),
               TensorArgOf(1, 0x2000, trace::INOUT, 8, 8)};
    submit(t1, {Edge(40, EdgeSource::kCreator, 1)});
    Task t2 = MakeTask(42, 2, "join", TaskShape::kDummy);
    t2.allow_early_resolve = true;
    submit(t2, {Edge(41, EdgeSource::kExplicit)});
    Task t3 = MakeTask(43, 3, "consume", TaskShape::kAiv, /*ring=*/2, /*local=*/0);
    t3.manual_scope = true;
    TaskArg scalar;
    scalar.scalar_i = 3;
    t3.args = {scalar, TensorArgOf(0, 0x1000, trace::INPUT, 16),
               TensorArgOf(1, 0x2000, trace::NO_DEP, 4, 8, /*start_offset=*/32)};
    DepEdge tm = Edge(41, EdgeSource::kTensorMap, 1);
    tm.overlap = Overlap::kOther;
    tm.producer_view = t1.args[0].view;
    submit(t3, {tm, Edge(40, EdgeSource::kCreator, 2), Edge(42, EdgeSource::kExplicit)});
    EXPECT_TRUE(writer.Finalize().ok());
    return nlohmann::json::parse(ReadWholeFile(dir + "/deps.json"));
  }

  trace::StreamHeader header_;
};

TEST_F(DepsWriterTest, TasksInSubmissionOrderWithStringIds) {
  const nlohmann::json j = Run(FreshOutputDir("deps_tasks"));
  const nlohmann::json& tasks = j["tasks"];
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(tasks[0]["task_id"], "0");
  EXPECT_EQ(tasks[0]["kernel_ids"], nlohmann::json({-1, -1, -1}));  // alloc
  EXPECT_EQ(tasks[0]["args"], nlohmann::json::array());
  EXPECT_EQ(tasks[0]["early_dispatch"], false);
  EXPECT_EQ(tasks[1]["kernel_ids"], nlohmann::json({0, -1, -1}));
  EXPECT_EQ(tasks[1]["block_num"], 4);
  EXPECT_EQ(tasks[1]["scope"], "auto");
  EXPECT_EQ(tasks[2]["kernel_ids"], nlohmann::json({-1, -1, -1}));  // dummy
  EXPECT_EQ(tasks[2]["early_dispatch"], true);
  EXPECT_EQ(tasks[3]["task_id"], std::to_string(uint64_t{2} << 32));
  EXPECT_EQ(tasks[3]["scope"], "manual");
  // The scalar is not a tensor arg: idx counts tensors only.
  const nlohmann::json& args = tasks[3]["args"];
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0], nlohmann::json::parse(
                         R"({"idx":0,"type":"INPUT","tensor_id":"5247134848181355493",
                             "dtype":"FLOAT32","shape":[16],"start_offset":"0","strides":[1]})"));
  EXPECT_EQ(args[1]["type"], "UNKNOWN");
  EXPECT_EQ(args[1]["shape"], nlohmann::json({4, 8}));
  EXPECT_EQ(args[1]["strides"], nlohmann::json({8, 1}));
  EXPECT_EQ(args[1]["start_offset"], "32");
}

TEST_F(DepsWriterTest, TensorsOncePerBufferWithStorageElements) {
  const nlohmann::json j = Run(FreshOutputDir("deps_tensors"));
  EXPECT_EQ(j["tensors"], nlohmann::json::parse(R"([
      {"tensor_id":"5247134848181355493","buffer_addr":"4096","version":0,
       "dtype":"FLOAT32","buffer_numel":"64"},
      {"tensor_id":")" + std::to_string(DepsTensorId(0x2000)) +
                                                R"(","buffer_addr":"8192","version":0,
       "dtype":"FLOAT32","buffer_numel":"64"}])"));
}

TEST_F(DepsWriterTest, EdgesCarrySourceFlagsAndGeometry) {
  const nlohmann::json j = Run(FreshOutputDir("deps_edges"));
  const nlohmann::json& e = j["edges"];
  ASSERT_EQ(e.size(), 5u);
  // Creator edge t0 -> t1 on tensor arg 1.
  EXPECT_EQ(e[0]["pred"], "0");
  EXPECT_EQ(e[0]["succ"], "1");
  EXPECT_EQ(e[0]["arg"], 1);
  EXPECT_EQ(e[0]["source"], "creator");
  EXPECT_EQ(e[0]["flags"], nlohmann::json({"wait", "retain"}));
  EXPECT_EQ(e[0]["consumer_shape"], nlohmann::json({8, 8}));
  EXPECT_FALSE(e[0].contains("overlap"));
  EXPECT_FALSE(e[0].contains("producer_shape"));
  // Explicit edge: arg -1 and no tensor fields.
  EXPECT_EQ(e[1], nlohmann::json::parse(
                      R"({"pred":"1","succ":"2","arg":-1,"source":"explicit",
                          "flags":["wait","retain"]})"));
  // Tensormap edge: task arg 1 is tensor arg 0; both geometries.
  const std::string t3 = std::to_string(uint64_t{2} << 32);
  EXPECT_EQ(e[2], nlohmann::json::parse(R"({"pred":"1","succ":")" + t3 +
                                        R"(","arg":0,"source":"tensormap",
                          "flags":["wait"],"overlap":"other",
                          "tensor_id":"5247134848181355493","consumer_dtype":"FLOAT32",
                          "consumer_shape":[16],"consumer_start_offset":"0",
                          "consumer_strides":[1],"producer_shape":[32],
                          "producer_start_offset":"0","producer_strides":[1]})"));
  EXPECT_EQ(e[3]["arg"], 1);
  EXPECT_EQ(e[3]["source"], "creator");
  EXPECT_EQ(e[3]["consumer_start_offset"], "32");
  EXPECT_EQ(e[4]["pred"], "2");
}

TEST_F(DepsWriterTest, UnreportedProducerFailsInsteadOfWritingAWrongId) {
  const std::string dir = FreshOutputDir("deps_unknown");
  {
    LaunchLog log;
    DepsWriter writer(dir, "x", header_, &log);
    ASSERT_TRUE(writer.Open().ok());
    Task t = MakeTask(5, 5, "late", TaskShape::kAiv);  // tasks 0..4 were never reported
    const std::vector<DepEdge> edges = {Edge(3, EdgeSource::kExplicit)};
    log.AddTask(t, edges, 0, 0);
    writer.OnTaskSubmitted(t, edges, 0, 0);
    const absl::Status s = writer.Finalize();
    EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("1 edges name a producer"));
  }
  EXPECT_TRUE(::pto::testing::ListDir(dir).empty());  // temporaries gone too
}

TEST_F(DepsWriterTest, NameMapNamesKernelsAndTheLaunch) {
  const std::string dir = FreshOutputDir("deps_name_map");
  Run(dir);
  // Characters that do not belong in a file name become '_'.
  const nlohmann::json m = nlohmann::json::parse(ReadWholeFile(dir + "/name_map_attn_case_1.json"));
  EXPECT_EQ(m, nlohmann::json::parse(
                   R"({"level":2,"orchestrator_name":"attn/case 1",
                       "callable_id_to_name":{"0":"produce","1":"consume"}})"));
  EXPECT_THAT(::pto::testing::ListDir(dir),
              ::testing::ElementsAre("deps.json", "name_map_attn_case_1.json"));
}

TEST(NameMapFileNameTest, ShortNamesKeepTheirLettersLongOnesGainAHash) {
  EXPECT_EQ(NameMapFileName("gated"), "name_map_gated.json");
  EXPECT_EQ(NameMapFileName(""), "name_map_run.json");
  EXPECT_EQ(NameMapFileName("a b/c"), "name_map_a_b_c.json");
  const std::string long_a(300, 'a');
  const std::string long_b = std::string(299, 'a') + "b";
  const std::string file_a = NameMapFileName(long_a);
  EXPECT_EQ(file_a.size(), std::string("name_map_").size() + 80 + 1 + 16 + 5);
  EXPECT_EQ(file_a.rfind("name_map_" + std::string(80, 'a') + "-", 0), 0u);
  EXPECT_NE(file_a, NameMapFileName(long_b));
  EXPECT_EQ(file_a, NameMapFileName(long_a));  // stable
}

}  // namespace
}  // namespace pto
