#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cfx::gateway {

// The reasons the admin gave for halts and resumes, by the token their
// kSetInstrumentState commands carry (client_order_id, echoed in
// kInstrumentStateChanged), so every publisher of the status change (FIX
// SecurityStatus, protobuf InstrumentStatus) shows the same text. The
// reason is not journaled: after a restart the replayed changes have none.
//
// Bounded: the last kKept tokens; an older token's reason is forgotten
// (its status change was published long before).
//
// Thread: the gateway thread. Memory: kKept strings of at most the
// request's bound (200 bytes, HaltDesk).
class StatusReasons {
 public:
  static constexpr std::size_t kKept = 1024;

  // A new token (never 0), with its reason (may be empty).
  uint64_t Add(std::string reason) {
    const uint64_t token = next_++;
    Entry& e = entries_[token % kKept];
    e.token = token;
    e.reason = std::move(reason);
    return token;
  }

  // The reason of `token`; empty when none or forgotten.
  std::string_view Find(uint64_t token) const {
    if (token == 0) return {};
    const Entry& e = entries_[token % kKept];
    return e.token == token ? std::string_view(e.reason) : std::string_view();
  }

 private:
  struct Entry {
    uint64_t token = 0;
    std::string reason;
  };
  uint64_t next_ = 1;
  std::array<Entry, kKept> entries_{};
};

}  // namespace cfx::gateway
