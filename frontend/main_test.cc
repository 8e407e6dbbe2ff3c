// End-to-end tests of the ptoc command line: exit codes and diagnostics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "frontend/testing/compile.h"
#include "proto/stream_version.h"
#include "proto/task_stream.pb.h"

namespace {

using ::testing::HasSubstr;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

// Runs a shell command line; its stdout and stderr together.
Result Shell(const std::string& command) {
  Result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Result RunPtoc(const std::string& args) { return Shell(std::string(PTOC_BINARY) + " " + args); }

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(PtocMainTest, CompilesToALengthDelimitedStreamAndExitsZero) {
  const std::string src =
      WriteFile("ok.py",
                "import pypto.language as pl\nimport torch\n"
                "@pl.jit\n"
                "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                "    for i in pl.spmd(2):\n"
                "        pl.store(pl.load(a, [i * 8, 0], [8, 8]), [i * 8, 0], out)\n"
                "    return out\n"
                "out = torch.zeros(16, 8)\n"
                "f(torch.ones(16, 8), out)\n");
  const std::string out = ::testing::TempDir() + "/ok.pb";
  Result r = RunPtoc(src + " -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(pto::ptoc::ValidateStreamFile(out).ok()) << pto::ptoc::ValidateStreamFile(out);
  std::ifstream in(out, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 2u);
  // The first message is the header, prefixed by its varint length.
  size_t len = 0, shift = 0, pos = 0;
  while (pos < bytes.size()) {
    const unsigned char c = bytes[pos++];
    len |= size_t(c & 0x7f) << shift;
    shift += 7;
    if (!(c & 0x80)) break;
  }
  pto::trace::StreamHeader header;
  ASSERT_TRUE(header.ParseFromString(bytes.substr(pos, len)));
  EXPECT_EQ(header.version(), pto::kTaskStreamVersion);
  EXPECT_EQ(header.tensors_size(), 2);

  Result text = RunPtoc(src + " -o " + out + "txt --pbtxt");
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(pto::ptoc::ValidateStreamFile(out + "txt").ok())
      << pto::ptoc::ValidateStreamFile(out + "txt");
  std::ifstream txt(out + "txt");
  std::string content((std::istreambuf_iterator<char>(txt)), std::istreambuf_iterator<char>());
  EXPECT_THAT(content, HasSubstr("block_num: 2"));
}

TEST(PtocMainTest, DslErrorsExitTwoWithFileLineColumnSourceAndCaret) {
  const std::string src = WriteFile("bad.py",
                                    "import pypto.language as pl\nimport torch\n"
                                    "@pl.jit\n"
                                    "def f(out: pl.Out[pl.Tensor]):\n"
                                    "    x = 1\n"
                                    "    while x:\n"
                                    "        pass\n"
                                    "    return out\n"
                                    "f(torch.zeros(4, 4))\n");
  const std::string out = ::testing::TempDir() + "/bad.pb";
  Result r = RunPtoc(src + " -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("bad.py:6:5: error: 'while' loops are not supported"));
  EXPECT_THAT(r.output, HasSubstr("\n    while x:\n    ^"));
  EXPECT_FALSE(std::ifstream(out).good()) << "a failed run leaves no stream";
}

// The script is Python: its own exceptions end ptoc with exit 2 and the
// traceback, and a script that launches nothing is a warning.
TEST(PtocMainTest, AScriptsExceptionExitsTwoWithItsTraceback) {
  const std::string src = WriteFile("raises.py",
                                    "def helper():\n"
                                    "    raise ValueError('no weights for layer 3')\n"
                                    "helper()\n");
  const std::string out = ::testing::TempDir() + "/raises.pb";
  Result r = RunPtoc(src + " -o " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("Traceback (most recent call last)"));
  EXPECT_THAT(r.output, HasSubstr("raises.py\", line 2, in helper"));
  EXPECT_THAT(r.output, HasSubstr("ValueError: no weights for layer 3"));
  EXPECT_THAT(r.output, HasSubstr("raises.py: error: the script exited 1"));
  EXPECT_FALSE(std::ifstream(out).good());

  const std::string idle = WriteFile("idle.py", "x = sum(range(10))\n");
  Result warned = RunPtoc(idle + " -o " + out);
  EXPECT_EQ(warned.exit_code, 0) << warned.output;
  EXPECT_THAT(warned.output, HasSubstr("idle.py: warning: the script launched no kernel"));
  EXPECT_TRUE(pto::ptoc::ValidateStreamFile(out).ok());
}

// The tests' fork server (PTOC_PYTHON, frontend/testing/python_zygote.py)
// must be indistinguishable from a fresh /usr/bin/python3: the same output
// and exit for a script that prints, reads its argv and __file__, exits
// through sys.exit, raises, and registers an atexit handler.
TEST(PtocMainTest, TheForkServerRunsAScriptAsAFreshInterpreterDoes) {
  const char* zygote = std::getenv("PTOC_PYTHON");
  if (zygote == nullptr || *zygote == '\0') GTEST_SKIP() << "not run through the fork server";
  const std::string dir = ::testing::TempDir();
  const std::vector<std::pair<std::string, std::string>> scripts = {
      {"prints.py",
       "import atexit, os, sys\n"
       "atexit.register(lambda: print('atexit ran', flush=True))\n"
       "print('name', __name__, os.path.basename(__file__), os.path.basename(sys.argv[0]))\n"
       "print('cwd has me', os.path.exists(os.path.basename(__file__)))\n"
       "print('path0 is my dir', sys.path[0] == os.path.dirname(os.path.abspath(__file__)))\n"},
      {"exits.py", "import sys\nprint('before')\nsys.exit(7)\n"},
      {"says.py", "import sys\nsys.exit('a message on stderr')\n"},
      {"raises.py", "def f():\n    raise KeyError('k')\nf()\n"},
  };
  for (const auto& [name, text] : scripts) {
    const std::string src = WriteFile("zygote_" + name, text);  // not another test's file
    const std::string ptoc = std::string(PTOC_BINARY) + " " + src + " -o " + dir + "/zygote.pb";
    const Result served = Shell("cd " + dir + " && " + ptoc);
    const Result fresh = Shell("cd " + dir + " && PTOC_PYTHON= " + ptoc);
    EXPECT_EQ(served.exit_code, fresh.exit_code) << name;
    EXPECT_EQ(served.output, fresh.output) << name;
  }
}

TEST(PtocMainTest, TimingOnlyWritesAHeaderWithoutContentsOrChecks) {
  const std::string src =
      WriteFile("timing.py",
                "import pypto.language as pl\nimport torch\n"
                "@pl.jit\n"
                "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                "    for i in pl.spmd(2):\n"
                "        pl.store(pl.load(a, [i * 8, 0], [8, 8]), [i * 8, 0], out)\n"
                "    return out\n"
                "a = torch.randn(16, 8)\n"
                "out = torch.zeros(16, 8)\n"
                "f(a, out)\n"
                "torch.testing.assert_close(out, a)\n");
  const std::string out = ::testing::TempDir() + "/timing.pbtxt";
  Result r = RunPtoc(src + " -o " + out + " --pbtxt --timing-only");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(pto::ptoc::ValidateStreamFile(out).ok()) << pto::ptoc::ValidateStreamFile(out);
  std::ifstream txt(out);
  std::string content((std::istreambuf_iterator<char>(txt)), std::istreambuf_iterator<char>());
  EXPECT_THAT(content, HasSubstr("timing_only: true"));
  EXPECT_THAT(content, HasSubstr("block_num: 2"));
  EXPECT_THAT(content, ::testing::Not(HasSubstr("check")));
  EXPECT_THAT(content, ::testing::Not(HasSubstr("randn")));
}

TEST(PtocMainTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunPtoc("").exit_code, 2);
  EXPECT_EQ(RunPtoc("a.py").exit_code, 2);  // no -o
  Result missing = RunPtoc("/nonexistent/k.py -o /tmp/x.pb");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output,
              HasSubstr("/nonexistent/k.py: no such file; expected a PyPTO script"));
  EXPECT_EQ(RunPtoc("a.py -o b.pb --frobnicate").exit_code, 2);
}

TEST(PtocMainTest, HelpAndVersionGoToStdoutAndExitZero) {
  for (const char* flag : {"--help", "-h"}) {
    Result help = RunPtoc(std::string(flag) + " 2>/dev/null");
    EXPECT_EQ(help.exit_code, 0) << flag;
    EXPECT_THAT(help.output, HasSubstr("usage: ptoc FILE.py -o OUT.pb")) << flag;
    EXPECT_THAT(help.output, ::testing::Not(HasSubstr("error"))) << flag;
  }
  Result version = RunPtoc("--version 2>/dev/null");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.output,
              ::testing::ContainsRegex(
                  "^ptoc [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ([0-9a-f]+(-dirty)?|unknown)\\), "
                  "task stream version " +
                  std::to_string(pto::kTaskStreamVersion) + "\n$"));
}

}  // namespace
