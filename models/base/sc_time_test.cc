// UsePicosecondResolution against SystemC's rule: the resolution can be set
// only before the first non-zero sc_time is built. Modules, events and zero
// times do not fix it, so the chip may call it at the start of its
// elaboration. ctest runs each TEST in a process of its own.

#include "models/base/sc_time.h"

#include "gtest/gtest.h"
#include "systemc"

namespace pto {
namespace {

class Idle : public sc_core::sc_module {
 public:
  explicit Idle(sc_core::sc_module_name name) : sc_module(name) {}
  sc_core::sc_event event;
};

TEST(UsePicosecondResolutionTest, SucceedsAfterModulesEventsAndZeroTimes) {
  Idle idle("idle");
  sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
  idle.event.notify(zero);
  EXPECT_EQ(NowPs(), 0);
  UsePicosecondResolution();
  EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
}

TEST(UsePicosecondResolutionTest, IsRefusedOnceANonZeroTimeExists) {
  const sc_core::sc_time early(1, sc_core::SC_NS);
  EXPECT_THROW(UsePicosecondResolution(), sc_core::sc_report);
}

TEST(UsePicosecondResolutionTest, ASecondCallIsANoOp) {
  UsePicosecondResolution();
  const sc_core::sc_time built(5, sc_core::SC_NS);
  UsePicosecondResolution();
  EXPECT_EQ(built.value(), 5'000u);
}

TEST(ScTimeTest, IsExactInPicoseconds) {
  UsePicosecondResolution();
  EXPECT_EQ(ScTime(0), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(ScTime(1), sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(ScTime(Ns(2.5)), sc_core::sc_time(2.5, sc_core::SC_NS));
  // 10 s of simulated time, the default --max-sim-seconds: no rounding.
  EXPECT_EQ(ScTime(10'000'000'000'001).value(), 10'000'000'000'001u);
}

}  // namespace
}  // namespace pto
