# gateway/pb: framing, sessions, validation, reports and retransmission of
# the protobuf gateway, against a whole ExchangeServer on loopback
# (tests/gateway/server/server_fixture.h); the index desk against a bare
# pb::Gateway with an in-memory index service (index_gateway_fixture.h); the
# settlement desk directly and against a bare pb::Gateway with an engine and
# an in-memory settlement service (settlement_gateway_fixture.h); the
# acceptor and the logon back-off of a bare pb::Gateway on the test thread
# (accept_test.cc, logon_backoff_test.cc).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/accept_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bad_input_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/frame_random_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/frame_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_desk_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_gateway_fixture.cc
  ${CMAKE_CURRENT_LIST_DIR}/logon_backoff_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/logon_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_entry_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/logon_nonces_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/reference_desk_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/resend_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/retransmission_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/session_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_desk_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_gateway_fixture.cc)
list(APPEND GATEWAY_TEST_LIBS
  cfx::gateway_server cfx::gateway_client cfx::gateway_pb
  cfx::gateway_attest cfx::gateway_md cfx::index cfx::settlement_service)
