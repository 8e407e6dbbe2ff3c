// The bad-input catalogue (bad_inputs/cases.yaml): every hostile input runs
// through the real command line in its own process, under a time and memory
// bound, and must end with the expected exit code and a message naming the
// location. One ctest per case (bad_input_catalogue/Case.Rejects/<name>).

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/trace_writer.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/testing/cli_runner.h"
#include "yaml-cpp/yaml.h"

namespace pto {
namespace {

using ::pto::testing::CliResult;
using ::pto::testing::FreshDir;
using ::pto::testing::ReadFile;
using ::pto::testing::RunCli;
using ::testing::HasSubstr;

const std::string kSource = PTO_SOURCE_DIR;

// Sanitizer builds reserve terabytes of shadow memory: no address-space cap there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCapMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCapMemory = false;
#else
constexpr bool kCapMemory = true;
#endif
#else
constexpr bool kCapMemory = true;
#endif
constexpr int kMaxSeconds = 60;
constexpr int kMaxMemoryKiB = 4 << 20;  // 4 GiB of address space

struct Case {
  std::string name;
  YAML::Node node;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  const YAML::Node root = YAML::LoadFile(kSource + "/bad_inputs/cases.yaml");
  for (const YAML::Node& node : root) cases.push_back({node["name"].as<std::string>(), node});
  return cases;
}

std::string Binary(const std::string& name) {
  if (name == "pto_sim") return PTO_SIM_BINARY;
  if (name == "ptoc") return PTOC_BINARY;
  if (name == "stress_trace_gen") return STRESS_TRACE_GEN_BINARY;
  if (name == "python") return PTO_PYTHON;  // Debian's, with the build's pypto first
  ADD_FAILURE() << "unknown program " << name;
  return name;
}

// The input file's bytes, from the case's `input` mapping:
//   text: literal text; hex: raw bytes (for what YAML cannot hold);
//   base: a file of the repository, with `replace` [old, new] pairs applied;
//   nest: {head, open, times, middle, close, tail} = head + open*times +
//         middle + close*times + tail (deep nesting without a huge file).
std::string InputBytes(const YAML::Node& input) {
  std::string bytes;
  if (input["text"]) bytes = input["text"].as<std::string>();
  if (input["hex"])
    bytes =
        absl::HexStringToBytes(absl::StrReplaceAll(input["hex"].as<std::string>(), {{" ", ""}}));
  if (input["base"]) bytes = ReadFile(kSource + "/" + input["base"].as<std::string>());
  for (const YAML::Node& pair : input["replace"]) {
    const std::string from = pair[0].as<std::string>(), to = pair[1].as<std::string>();
    EXPECT_THAT(bytes, HasSubstr(from)) << "stale case: the base no longer contains this text";
    bytes = absl::StrReplaceAll(bytes, {{from, to}});
  }
  if (const YAML::Node nest = input["nest"]) {
    std::string text = nest["head"].as<std::string>("");
    const int times = nest["times"].as<int>();
    for (int i = 0; i < times; ++i) text += nest["open"].as<std::string>();
    text += nest["middle"].as<std::string>("");
    for (int i = 0; i < times; ++i) text += nest["close"].as<std::string>("");
    text += nest["tail"].as<std::string>("");
    bytes = text;
  }
  return bytes;
}

// Binary traces are made from a text trace, then damaged:
//   encode: true writes the (edited) text trace as the binary stream;
//   keep: N keeps the first N bytes (negative: drops the last -N).
std::string BinaryTrace(const std::string& text, const YAML::Node& input) {
  trace::TraceText trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  const std::string path = FreshDir("encode") + "/encoded.pb";
  auto writer = TraceWriter::Create(path, trace.header());
  EXPECT_TRUE(writer.ok());
  for (const auto& record : trace.records()) EXPECT_TRUE((*writer)->Write(record).ok());
  EXPECT_TRUE((*writer)->Finish().ok());
  std::string bytes = ReadFile(path);
  if (input["keep"]) {
    const int keep = input["keep"].as<int>();
    bytes.resize(keep >= 0 ? keep : bytes.size() + keep);
  }
  return bytes;
}

// Raw bytes around any input: prepend_hex / append_hex.
std::string Wrap(const std::string& bytes, const YAML::Node& input) {
  auto hex = [&](const char* key) {
    return absl::HexStringToBytes(absl::StrReplaceAll(input[key].as<std::string>(""), {{" ", ""}}));
  };
  return hex("prepend_hex") + bytes + hex("append_hex");
}

// The case's exit code and messages.
void Expect(const YAML::Node& c, const CliResult& result, const std::string& input_path) {
  const std::string what = c["what"].as<std::string>("");
  EXPECT_EQ(result.exit_code, c["exit"].as<int>()) << what << "\nstderr:\n" << result.err;
  for (const YAML::Node& message : c["stderr"]) {
    EXPECT_THAT(result.err, HasSubstr(absl::StrReplaceAll(message.as<std::string>(),
                                                          {{"{input}", input_path}})))
        << what;
  }
  for (const YAML::Node& message : c["stdout"]) {
    EXPECT_THAT(result.out, HasSubstr(message.as<std::string>())) << what;
  }
  if (c["exit"].as<int>() != 0) {
    EXPECT_THAT(result.err, ::testing::Not(HasSubstr("internal error"))) << what;
  }
}

class Catalogue : public ::testing::TestWithParam<Case> {};

// Whether Debian's interpreter imports torch (the python cases need it).
bool PythonHasTorch() {
  static const bool has = RunCli(PTO_PYTHON, {"-c", "import torch"}).exit_code == 0;
  return has;
}

TEST_P(Catalogue, Rejects) {
  const YAML::Node& c = GetParam().node;
  if (c["run"][0].as<std::string>() == "python" && !PythonHasTorch()) {
    GTEST_SKIP() << PTO_PYTHON << " cannot import torch (apt-get install python3-torch)";
  }
  const std::string dir = FreshDir("case_" + GetParam().name);
  std::string input_path;
  if (const YAML::Node input = c["input"]) {
    std::string bytes = InputBytes(input);
    if (input["encode"].as<bool>(false)) bytes = BinaryTrace(bytes, input);
    bytes = Wrap(bytes, input);
    input_path = dir + "/" + input["file"].as<std::string>();
    if (input["symlink_to_self"].as<bool>(false)) {
      std::filesystem::create_symlink(input_path, input_path);
    } else if (input["fifo"].as<bool>(false)) {
      // A FIFO nobody writes: opening it for reading would block for ever.
      ASSERT_EQ(mkfifo(input_path.c_str(), 0600), 0) << input_path;
    } else if (input["directory"].as<bool>(false)) {
      // An (empty) directory, with `mode` as its permissions.
      std::filesystem::create_directory(input_path);
      std::filesystem::permissions(
          input_path, static_cast<std::filesystem::perms>(
                          std::stoi(input["mode"].as<std::string>("0755"), nullptr, /*base=*/8)));
    } else {
      std::ofstream(input_path, std::ios::binary) << bytes;
    }
  }
  std::vector<std::string> args;
  for (const YAML::Node& arg : c["run"]) {
    args.push_back(absl::StrReplaceAll(
        arg.as<std::string>(), {{"{input}", input_path}, {"{repo}", kSource}, {"{tmp}", dir}}));
  }
  ASSERT_FALSE(args.empty());
  // Bounded: a hang is killed by timeout (exit 124), a runaway allocation fails.
  std::string script =
      absl::StrCat(kCapMemory ? absl::StrCat("ulimit -v ", kMaxMemoryKiB, "; ") : "",
                   "exec timeout ", kMaxSeconds, " \"$0\" \"$@\"");
  std::vector<std::string> wrapped = {"-c", script, Binary(args[0])};
  wrapped.insert(wrapped.end(), args.begin() + 1, args.end());
  // unprivileged: permissions must apply, so as root the command runs as
  // nobody (the case directory is opened up to it).
  if (c["unprivileged"].as<bool>(false) && geteuid() == 0) {
    if (!std::filesystem::exists("/usr/bin/setpriv")) {
      GTEST_SKIP() << "running as root without setpriv (apt-get install util-linux)";
    }
    std::filesystem::permissions(dir, std::filesystem::perms::all);
    const std::vector<std::string> as_nobody = {"--reuid=nobody", "--regid=nogroup",
                                                "--clear-groups"};
    // nobody must reach the binary, the repository's inputs and the case
    // directory: not so when the checkout sits under a private home.
    std::vector<std::string> probe = as_nobody;
    probe.insert(probe.end(),
                 {"/bin/sh", "-c", "test -x \"$0\" && test -r \"$1\" && test -x \"$2\"",
                  Binary(args[0]), kSource + "/configs/ascend.yaml", dir});
    if (RunCli("/usr/bin/setpriv", probe).exit_code != 0) {
      GTEST_SKIP() << "running as root, and user nobody cannot reach " << Binary(args[0])
                   << ", the repository or " << dir << " (a checkout under a private home)";
    }
    wrapped.insert(wrapped.begin(), "/bin/sh");
    wrapped.insert(wrapped.begin(), as_nobody.begin(), as_nobody.end());
    const CliResult result = RunCli("/usr/bin/setpriv", wrapped);
    Expect(c, result, input_path);
    return;
  }
  const CliResult result = RunCli("/bin/sh", wrapped);
  Expect(c, result, input_path);
}

INSTANTIATE_TEST_SUITE_P(BadInput, Catalogue, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace pto
