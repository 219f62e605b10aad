#pragma once

// Plain messages (fix_engine.h) to and from QuickFIX's: part of the C++14
// QuickFIX island (STYLE.md §10), for its files only.

#include <quickfix/DataDictionary.h>
#include <quickfix/Message.h>

#include <string>

#include "gateway/fix/fix_engine.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

// True iff `text` holds a SOH (the FIX field separator).
bool HasSoh(const std::string& text);

// `text` made safe for a log line: printable ASCII, at most 32 characters
// (then "...").
std::string Printable(const std::string& text);

// QuickFIX 1.15.1 reads a data field (RawData 96, Signature 89, EncodedText
// 355, ...) as the number of bytes its length field (95, 93, 354, ...) gave
// earlier, without looking at the message's end: a length past the end reads
// beyond the buffer. True iff every data field of the framed message `raw`
// ends at its first SOH and every length given for it says just that, so
// that QuickFIX reads it the same whichever length it finds; otherwise
// false with *why, and `raw` must not reach QuickFIX. A data field that holds
// a SOH is refused too.
bool DataFieldsEndAtTheirSoh(const std::string& raw,
                             const FIX::DataDictionary& dictionary,
                             std::string* why);

// Builds the QuickFIX message for Engine::Send. Body fields go out in tag
// order (QuickFIX's order; a resend re-parses the stored message and sorts
// them the same way); each group follows its count field, its entries'
// fields in the order given (delimiter first). False with *why when `in`
// cannot go on the wire.
bool BuildMessage(const Message& in, FIX::Message* out, std::string* why);

// Copies a validated application message into the plain struct: body fields
// in QuickFIX's (tag) order, except the count fields of the message's groups,
// which become Groups (in the same order) with their entries.
void ToPlain(const FIX::Message& in, const FIX::DataDictionary& dictionary,
             Message* out);

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
