#pragma once

// The FIX gateway's own state, shared by the files that implement
// FixGateway (fix_gateway.cc: setup, transport and sessions;
// order_entry_adapter.cc; execution_report_publisher.cc;
// market_data_publisher.cc): per request in flight, per session and per
// connection. Not for use outside gateway/fix.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gateway/config/token_bucket.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/session/tls.h"

namespace cfx::gateway::fix {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr std::size_t kMaxSubscriptionsPerSession = 256;
constexpr std::size_t kMaxHeldPerSession = 1024;
// OrderID(37) and the like of a message about no known order.
inline constexpr const char* kNone = "NONE";

inline int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline double WallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// OrderMassCancelReport (r). A refusal has response "0", a reject reason
// (532) and a text; an answer has the affected count.
Message MassCancelReport(const std::string& clordid, const std::string& type,
                         const std::string& symbol, const std::string& response,
                         int reject_reason, const std::string& text,
                         uint64_t affected, exchange::Timestamp ts);

struct FixGateway::Pending {
  int session = -1;
  char kind = 0;  // D, F, G or q
  std::string clordid;
  std::string orig_clordid;  // F, G: the order's ClOrdID when requested
  uint64_t order_id = 0;     // F, G
  char mass_type = 0;        // q: MassCancelRequestType(530)
  std::string symbol;        // q
  int64_t received_ns = 0;   // D: arrival (steady clock), for order-to-ack
};

struct FixGateway::SessionState {
  int index = 0;
  const UserConfig* user = nullptr;
  std::string comp_id;
  exchange::AccountId account;
  std::string account_name;
  const char* trade_denied = nullptr;  // why this session may not trade
  bool logged_on = false;
  // Gets the account's reports, also while logged off (stored for resend):
  // logged on since the start, or holding messages of the current window
  // in its store. A user who never uses FIX costs the gateway nothing.
  bool active = false;
  TokenBucket throttle;
  std::size_t held = 0;
  struct Subscription {
    std::string req_id;
    uint32_t instrument = 0;
    bool book = false;
    bool trades = false;
    // >= 0: the CFX index of this grade (MDEntryType 3); instrument is 0.
    int32_t index_grade = -1;
  };
  std::vector<Subscription> md;
  struct StatusSubscription {
    std::string req_id;
    uint32_t instrument = 0;
  };
  std::vector<StatusSubscription> status;
};

struct FixGateway::Connection {
  explicit Connection(Stream s) : stream(std::move(s)) {}
  uint64_t id = 0;
  Stream stream;  // plaintext, or TLS (read once the handshake is done)
  std::array<char, 16 * 1024> in{};
  std::string out;
  std::string writing;
  bool write_in_flight = false;
  bool dirty = false;
  bool closing = false;
  bool dead = false;
};

}  // namespace cfx::gateway::fix
