#pragma once

// A FIX 4.4 counterparty for tests of the FIX gateway (docs/fix.md).
//
// FixTestClient wraps a real QuickFIX initiator (FIX::SocketInitiator with a
// FileStore), the engine a member firm would run; RawFixConnection is a bare
// TCP socket for what a FIX engine never sends (a wrong password, a second
// logon, garbage). Both hand messages over as plain structs.
//
// QuickFIX 1.15.1 headers compile only as C++14 (STYLE.md §10): this header
// is C++14 and holds no QuickFIX types; fix_test_client_quickfix.cc, compiled
// as C++14, is the only file that includes QuickFIX.
//
// QuickFIX keeps a process-wide registry of sessions keyed by SessionID: two
// FixTestClients with the same SenderCompID must not exist at the same time.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cfx {
namespace gateway {
namespace fix_test {

typedef std::pair<int, std::string> FixField;
typedef std::vector<FixField> FixFields;

// The value of the first field with `tag`, or nullptr.
const std::string* FindIn(const FixFields& fields, int tag);

// One repeating group: NoXxx(count_tag) and its entries, each in wire order.
// An entry's first field is the group's delimiter.
struct FixGroup {
  int count_tag = 0;
  std::vector<FixFields> entries;
};

// One FIX message as received or to be sent.
struct FixMessage {
  std::string type;  // MsgType(35)
  // Received messages: the standard header without 8, 9 and 35 (34, 43, 49,
  // 52, 56, 97, 122, ...). Sent messages: extra header fields (e.g. 43).
  FixFields header;
  // Body fields in order, group count fields included, group entries not.
  FixFields fields;
  std::vector<FixGroup> groups;
  // A session-level message (0 1 2 3 4 5 A).
  bool admin = false;
  // Received messages: the message as on the wire, SOH shown as '|'.
  std::string raw;

  const std::string* Find(int tag) const { return FindIn(fields, tag); }
  bool Has(int tag) const { return Find(tag) != nullptr; }
  // The body field's value, or "" when absent.
  std::string Get(int tag) const;
  const std::string* FindHeader(int tag) const { return FindIn(header, tag); }
  const FixGroup* FindGroup(int count_tag) const;
  // MsgSeqNum(34), 0 when absent.
  int seq() const;
  // PossDupFlag(43)=Y.
  bool poss_dup() const;
  // The raw message, or a rendering of the fields for messages to send.
  std::string ToString() const;
};

// The exchange's data dictionary in the source tree
// (gateway/fix/spec/CFX-FIX44.xml), or "" when the build does not know it.
std::string DefaultFixDictionary();

// Now as a FIX UTCTimestamp with milliseconds: YYYYMMDD-HH:MM:SS.sss.
std::string FixUtcNow();

struct FixClientOptions {
  std::string sender_comp_id;
  std::string target_comp_id = "CFX";
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  // Username(553) and Password(554) on the Logon; omitted when empty.
  std::string username;
  std::string password;
  // The session's FileStore (sequence numbers and sent messages) and log.
  // Another client on the same directory continues the same session.
  std::string store_dir;
  // The data dictionary validating and parsing what arrives (groups are
  // only parsed with one). Empty, or a path that does not exist: none.
  std::string dictionary = DefaultFixDictionary();
  int heartbeat_seconds = 30;
  // ResetSeqNumFlag(141)=Y on the Logon.
  bool reset_seq_num = false;
};

// A QuickFIX initiator session and an inbox of everything it received.
//
// Thread: QuickFIX calls back on its own thread; every public method may be
// called from any thread, Start() and Stop() from one at a time. Waits are
// bounded and use a condition variable.
class FixTestClient {
 public:
  typedef std::chrono::milliseconds Millis;
  typedef std::function<bool(const FixMessage&)> Predicate;

  explicit FixTestClient(const FixClientOptions& options);
  ~FixTestClient();
  FixTestClient(const FixTestClient&) = delete;
  FixTestClient& operator=(const FixTestClient&) = delete;

  // Creates the session and starts connecting and logging on. False with
  // *error when QuickFIX refuses the settings.
  bool Start(std::string* error);
  // Until the session is logged on (Logon sent and answered).
  bool WaitLoggedOn(Millis timeout);
  // Until the session is no longer logged on (after a Logout, or after the
  // exchange closed the connection).
  bool WaitLoggedOut(Millis timeout);
  bool logged_on() const;
  // How often the session logged on / off so far.
  int logons() const;
  int logouts() const;

  // Sends Logout(5) and waits for the exchange's Logout and the disconnect.
  // The session does not reconnect afterwards.
  bool Logout(Millis timeout);
  // Logout(), then stops the initiator; sequence numbers and sent messages
  // stay in the store for a later client on the same directory. Takes up to
  // a second (QuickFIX's initiator thread notices the stop at its one-second
  // tick). Idempotent. The destructor stops faster: it sends the Logout but
  // may close before reading the answer.
  void Stop();

  // Sends an application or session message through the session (numbered,
  // stored, resent on request). False if QuickFIX did not send it now.
  bool Send(const FixMessage& message);
  bool Send(const std::string& type, const FixFields& fields,
            const std::vector<FixGroup>& groups = std::vector<FixGroup>());

  // The first received message matching `pred` that no Await took yet; takes
  // it. False when none arrives within `timeout`. `pred` runs under the
  // inbox's lock: it must not call this client.
  bool Await(const Predicate& pred, Millis timeout, FixMessage* out = nullptr);
  // Received messages matching `pred`, taken or not.
  std::size_t Count(const Predicate& pred) const;
  // Everything received so far (application and session messages), in order.
  std::vector<FixMessage> Received() const;
  // Everything QuickFIX sent so far, in order (Logon, Rejects, ...).
  std::vector<FixMessage> Sent() const;
  // The session's next MsgSeqNum to send / expected to receive.
  int next_sender_seq() const;
  int next_target_seq() const;
  // The inbox and outbox as text, for failure messages.
  std::string Describe() const;

  const FixClientOptions& options() const { return options_; }

 private:
  class Impl;
  FixClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

// A bare blocking TCP connection speaking hand-built FIX, with reads bounded
// by a deadline.
class RawFixConnection {
 public:
  typedef std::chrono::milliseconds Millis;
  enum ReadResult { kMessage, kTimeout, kClosed };

  // nullptr with *error when the connection fails. A non-empty `source`
  // is the local IPv4 address to connect from (127.0.0.2: another loopback
  // client).
  static std::unique_ptr<RawFixConnection> Connect(
      const std::string& host, uint16_t port, std::string* error,
      const std::string& source = std::string());
  ~RawFixConnection();
  RawFixConnection(const RawFixConnection&) = delete;
  RawFixConnection& operator=(const RawFixConnection&) = delete;

  bool Write(const std::string& bytes);
  // The next whole message (fields flat, no groups). kClosed once the peer
  // closed and everything before was read; kTimeout when nothing complete
  // arrived in time.
  ReadResult Read(Millis timeout, FixMessage* out);
  // Reads until the peer closes; messages read meanwhile go to *before. False
  // when the connection is still open after `timeout`.
  bool AwaitClose(Millis timeout, std::vector<FixMessage>* before);

 private:
  explicit RawFixConnection(int fd) : fd_(fd) {}
  int fd_;
  std::string buffer_;
  bool closed_ = false;
};

// A whole message: 8=`begin_string`, 9=<body length>, `fields` (starting
// with 35), 10=<checksum>.
std::string BuildFixMessage(const std::string& begin_string,
                            const FixFields& fields);

// Parses one message from the front of `data`: returns its length, 0 if it
// is incomplete, -1 if it is not FIX. Fields go to *out flat.
long ParseFixMessage(const std::string& data, FixMessage* out);

}  // namespace fix_test
}  // namespace gateway
}  // namespace cfx
