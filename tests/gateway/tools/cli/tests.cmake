# gateway/tools/cli: the cfx tool. cli_test.cc runs the binary (usage errors, and
# each command against the fake server of tests/gateway/tools/client/);
# index_cli_test.cc runs `cfx index` against the in-process gateway of
# tests/gateway/pb/index_gateway_fixture.h; settlement_cli_test.cc runs
# `cfx settle` and `cfx collateral` against the gateway, engine and
# settlement service of tests/gateway/pb/settlement_gateway_fixture.h.
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/render_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/settlement_render_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_test.cc
)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_cli cfx::gateway_client cfx::gateway_config)

# cli_end_to_end_test.cc runs the cfx binary against an in-process
# ExchangeServer; tests/gateway/server/tests.cmake adds its fixture
# (server_fixture.cc) and libraries.
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cli_end_to_end_test.cc)

# cli_test.cc needs the cfx binary built and its path.
function(cfx_cli_test_hook target)
  add_dependencies(${target} cfx)
  target_compile_definitions(${target} PRIVATE CFX_TOOL="$<TARGET_FILE:cfx>")
endfunction()
list(APPEND GATEWAY_TEST_HOOKS cfx_cli_test_hook)

# demo_test.cc runs `cfx demo` (gateway/tools/cli/demo.h) in process against an
# in-process ExchangeServer (tests/gateway/server/server_fixture.h).
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/demo_test.cc)

# journal_commands_test.cc runs `cfx journal` against journals it writes; its
# `verify --config` case loads the shipped config from the source tree.
list(APPEND GATEWAY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/journal_commands_test.cc)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/journal_commands_test.cc
  PROPERTIES COMPILE_DEFINITIONS CFX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
