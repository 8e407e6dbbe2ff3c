// The catalogue of rejected programs (issue #4): one small program per
// compile-time rule of pypto (cited in verifiers.h), each run through the ptoc
// binary, which must exit 2 with the rule's message at file:line:col.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "frontend/testing/compile.h"

namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

struct Rejected {
  const char* name;
  const char* body;     // the orchestration body of f, indented 4
  const char* message;  // a distinctive part of the diagnostic
};

// Tensors: a, b FP32 [64, 16]; g INT32 [1, 1]; u UINT8 [1, 1]; h INT32
// rank 6; out FP32 [64, 16]. `k` is an incore kernel, `mm` a cube one.
constexpr char kPrelude[] = R"(import pypto.language as pl
import torch
from pypto.runtime import RunConfig

A = torch.ones(64, 16)
G = torch.zeros(1, 1, dtype=torch.int32)
U = torch.zeros(1, 1, dtype=torch.uint8)
OUT = torch.zeros(64, 16)


@pl.jit.incore
def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    pl.store(pl.load(x, [0, 0], [8, 16]), [0, 0], y)


@pl.jit
def f(a: pl.Tensor, g: pl.Tensor, u: pl.Tensor, out: pl.Out[pl.Tensor]):
)";
constexpr char kEpilogue[] = R"(    return out


f(A, G, U, OUT)
)";

// A block-indexed SPMD body, for the cases whose point is elsewhere.
#define SPMD_BODY                                 \
  "        i = pl.tile.get_block_idx()\n"         \
  "        t = pl.load(a, [i * 8, 0], [8, 16])\n" \
  "        pl.store(t, [i * 8, 0], out)\n"
#define AT_BODY "        pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n"

const Rejected kCatalogue[] = {
    // ---- predicates (_validate_predicate_deps, ast_parser.py)
    {"PredicateNotAComparison", "    with pl.spmd(4, predicate=g) as t:\n" SPMD_BODY,
     "'pl.spmd()' predicate must be a single comparison (==, !=, >, <, >=, <=); got"},
    {"PredicateNone", "    with pl.spmd(4, predicate=None) as t:\n" SPMD_BODY,
     "got None (to dispatch unconditionally, omit predicate= entirely)"},
    {"PredicateFloatLiteral", "    with pl.spmd(4, predicate=(g[0, 0] > 0.5)) as t:\n" SPMD_BODY,
     "predicate must compare one tensor element (e.g. t[i]) against an integer literal"},
    {"PredicateBooleanCombination",
     "    with pl.spmd(4, predicate=(g[0, 0] > 0 and g[0, 0] < 3)) as t:\n" SPMD_BODY,
     "'and'/'or' cannot combine predicates"},
    {"PredicateChained", "    with pl.spmd(4, predicate=(0 < g[0, 0] < 8)) as t:\n" SPMD_BODY,
     "chained comparisons are not supported"},
    {"PredicateUnsignedOperand", "    with pl.spmd(4, predicate=(u[0, 0] > 0)) as t:\n" SPMD_BODY,
     "predicate operand must be a signed 8/16/32/64-bit integer tensor, got UINT8"},
    {"PredicateNegativeIndex", "    with pl.spmd(4, predicate=(g[-1, 0] > 0)) as t:\n" SPMD_BODY,
     "predicate index must be non-negative, got -1"},
    {"PredicateIndexCount", "    with pl.spmd(4, predicate=(g[0] > 0)) as t:\n" SPMD_BODY,
     "needs 2 index(es) to locate a single element of a rank-2 tensor, got 1"},
    {"PredicateNonIntegerIndex", "    with pl.spmd(4, predicate=(g[0.5, 0] > 0)) as t:\n" SPMD_BODY,
     "with integer indices"},
    {"PredicateProducerNotInDeps",
     "    with pl.at(level=pl.Level.CORE_GROUP) as prod:\n"
     "        pl.store(pl.load(g, [0, 0], [1, 1]), [0, 0], g)\n"
     "    with pl.spmd(4, predicate=(g[0, 0] > 0)) as t:\n" SPMD_BODY,
     "'pl.spmd()' predicate reads 'G', which is produced by the task bound to 'prod', but 'prod' "
     "is not in deps=. Add the producer to the dependency list: deps=[prod]"},
    {"PredicateOnPlAt",
     "    with pl.at(level=pl.Level.CORE_GROUP, predicate=(g[0, 0] > 0)):\n" AT_BODY,
     "Unknown keyword argument 'predicate' in pl.at()"},
    // ---- HardSyncallOccupancy (the first is the hard-barrier snippet of
    // hw-native-sys/pypto@e2d0f78a docs/en/user/performance/02-runtime-overhead.md as written)
    {"HardSyncallWithoutSyncStart",
     "    with pl.spmd(pl.system.available_aiv_count()):\n" SPMD_BODY
     "        pl.system.syncall(core_type=pl.KernelType.AIV)\n",
     "hard pl.system.syncall(core_type=\"aiv_only\") requires the SPMD launch to set "
     "sync_start=True so all blocks are co-resident at the FFTS barrier; without it the runtime "
     "may dispatch blocks in waves and the barrier deadlocks on device (507018). Add "
     "sync_start=True to the launch, or use mode=\"soft\" (GM-polling)."},
    {"HardSyncallSeedSnippetAsWritten",
     "    # Hard barrier (FFTS): no operands, but requires FULL occupancy\n"
     "    with pl.spmd(pl.system.available_aiv_count()):\n"
     "        ...\n"
     "        pl.system.syncall(core_type=pl.KernelType.AIV)\n"
     "        ...\n",
     "HardSyncallSeedSnippetAsWritten.py:19:5: error: hard pl.system.syncall(core_type="
     "\"aiv_only\") requires the SPMD launch to set sync_start=True"},
    {"HardSyncallPartialOccupancy",
     "    with pl.spmd(4, sync_start=True):\n" SPMD_BODY
     "        pl.system.syncall(core_type=pl.KernelType.AIV)\n",
     "hard pl.system.syncall(core_type=\"aiv_only\") requires the SPMD launch to fill all 48 AIV "
     "cores (one block per physical core), but the launch has 4 blocks. Use mode=\"soft\" "
     "(GM-polling) for partial occupancy."},
    {"HardSyncallWrongQuery",
     "    with pl.spmd(pl.system.available_cluster_count(), sync_start=True):\n" SPMD_BODY
     "        pl.system.syncall(core_type=pl.KernelType.AIV)\n",
     "but the launch sizes itself on pl.system.available_cluster_count(). Use "
     "pl.system.available_aiv_count() instead, or mode=\"soft\" (GM-polling) for partial "
     "occupancy."},
    {"HardSyncallUnsatisfiableCoreType",
     "    with pl.spmd(pl.system.available_aiv_count(), sync_start=True):\n" SPMD_BODY
     "        pl.system.syncall(core_type=pl.KernelType.MIX)\n",
     "hard pl.system.syncall(core_type=\"mix\") can never complete in a vector-only (AIV) launch: "
     "it waits for all CUBE cores"},
    {"HardSyncallWithWorkspace",
     "    with pl.spmd(pl.system.available_aiv_count(), sync_start=True):\n" SPMD_BODY
     "        pl.system.syncall(core_type=pl.KernelType.AIV, gm_workspace=g, used_cores=4)\n",
     "syncall(mode='hard') takes no gm_workspace/used_cores"},
    {"SyncallBadMode",
     "    with pl.spmd(4):\n" SPMD_BODY "        pl.system.syncall(mode=\"fast\")\n",
     "syncall mode must be 'hard' or 'soft', got"},
    // ---- soft syncall arguments
    {"SoftSyncallWithoutWorkspace",
     "    with pl.spmd(4):\n" SPMD_BODY
     "        pl.system.syncall(mode=pl.SyncAllMode.SOFT, core_type=pl.KernelType.AIV, "
     "used_cores=4)\n",
     "soft syncall requires gm_workspace (a shared, zero-initialized GM INT32 tensor)"},
    {"SoftSyncallWithoutUsedCores",
     "    ws = pl.create_tensor([16], pl.INT32, init_value=0)\n"
     "    with pl.spmd(4):\n" SPMD_BODY
     "        pl.system.syncall(mode=pl.SyncAllMode.SOFT, core_type=pl.KernelType.AIV, "
     "gm_workspace=ws)\n",
     "soft syncall requires explicit used_cores"},
    {"SoftSyncallWorkspaceTooSmall",
     "    with pl.spmd(4):\n" SPMD_BODY
     "        pl.system.syncall(mode=pl.SyncAllMode.SOFT, core_type=pl.KernelType.AIV, "
     "gm_workspace=g, used_cores=4)\n",
     "soft syncall gm_workspace must be an INT32 tensor of at least 16 elements"},
    {"SoftSyncallWorkspaceNotInt32",
     "    with pl.spmd(4):\n" SPMD_BODY
     "        pl.system.syncall(mode=pl.SyncAllMode.SOFT, core_type=pl.KernelType.AIV, "
     "gm_workspace=a, used_cores=4)\n",
     "but 'a' is FP32 with 1024 element(s)"},
    {"SoftSyncallUsedCoresOutOfRange",
     "    ws = pl.create_tensor([16], pl.INT32, init_value=0)\n"
     "    with pl.spmd(4):\n" SPMD_BODY
     "        pl.system.syncall(mode=pl.SyncAllMode.SOFT, core_type=pl.KernelType.AIV, "
     "gm_workspace=ws, used_cores=-1)\n",
     "soft syncall used_cores must be in the INT32 range [0, 2147483647], got -1"},
    // ---- scopes
    {"ManualInManual",
     "    with pl.manual_scope():\n        with pl.manual_scope():\n"
     "            pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n",
     "a manual scope may not be nested inside another manual scope"},
    {"AutoInManual",
     "    with pl.manual_scope():\n        with pl.scope():\n"
     "            pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n",
     "an AUTO scope may not be nested inside a manual scope"},
    {"HandPlacedAutoScope", "    with pl.scope():\n" AT_BODY,
     "a hand-placed AUTO 'with pl.scope()' requires @pl.jit(auto_scope=False)"},
    {"ManualScopeArguments", "    with pl.manual_scope(1):\n" AT_BODY,
     "pl.manual_scope() does not accept arguments"},
    // ---- deps= forms
    {"DepsEntryNotATaskId", "    with pl.spmd(4, deps=[1]) as t:\n" SPMD_BODY,
     "deps= entries must be a TaskId variable, a TASK_ID array element (e.g. arr[i]), or None"},
    {"DepsNotAList",
     "    with pl.at(level=pl.Level.CORE_GROUP) as t0:\n" AT_BODY
     "    with pl.at(level=pl.Level.CORE_GROUP, deps=t0):\n" AT_BODY,
     "deps= must be a list / tuple / comprehension of TaskId values"},
    {"DepsMixWholeArrayAndSlots",
     "    w = pl.array.create(2, pl.TASK_ID)\n"
     "    with pl.at(level=pl.Level.CORE_GROUP, deps=[w, w[0]]):\n" AT_BODY,
     "deps= cannot mix a whole TASK_ID array with per-element entries"},
    {"DepsOnSpmdWithoutTaskId",
     "    with pl.at(level=pl.Level.CORE_GROUP) as t0:\n" AT_BODY
     "    with pl.spmd(4, deps=[t0]):\n" SPMD_BODY,
     "pl.spmd() does not accept 'deps=' here"},
    {"DepsOnSpmdLoop",
     "    with pl.at(level=pl.Level.CORE_GROUP) as t0:\n" AT_BODY
     "    for i in pl.spmd(4, deps=[t0]):\n"
     "        pl.store(pl.load(a, [i * 8, 0], [8, 16]), [i * 8, 0], out)\n",
     "the loop form binds no TaskId"},
    {"DepsOnClosedScope",
     "    for j in pl.range(2):\n"
     "        with pl.at(level=pl.Level.CORE_GROUP) as t0:\n"
     "            pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n"
     "    with pl.at(level=pl.Level.CORE_GROUP, deps=[t0]):\n" AT_BODY,
     "Task dependency deps=[t0] cannot be honored: its TaskId is produced inside a scope that "
     "has already closed at this point"},
    {"DummyDepsOnClosedBranchScope",
     "    if True:\n"
     "        with pl.at(level=pl.Level.CORE_GROUP) as t1:\n"
     "            pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)\n"
     "    d = pl.system.task_dummy(deps=[t1])\n",
     "Task dependency deps=[t1] cannot be honored"},
    // ---- no_dep_args
    {"NoDepArgsNotAList", "    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=out):\n" AT_BODY,
     "pl.at(no_dep_args=...) must be a list literal of tensor names"},
    {"NoDepArgsNotATensor", "    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[1]):\n" AT_BODY,
     "pl.at(no_dep_args=...) entry is not a tensor (got type int)"},
    {"NoDepArgsDuplicate",
     "    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[out, out]):\n" AT_BODY,
     "pl.at(no_dep_args=...) lists 'out' more than once"},
    {"NoDepArgsNotCaptured",
     "    with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[g]):\n" AT_BODY,
     "pl.at(no_dep_args=...) lists 'g', which the task body never reads or writes"},
    {"NoDepInsideTaskBody",
     "    with pl.at(level=pl.Level.CORE_GROUP):\n        k(a, pl.no_dep(out))\n",
     "inside a pl.at / pl.spmd body use no_dep_args=[t] on the scope instead"},
    // ---- SPMD
    {"SpmdCoreNumMissing", "    with pl.spmd():\n" SPMD_BODY,
     "pl.spmd() requires core_num (first positional argument)"},
    {"SpmdCoreNumNotPositive", "    with pl.spmd(0):\n" SPMD_BODY,
     "core_num must be a positive integer, got 0"},
    {"SpmdCoreNumNotInteger", "    with pl.spmd(2.5):\n" SPMD_BODY,
     "core_num must be an integer expression, got float"},
    {"SpmdIdenticalBlocks", "    with pl.spmd(4):\n" AT_BODY,
     "body neither reads the per-block index via `pl.tile.get_block_idx()` nor dispatches a "
     "`self.<kernel>(...)` call, so every block would run identical work"},
    {"SpmdTwoKernels", "    with pl.spmd(4):\n        k(a, out)\n        k(a, out)\n",
     "dispatch body launches 2 kernels; only one kernel dispatch per SPMD scope is supported"},
    // ---- task_dummy
    {"TaskDummyWithoutDeps", "    d = pl.system.task_dummy()\n",
     "pl.system.task_dummy requires keyword argument 'deps'"},
    {"TaskDummyPositional", "    d = pl.system.task_dummy([])\n",
     "pl.system.task_dummy must not use positional arguments"},
    {"TaskDummyOtherKeyword", "    d = pl.system.task_dummy(deps=[], name_hint=\"x\")\n",
     "pl.system.task_dummy does not accept keyword argument 'name_hint'"},
    // ---- allow_early_resolve
    {"EarlyResolveNotALiteralOnAt",
     "    flag = True\n"
     "    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=flag):\n" AT_BODY,
     "pl.at() allow_early_resolve must be a boolean literal (True/False)"},
    {"EarlyResolveNotALiteralOnSpmd",
     "    flag = True\n"
     "    with pl.spmd(4, allow_early_resolve=flag):\n" SPMD_BODY,
     "pl.spmd() allow_early_resolve must be a boolean literal (True/False)"},
    // ---- optimizations
    {"CrossCoreSlotNotPositive",
     "    with pl.at(level=pl.Level.CORE_GROUP, "
     "optimizations=[pl.cross_core_slot(slot_num=0)]):\n" AT_BODY,
     "pl.cross_core_slot slot_num must be a positive integer, got 0"},
    // ---- pto_sim's per-block op-instance limit (TileExecutor)
    {"OpInstancesPastTheLimit",
     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
     "        for i in pl.range(1025):\n"
     "            for j in pl.range(1024):\n"
     "                t = pl.load(a, [0, 0], [8, 16])\n",
     "executes at least 1049600 op instances per block; its loop"},
};

struct Result {
  int exit_code = -1;
  std::string output;
};

Result RunPtoc(const std::string& path) {
  const std::string command = std::string(PTOC_BINARY) + " " + path + " -o " + path + ".pb 2>&1";
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Result Compile(const std::string& name, const std::string& program) {
  const std::string path = ::testing::TempDir() + "/" + name + ".py";
  std::ofstream(path) << program;
  Result r = RunPtoc(path);
  // Whatever ptoc accepts, pto_sim must read.
  if (r.exit_code == 0) {
    const absl::Status valid = pto::ptoc::ValidateStreamFile(path + ".pb");
    EXPECT_TRUE(valid.ok()) << valid;
  }
  return r;
}

class RejectedProgramTest : public ::testing::TestWithParam<Rejected> {};

TEST_P(RejectedProgramTest, ExitsTwoWithTheRuleMessageAtFileLineCol) {
  const Rejected& c = GetParam();
  const Result r = Compile(c.name, std::string(kPrelude) + c.body + kEpilogue);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(c.message));
  EXPECT_THAT(r.output, ContainsRegex(std::string(c.name) + "\\.py:[0-9]+:[0-9]+: error: "));
}

INSTANTIATE_TEST_SUITE_P(Catalogue, RejectedProgramTest, ::testing::ValuesIn(kCatalogue),
                         [](const ::testing::TestParamInfo<Rejected>& info) {
                           return std::string(info.param.name);
                         });

TEST(RejectedProgramCatalogue, HasAtLeastThirtyRules) {
  EXPECT_GE(sizeof(kCatalogue) / sizeof(kCatalogue[0]), 30u);
}

// Every rule's program differs from an accepted one only in the broken part:
// the prelude itself, with a well-formed task, compiles.
TEST(RejectedProgramCatalogue, ThePreludeCompiles) {
  const Result r = Compile("accepted", std::string(kPrelude) +
                                           "    with pl.spmd(4, deps=[None]) as t:\n" SPMD_BODY
                                           "    k(a, pl.no_dep(out))\n" +
                                           kEpilogue);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The cross-core ring needs a real mixed kernel: the [128, 128] FP32 tile
// that crosses from cube to vector takes 64 KB per slot (hw-native-sys/pypto@e2d0f78a
// docs/en/user/tutorials/03-mixed-kernel.md).
std::string MixedKernel(int slots) {
  return std::string(R"(import pypto.language as pl
import torch

A = torch.randn(128, 256, dtype=torch.float16)
B = torch.randn(256, 128, dtype=torch.float16)
BIAS = torch.randn(128, 128, dtype=torch.float32)


@pl.jit
def mixed(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=)") +
         std::to_string(slots) + R"()],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)
        out[:] = pl.add(acc, bias)
    return out


out = torch.zeros(128, 128, dtype=torch.float32)
mixed(A, B, BIAS, out)
)";
}

TEST(RejectedProgramCatalogue, CrossCoreRingOverTheVectorBudget) {
  const Result r = Compile("ring", MixedKernel(4));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // The page's worked numbers: 4 slots x 64 KB = 256 KB ring + a 32 KB half tile.
  EXPECT_THAT(r.output, HasSubstr("ring.py:11:5: error: Function 'mixed_at0': Vec buffer usage "
                                  "(294912 bytes) exceeds platform limit (188416 bytes). The "
                                  "first 262144 bytes of that space are reserved by "
                                  "system.reserve_buffer"));
  EXPECT_THAT(r.output, HasSubstr("this is the cross-core pipe ring (cube->vector, 4 slot(s) x "
                                  "65536 bytes). Lower its depth with "
                                  "optimizations=[pl.cross_core_slot(slot_num=N)]"));
}

TEST(RejectedProgramCatalogue, DefaultTwoSlotRingFits) {
  EXPECT_EQ(Compile("ring_ok", MixedKernel(2)).exit_code, 0);
}

}  // namespace
