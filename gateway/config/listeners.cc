#include "gateway/config/listeners.h"

#include <arpa/inet.h>

#include <cstring>

namespace cfx::gateway {

bool IsLoopbackAddress(const std::string& address) {
  unsigned char v4[4];
  if (::inet_pton(AF_INET, address.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (::inet_pton(AF_INET6, address.c_str(), v6) != 1) return false;
  static constexpr unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 0, 0, 0, 1};
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0,    0,
                                                0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(v6, kLoopback, 16) == 0) return true;
  return std::memcmp(v6, kMapped, 12) == 0 && v6[12] == 127;
}

Status CheckPlaintextListenersOnLoopback(const ServerConfig& config) {
  const NetworkConfig& n = config.network;
  if (IsLoopbackAddress(n.bind_address)) return Status::Ok();
  const std::string at = n.bind_address.find(':') != std::string::npos
                             ? "[" + n.bind_address + "]:"
                             : n.bind_address + ":";
  return FailedPreconditionError(
      "the plaintext listeners fix " + at + std::to_string(n.fix_port) +
      ", protobuf " + at + std::to_string(n.protobuf_port) + " and http " +
      at + std::to_string(n.http_port) +
      " bind a non-loopback address without TLS: set network.bind_address "
      "to 127.0.0.1 and serve other addresses through network.tls "
      "(docs/config.md, \"TLS\")");
}

}  // namespace cfx::gateway
