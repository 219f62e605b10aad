#pragma once

// The boundary between the QuickFIX island and the rest of the exchange.
//
// QuickFIX 1.15.1 headers compile only as C++14 (STYLE.md §10), so QuickFIX
// is included by gateway/fix/*_quickfix.{h,cc} alone. This header is C++14
// and holds no QuickFIX types: messages cross it as plain tag/value structs, and
// the transport (sockets) stays on the C++20 side, which hands the engine
// bytes and receives bytes to write.
//
// Thread: an Engine and its Handler are used from one thread only (the
// gateway thread); every callback runs inside one of the Engine's methods on
// that thread.
//
// Output is batched: the session stores buffer their records and the engine
// holds the bytes for each connection until Engine::Flush(), which writes
// the stores first, so that no byte reaches a socket before the store
// records it depends on (docs/fix.md, "Sequence numbers and recovery").

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cfx {
namespace gateway {
namespace fix {

struct Field {
  int tag = 0;
  std::string value;
};

// One repeating group of a message body: NoXxx(count_tag) followed by
// entries whose first field is `delimiter`. Entries hold flat fields (no
// nested groups).
struct Group {
  int count_tag = 0;
  int delimiter = 0;
  std::vector<std::vector<Field> > entries;
};

// An application message body: MsgType(35), the body fields in order, and
// the body's repeating groups. No header or trailer fields: the session adds
// those when sending, and strips them when receiving (see `poss_dup`).
struct Message {
  std::string type;
  std::vector<Field> fields;
  std::vector<Group> groups;
  // Received messages: PossDupFlag(43)=Y or PossResend(97)=Y in the header.
  bool poss_dup = false;
  // Received messages: MsgSeqNum(34) of the header (for RefSeqNum(45) in a
  // BusinessMessageReject); 0 when unknown.
  int seq_num = 0;

  // The value of the first body field with `tag`, or nullptr.
  const std::string* Find(int tag) const;
  // The group with `count_tag`, or nullptr.
  const Group* FindGroup(int count_tag) const;
  // Appends a body field.
  void Add(int tag, const std::string& value);
};

// The value of the first field with `tag` in one group entry, or nullptr.
const std::string* FindIn(const std::vector<Field>& entry, int tag);

struct EngineOptions {
  // The exchange's CompID: SenderCompID of everything it sends.
  std::string sender_comp_id = "CFX";
  // One session per entry: the client's SenderCompID (our TargetCompID).
  // A session is identified by its index in this vector; sessions added
  // later (Engine::AddSession) take the indexes after it.
  std::vector<std::string> sessions;
  // Directory of the sessions' message stores (sequence numbers and sent
  // messages, kept across restarts); created if missing.
  std::string store_dir;
  // The FIX 4.4 data dictionary (QuickFIX XML format), used for the
  // transport and the application layer.
  std::string dictionary_xml;
  // Daily session window, UTC "HH:MM:SS": sequence numbers reset when a new
  // window starts; logons outside the window are refused. start > end is an
  // overnight window (the default: a 5-second break at 21:00 UTC, the end of
  // the trading day).
  std::string start_time = "21:00:05";
  std::string end_time = "21:00:00";
  // The exchange clock, ns since the epoch, that the daily window follows
  // (a simulated clock included); called on the engine's thread. Heartbeats,
  // timeouts and SendingTime checks stay on the wall clock. Default
  // (empty): the wall clock.
  std::function<int64_t()> exchange_now_ns;
  // A connection that has not completed a Logon after this many seconds is
  // closed.
  int logon_timeout_seconds = 10;
  // A connection whose unparsed input exceeds this many bytes is closed.
  std::size_t max_message_bytes = 64 * 1024;
};

// Implemented by the C++20 side. Every call comes from inside an Engine
// method, on the Engine's thread.
class Handler {
 public:
  virtual ~Handler() {}
  // A Logon(A) on connection `conn` for `session` (-1: a SenderCompID
  // that is not configured) carrying Username(553) and Password(554)
  // (either may be empty when absent), before the session sees it. Either
  // answers now: returns true with *refusal "" to accept, or the Text(58)
  // of the refusing Logout; or returns false and answers later with
  // Engine::LogonChecked(conn, refusal). Until the answer the connection's
  // later input waits. A refused Logon never reaches the session: it
  // consumes no sequence number, and the Logout (MsgSeqNum 1, written
  // outside the session) is the same for every session and for none.
  virtual bool CheckLogon(uint64_t conn, int session,
                          const std::string& username,
                          const std::string& password,
                          std::string* refusal) = 0;
  // The session is logged on / is no longer logged on.
  virtual void OnLogon(int session) = 0;
  virtual void OnLogout(int session) = 0;
  // Connection `conn` carries a session that just logged on (called before
  // OnLogon). Default: nothing.
  virtual void OnConnectionLoggedOn(uint64_t /*conn*/) {}
  // An application message that passed the session layer and dictionary
  // validation (duplicates already dropped by sequence number).
  virtual void OnMessage(int session, const Message& message) = 0;
  // Transport: queue `size` bytes for connection `conn`. Called from
  // Engine::Flush() (or just before a Close), after the session stores
  // have written the records of these bytes to the OS: the bytes may go to
  // the socket at any time after the call.
  virtual void Write(uint64_t conn, const char* data, std::size_t size) = 0;
  // Transport: close connection `conn` once what is queued for it has been
  // written. The engine still gets Disconnected(conn) afterwards.
  virtual void Close(uint64_t conn) = 0;
  // One line for the server log. Never carries a password or a raw message.
  virtual void Log(const std::string& line) = 0;
};

class Engine {
 public:
  // Creates the sessions and their stores. On failure returns nullptr and
  // sets *error (a bad dictionary, an unwritable store directory).
  static std::unique_ptr<Engine> Create(const EngineOptions& options,
                                        Handler* handler, std::string* error);
  virtual ~Engine() {}

  // Transport events. Every Connected(conn) is followed, eventually, by
  // exactly one Disconnected(conn), also for connections the engine closed.
  virtual void Connected(uint64_t conn, double now_seconds) = 0;
  virtual void Received(uint64_t conn, const char* data, std::size_t size) = 0;
  virtual void Disconnected(uint64_t conn) = 0;

  // The answer to a Handler::CheckLogon that returned false: "" accepts
  // the Logon (it then goes to its session), anything else refuses it with
  // that Text(58). Nothing for a connection that is gone or closing, or
  // whose Logon is not waiting for an answer. Not from inside CheckLogon.
  virtual void LogonChecked(uint64_t conn, const std::string& refusal) = 0;

  // Session timers: heartbeats, test requests, logon and logout timeouts,
  // the daily window. Call about once a second.
  virtual void Tick(double now_seconds) = 0;

  // Sends an application message on `session`: numbered and stored, and
  // written by the next Flush() when the session is logged on, else kept in
  // the store for the client's ResendRequest after its next logon. False if
  // QuickFIX refused it (the message is then lost, and the line is logged).
  virtual bool Send(int session, const Message& message) = 0;

  // Writes what the session stores buffered since the last Flush (sequence
  // numbers, sent messages) to the OS, not to the disk (docs/fix.md: the
  // stores survive a crash of the process, not a power loss), then hands
  // the bytes queued for each connection to Handler::Write. Every output
  // of the other methods waits for it, so call it once per poll cycle,
  // before writing sockets. After LogoutAll() every call flushes on return.
  //
  // If a store cannot write, it keeps its records for the next Flush, the
  // line is logged, and its session's queued bytes are dropped and its
  // connection closed (the client recovers them by ResendRequest).
  virtual void Flush() = 0;

  virtual bool LoggedOn(int session) const = 0;

  // True iff the session has sent something in the current daily window
  // (its next sender MsgSeqNum is above 1): a client that will expect the
  // messages stored for it while it is away.
  virtual bool HasHistory(int session) const = 0;

  // Sends Logout(5) with `reason` on every logged-on session and closes
  // their connections (shutdown).
  virtual void LogoutAll(const std::string& reason) = 0;

  // Sends Logout(5) with Text(58) `reason` on `session` if it is logged on;
  // the connection closes at the client's Logout or the logout timeout.
  // Later Logons of the session still go to Handler::CheckLogon.
  virtual void Logout(int session, const std::string& reason) = 0;

  // Creates one more session, for client SenderCompID `client_comp_id`
  // (a user added while the exchange runs), with its store: an existing
  // store of that CompID (an earlier run's) is picked up as at start.
  // Returns its index, the next one (EngineOptions::sessions.size() for
  // the first); -1 and *error for an empty CompID, one with SOH, or one
  // that already has a session.
  virtual int AddSession(const std::string& client_comp_id,
                         std::string* error) = 0;
};

// Reads one raw inbound FIX message as a session does before
// Handler::OnMessage: QuickFIX's parser (body length and checksum checked),
// the data dictionary's validation with the Engine's settings, then the plain
// struct. Without the session's sequence number, SendingTime and CompID
// checks. The fuzz target tests/fuzz/fix_message_fuzzer.cc goes through it.
class MessageReader {
 public:
  // nullptr and *error when `dictionary_xml` does not load.
  static std::unique_ptr<MessageReader> Create(
      const std::string& dictionary_xml, std::string* error);
  virtual ~MessageReader() {}
  // False with *why (QuickFIX's reason) for bytes that are not a valid
  // application message; *out is then empty.
  virtual bool Read(const std::string& raw, Message* out,
                    std::string* why) const = 0;
};

}  // namespace fix
}  // namespace gateway
}  // namespace cfx
