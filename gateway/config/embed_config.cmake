# cmake -DINPUT=<textproto> -DTEMPLATE=<.cc.in> -DOUTPUT=<.cc> -P embed_config.cmake
#
# Writes OUTPUT from TEMPLATE with @CFX_CONFIG_TEXT@ replaced by the contents
# of INPUT, which lands inside a C++ raw string literal.
file(READ "${INPUT}" CFX_CONFIG_TEXT)
string(FIND "${CFX_CONFIG_TEXT}" ")cfx_textproto\"" delimiter_at)
if(NOT delimiter_at EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )cfx_textproto\"")
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
