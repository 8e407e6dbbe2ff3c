# Test helpers. Pure C++ tests link gtest_main; SystemC tests use our own main
# (libsystemc needs sc_main, and two mains would silently pick a winner).
if(PTO_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# The headers nearly every test parses (gmock, gtest, the task stream's
# generated classes): precompiled once and reused by every test target,
# which halves a test file's compile time (most of it was parsing these).
# Off under ccache (which would need its pch sloppiness settings) and for
# the fuzzers. A target whose flags differ from the PCH's falls back to
# parsing the headers (GCC checks the PCH and ignores a mismatch).
set(PTO_TEST_PCH OFF)
if(PTO_BUILD_TESTS AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(PTO_TEST_PCH ON)
  add_library(pto_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/test_pch.cc)
  target_link_libraries(pto_test_pch PRIVATE pto_proto GTest::gmock GTest::gtest absl::status
                        absl::statusor absl::strings)
  target_precompile_headers(pto_test_pch PRIVATE <gmock/gmock.h> <gtest/gtest.h>
                            <absl/status/statusor.h> <absl/strings/str_cat.h>
                            "${PROJECT_BINARY_DIR}/proto/task_stream.pb.h")
endif()
# Test files are compiled at -O1 (the code under test keeps the build's
# flags): a test body is straight-line gtest code whose -O3 pass cost a
# third of its compile time and none of the suite's run time.
set(PTO_TEST_COPTS -O1)
if(PTO_TEST_PCH)
  target_compile_options(pto_test_pch PRIVATE ${PTO_TEST_COPTS})
endif()
function(pto_use_test_pch name)
  target_compile_options(${name} PRIVATE ${PTO_TEST_COPTS})
  if(PTO_TEST_PCH)
    target_precompile_headers(${name} REUSE_FROM pto_test_pch)
  endif()
endfunction()

# The fork server that runs the tests' `ptoc FILE.py` scripts with torch
# imported once (frontend/testing/python_zygote.py; the fixture is defined
# in frontend/CMakeLists.txt).
set(PTO_PYTHON_ZYGOTE ${PROJECT_BINARY_DIR}/frontend/python_zygote)

# pto_cc_test(NAME SOURCES a_test.cc ... DEPS lib ... [LABELS label ...]
# [PYTHON_SCRIPTS]): a gtest binary, one ctest per TEST. LABELS defaults to
# `unit`: pure logic in the test's own process. A test that starts
# processes (pto_sim or ptoc, e.g. through sim/testing/cli_runner.h) says
# LABELS integration; PYTHON_SCRIPTS: it runs `ptoc FILE.py`, whose scripts
# then go through the fork server.
function(pto_cc_test name)
  if(NOT PTO_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "PYTHON_SCRIPTS" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 60)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  pto_use_test_pch(${name})
  set(extra)
  if(ARG_PYTHON_SCRIPTS)
    set(extra ENVIRONMENT PTOC_PYTHON=${PTO_PYTHON_ZYGOTE} FIXTURES_REQUIRED python_zygote)
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS ${ARG_LABELS} ${extra})
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
  pto_use_test_pch(${name})
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
