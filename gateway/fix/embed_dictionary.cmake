# cmake -DINPUT=<xml> -DTEMPLATE=<.cc.in> -DOUTPUT=<.cc> -P embed_dictionary.cmake
#
# Writes OUTPUT from TEMPLATE with @CFX_DICTIONARY_XML@ replaced by the
# contents of INPUT, which lands inside a C++ raw string literal (the pattern
# of gateway/config/embed_config.cmake).
file(READ "${INPUT}" CFX_DICTIONARY_XML)
string(FIND "${CFX_DICTIONARY_XML}" ")cfx_fix_xml\"" delimiter_at)
if(NOT delimiter_at EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )cfx_fix_xml\"")
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
