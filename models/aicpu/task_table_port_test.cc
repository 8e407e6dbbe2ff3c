#include "models/aicpu/task_table_port.h"

#include <vector>

#include "gtest/gtest.h"
#include "models/aicpu/task_table.h"

namespace pto {
namespace {

class TaskTablePortTest : public ::testing::Test {
 protected:
  TaskTablePortTest() : tasks_([](Task&) {}), port_(&tasks_) {}

  Task& AddTask() {
    Task& task = tasks_.Create(tasks_.next_seq(), /*ring=*/0);
    task.name = "matmul";
    return task;
  }

  TaskTable tasks_;
  TaskTablePort port_;
};

TEST_F(TaskTablePortTest, BindsViewsFromTheirFirstByteAndScalarsByKind) {
  Task& task = AddTask();
  TaskArg view;
  view.is_tensor = true;
  view.view.base_addr = 0x4000;
  view.view.dtype = trace::FP16;
  view.view.ndims = 2;
  view.view.start_offset = 3 * 64 + 8;  // row 3, column 8 of a [16, 64] root
  view.view.shape[0] = 4;
  view.view.shape[1] = 32;
  view.view.strides[0] = 64;
  view.view.strides[1] = 1;
  TaskArg count;
  count.scalar_i = -7;
  TaskArg scale;
  scale.scalar_is_float = true;
  scale.scalar_f = 0.125;
  task.args = {view, count, scale};

  std::vector<BoundArg> args = {BoundArg::Int(99)};  // replaced, not appended to
  port_.StartBlock(task.seq, 1'000, &args);
  ASSERT_EQ(args.size(), 3u);
  ASSERT_EQ(args[0].kind, BoundArg::Kind::kTensor);
  EXPECT_EQ(args[0].tensor.gm_addr, 0x4000u + (3 * 64 + 8) * 2);
  EXPECT_EQ(args[0].tensor.dtype, trace::FP16);
  EXPECT_EQ(args[0].tensor.rank, 2);
  EXPECT_EQ(args[0].tensor.shape[0], 4);
  EXPECT_EQ(args[0].tensor.shape[1], 32);
  EXPECT_EQ(args[0].tensor.strides[0], 64);
  EXPECT_EQ(args[0].tensor.strides[1], 1);
  EXPECT_EQ(args[1].kind, BoundArg::Kind::kInt);
  EXPECT_EQ(args[1].i, -7);
  EXPECT_EQ(args[2].kind, BoundArg::Kind::kFloat);
  EXPECT_EQ(args[2].f, 0.125);
}

TEST_F(TaskTablePortTest, KeepsTheFirstStartAndTheLastEnd) {
  Task& task = AddTask();
  std::vector<BoundArg> args;
  port_.StartBlock(task.seq, 2'000, &args);
  port_.StartBlock(task.seq, 2'500, &args);  // a second block, later
  port_.EndBlock(task.seq, 4'000);
  port_.EndBlock(task.seq, 3'000);  // blocks may end out of order
  EXPECT_EQ(task.times.first_start, 2'000);
  EXPECT_EQ(task.times.last_end, 4'000);
}

TEST_F(TaskTablePortTest, NamesLiveTasksOnly) {
  const Task& task = AddTask();
  EXPECT_EQ(port_.Name(task.seq), "matmul");
  EXPECT_EQ(port_.Name(task.seq + 1), "?");
  port_.EndBlock(task.seq + 1, 0);  // a block of a retired task ends: ignored
}

}  // namespace
}  // namespace pto
