#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>  // before Asio (gateway/asio.h)

#include "gateway/asio.h"
#include "gateway/session/connection_limiter.h"

namespace cfx::gateway {

struct AcceptorOptions {
  // Connections open at most, as counted by `open_connections`: one more is
  // accepted and closed at once (`on_refused`). Default: no limit.
  std::size_t max_connections = SIZE_MAX;
  // The pre-logon budget (connection_limiter.h): a new connection starts
  // pre-logon and stays so until LoggedOn(). Default: no limits.
  ConnectionLimits pre_logon;
  // After an accept error (out of descriptors and the like) the acceptor
  // waits this long before accepting again, so it does not spin. Default:
  // 100 ms.
  std::chrono::milliseconds retry_delay{100};
  // The first slot id; later ones count up from it. Two acceptors of one
  // owner (a plaintext and a TLS listener) start far apart so that their
  // slots never meet. Default: 1.
  uint64_t first_slot = 1;
};

// Why a new connection was refused.
enum class Refusal {
  kPortFull,    // max_connections open: closed silently
  kSourceFull,  // its source is at max_pre_logon_per_source: closed with a
                // reason
};

// What an acceptor does with the connections it accepts. Called on the
// thread that runs the io_context, never after Close().
struct AcceptorHandlers {
  // The connections open now, compared with max_connections. Required.
  std::function<std::size_t()> open_connections;
  // A new connection within the limits (TCP_NODELAY already set) and its
  // slot id (unique per acceptor, increasing), which the owner passes to
  // LoggedOn() / Idle() / Closed(). Required.
  std::function<void(asio::ip::tcp::socket, uint64_t slot)> on_accept;
  // A refused connection, closed just after this call; the socket is
  // non-blocking, so the handler may write a short reason with write_some.
  // May be empty.
  std::function<void(asio::ip::tcp::socket&, Refusal)> on_refused;
  // Close pre-logon connection `slot` now: the oldest, evicted to make room
  // for a newer one when the pre-logon budget is full. Already forgotten by
  // the budget. Required when pre_logon.max_pre_logon is finite.
  std::function<void(uint64_t slot)> on_evict;
};

namespace internal {
struct AcceptorState;
}  // namespace internal

// One listening TCP socket and its accept loop, shared by the protobuf
// gateway, the FIX gateway and the HTTP port: binds (with SO_REUSEADDR),
// enforces the connection limit and the pre-logon budget (a cap per source
// address, and the oldest pre-logon connection closed when the budget is
// full), and keeps accepting after an error: an accept that
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

  // Slot `slot` logged on: it leaves the pre-logon budget.
  void LoggedOn(uint64_t slot);
  // Slot `slot` is idle again (HTTP: between keep-alive requests) and
  // counts as pre-logon; may evict the oldest (on_evict). False if its
  // source is at its cap: the caller closes it.
  bool Idle(uint64_t slot, const asio::ip::address& source);
  // Slot `slot` is closed. Idempotent.
  void Closed(uint64_t slot);
  // Pre-logon connections now.
  std::size_t pre_logon() const;

 private:
  std::shared_ptr<internal::AcceptorState> state_;
};

}  // namespace cfx::gateway
