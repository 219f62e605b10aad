# Helpers for CFX test and benchmark binaries. Binaries land in
# ${CMAKE_BINARY_DIR}/bin (CMAKE_RUNTIME_OUTPUT_DIRECTORY, top-level file).
include_guard(GLOBAL)
include(GoogleTest)

# cfx_test(NAME <binary> SOURCES <file>... [LIBS <target>...])
#
# A GoogleTest executable linked with GTest::gtest_main, LIBS and cfx_warnings,
# with the repo root on its include path ("tests/support/..." resolves). Its
# tests are discovered when ctest runs (PRE_TEST), not at build time.
function(cfx_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;LIBS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "cfx_test: NAME and SOURCES are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cfx_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${arg_NAME} ${arg_SOURCES})
  target_include_directories(${arg_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${arg_NAME} PRIVATE ${arg_LIBS} GTest::gtest_main cfx_warnings)
  gtest_discover_tests(${arg_NAME} DISCOVERY_MODE PRE_TEST)
endfunction()

# cfx_benchmark(NAME <binary> SOURCES <file>... [LIBS <target>...])
#
# A Google Benchmark executable linked with benchmark::benchmark, LIBS and
# cfx_warnings. Sources provide main (BENCHMARK_MAIN()), or pass
# benchmark::benchmark_main in LIBS. Needs CFX_BUILD_BENCHMARKS=ON.
function(cfx_benchmark)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;LIBS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "cfx_benchmark: NAME and SOURCES are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cfx_benchmark(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT CFX_BUILD_BENCHMARKS)
    message(FATAL_ERROR "cfx_benchmark(${arg_NAME}): CFX_BUILD_BENCHMARKS is OFF")
  endif()
  add_executable(${arg_NAME} ${arg_SOURCES})
  target_include_directories(${arg_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${arg_NAME} PRIVATE ${arg_LIBS} benchmark::benchmark cfx_warnings)
endfunction()
