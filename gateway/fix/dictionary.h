#pragma once

// The exchange's FIX 4.4 data dictionary, gateway/fix/spec/CFX-FIX44.xml
// (QuickFIX XML format; docs/fix.md), built into the binary so that
// cfx-exchanged needs no file at run time. Pass it as
// EngineOptions::dictionary_xml.
//
// C++14, like fix_engine.h: it is compiled in the QuickFIX OBJECT library.

#include <string>

namespace cfx {
namespace gateway {
namespace fix {

// The XML text. Thread-safe; the string lives until the process exits.
const std::string& EmbeddedDictionaryXml();

}  // namespace fix
}  // namespace gateway
}  // namespace cfx
