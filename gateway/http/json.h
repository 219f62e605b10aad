#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/types.h"
#include "exchange/text_format.h"

namespace cfx::gateway {

// "5.80" when on the cent grid, else four decimals (exchange/text_format.h).
using exchange::FormatPrice;

// Appends `s` to `*out` as a quoted JSON string. Escapes '"', '\\', control
// characters and '<', '>', '&' (so the text is also safe inside HTML);
// other bytes, UTF-8 included, pass through.
void AppendJsonString(std::string_view s, std::string* out);

// Writes one JSON document into a string, placing commas and colons itself.
// The caller keeps the nesting balanced.
//
// Thread: one owning thread. Memory: grows its string.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // The next value's key, inside an object.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // FormatPrice() as a JSON string.
  JsonWriter& Price(exchange::Price value);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void BeforeValue();

  std::string out_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace cfx::gateway
