# gateway/config tests, part of gateway_tests (tests/gateway/CMakeLists.txt).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/demo_identities_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/instrument_table_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/listeners_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/password_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/server_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_config_test.cc
)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_config)
# The shipped config is also loaded from the source tree.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/server_config_test.cc
  PROPERTIES COMPILE_DEFINITIONS CFX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
