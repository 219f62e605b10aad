# gateway/tools/client: the blocking protobuf client, against a scripted fake
# server on loopback (fake_server.h, also used by the cli tests).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/client_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/decimal_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/fake_server.cc
)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_client)
