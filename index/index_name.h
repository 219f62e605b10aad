#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cfx::index {

// The name of a grade's index (DESIGN.md §4): "CFX-" + the grade, e.g.
// "CFX-B200-STD". The FIX symbol of the index value, the `index` field of
// a print over protobuf and HTTP, and the HTTP and CLI lookups all use it.
inline constexpr std::string_view kIndexNamePrefix = "CFX-";

inline std::string IndexName(std::string_view grade) {
  std::string name(kIndexNamePrefix);
  name += grade;
  return name;
}

// The grade named by the index name `name` ("CFX-B200-STD" -> "B200-STD"),
// or nullopt when `name` is not the prefix followed by at least one
// character.
inline std::optional<std::string_view> GradeOfIndexName(std::string_view name) {
  if (name.size() <= kIndexNamePrefix.size() ||
      name.substr(0, kIndexNamePrefix.size()) != kIndexNamePrefix) {
    return std::nullopt;
  }
  return name.substr(kIndexNamePrefix.size());
}

}  // namespace cfx::index
