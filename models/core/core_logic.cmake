# Functional tile-op execution and the kernel cost model (pure C++, no SystemC).
# Included from models/CMakeLists.txt, so paths are relative to this file.
set(PTO_CORE_DIR ${CMAKE_CURRENT_LIST_DIR})

add_library(pto_kernel_exec STATIC
  ${PTO_CORE_DIR}/flat_gm_port.cc
  ${PTO_CORE_DIR}/int_expr.cc
  ${PTO_CORE_DIR}/kernel_program.cc
  ${PTO_CORE_DIR}/mix_pipeline.cc
  ${PTO_CORE_DIR}/op_cost.cc
  ${PTO_CORE_DIR}/tile_codec.cc
  ${PTO_CORE_DIR}/tile_executor.cc
)
target_include_directories(pto_kernel_exec PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_kernel_exec PUBLIC
  pto_common pto_proto Eigen3::Eigen
  absl::status absl::statusor absl::strings absl::span absl::flat_hash_map)

pto_cc_test(kernel_exec_test
  SOURCES
    ${PTO_CORE_DIR}/flat_gm_port_test.cc
    ${PTO_CORE_DIR}/int_expr_test.cc
    ${PTO_CORE_DIR}/kernel_program_test.cc
    ${PTO_CORE_DIR}/mix_pipeline_test.cc
    ${PTO_CORE_DIR}/op_cost_test.cc
    ${PTO_CORE_DIR}/tile_codec_test.cc
    ${PTO_CORE_DIR}/tile_executor_test.cc
  DEPS pto_kernel_exec)

# One AICore's phase machine and timing (pure C++, no SystemC): dispatch slots,
# setup, execution, write-back, COND. The SystemC AiCore (aicore.cc) drives it.
add_library(pto_core_phases STATIC ${PTO_CORE_DIR}/core_phases.cc)
target_include_directories(pto_core_phases PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_core_phases PUBLIC
  pto_base pto_kernel_exec pto_gm_logic pto_runtime_logic absl::status absl::statusor absl::strings)
pto_cc_test(core_phases_test SOURCES ${PTO_CORE_DIR}/core_phases_test.cc DEPS pto_core_phases)

if(PTO_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    add_executable(tile_exec_benchmark ${PTO_CORE_DIR}/tile_exec_benchmark.cc)
    target_link_libraries(tile_exec_benchmark PRIVATE pto_kernel_exec benchmark::benchmark)
  endif()
endif()
