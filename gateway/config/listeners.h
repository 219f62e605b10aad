#pragma once

#include <string>

#include "exchange/core/status.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {

// True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104.
bool IsLoopbackAddress(const std::string& address);

// Ok unless a plaintext listener of `config` (network.bind_address with
// fix_port, protobuf_port and http_port) binds an address that is not
// loopback: then kFailedPrecondition naming the listeners and the address.
// Off loopback only the TLS listeners (network.tls) may serve.
Status CheckPlaintextListenersOnLoopback(const ServerConfig& config);

}  // namespace cfx::gateway
