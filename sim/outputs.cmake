# Output writers and analyses (issue 7): swimlane records, deps.json, the
# Perfetto trace, the scheduler-overhead model, the SVG swimlane, and the
# `deps` and `compare` commands. Pure C++: they consume RunObserver callbacks.
# The stats.json keys (sim/stats_schema.h): what every writer and reader of
# stats.json spells; docs/stats.md is generated from it.
add_library(pto_stats_schema STATIC ${CMAKE_CURRENT_LIST_DIR}/stats_schema.cc)
target_include_directories(pto_stats_schema PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_stats_schema PUBLIC nlohmann_json::nlohmann_json absl::strings
  absl::flat_hash_map)
pto_cc_test(stats_schema_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/stats_schema_test.cc
  DEPS pto_stats_schema)
if(TARGET stats_schema_test)
  target_compile_definitions(stats_schema_test PRIVATE PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

add_library(pto_outputs STATIC
  ${CMAKE_CURRENT_LIST_DIR}/spooled_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/launch_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/swimlane_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/deps_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/perfetto_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/rate_windows.cc
  ${CMAKE_CURRENT_LIST_DIR}/overhead_analysis.cc
  ${CMAKE_CURRENT_LIST_DIR}/overhead_analyzer.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipe_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/swimlane_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_set.cc
  ${CMAKE_CURRENT_LIST_DIR}/deps_reduction.cc
  ${CMAKE_CURRENT_LIST_DIR}/deps_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_command.cc
  ${CMAKE_CURRENT_LIST_DIR}/stats_file.cc
)
target_include_directories(pto_outputs PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_outputs PUBLIC
  pto_aicpu pto_trace_reader pto_common pto_stats_schema
  nlohmann_json::nlohmann_json absl::status absl::statusor absl::strings absl::str_format absl::span
  absl::flat_hash_map absl::flat_hash_set)

pto_cc_test(outputs_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/swimlane_writer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/deps_writer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/overhead_analysis_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/overhead_analyzer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/perfetto_writer_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/rate_windows_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/swimlane_svg_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/deps_command_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/compare_command_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/output_set_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/pipe_stats_test.cc
  DEPS pto_outputs pto_png_image)

if(PTO_BUILD_TESTS)
  # The browser render check carries its own label; it skips where chromium is missing.
  add_test(NAME swimlane_svg_renders_in_chromium
    COMMAND outputs_test --gtest_also_run_disabled_tests
            --gtest_filter=SwimlaneSvgTest.DISABLED_RendersInChromium)
  set_tests_properties(swimlane_svg_renders_in_chromium PROPERTIES
    LABELS chromium TIMEOUT 120 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endif()
