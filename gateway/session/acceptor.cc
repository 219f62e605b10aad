#include "gateway/session/acceptor.h"

#include <utility>

namespace cfx::gateway {

using tcp = asio::ip::tcp;

namespace internal {

// Shared by the acceptor and its pending handlers, so a handler that runs
// after Close() (or after the Acceptor is gone) finds `closed` set and
// touches nothing else.
struct AcceptorState {
  AcceptorState(asio::io_context& io, AcceptorHandlers handlers_in,
                const AcceptorOptions& options_in)
      : acceptor(io),
        retry_timer(io),
        handlers(std::move(handlers_in)),
        options(options_in),
        limiter(options_in.pre_logon),
        next_slot(options_in.first_slot) {}

  tcp::acceptor acceptor;
  asio::steady_timer retry_timer;
  AcceptorHandlers handlers;
  AcceptorOptions options;
  ConnectionLimiter limiter;
  uint64_t next_slot;
  uint16_t port = 0;
  bool closed = false;
  std::atomic<uint64_t> errors{0};
};

namespace {

void Refuse(AcceptorState& state, tcp::socket& socket, Refusal why) {
  boost::system::error_code ignored;
  socket.non_blocking(true, ignored);
  if (state.handlers.on_refused) state.handlers.on_refused(socket, why);
  socket.close(ignored);
}

// Counts `slot` as pre-logon; closes the evicted one. False: refused.
bool AdmitPreLogon(AcceptorState& state, uint64_t slot,
                   const asio::ip::address& source) {
  uint64_t evicted = 0;
  switch (state.limiter.Admit(slot, source, &evicted)) {
    case ConnectionLimiter::Verdict::kSourceFull:
      return false;
    case ConnectionLimiter::Verdict::kAdmittedEvicted:
      if (state.handlers.on_evict) state.handlers.on_evict(evicted);
      return true;
    case ConnectionLimiter::Verdict::kAdmitted:
      return true;
  }
  return true;
}

void Admit(AcceptorState& state, tcp::socket socket) {
  boost::system::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) {  // already reset by the peer
    socket.close(ec);
    return;
  }
  const uint64_t slot = state.next_slot++;
  if (!AdmitPreLogon(state, slot, peer.address())) {
    Refuse(state, socket, Refusal::kSourceFull);
    return;
  }
  // After a possible eviction, so that a full pre-logon budget makes room
  // instead of refusing.
  if (state.handlers.open_connections() >= state.options.max_connections) {
    state.limiter.Forget(slot);
    Refuse(state, socket, Refusal::kPortFull);
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  state.handlers.on_accept(std::move(socket), slot);
}

void DoAccept(const std::shared_ptr<AcceptorState>& state) {
  state->acceptor.async_accept([state](boost::system::error_code ec,
                                       tcp::socket socket) {
    if (state->closed) return;
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      state->errors.fetch_add(1, std::memory_order_relaxed);
      // Out of descriptors and the like: try again shortly, do not spin.
      state->retry_timer.expires_after(state->options.retry_delay);
      state->retry_timer.async_wait([state](boost::system::error_code wait) {
        if (!wait && !state->closed) DoAccept(state);
      });
      return;
    }
    Admit(*state, std::move(socket));
    if (!state->closed) DoAccept(state);
  });
}

}  // namespace

}  // namespace internal

Acceptor::Acceptor(asio::io_context& io, AcceptorHandlers handlers,
                   const AcceptorOptions& options)
    : state_(std::make_shared<internal::AcceptorState>(io, std::move(handlers),
                                                       options)) {}

Acceptor::~Acceptor() { Close(); }

boost::system::error_code Acceptor::Listen(const asio::ip::address& ip,
                                           uint16_t port) {
  internal::AcceptorState& s = *state_;
  const tcp::endpoint endpoint(ip, port);
  boost::system::error_code ec;
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  uint16_t bound = 0;
  if (!ec) bound = s.acceptor.local_endpoint(ec).port();
  if (ec) {
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    return ec;
  }
  s.port = bound;
  internal::DoAccept(state_);
  return ec;
}

uint16_t Acceptor::port() const { return state_->port; }

void Acceptor::Close() {
  internal::AcceptorState& s = *state_;
  if (s.closed) return;
  s.closed = true;
  boost::system::error_code ignored;
  s.acceptor.close(ignored);
  s.retry_timer.cancel();
}

uint64_t Acceptor::accept_errors() const {
  return state_->errors.load(std::memory_order_relaxed);
}

void Acceptor::LoggedOn(uint64_t slot) { state_->limiter.Forget(slot); }

bool Acceptor::Idle(uint64_t slot, const asio::ip::address& source) {
  return internal::AdmitPreLogon(*state_, slot, source);
}

void Acceptor::Closed(uint64_t slot) { state_->limiter.Forget(slot); }

std::size_t Acceptor::pre_logon() const { return state_->limiter.pre_logon(); }

}  // namespace cfx::gateway
