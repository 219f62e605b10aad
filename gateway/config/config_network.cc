// The network, limits, session and journal sections of the config.
#include <arpa/inet.h>

#include <iterator>

#include "gateway/config/config_builder.h"

namespace cfx::gateway::config_internal {

Status Builder::BuildNetwork() {
  const pb::Network& n = in_.network();
  const FieldPath net = Root().Field("network");
  NetworkConfig& out = out_.network;
  if (!n.bind_address().empty()) {
    unsigned char buf[16];
    const char* address = n.bind_address().c_str();
    const bool is_ip = inet_pton(AF_INET, address, buf) == 1 ||
                       inet_pton(AF_INET6, address, buf) == 1;
    if (!is_ip || n.bind_address().find('\0') != std::string::npos) {
      return Error(net.Field("bind_address"),
                   Quote(n.bind_address()) + " is not an IPv4 or IPv6 address");
    }
    out.bind_address = n.bind_address();
  }
  struct Port {
    const char* name;
    bool has;
    uint32_t value;
    uint16_t* out;
  };
  Port ports[] = {
      {"fix_port", n.has_fix_port(), n.fix_port(), &out.fix_port},
      {"protobuf_port", n.has_protobuf_port(), n.protobuf_port(),
       &out.protobuf_port},
      {"http_port", n.has_http_port(), n.http_port(), &out.http_port},
  };
  for (Port& p : ports) {
    if (!p.has) continue;
    if (p.value == 0 || p.value > 65'535) {
      return Error(net.Field(p.name),
                   "port must be in 1-65535, got " + std::to_string(p.value));
    }
    *p.out = static_cast<uint16_t>(p.value);
  }
  for (size_t j = 1; j < std::size(ports); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (*ports[i].out != *ports[j].out) continue;
      // Blame an explicitly set port: the later one if both are.
      const Port& blame = ports[j].has ? ports[j] : ports[i];
      const Port& other = ports[j].has ? ports[i] : ports[j];
      return Error(net.Field(blame.name), "port " + std::to_string(*blame.out) +
                                              " is also the " + other.name);
    }
  }
  return Status::Ok();
}

void Builder::BuildLimitsAndSession() {
  const pb::Limits& l = in_.limits();
  exchange::EngineLimits& out = out_.engine.limits;
  out.max_orders = l.max_orders() != 0 ? l.max_orders() : kDefaultMaxOrders;
  out.max_accounts =
      l.max_accounts() != 0 ? l.max_accounts() : kDefaultMaxAccounts;
  out.max_instruments =
      l.max_instruments() != 0 ? l.max_instruments() : kDefaultMaxInstruments;
  if (l.max_client_order_ids() != 0) {
    out.max_client_order_ids = l.max_client_order_ids();
  }
  const pb::Session& s = in_.session();
  SessionPolicy& session = out_.session;
  if (s.max_messages_per_second() != 0) {
    session.max_messages_per_second = s.max_messages_per_second();
  }
  if (s.logon_window_seconds() != 0) {
    session.logon_window_seconds = s.logon_window_seconds();
  }
  if (s.default_heartbeat_ms() != 0) {
    session.default_heartbeat_ms = s.default_heartbeat_ms();
  }
  if (s.max_sessions() != 0) session.max_sessions = s.max_sessions();
  if (s.pre_logon_timeout_ms() != 0) {
    session.pre_logon_timeout_ms = s.pre_logon_timeout_ms();
  }
  if (s.max_pre_logon() != 0) session.max_pre_logon = s.max_pre_logon();
  if (s.max_pre_logon_per_source() != 0) {
    session.max_pre_logon_per_source = s.max_pre_logon_per_source();
  }
  if (s.resend_max_messages() != 0) {
    session.resend_max_messages = s.resend_max_messages();
  }
  if (in_.journal().snapshot_every() != 0) {
    out_.snapshot_every = in_.journal().snapshot_every();
  }
}

}  // namespace cfx::gateway::config_internal
