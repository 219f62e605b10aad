# gateway/session: the day's order view, its ClOrdID index and account
# visibility; the shared
# TCP acceptor, driven on the test thread, with an accept made to fail by
# running out of descriptors (descriptor_limit.h); reading and verifying
# signed attestations, on files the attest tools write and sign
# (attestation_samples.h, the RFC 8032 vector of
# tests/gateway/crypto/ed25519_test_vector.h); the logon
# credential checker, the back-off table and the known sources; the kill
# switch requests (kill_switches_test.cc).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/acceptor_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/attestation_check_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/attestation_signature_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/client_order_index_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/connection_limiter_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/credential_check_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/kill_switches_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/known_sources_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/logon_backoff_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_view_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tls_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/visibility_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_session cfx::gateway_attest
  cfx::gateway_config cfx::settlement_service)
# The metrics registry's tests (gateway_metrics).
include(${CMAKE_CURRENT_LIST_DIR}/metrics_tests.cmake)
