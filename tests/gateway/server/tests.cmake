# gateway/server: the whole exchange in process (ExchangeServer) and
# cfx-exchanged as a child process (end_to_end_test.cc; exchanged_main_test.cc:
# demo identities, data dir permissions); connection_slots_test.cc floods
# every port with idle connections; tls_test.cc runs every listener over TLS. server_fixture.cc
# holds the helpers the gateway/pb tests share. spot_listing_test.cc also
# drives a FIX client (tests/gateway/fix/fix_test_client.h), as does
# user_admin_test.cc (the admin's user commands); api_key_admin_test.cc runs
# the API key commands; kill_switch_test.cc the kill switches over protobuf
# and FIX.
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/api_key_admin_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/connection_slots_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/end_to_end_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/event_consumers_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/exchanged_main_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/exchange_server_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/halt_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_end_to_end_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_one_reading_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/kill_switch_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/margin_call_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_recovery_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/server_fixture.cc
  ${CMAKE_CURRENT_LIST_DIR}/service_feed_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/spot_listing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tls_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/user_admin_test.cc)
list(APPEND GATEWAY_TEST_LIBS
  cfx::gateway_server cfx::gateway_client cfx::gateway_pb cfx::index)

# The end-to-end test runs the cfx-exchanged binary on the shipped config.
function(cfx_gateway_server_test_hook target)
  add_dependencies(${target} cfx-exchanged)
  target_compile_definitions(${target} PRIVATE
    CFX_EXCHANGED="$<TARGET_FILE:cfx-exchanged>"
    CFX_EXCHANGE_CONFIG="${PROJECT_SOURCE_DIR}/deploy/config/exchange.textproto")
endfunction()
list(APPEND GATEWAY_TEST_HOOKS cfx_gateway_server_test_hook)

# Settlement invariants over 30 business days with kill -9 of cfx-exchanged
# during settlement (the hook above gives it the binary and config).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/settlement_crash_test.cc)
