# gateway/crypto: strict base64, Ed25519 keys, signing, verification and key
# files (the RFC 8032 vector of tests/gateway/crypto/ed25519_test_vector.h).
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/base64_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/ed25519_test.cc
)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_crypto cfx::gateway_session)
