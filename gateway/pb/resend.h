#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/types.h"
#include "gateway/pb/session.h"

namespace cfx::gateway {
class InstrumentTable;
class OrderView;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

// A sequenced message's position: (seq, index), docs/protocol.md.
struct MessagePosition {
  uint64_t seq = 0;
  uint32_t index = 0;
  friend bool operator<(const MessagePosition& a, const MessagePosition& b) {
    return a.seq != b.seq ? a.seq < b.seq : a.index < b.index;
  }
};

// The protobuf gateway's retransmission (docs/protocol.md, "Server sequence
// numbers and retransmission"), served from memory on the gateway thread:
//
// - History: the last `capacity` (session.resend_max_messages) framed
//   order-entry messages of each account, recorded as the live gateway
//   builds them (also during the start-up replay, so it survives restarts),
//   and each account's open order ids.
// - Resume: a session that logs on with a position is served the kept
//   messages after it, or, when a message after it is no longer kept, an
//   ORDER_STATUS report of each of the account's open orders (the snapshot).
//   Either way at most `capacity` messages per resume, then
//   RetransmissionComplete, then the live messages held back meanwhile.
// - Throttle: Serve() sends at most kPerSession messages to each resuming
//   session and kPerPoll in all per call, the sessions it did not reach
//   first on the next call, and skips a session
//   whose unsent output is at least kBackPressureBytes until its socket has
//   taken it.
//
// Thread: the gateway thread. Memory: per account with messages, at most
// `capacity` descriptors of 32 bytes and one byte ring holding the kept
// frames (an execution report is about 100 bytes framed). The ring grows
// only when a new frame fits nowhere in it, to twice the bytes of the last
// `capacity` frames then, so it is at most twice the most those ever took;
// with frames of one size it grows no more once it holds twice `capacity`
// of them, and recording then copies each frame once and allocates
// nothing. Plus 8 bytes per open order (and per order closed since the
// last prune); per resuming session a cursor.
class Resender {
 public:
  static constexpr int kPerSession = 16;
  static constexpr int kPerPoll = 64;
  static constexpr std::size_t kBackPressureBytes = 256u << 10;

  // Account ids 1..max_accounts.
  Resender(uint32_t max_accounts, uint32_t capacity, Outbox& outbox);

  // Keeps `frame`, the framed `env` just built for `account`, if it is
  // sequenced (an order-entry message with a seq).
  void Record(exchange::AccountId account, const wire::v1::Envelope& env,
              std::string_view frame);

  // Starts the retransmission of `s`'s messages after `after`; live
  // messages for seqs after `through` are held back until it completes.
  void Start(Session& s, MessagePosition after, uint64_t through);

  // Serves the resuming sessions (throttled as above); the ones whose held
  // live output outgrew `max_held` go to `*slow` for the caller to close.
  // Returns the messages sent.
  int Serve(const SessionMap& sessions, const InstrumentTable& instruments,
            const OrderView& orders, std::size_t max_held,
            std::vector<Session*>* slow);

  // Sessions being served now, and resumes started since construction.
  std::size_t active() const { return active_.size(); }
  uint64_t started() const { return started_; }
  uint32_t capacity() const { return capacity_; }

 private:
  // A kept message: its frame is bytes[offset, offset + length) of its
  // account's History.
  struct Entry {
    MessagePosition pos;
    int32_t type = 0;  // Envelope body case, for the metrics
    uint32_t length = 0;
    std::size_t offset = 0;
  };
  static_assert(sizeof(Entry) == 32,
                "the descriptor size the Memory note gives");
  // One account's messages and open orders. `ring` holds the descriptors:
  // once `capacity_` messages are kept it is circular, a new message taking
  // the oldest one's slot. `bytes` holds their frames, each in one piece,
  // oldest first from the oldest's offset: a new frame goes after the
  // newest, or at 0 when the end of `bytes` is too near (the end then
  // unused until the frames there are evicted), or, when neither has room,
  // after the kept ones copied to a bigger `bytes` (Grow()).
  struct History {
    std::vector<Entry> ring;  // at most capacity_; the oldest at `head`
    std::size_t head = 0;
    // Not zeroed when grown: only the kept frames' bytes are ever read.
    std::unique_ptr<char[]> bytes;
    std::size_t bytes_size = 0;
    uint64_t first = 0;  // number of the oldest kept message since start
    bool evicted = false;
    MessagePosition last_evicted;
    // Ascending ids of the orders with a non-terminal report; the ids in
    // `closed` (terminal since) leave it in batches (Prune()), so an open
    // or a close costs no tree node. The order view decides, when a
    // snapshot is sent, which of them are still open.
    std::vector<uint64_t> open_orders;
    std::vector<uint64_t> closed;

    std::size_t size() const { return ring.size(); }
    // The i-th oldest kept message. REQUIRES: i < size().
    const Entry& at(std::size_t i) const { return ring[slot(i)]; }
    std::size_t slot(std::size_t i) const {
      const std::size_t j = head + i;
      return j < ring.size() ? j : j - ring.size();
    }
    // Its frame; valid until the next Keep().
    std::string_view frame(const Entry& e) const {
      return {bytes.get() + e.offset, e.length};
    }
    // Where a frame of `length` bytes can go when the kept frames are
    // at(skip)..at(size() - 1): sets `*offset` and returns true, or returns
    // false when `bytes` has no room for it.
    bool Place(std::size_t skip, std::size_t length, std::size_t* offset) const;
    // Moves the frames of at(skip).. to the start of a new `bytes` of twice
    // the size they and `length` more take; returns the offset after them.
    std::size_t Grow(std::size_t skip, std::size_t length);
    void Prune();
  };

  History* Find(exchange::AccountId account) const;
  static void Keep(History& h, uint32_t capacity, MessagePosition pos, int type,
                   std::string_view frame);
  static void TrackOrder(History& h, const wire::v1::ExecutionReport& r);
  void StartSnapshot(Session& s, History* h);
  // Sends up to `budget` messages of s's retransmission; true when done.
  bool ServeOne(Session& s, const InstrumentTable& instruments,
                const OrderView& orders, int* budget);
  void Finish(Session& s);

  uint32_t capacity_;
  Outbox& outbox_;
  std::vector<std::unique_ptr<History>> by_account_;  // account id
  std::vector<uint64_t> active_;  // session ids, next to serve first
  uint64_t started_ = 0;
  wire::v1::Envelope out_;
};

}  // namespace cfx::gateway::pb
