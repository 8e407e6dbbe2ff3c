# Dependency inference as the AICPU runtime does it: overlap classification,
# the tensor map and the submit-time inference steps. Pure C++, no SystemC.
add_library(pto_dep_logic STATIC
  aicpu/overlap.cc
  aicpu/tensor_map.cc
  aicpu/dep_inference.cc)
target_include_directories(pto_dep_logic PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_dep_logic PUBLIC
  pto_tensor_view pto_common pto_proto
  absl::flat_hash_map absl::inlined_vector absl::span absl::status)

pto_cc_test(dep_logic_test
  SOURCES
    aicpu/tensor_view_test.cc
    aicpu/overlap_test.cc
    aicpu/tensor_map_test.cc
    aicpu/dep_inference_test.cc
  DEPS pto_dep_logic)

if(PTO_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  add_executable(tensor_map_benchmark aicpu/tensor_map_benchmark.cc)
  target_link_libraries(tensor_map_benchmark PRIVATE pto_dep_logic benchmark::benchmark)
endif()
