# test_certs.h as a library of its own, with no GoogleTest: the TLS tests
# and cfx-bench's --tls workloads (built even when the tests are off)
# include this file.
include_guard(GLOBAL)
find_package(OpenSSL REQUIRED)
add_library(test_certs STATIC ${CMAKE_CURRENT_LIST_DIR}/test_certs.cc)
add_library(cfx::test_certs ALIAS test_certs)
target_include_directories(test_certs PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(test_certs PRIVATE OpenSSL::Crypto cfx_warnings)
