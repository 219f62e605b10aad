// The network, limits, session and journal sections of the config.
#include <arpa/inet.h>

#include <iterator>
#include <string>
#include <vector>

#include "gateway/config/config_builder.h"

namespace cfx::gateway::config_internal {

namespace {

bool IsIpAddress(const std::string& text) {
  unsigned char buf[16];
  return text.find('\0') == std::string::npos &&
         (inet_pton(AF_INET, text.c_str(), buf) == 1 ||
          inet_pton(AF_INET6, text.c_str(), buf) == 1);
}

}  // namespace

Status Builder::BuildNetwork() {
  const pb::Network& n = in_.network();
  const FieldPath net = Root().Field("network");
  NetworkConfig& out = out_.network;
  if (!n.bind_address().empty()) {
    if (!IsIpAddress(n.bind_address())) {
      return Error(net.Field("bind_address"),
                   Quote(n.bind_address()) + " is not an IPv4 or IPv6 address");
    }
    out.bind_address = n.bind_address();
  }
  struct Port {
    FieldPath path;
    const char* name;
    bool has;
    uint32_t value;
    uint16_t* out;
  };
  std::vector<Port> ports = {
      {net, "fix_port", n.has_fix_port(), n.fix_port(), &out.fix_port},
      {net, "protobuf_port", n.has_protobuf_port(), n.protobuf_port(),
       &out.protobuf_port},
      {net, "http_port", n.has_http_port(), n.http_port(), &out.http_port},
  };
  if (n.has_tls()) {
    const pb::Tls& t = n.tls();
    const FieldPath tp = net.Field("tls");
    TlsListenerConfig& tls = out.tls.emplace();
    tls.bind_address = out.bind_address;
    if (!t.bind_address().empty()) {
      if (!IsIpAddress(t.bind_address())) {
        return Error(tp.Field("bind_address"), Quote(t.bind_address()) +
                                                   " is not an IPv4 or IPv6 "
                                                   "address");
      }
      tls.bind_address = t.bind_address();
    }
    if (!t.has_fix_port() && !t.has_protobuf_port() && !t.has_https_port()) {
      return Error(tp, "needs at least one of fix_port, protobuf_port and "
                       "https_port");
    }
    if (t.certificate_file().empty()) {
      return Error(tp.Field("certificate_file"), "is required");
    }
    if (t.private_key_file().empty()) {
      return Error(tp.Field("private_key_file"), "is required");
    }
    tls.certificate_file = t.certificate_file();
    tls.private_key_file = t.private_key_file();
    tls.client_ca_file = t.client_ca_file();
    tls.skip_if_missing = t.skip_if_missing();
    // Listed only when set: an absent TLS port is no listener.
    if (t.has_fix_port()) {
      ports.push_back({tp, "fix_port", true, t.fix_port(), &tls.fix_port});
    }
    if (t.has_protobuf_port()) {
      ports.push_back(
          {tp, "protobuf_port", true, t.protobuf_port(), &tls.protobuf_port});
    }
    if (t.has_https_port()) {
      ports.push_back({tp, "https_port", true, t.https_port(), &tls.https_port});
    }
  }
  for (Port& p : ports) {
    if (!p.has) continue;
    if (p.value == 0 || p.value > 65'535) {
      return Error(p.path.Field(p.name),
                   "port must be in 1-65535, got " + std::to_string(p.value));
    }
    *p.out = static_cast<uint16_t>(p.value);
  }
  const auto label = [&net](const Port& p) {
    return std::string(p.path.ToString() == net.ToString() ? "" : "tls ") +
           p.name;
  };
  for (size_t j = 1; j < ports.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (*ports[i].out != *ports[j].out) continue;
      // Blame an explicitly set port: the later one if both are.
      const Port& blame = ports[j].has ? ports[j] : ports[i];
      const Port& other = ports[j].has ? ports[i] : ports[j];
      return Error(blame.path.Field(blame.name),
                   "port " + std::to_string(*blame.out) + " is also the " +
                       label(other));
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
