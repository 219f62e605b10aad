#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/types.h"
#include "gateway/asio.h"
#include "gateway/config/token_bucket.h"
#include "gateway/pb/frame.h"
#include "gateway/session/tls.h"

namespace cfx::gateway {
struct UserConfig;
class Metrics;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

// The steady clock in ns, for session timers and latencies.
inline int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The wall clock in ns since the epoch, for logon timestamps.
inline int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One connection (plaintext or TLS) of the protobuf gateway and its session state
// (docs/protocol.md): logon, heartbeats, throttle, retransmission hold-back,
// market-data subscriptions.
//
// Thread: the gateway thread. Owned by Gateway's session map; asio handlers
// hold a shared_ptr so a closed session outlives its last completion.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class State : uint8_t { kAwaitLogon, kActive, kClosing, kClosed };

  Session(uint64_t session_id, Stream s)
      : id(session_id), stream(std::move(s)) {}

  uint64_t id;
  Stream stream;
  FrameReader reader;
  std::string out;      // framed bytes waiting for the socket
  std::string writing;  // bytes of the write in flight
  bool write_pending = false;
  bool dirty = false;
  State state = State::kAwaitLogon;
  // A Logon is being checked off the gateway thread: later frames wait
  // unread (Gateway::DrainFrames).
  bool logon_checking = false;

  const UserConfig* user = nullptr;
  // The API key the session logged on with: revoking it logs the session
  // out (Gateway::OnUserChanged).
  std::string api_key;
  exchange::AccountId account;
  uint32_t heartbeat_ms = 5'000;
  bool cancel_on_disconnect = true;
  int64_t connected_ns = 0;
  int64_t last_recv_ns = 0;
  int64_t last_send_ns = 0;

  // Token bucket, in thousandths of a message.
  TokenBucket throttle;

  // Retransmission: while replaying, live order messages are held back;
  // live messages for seqs <= live_after_seq are covered by the replay.
  bool replaying = false;
  uint64_t live_after_seq = 0;
  std::string held;
  // Where the retransmission is (Resender, gateway/pb/resend.h). Replay:
  // history entries [next, end). Snapshot: open orders with ids in
  // (next, end].
  struct ResendCursor {
    bool snapshot = false;
    uint64_t next = 0;
    uint64_t end = 0;
    uint32_t sent = 0;
  } resend;

  // Orders sent and not yet acknowledged, oldest first: (client order id,
  // receive time), for the order-to-ack latency metric.
  std::deque<std::pair<uint64_t, int64_t>> acks;

  std::vector<uint32_t> depth;   // subscribed instrument ids
  std::vector<uint32_t> trades;  // subscribed instrument ids
};

// The text of a SYSTEM_BUSY refusal: the sequencer's ring was full.
inline constexpr char kBusyText[] =
    "the exchange is busy; nothing was accepted, try again";

// The gateway's sessions by session id.
using SessionMap = std::unordered_map<uint64_t, std::shared_ptr<Session>>;

// The sessions' output side: frames messages into a session's output
// buffer (held back or dropped as its retransmission requires), counts them
// in the metrics, and lists the sessions with output for Gateway::Poll() to
// write.
//
// Thread: the gateway thread. Memory: one reusable frame and Envelope; the
// sessions' buffers grow with their output.
class Outbox {
 public:
  // `metrics` may be null; it must outlive the outbox.
  explicit Outbox(Metrics* metrics) : metrics_(metrics) {}

  // Frames `e` and queues it for `s` (unsequenced: never held back).
  void Send(Session& s, const wire::v1::Envelope& e);

  // Queues framed `bytes` for `s`. A sequenced message (an order message of
  // event `seq`) is dropped if a retransmission covers it and held back
  // while one runs.
  void SendBytes(Session& s, std::string_view bytes, bool sequenced,
                 uint64_t seq) {
    if (s.state == Session::State::kClosed) return;
    if (sequenced) {
      if (seq <= s.live_after_seq) return;  // the replay covers it
      if (s.replaying) {
        s.held.append(bytes);
        return;
      }
    }
    s.out.append(bytes);
    MarkDirty(s);
  }

  // Frames `e` once for sending to many sessions with SendFramed(); false
  // (send nothing) if it cannot be framed.
  bool Frame(const wire::v1::Envelope& e);
  // The message framed last by Frame().
  const std::string& framed() const { return frame_; }
  // Queues the message framed last by Frame() for `s`, counted as sent.
  void SendFramed(Session& s, bool sequenced, uint64_t seq);

  // A SessionReject for `s`: `field` may be null.
  void Reject(Session& s, wire::v1::SessionRejectReason reason,
              const char* message_type, const char* field,
              const std::string& text, uint64_t client_order_id = 0);

  // Lists `s` for the next write, once.
  void MarkDirty(Session& s) {
    if (!s.dirty) {
      s.dirty = true;
      dirty_.push_back(&s);
    }
  }
  // Takes the listed sessions (each still marked dirty) into `*out`.
  void TakeDirty(std::vector<Session*>* out) { out->swap(dirty_); }
  // Unlists a closing session.
  void Forget(Session& s);

  Metrics* metrics() const { return metrics_; }

 private:
  Metrics* metrics_;
  std::vector<Session*> dirty_;
  std::string frame_;
  int framed_type_ = 0;
  wire::v1::Envelope reject_;
};

}  // namespace cfx::gateway::pb
