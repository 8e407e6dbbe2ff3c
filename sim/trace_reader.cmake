# The trace reader: opens .pb / .pbtxt task streams and validates every field.
add_library(pto_trace_reader STATIC ${CMAKE_CURRENT_LIST_DIR}/trace_reader.cc
                                    ${CMAKE_CURRENT_LIST_DIR}/unknown_fields.cc)
target_include_directories(pto_trace_reader PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_trace_reader
  PUBLIC pto_common pto_utf8 pto_proto pto_aicpu pto_config absl::status absl::statusor
         absl::strings absl::str_format absl::flat_hash_map)

pto_cc_test(unknown_fields_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/unknown_fields_test.cc
  DEPS pto_trace_reader)

pto_cc_test(trace_reader_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/trace_reader_test.cc
  DEPS pto_trace_reader)
if(TARGET trace_reader_test)
  # The committed traces and bad inputs are read from the source tree.
  target_compile_definitions(trace_reader_test PRIVATE PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
