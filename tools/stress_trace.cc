// Writes the synthetic stress trace of the speed issue: N single-block tasks,
// each with 1-4 distinct explicit predecessors drawn uniformly from the
// previous 64 (all of them when fewer precede it; task 0 has none), AIC with
// probability 1/3 (else AIV), each a fixed-cycles cost summary uniform in
// 500-5000 AICore cycles. Kernels are shared (one per cycle count and core
// type, 9002 in all) so the header stays small; tasks are grouped into scopes
// so no ring overflows (a dependency on a task that already retired is
// satisfied). Timing-only: no tensors at all.
//
// With --regions R, every task instead runs one small op program on a
// tensor of its own, `work<i mod R>` of 64 FP32 (INOUT: load it, add 1,
// store it), so the hazard detector has one GM region per task to track.
// The tasks touching one tensor are chained through the tensor map on top
// of the drawn dependencies. (Separate tensors, not rows of one: the
// runtime's tensor map walks one chain per buffer, so rows of one buffer
// would charge each submit for every live row.)
//
//   stress_trace --tasks 1000000 --seed 42 -o stress_1m.pb
//   stress_trace --tasks 1000000 --seed 42 --regions 4096 -o stress_1m_regions.pb

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "CLI/CLI.hpp"
#include "common/trace_writer.h"
#include "proto/stream_version.h"

namespace {

constexpr int64_t kMinCycles = 500;
constexpr int64_t kMaxCycles = 5000;
constexpr int kWindow = 64;        // predecessors come from the last 64 tasks
constexpr int kScopeTasks = 4096;  // tasks per scope

int Main(int argc, char** argv) {
  int64_t tasks = 1000000;
  uint64_t seed = 42;
  std::string output = "stress_1m.pb";
  int64_t regions = 0;
  CLI::App app{"Write the synthetic stress task stream (timing-only)."};
  app.add_option("--tasks", tasks, "number of tasks")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
  app.add_option("--seed", seed, "random seed");
  app.add_option("--regions", regions, "tensors the tasks touch, one each (0: no tensor)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  app.add_option("-o,--output", output, "output .pb");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Bad arguments exit 2, as every pto_sim tool does for bad input.
    return app.exit(e) == 0 ? 0 : 2;
  }

  pto::trace::StreamHeader header;
  header.set_version(pto::kTaskStreamVersion);
  header.set_platform("a2a3");
  header.set_source("tools/stress_trace.cc");
  header.set_timing_only(true);
  constexpr int kCosts = kMaxCycles - kMinCycles + 1;  // kernel id = type * kCosts + offset
  for (int type = 0; type < 2; ++type) {
    for (int64_t cycles = kMinCycles; cycles <= kMaxCycles; ++cycles) {
      pto::trace::Kernel* kernel = header.add_kernels();
      kernel->set_id(header.kernels_size() - 1);
      kernel->set_name((type == 0 ? "aic_" : "aiv_") + std::to_string(cycles));
      kernel->set_core_type(type == 0 ? pto::trace::AIC : pto::trace::AIV);
      kernel->mutable_cost()->set_fixed_cycles(cycles);
    }
  }
  constexpr int64_t kRowElements = 64;
  const int touch_kernel = header.kernels_size();
  if (regions > 0) {
    for (int64_t r = 0; r < regions; ++r) {
      pto::trace::Tensor* work = header.add_tensors();
      work->set_id(static_cast<uint32_t>(r));
      work->set_name("work" + std::to_string(r));
      work->set_dtype(pto::trace::FP32);
      work->add_shape(1);
      work->add_shape(kRowElements);
      work->set_gm_addr(static_cast<uint64_t>(r * kRowElements * 4));
      work->set_size_bytes(static_cast<uint64_t>(kRowElements * 4));
    }
    pto::trace::Kernel* kernel = header.add_kernels();
    kernel->set_id(touch_kernel);
    kernel->set_name("touch_row");
    kernel->set_core_type(pto::trace::AIV);
    pto::trace::KernelProgram* program = kernel->mutable_program();
    pto::trace::KernelParam* param = program->add_params();
    param->set_name("row");
    param->set_kind(pto::trace::KernelParam::TENSOR);
    param->set_dtype(pto::trace::FP32);
    param->set_direction(pto::trace::KernelParam::INOUT);
    for (const char* name : {"t", "u"}) {
      pto::trace::TileDecl* tile = program->add_tiles();
      tile->set_name(name);
      tile->add_shape(1);
      tile->add_shape(kRowElements);
      tile->set_dtype(pto::trace::FP32);
      tile->set_space(pto::trace::VEC);
    }
    pto::trace::Op* load = program->add_ops();
    load->set_kind(pto::trace::Op::LOAD);
    load->set_dst(0);
    load->set_param(0);
    pto::trace::Op* add = program->add_ops();
    add->set_kind(pto::trace::Op::ADD);
    add->set_dst(1);
    add->add_srcs(0);
    add->mutable_scalar()->set_literal(1);
    pto::trace::Op* store = program->add_ops();
    store->set_kind(pto::trace::Op::STORE);
    store->add_srcs(1);
    store->set_param(0);
    for (pto::trace::Op* op : {load, store}) {
      op->add_offsets()->set_constant(0);
      op->add_offsets()->set_constant(0);
    }
  }
  auto writer = pto::TraceWriter::Create(output, header);
  if (!writer.ok()) {
    std::cerr << "stress_trace: " << writer.status().message() << "\n";
    return 2;
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> preds(1, 4);
  std::uniform_int_distribution<int> cost(0, kCosts - 1);
  std::uniform_int_distribution<int> is_aic(0, 2);

  pto::trace::StreamRecord record;
  auto write = [&](const pto::trace::StreamRecord& r) {
    absl::Status status = (*writer)->Write(r);
    if (!status.ok()) {
      std::cerr << "stress_trace: " << status.message() << "\n";
      std::exit(2);
    }
  };
  record.mutable_launch_begin()->set_name("stress");
  write(record);
  for (int64_t i = 0; i < tasks; ++i) {
    if (i % kScopeTasks == 0) {
      if (i > 0) {
        record.Clear();
        record.mutable_scope_end()->set_depth(1);
        write(record);
      }
      record.Clear();
      record.mutable_scope_begin()->set_depth(1);
      write(record);
    }
    record.Clear();
    pto::trace::Submit* submit = record.mutable_submit();
    const bool aic = is_aic(random) == 0;
    const int kernel = (aic ? 0 : kCosts) + cost(random);
    submit->set_name(aic ? "aic_work" : "aiv_work");
    submit->add_kernel_ids(aic ? kernel : -1);
    submit->add_kernel_ids(aic ? -1 : kernel);
    submit->add_kernel_ids(-1);
    submit->set_block_num(1);
    submit->set_scope_depth(1);
    if (regions > 0) {
      submit->set_name("touch_row");
      submit->set_kernel_ids(0, -1);
      submit->set_kernel_ids(1, touch_kernel);
      pto::trace::TensorArg* arg = submit->add_args()->mutable_tensor();
      arg->set_tensor_id(static_cast<uint32_t>(i % regions));
      arg->set_direction(pto::trace::INOUT);
    }
    if (i > 0) {
      // Distinct predecessors among the previous min(i, 64) tasks.
      const int64_t window = std::min<int64_t>(i, kWindow);
      const int n = static_cast<int>(std::min<int64_t>(preds(random), window));
      std::uniform_int_distribution<int64_t> back(1, window);
      int64_t chosen[4];
      for (int p = 0; p < n; ++p) {
        int64_t dep;
        do {
          dep = i - back(random);
        } while (std::find(chosen, chosen + p, dep) != chosen + p);
        chosen[p] = dep;
        submit->add_deps(static_cast<uint32_t>(dep));
      }
    }
    write(record);
  }
  record.Clear();
  record.mutable_scope_end()->set_depth(1);
  write(record);
  record.Clear();
  record.mutable_launch_end();
  write(record);
  absl::Status status = (*writer)->Finish();
  if (!status.ok()) {
    std::cerr << "stress_trace: " << status.message() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
