# Chip configuration: the key schema, the YAML loader and `--set` overrides.
add_library(pto_config STATIC
  ${CMAKE_CURRENT_LIST_DIR}/config_schema.cc
  ${CMAKE_CURRENT_LIST_DIR}/config_loader.cc
)
target_include_directories(pto_config PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_config
  PUBLIC pto_common absl::status absl::statusor absl::strings absl::span
  PRIVATE yaml-cpp absl::flat_hash_map pto_utf8)
# GCC 12 reports a false -Wdangling-pointer inside yaml-cpp 0.7's node/impl.h.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/config_loader.cc PROPERTIES
  COMPILE_OPTIONS $<$<CXX_COMPILER_ID:GNU>:-Wno-dangling-pointer>)

pto_cc_test(config_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/config_schema_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/config_loader_test.cc
  DEPS pto_config)
if(TARGET config_test)
  target_compile_definitions(config_test PRIVATE PTO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
