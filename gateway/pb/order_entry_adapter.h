#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/command.h"

namespace cfx::gateway {
struct InstrumentInfo;
class InstrumentTable;
struct UserConfig;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

// Why an order-entry message was refused before it reached the exchange:
// the fields of its SessionReject.
struct IngressReject {
  wire::v1::SessionRejectReason reason;
  const char* message_type;  // the Envelope field name, e.g. "new_order"
  const char* field;         // may be null
  const char* text;
  uint64_t client_order_id;
};

// The protobuf ingress adapter's order path (docs/protocol.md): checks the
// syntax and session rules of NewOrder, CancelOrder, ReplaceOrder and
// MassCancel, in a fixed order (the first problem found is the one
// reported), and turns a valid one into the engine Command. The engine
// re-validates every field (exchange/core CheckOrderFields).
//
// The new-order field rules (a market order carries no price, a limit order
// needs a positive one, GTD needs an expiry and only GTD has one, the
// quantity is positive) are the same rules FIX checks on NewOrderSingle in
// FixGateway::OnNewOrder (gateway/fix/fix_gateway.cc); each protocol keeps
// its own order of checks and reject texts, which clients see.
//
// Thread: the gateway thread. Memory: none.
class OrderEntryAdapter {
 public:
  // `instruments` must outlive the adapter.
  explicit OrderEntryAdapter(const InstrumentTable& instruments)
      : instruments_(instruments) {}

  // Whether `body` is one of the order-entry messages Decode() takes.
  static bool Handles(wire::v1::Envelope::BodyCase body) {
    return body == wire::v1::Envelope::kNewOrder ||
           body == wire::v1::Envelope::kCancelOrder ||
           body == wire::v1::Envelope::kReplaceOrder ||
           body == wire::v1::Envelope::kMassCancel;
  }

  // The Envelope field name of an order-entry message, e.g. "new_order".
  static const char* MessageType(wire::v1::Envelope::BodyCase body);

  // Decodes the order-entry message in `m` from `user`, trading for
  // `account`, into `*out`; or returns why it is refused (`*out` is then
  // unspecified). REQUIRES: Handles(m.body_case()); `*out` is a
  // default-constructed Command.
  std::optional<IngressReject> Decode(const wire::v1::Envelope& m,
                                      const UserConfig& user,
                                      exchange::AccountId account,
                                      exchange::Command* out) const;

  // The instrument trading under `symbol` (at most 64 characters), or null.
  const InstrumentInfo* FindSymbol(std::string_view symbol) const;

 private:
  std::optional<IngressReject> NewOrder(const wire::v1::NewOrder& m,
                                        exchange::Command* out) const;
  std::optional<IngressReject> Cancel(const wire::v1::CancelOrder& m,
                                      exchange::Command* out) const;
  std::optional<IngressReject> Replace(const wire::v1::ReplaceOrder& m,
                                       exchange::Command* out) const;
  std::optional<IngressReject> MassCancel(const wire::v1::MassCancel& m,
                                          exchange::Command* out) const;

  const InstrumentTable& instruments_;
};

// Why `user` may not enter orders (NOT_AUTHORIZED), or null if it may.
const char* OrderEntryDenied(const UserConfig& user);

}  // namespace cfx::gateway::pb
