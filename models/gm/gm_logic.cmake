# GM caches and bandwidth, the FFTS barrier and the hazard detector: the pure
# logic behind issue #6 (no SystemC). Included from models/CMakeLists.txt.
set(PTO_GM_LOGIC_DIR ${CMAKE_CURRENT_LIST_DIR}/..)

add_library(pto_gm_logic STATIC
  ${PTO_GM_LOGIC_DIR}/gm/data_cache.cc
  ${PTO_GM_LOGIC_DIR}/gm/l2_cache.cc
  ${PTO_GM_LOGIC_DIR}/gm/hbm_model.cc
  ${PTO_GM_LOGIC_DIR}/gm/gm_timing.cc
  ${PTO_GM_LOGIC_DIR}/ffts/barrier.cc
  ${PTO_GM_LOGIC_DIR}/ffts/soft_barrier.cc
  ${PTO_GM_LOGIC_DIR}/hazard/hazard_report.cc
  ${PTO_GM_LOGIC_DIR}/hazard/block_handoff.cc
  ${PTO_GM_LOGIC_DIR}/hazard/hazard_detector.cc
)
target_include_directories(pto_gm_logic PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(pto_gm_logic PUBLIC
  pto_common absl::bits absl::flat_hash_map absl::inlined_vector absl::status absl::statusor absl::strings absl::span)

# memory_image.cc belongs to pto_chip (SystemC); the tests compile it in
# directly rather than link the chip.
pto_cc_test(gm_logic_test
  SOURCES
    ${PTO_GM_LOGIC_DIR}/gm/memory_image.cc
    ${PTO_GM_LOGIC_DIR}/gm/data_cache_test.cc
    ${PTO_GM_LOGIC_DIR}/gm/l2_cache_test.cc
    ${PTO_GM_LOGIC_DIR}/gm/hbm_model_test.cc
    ${PTO_GM_LOGIC_DIR}/gm/gm_timing_test.cc
    ${PTO_GM_LOGIC_DIR}/ffts/barrier_test.cc
    ${PTO_GM_LOGIC_DIR}/ffts/soft_barrier_test.cc
    ${PTO_GM_LOGIC_DIR}/hazard/block_handoff_test.cc
    ${PTO_GM_LOGIC_DIR}/hazard/hazard_detector_test.cc
    ${PTO_GM_LOGIC_DIR}/hazard/handoff_scenario_test.cc
  DEPS pto_gm_logic)

if(PTO_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    add_executable(gm_logic_benchmark ${PTO_GM_LOGIC_DIR}/gm/gm_logic_benchmark.cc)
    target_link_libraries(gm_logic_benchmark PRIVATE pto_gm_logic benchmark::benchmark)
  endif()
endif()
