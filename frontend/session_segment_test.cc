// ToSessionSegment on a hand-built call stream.
#include "frontend/session_segment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;

// A call's own stream: tensors 0..2 at 0, 1 KiB, 2 KiB; kernels 0 and 1;
// one launch whose submit reads 0, writes 2 and is gated on 1.
trace::TraceText CallStream() {
  trace::TraceText text;
  trace::StreamHeader* h = text.mutable_header();
  h->set_version(7);
  h->set_source("script.py");
  h->mutable_ring_sizes()->add_task_window(64);
  for (int i = 0; i < 3; ++i) {
    trace::Tensor* t = h->add_tensors();
    t->set_id(static_cast<uint32_t>(i));
    t->set_name(std::string(1, static_cast<char>('a' + i)));
    t->set_dtype(trace::FP32);
    t->add_shape(256);
    t->set_gm_addr(static_cast<uint64_t>(i) * 1024);
    t->set_size_bytes(1024);
    t->mutable_init()->mutable_fill()->set_value(i);
  }
  for (int k = 0; k < 2; ++k) {
    trace::Kernel* kernel = h->add_kernels();
    kernel->set_id(static_cast<uint32_t>(k));
    kernel->set_name(k == 0 ? "k0" : "k1");
  }
  text.add_records()->mutable_launch_begin()->add_arg_tensor_ids(0);
  text.mutable_records(0)->mutable_launch_begin()->add_arg_tensor_ids(1);
  trace::Submit* s = text.add_records()->mutable_submit();
  s->add_kernel_ids(-1), s->add_kernel_ids(1), s->add_kernel_ids(-1);
  s->add_args()->mutable_tensor()->set_tensor_id(0);
  s->add_args()->mutable_scalar()->set_i(5);
  s->add_args()->mutable_tensor()->set_tensor_id(2);
  s->mutable_predicate()->set_tensor_id(1);
  text.add_records()->mutable_alloc()->add_tensor_ids(2);
  text.add_records()->mutable_launch_end();
  text.add_records()->mutable_check()->set_tensor_id(1);
  return text;
}

TEST(SessionSegmentTest, NewTensorsAndKernelsFollowTheScriptsAndKnownOnesKeepTheirPlace) {
  trace::TraceText text = CallStream();
  SessionState state;
  state.first = false;
  state.next_tensor_id = 10;
  state.next_kernel_id = 4;
  state.next_gm_addr = 0x20000;
  // `a` is held and unchanged; `b` is held and the host changed it.
  const std::vector<KnownTensor> known = {{0, 7, 0x9000, false}, {1, 3, 0x5000, true}};
  std::vector<PlacedTensor> placed;
  ASSERT_TRUE(ToSessionSegment(known, &state, &text, &placed).ok());

  // The header keeps what a first segment writes, nothing declared.
  EXPECT_EQ(text.header().tensors_size(), 0);
  EXPECT_EQ(text.header().kernels_size(), 0);
  EXPECT_FALSE(text.header().has_ring_sizes());
  ASSERT_TRUE(text.records(0).has_declare());
  const trace::Declare& declare = text.records(0).declare();
  ASSERT_EQ(declare.tensors_size(), 2);
  // b re-declared where the chip holds it, with the host's contents.
  EXPECT_EQ(declare.tensors(0).id(), 3u);
  EXPECT_EQ(declare.tensors(0).gm_addr(), 0x5000u);
  EXPECT_EQ(declare.tensors(0).init().fill().value(), 1);
  // c new: the next id, above the script's addresses at its own offset.
  EXPECT_EQ(declare.tensors(1).id(), 10u);
  EXPECT_EQ(declare.tensors(1).gm_addr(), 0x20000u + 2048);
  ASSERT_EQ(declare.kernels_size(), 2);
  EXPECT_EQ(declare.kernels(0).id(), 4u);
  EXPECT_EQ(declare.kernels(1).id(), 5u);

  // Every record names the script's ids; the launch carries the ring sizes.
  const trace::LaunchBegin& begin = text.records(1).launch_begin();
  EXPECT_THAT(begin.arg_tensor_ids(), ElementsAre(7, 3));
  EXPECT_THAT(begin.ring_sizes().task_window(), ElementsAre(64));
  const trace::Submit& submit = text.records(2).submit();
  EXPECT_THAT(submit.kernel_ids(), ElementsAre(-1, 5, -1));
  EXPECT_EQ(submit.args(0).tensor().tensor_id(), 7u);
  EXPECT_EQ(submit.args(1).scalar().i(), 5);
  EXPECT_EQ(submit.args(2).tensor().tensor_id(), 10u);
  EXPECT_EQ(submit.predicate().tensor_id(), 3u);
  EXPECT_THAT(text.records(3).alloc().tensor_ids(), ElementsAre(10));
  EXPECT_EQ(text.records(5).check().tensor_id(), 3u);

  // The state after: ids and addresses past this call's.
  EXPECT_FALSE(state.first);
  EXPECT_EQ(state.next_tensor_id, 11u);
  EXPECT_EQ(state.next_kernel_id, 6u);
  EXPECT_EQ(state.next_gm_addr, 0x20000u + 3072);
  ASSERT_EQ(placed.size(), 3u);
  EXPECT_EQ(placed[0].id, 7u);
  EXPECT_EQ(placed[1].gm_addr, 0x5000u);
  EXPECT_EQ(placed[2].id, 10u);
  EXPECT_EQ(placed[2].gm_addr, 0x20000u + 2048);
}

TEST(SessionSegmentTest, TheFirstSegmentsHeaderDeclaresEverythingFromZero) {
  trace::TraceText text = CallStream();
  SessionState state;
  std::vector<PlacedTensor> placed;
  ASSERT_TRUE(ToSessionSegment({}, &state, &text, &placed).ok());
  const trace::StreamHeader& header = text.header();
  ASSERT_EQ(header.tensors_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(header.tensors(i).id(), static_cast<uint32_t>(i));
    EXPECT_EQ(header.tensors(i).gm_addr(), static_cast<uint64_t>(i) * 1024);
  }
  ASSERT_EQ(header.kernels_size(), 2);
  EXPECT_EQ(header.kernels(1).id(), 1u);
  EXPECT_TRUE(text.records(0).has_launch_begin());  // no Declare record
  EXPECT_FALSE(header.has_ring_sizes());            // the launch carries them
  EXPECT_THAT(text.records(0).launch_begin().ring_sizes().task_window(), ElementsAre(64));
  EXPECT_EQ(header.version(), 7u);  // written once, by this segment
  EXPECT_EQ(state.next_tensor_id, 3u);
  EXPECT_EQ(state.next_kernel_id, 2u);
  EXPECT_EQ(state.next_gm_addr, 3072u);
  EXPECT_FALSE(state.first);
}

TEST(SessionSegmentTest, AKnownIdOutsideTheCallIsACallerBug) {
  trace::TraceText text = CallStream();
  SessionState state;
  std::vector<PlacedTensor> placed;
  EXPECT_FALSE(ToSessionSegment({{9, 1, 0, false}}, &state, &text, &placed).ok());
}

}  // namespace
}  // namespace pto::ptoc
