# Test helpers. Pure C++ tests link gtest_main; SystemC tests use our own main
# (libsystemc needs sc_main, and two mains would silently pick a winner).
if(PTO_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# pto_cc_test(NAME SOURCES a_test.cc ... DEPS lib ... [LABELS label ...]): a
# gtest binary, one ctest per TEST. LABELS defaults to `unit`: pure logic in
# the test's own process. A test that starts processes (pto_sim or ptoc, e.g.
# through sim/testing/cli_runner.h) says LABELS integration.
function(pto_cc_test name)
  if(NOT PTO_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 60 LABELS ${ARG_LABELS})
endfunction()

# pto_sc_test(NAME SOURCES a_test.cc ... DEPS lib ...): SystemC module tests.
# Each body runs in a fresh child process (PTO_SYSTEMC_TEST,
# models/testing/systemc_test.h), because SystemC elaborates once per process;
# the binary's main() is pto_sc_test_main's. They fork: label `integration`.
function(pto_sc_test name)
  if(NOT PTO_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} pto_sc_test_main GTest::gmock)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 120 LABELS integration
    ENVIRONMENT SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1)
endfunction()

# pto_benchmark(NAME SOURCES a_benchmark.cc ... DEPS lib ...): a Google
# Benchmark micro-benchmark (PTO_BUILD_BENCHMARKS), not a test.
if(PTO_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
function(pto_benchmark name)
  if(NOT PTO_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
endfunction()
