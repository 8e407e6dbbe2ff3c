# Test helpers. Pure C++ tests link gtest_main; SystemC tests use our own main
# (libsystemc needs sc_main, and two mains would silently pick a winner).
if(PTO_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# pto_cc_test(NAME SOURCES a_test.cc ... DEPS lib ...)
function(pto_cc_test name)
  if(NOT PTO_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 60 LABELS unit)
endfunction()

# pto_sc_test(NAME SOURCES a_test.cc ... DEPS lib ...): each TEST in its own
# process, because SystemC elaborates once per process.
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
