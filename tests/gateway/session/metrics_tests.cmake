# The metrics registry's tests (gateway/session/metrics.cmake); included
# from this folder's tests.cmake.
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/metrics_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_metrics)
