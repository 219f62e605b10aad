list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/http_api_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/http_server_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_http_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_test.cc)
# cfx::proto brings libprotobuf, whose JSON parser reads the index's JSON
# back in index_http_test.cc.
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_http cfx::index cfx::proto)
