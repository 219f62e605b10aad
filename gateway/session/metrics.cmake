# gateway_metrics: the exchange's Prometheus metrics registry (metrics.h),
# which every protocol session, the pipeline poll and the HTTP server record
# into; gateway/http serves it on GET /metrics. Included from this folder's
# CMakeLists.txt.
find_package(prometheus-cpp CONFIG REQUIRED)

add_library(gateway_metrics ${CMAKE_CURRENT_LIST_DIR}/metrics.cc)
add_library(cfx::gateway_metrics ALIAS gateway_metrics)
target_include_directories(gateway_metrics PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(gateway_metrics
  PUBLIC prometheus-cpp::core
  PRIVATE cfx_warnings)
