# Batch commands (issue 9): regression suites and sweeps, each simulation in a
# pto_sim child process. Pure C++ (no SystemC): they run pto_sim and read its
# stats.json.
add_library(pto_sweep STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sweep/child_process.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/run_metrics.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_grid.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_chart.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/progress_line.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/slurm_script.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_command.cc
)
target_include_directories(pto_sweep PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_sweep PUBLIC pto_outputs pto_config pto_provenance nlohmann_json::nlohmann_json
  absl::status absl::statusor absl::strings absl::str_format)

add_library(pto_regress STATIC
  ${CMAKE_CURRENT_LIST_DIR}/regress/suite.cc
  ${CMAKE_CURRENT_LIST_DIR}/regress/baseline.cc
  ${CMAKE_CURRENT_LIST_DIR}/regress/regress_command.cc
)
target_include_directories(pto_regress PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_regress PUBLIC pto_sweep PRIVATE yaml-cpp)
# GCC 12 reports a false -Wdangling-pointer inside yaml-cpp 0.7's node/impl.h.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/regress/suite.cc PROPERTIES
  COMPILE_OPTIONS $<$<CXX_COMPILER_ID:GNU>:-Wno-dangling-pointer>)

add_library(pto_batch_commands STATIC ${CMAKE_CURRENT_LIST_DIR}/batch_commands.cc)
target_include_directories(pto_batch_commands PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_batch_commands PUBLIC pto_regress CLI11::CLI11)

pto_cc_test(batch_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/sweep/run_metrics_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_grid_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_table_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_chart_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sweep/progress_line_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/sweep/slurm_script_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/regress/suite_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/regress/baseline_test.cc
  DEPS pto_regress pto_cli_runner)
if(TARGET batch_test)
  target_compile_definitions(batch_test PRIVATE PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# Tests that run pto_sim end to end (each in its own process), one file each.
function(pto_batch_cli_test name source)
  if(NOT PTO_BUILD_TESTS)
    return()
  endif()
  pto_cc_test(${name} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${source} DEPS pto_cli_runner
    LABELS integration)
  target_compile_definitions(${name} PRIVATE
    PTO_SIM_BINARY="$<TARGET_FILE:pto_sim>" PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    PTO_BUILD_DIR="${PROJECT_BINARY_DIR}")
  add_dependencies(${name} pto_sim traces)
endfunction()

pto_batch_cli_test(regress_cli_test regress/regress_cli_test.cc)
pto_batch_cli_test(sweep_cli_test sweep/sweep_cli_test.cc)
pto_batch_cli_test(sweep_slurm_test sweep/sweep_slurm_test.cc)

if(PTO_BUILD_TESTS)
  # The sweep through a real single-node Slurm carries its own label; it skips
  # with a message where Slurm cannot start (.ci/run installs slurm-wlm and munge).
  add_test(NAME sweep_through_slurm
    COMMAND sweep_slurm_test --gtest_also_run_disabled_tests
            --gtest_filter=SweepSlurmTest.DISABLED_JobArrayAndMergeGiveTheLocalSweep)
  set_tests_properties(sweep_through_slurm PROPERTIES
    LABELS slurm TIMEOUT 300 RUN_SERIAL TRUE SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endif()
