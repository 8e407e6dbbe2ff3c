// The main() of SystemC test binaries (cmake: pto_sc_test). libsystemc has a
// main() of its own that calls sc_main(); this one wins, and runs gtest under
// sc_elab_and_sim as pto_sim's main does. Module tests run their bodies in
// child processes (systemc_test.h), so this process never elaborates.

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "systemc"

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
