#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>  // before Asio (gateway/asio.h)

#include "gateway/asio.h"

namespace cfx::gateway {

struct AcceptorOptions {
  // Connections open at most, as counted by `open_connections`: one more is
  // accepted and closed at once (`on_refused`). Default: no limit.
  std::size_t max_connections = SIZE_MAX;
  // After an accept error (out of descriptors and the like) the acceptor
  // waits this long before accepting again, so it does not spin. Default:
  // 100 ms.
  std::chrono::milliseconds retry_delay{100};
};

// What an acceptor does with the connections it accepts. Called on the
// thread that runs the io_context, never after Close().
struct AcceptorHandlers {
  // The connections open now, compared with max_connections. Required.
  std::function<std::size_t()> open_connections;
  // A new connection within the limit (TCP_NODELAY already set). Required.
  std::function<void(asio::ip::tcp::socket)> on_accept;
  // A connection over the limit, closed just after this call. May be empty.
  std::function<void()> on_refused;
};

namespace internal {
struct AcceptorState;
}  // namespace internal

// One listening TCP socket and its accept loop, shared by the protobuf
// gateway and the HTTP port: binds (with SO_REUSEADDR), enforces the
// connection limit, and keeps accepting after an error: an accept that
// fails (EMFILE, ENFILE, ENOBUFS, ...) is retried after retry_delay, for as
// long as the acceptor is open.
//
// Thread: every method and handler runs on the thread that runs `io`,
// except accept_errors(), which any thread may read. Pending handlers hold
// the acceptor's state, so destroying the acceptor (which Close()s) with
// operations pending is safe; `io` must outlive them.
class Acceptor {
 public:
  Acceptor(asio::io_context& io, AcceptorHandlers handlers,
           const AcceptorOptions& options = {});
  // Close()s.
  ~Acceptor();
  Acceptor(const Acceptor&) = delete;
  Acceptor& operator=(const Acceptor&) = delete;

  // Opens, binds and listens on ip:port (0 = an ephemeral port), then starts
  // accepting. Returns the error of the step that failed (the socket is then
  // closed again).
  boost::system::error_code Listen(const asio::ip::address& ip, uint16_t port);

  // The bound port; 0 before Listen() succeeds.
  uint16_t port() const;

  // Stops accepting: closes the socket and cancels a pending retry; no
  // handler is called after. Idempotent.
  void Close();

  // Accepts that failed so far (each one retried).
  uint64_t accept_errors() const;

 private:
  std::shared_ptr<internal::AcceptorState> state_;
};

}  // namespace cfx::gateway
