# gateway/tools/attest: writing the measurement and signed-attestation JSON files (reading and verifying them
# is tested in tests/gateway/session/), and the `cfx attest` commands run as
# a process. The cfx binary's path (CFX_TOOL) comes from the hook in
# tests/gateway/tools/cli/tests.cmake, which applies to the whole gateway_tests.
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/attest_cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/measurement_json_test.cc
)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_attest)
