// libFuzzer target for inbound FIX messages: arbitrary bytes go through the
// QuickFIX island's reader (fix::MessageReader: QuickFIX's parser and the
// embedded CFX-FIX44 dictionary's validation, then the plain message), and
// every message it accepts through the gateway's field conversions of an
// order entry message (gateway/fix/fix_fields.h: ClOrdID, Price, OrderQty,
// TimeInForce, the times, OrderID), as the order entry adapter reads a
// NewOrderSingle, an OrderCancelRequest or a replace. Checked, besides
// ASan/UBSan: a rejected message leaves the output empty, an accepted one
// has a type, and every converted value is in its documented range.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gateway/fix/dictionary.h"
#include "gateway/fix/fix_engine.h"
#include "gateway/fix/fix_fields.h"
#include "gateway/fix/fix_tags.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace fix = cfx::gateway::fix;
namespace tag = cfx::gateway::fix::tag;

using cfx::fuzz::Check;

const fix::MessageReader& Reader() {
  static const std::unique_ptr<fix::MessageReader> reader = [] {
    std::string error;
    auto r = fix::MessageReader::Create(fix::EmbeddedDictionaryXml(), &error);
    Check(r != nullptr);
    return r;
  }();
  return *reader;
}

void ReadFields(const std::vector<fix::Field>& fields) {
  for (const fix::Field& f : fields) {
    switch (f.tag) {
      case tag::kClOrdID:
      case tag::kOrigClOrdID:
        (void)fix::ClientOrderIdForClOrdId(f.value);
        break;
      case tag::kPrice:
        if (const auto p = fix::ParseFixPrice(f.value)) Check(*p >= 0);
        break;
      case tag::kOrderQty:
        if (const auto q = fix::ParseFixQuantity(f.value)) Check(*q > 0);
        break;
      case tag::kTimeInForce:
        (void)fix::TifOf(&f.value);
        break;
      case tag::kTransactTime:
      case tag::kExpireTime:
        if (const auto t = fix::ParseFixTime(f.value); t && *t >= 0) {
          // Whole milliseconds survive formatting and reading back.
          const int64_t ms = *t / 1'000'000 * 1'000'000;
          const auto again = fix::ParseFixTime(
              fix::FormatFixTime(cfx::exchange::Timestamp{ms}));
          Check(again.has_value() && *again == ms);
        }
        break;
      case tag::kOrderID:
        if (const auto id = fix::ParseU64(f.value)) {
          Check(fix::ParseU64(std::to_string(*id)) == id);
        }
        break;
      default:
        break;
    }
  }
}

void Read(const std::string& raw) {
  fix::Message m;
  std::string why;
  if (!Reader().Read(raw, &m, &why)) {
    Check(!why.empty());
    Check(m.type.empty() && m.fields.empty() && m.groups.empty());
    return;
  }
  Check(!m.type.empty());
  ReadFields(m.fields);
  for (const fix::Group& g : m.groups) {
    for (const auto& entry : g.entries) ReadFields(entry);
  }
}

// "8=FIX.4.4|9=<length>|" + body + "10=<checksum>|": the fuzzer need not
// find the body length and checksum to reach the dictionary.
std::string Frame(const std::string& body) {
  std::string out = "8=FIX.4.4\x01" "9=" + std::to_string(body.size()) + "\x01";
  out += body;
  unsigned sum = 0;
  for (char c : out) sum += static_cast<unsigned char>(c);
  char checksum[8];
  std::snprintf(checksum, sizeof checksum, "%03u", sum % 256);
  out += "10=";
  out += checksum;
  out += "\x01";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Read(bytes);
  Read(Frame(bytes));
  return 0;
}
