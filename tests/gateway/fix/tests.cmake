# gateway/fix: the FIX gateway against a whole ExchangeServer on loopback,
# driven by a real QuickFIX initiator (fix_test_client.h). QuickFIX headers
# compile only as C++14 (STYLE.md §10): the client's QuickFIX side is a C++14
# OBJECT library behind a plain header.
find_library(CFX_FIX_TEST_QUICKFIX_LIBRARY quickfix REQUIRED)
if(NOT TARGET fix_test_client_quickfix)
  add_library(fix_test_client_quickfix OBJECT
    ${CMAKE_CURRENT_LIST_DIR}/fix_test_client_quickfix.cc)
  set_target_properties(fix_test_client_quickfix PROPERTIES
    CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(fix_test_client_quickfix PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(fix_test_client_quickfix PRIVATE
    CFX_FIX_DICTIONARY="${PROJECT_SOURCE_DIR}/gateway/fix/spec/CFX-FIX44.xml")
  target_link_libraries(fix_test_client_quickfix PRIVATE cfx_warnings)
  # FIX::Application's callbacks carry C++14-deprecated throw() specifications
  # that overrides must repeat.
  target_compile_options(fix_test_client_quickfix PRIVATE -Wno-deprecated)
endif()
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fix_gateway_test.cc)
list(APPEND GATEWAY_TEST_LIBS
  fix_test_client_quickfix ${CFX_FIX_TEST_QUICKFIX_LIBRARY}
  cfx::gateway_server cfx::gateway_client cfx::gateway_pb)
# The QuickFIX island (gateway/fix/fix_engine.h) on its own, without sockets.
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fix_engine_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_fix_engine)
# The gateway's field conversions (prices, quantities, ClOrdIDs, AvgPx).
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fix_fields_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_fix)
# Index values (MDEntryType 3) against a FixGateway on its own thread with an
# in-memory IndexService.
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fix_index_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_fix cfx::index)
# Positions (RequestForPositions / PositionReport) against a FixGateway with an
# in-memory SettlementService.
list(APPEND GATEWAY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/fix_positions_test.cc)
list(APPEND GATEWAY_TEST_LIBS cfx::gateway_fix cfx::settlement_service)
