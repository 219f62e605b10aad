// The QuickFIX island behind fix_engine.h. Compiled as C++14 (STYLE.md §10):
// with session_store_quickfix.cc and the generated dictionary, the only
// files that include QuickFIX.
//
// QuickFIX supplies the FIX session layer (FIX::Session: sequence numbers,
// validation against the data dictionary, heartbeats, resends). The message
// store is ours (session_store.h): it buffers its records until Flush(). The
// sockets stay on the C++20 side: each connection is a FIX::Parser fed by
// Received() and a FIX::Responder whose bytes wait in the connection's
// output until Flush() has written the stores, then go out through
// Handler::Write (Handler::Close flushes first). Routing is ours too:
// QuickFIX's global session registry is never used (two Engines, or an
// Engine and a plain SocketAcceptor, may share a process with identical
// SessionIDs).

#include <quickfix/Application.h>
#include <quickfix/DataDictionary.h>
#include <quickfix/DataDictionaryProvider.h>
#include <quickfix/Exceptions.h>
#include <quickfix/FieldTypes.h>
#include <quickfix/Fields.h>
#include <quickfix/Group.h>
#include <quickfix/Log.h>
#include <quickfix/Message.h>
#include <quickfix/Parser.h>
#include <quickfix/Responder.h>
#include <quickfix/Session.h>
#include <quickfix/SessionID.h>
#include <quickfix/TimeRange.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/fix/fix_engine.h"
#include "gateway/fix/session_store.h"

namespace cfx {
namespace gateway {
namespace fix {

const std::string* Message::Find(int tag) const { return FindIn(fields, tag); }

const Group* Message::FindGroup(int count_tag) const {
  for (const Group& group : groups) {
    if (group.count_tag == count_tag) return &group;
  }
  return nullptr;
}

void Message::Add(int tag, const std::string& value) {
  Field field;
  field.tag = tag;
  field.value = value;
  fields.push_back(std::move(field));
}

const std::string* FindIn(const std::vector<Field>& entry, int tag) {
  for (const Field& field : entry) {
    if (field.tag == tag) return &field.value;
  }
  return nullptr;
}

namespace {

const char kBeginString[] = "FIX.4.4";

const int64_t kNanosPerSecond = 1000000000;
const int64_t kNanosPerDay = 86400 * kNanosPerSecond;

int64_t WallNanos() {
  return static_cast<int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// Log lines forwarded to the Handler between two Ticks; the rest are counted
// and reported as one line by the next Tick.
const int kLogLinesPerTick = 50;

// Client-supplied text in our own log lines is cut to this many characters.
const std::size_t kMaxLoggedText = 32;

// A connection's output buffer that grew past this is given back once
// written.
const std::size_t kMaxKeptOutput = 1 << 20;

// QuickFIX session events worth a line in the server log: logons, logouts,
// disconnects, sequence resets and resend requests, timeouts, store errors.
// None carries message content. Dropped: per-message events ("Message N
// Rejected", "Resending Message", queueing), and everything else.
const char* const kForwardedEvents[] = {
    "Responding to logon request",
    "Rejected Logon Attempt",
    "Session is not enabled for logon",
    "Received logon outside of valid logon time",
    "Logon message is not valid",
    "Required field missing from logon",
    "Logon state is not valid for message",
    "Logon contains ResetSeqNumFlag=Y",
    "Received logout request",
    "Received logout response",
    "Initiated logout request",
    "Disconnecting",
    "Received SequenceReset FROM",
    "Received ResendRequest FROM",
    "Sent ResendRequest FROM",
    "ResendRequest for messages FROM",
    "MsgSeqNum too low",
    "Timed out waiting",
    "IO Error",
};

bool IsForwardedEvent(const std::string& text) {
  for (const char* prefix : kForwardedEvents) {
    if (text.compare(0, std::strlen(prefix), prefix) == 0) return true;
  }
  return false;
}

// `text` made safe for a log line: printable ASCII, at most kMaxLoggedText
// characters.
std::string Printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (out.size() == kMaxLoggedText) {
      out += "...";
      break;
    }
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

// Parses "HH:MM:SS".
bool ParseTimeOfDay(const std::string& text, int* hour, int* minute,
                    int* second) {
  if (text.size() != 8 || text[2] != ':' || text[5] != ':') return false;
  static const std::size_t kDigits[] = {0, 1, 3, 4, 6, 7};
  for (std::size_t i : kDigits) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  *hour = (text[0] - '0') * 10 + (text[1] - '0');
  *minute = (text[3] - '0') * 10 + (text[4] - '0');
  *second = (text[6] - '0') * 10 + (text[7] - '0');
  return *hour < 24 && *minute < 60 && *second < 60;
}

// mkdir -p `path`, then checks that it is a writable directory.
bool MakeDirectories(const std::string& path, std::string* error) {
  std::string::size_type pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      *error =
          "cannot create directory " + prefix + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + " is not a directory";
    return false;
  }
  if (::access(path.c_str(), W_OK | X_OK) != 0) {
    *error = "directory " + path + " is not writable";
    return false;
  }
  return true;
}

bool HasSoh(const std::string& text) {
  return text.find('\001') != std::string::npos;
}

// A field value we can put on the wire: non-empty, no SOH.
bool IsSendable(const Field& field, std::string* why) {
  if (field.tag <= 0) {
    *why = "bad tag " + std::to_string(field.tag);
    return false;
  }
  if (field.value.empty() || HasSoh(field.value)) {
    *why = "empty or SOH-carrying value for tag " + std::to_string(field.tag);
    return false;
  }
  if (FIX::Message::isHeaderField(field.tag) ||
      FIX::Message::isTrailerField(field.tag)) {
    *why = "header or trailer tag " + std::to_string(field.tag) + " in body";
    return false;
  }
  return true;
}

// Builds the QuickFIX message for Engine::Send. Body fields go out in tag
// order (QuickFIX's order; a resend re-parses the stored message and sorts
// them the same way); each group follows its count field, its entries'
// fields in the order given (delimiter first).
bool BuildMessage(const Message& in, FIX::Message* out, std::string* why) {
  if (in.type.empty() || HasSoh(in.type)) {
    *why = "bad MsgType";
    return false;
  }
  out->getHeader().setField(FIX::MsgType(in.type));
  for (const Field& field : in.fields) {
    if (!IsSendable(field, why)) return false;
    out->setField(field.tag, field.value);
  }
  for (const Group& group : in.groups) {
    if (group.count_tag <= 0 || group.delimiter <= 0) {
      *why = "bad group " + std::to_string(group.count_tag);
      return false;
    }
    // The entries' tags in first-seen order, delimiter first, 0-terminated:
    // QuickFIX's group field order.
    std::vector<int> order(1, group.delimiter);
    for (const std::vector<Field>& entry : group.entries) {
      for (const Field& field : entry) {
        bool seen = false;
        for (int tag : order) seen = seen || tag == field.tag;
        if (!seen) order.push_back(field.tag);
      }
    }
    order.push_back(0);
    for (const std::vector<Field>& entry : group.entries) {
      if (entry.empty() || entry.front().tag != group.delimiter) {
        *why = "an entry of group " + std::to_string(group.count_tag) +
               " does not start with its delimiter " +
               std::to_string(group.delimiter);
        return false;
      }
      FIX::Group fix_group(group.count_tag, group.delimiter, order.data());
      for (const Field& field : entry) {
        if (!IsSendable(field, why)) return false;
        fix_group.setField(field.tag, field.value);
      }
      out->addGroup(fix_group);
    }
    if (group.entries.empty()) out->setField(group.count_tag, "0");
  }
  return true;
}

bool IsYes(const FIX::FieldMap& map, int tag) {
  return map.isSetField(tag) && map.getField(tag) == "Y";
}

// Copies a validated application message into the plain struct: body fields
// in QuickFIX's (tag) order, except the count fields of the message's groups,
// which become Groups (in the same order) with their entries.
void ToPlain(const FIX::Message& in, const FIX::DataDictionary& dictionary,
             Message* out) {
  const FIX::Header& header = in.getHeader();
  out->type = header.getField(FIX::FIELD::MsgType);
  out->poss_dup = IsYes(header, FIX::FIELD::PossDupFlag) ||
                  IsYes(header, FIX::FIELD::PossResend);
  out->seq_num = 0;
  if (header.isSetField(FIX::FIELD::MsgSeqNum)) {
    // Validated as a SEQNUM by the dictionary; std::atoi cannot throw.
    out->seq_num = std::atoi(header.getField(FIX::FIELD::MsgSeqNum).c_str());
  }
  for (FIX::FieldMap::const_iterator it = in.begin(); it != in.end(); ++it) {
    const int tag = it->getTag();
    int delimiter = 0;
    const FIX::DataDictionary* group_dictionary = nullptr;
    if (!dictionary.getGroup(out->type, tag, delimiter, group_dictionary)) {
      Field field;
      field.tag = tag;
      field.value = it->getString();
      out->fields.push_back(std::move(field));
      continue;
    }
    Group group;
    group.count_tag = tag;
    group.delimiter = delimiter;
    for (FIX::FieldMap::g_const_iterator g = in.g_begin(); g != in.g_end();
         ++g) {
      if (g->first != tag) continue;
      for (const FIX::FieldMap* entry : g->second) {
        std::vector<Field> fields;
        for (FIX::FieldMap::const_iterator f = entry->begin();
             f != entry->end(); ++f) {
          Field field;
          field.tag = f->getTag();
          field.value = f->getString();
          fields.push_back(std::move(field));
        }
        group.entries.push_back(std::move(fields));
      }
    }
    out->groups.push_back(std::move(group));
  }
}

class QuickFixEngine;

// One transport connection. Owned by QuickFixEngine::connections_; erased
// only by Disconnected(). While bound, its Session holds &responder.
struct Connection;

class ConnectionResponder : public FIX::Responder {
 public:
  ConnectionResponder(QuickFixEngine* engine, Connection* connection)
      : engine_(engine), connection_(connection) {}
  bool send(const std::string& bytes) override;
  // Called from inside Session::disconnect(), so inside Session::next():
  // only flags are changed, nothing is destroyed.
  void disconnect() override;

 private:
  QuickFixEngine* engine_;
  Connection* connection_;
};

struct Connection {
  Connection(QuickFixEngine* engine, uint64_t connection_id, double now)
      : id(connection_id), connected_at(now), responder(engine, this) {}

  uint64_t id;
  double connected_at;
  FIX::Parser parser;
  // Bytes given to the parser and not yet returned as a message (an upper
  // bound: the parser also drops bytes before "8=").
  std::size_t pending = 0;
  // The session of its Logon, -1 before one. Bound while
  // slots_[session]->connection == this.
  int session = -1;
  bool closing = false;  // Handler::Close was called
  bool gone = false;     // Disconnected() was called
  // Bytes for Handler::Write at the next Flush; queued: in output_queue_.
  std::string out;
  bool queued = false;
  ConnectionResponder responder;
};

// The FIX::Application of one session.
class SessionApplication : public FIX::Application {
 public:
  SessionApplication(QuickFixEngine* engine, int session)
      : engine_(engine), session_(session) {}

  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override;
  void onLogout(const FIX::SessionID&) override;
  void toAdmin(FIX::Message& message, const FIX::SessionID&) override;
  void toApp(FIX::Message&, const FIX::SessionID&) noexcept override {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
  // The specification QuickFIX's interface requires (C++14 only).
  void fromAdmin(const FIX::Message& message,
                 const FIX::SessionID&) throw(FIX::RejectLogon) override;
#pragma GCC diagnostic pop
  void fromApp(const FIX::Message& message,
               const FIX::SessionID&) noexcept override;

 private:
  QuickFixEngine* engine_;
  int session_;
};

// Forwards the useful QuickFIX events of one session (kForwardedEvents) to
// the Handler; never logs messages.
class SessionLog : public FIX::Log {
 public:
  SessionLog(QuickFixEngine* engine, std::string prefix)
      : engine_(engine), prefix_(std::move(prefix)) {}
  void clear() override {}
  void backup() override {}
  void onIncoming(const std::string&) override {}
  void onOutgoing(const std::string&) override {}
  void onEvent(const std::string& text) override;

 private:
  QuickFixEngine* engine_;
  std::string prefix_;
};

class SessionLogFactory : public FIX::LogFactory {
 public:
  explicit SessionLogFactory(QuickFixEngine* engine) : engine_(engine) {}
  FIX::Log* create() override { return new FIX::NullLog(); }
  FIX::Log* create(const FIX::SessionID& id) override {
    return new SessionLog(engine_,
                          "fix " + id.getTargetCompID().getString() + ": ");
  }
  void destroy(FIX::Log* log) override { delete log; }

 private:
  QuickFixEngine* engine_;
};

struct SessionSlot {
  std::string client_comp_id;
  std::unique_ptr<SessionApplication> application;
  std::unique_ptr<FIX::Session> session;  // after `application`: dies first
  Connection* connection = nullptr;       // the bound connection
  // Set while Received() hands a Logon to the session: the verdict of
  // Handler::Authenticate, applied by fromAdmin.
  bool logon_checked = false;
  std::string logon_refusal;
  // The Text(58) of the next Logout (a refused Logon's reason).
  std::string logout_text;
};

class QuickFixEngine : public Engine {
 public:
  QuickFixEngine(const EngineOptions& options, Handler* handler)
      : options_(options), handler_(handler), log_factory_(this) {}
  ~QuickFixEngine() override {}

  bool Init(std::string* error);

  void Connected(uint64_t conn, double now_seconds) override;
  void Received(uint64_t conn, const char* data, std::size_t size) override;
  void Disconnected(uint64_t conn) override;
  void Tick(double now_seconds) override;
  bool Send(int session, const Message& message) override;
  bool LoggedOn(int session) const override;
  bool HasHistory(int session) const override;
  void LogoutAll(const std::string& reason) override;
  void Flush() override;

  // Callbacks from the QuickFIX side.
  bool ResponderSend(Connection* connection, const std::string& bytes);
  void ResponderDisconnect(Connection* connection);
  void OnLogon(int session);
  void OnLogout(int session);
  void ToAdmin(int session, FIX::Message& message);
  void FromAdmin(int session, const FIX::Message& message);
  void FromApp(int session, const FIX::Message& message);
  void LogLine(const std::string& line);

 private:
  // Counts nested public calls, so that a Disconnected() reached from inside
  // another call (Handler::Close calling back) defers the erase.
  class CallScope {
   public:
    explicit CallScope(QuickFixEngine* engine) : engine_(engine) {
      ++engine_->depth_;
    }
    ~CallScope() {
      if (--engine_->depth_ == 0) {
        if (engine_->flush_on_return_) engine_->FlushOutput();
        engine_->EraseGone();
      }
    }

   private:
    QuickFixEngine* engine_;
  };

  Connection* Find(uint64_t conn) const;
  bool Bound(const Connection* connection) const {
    return connection->session >= 0 &&
           slots_[static_cast<std::size_t>(connection->session)]->connection ==
               connection;
  }
  FIX::Session& SessionOf(int session) const {
    return *slots_[static_cast<std::size_t>(session)]->session;
  }
  const std::string& Prefix(int session) const {
    return slots_[static_cast<std::size_t>(session)]->client_comp_id;
  }
  void Dispatch(Connection* connection, const std::string& raw);
  void DispatchLogon(Connection* connection, const std::string& raw);
  void CloseConnection(Connection* connection, const std::string& reason);
  void Drop(Connection* connection);
  // Handler::Close for a connection not closing yet, after a FlushOutput
  // (bytes queued before a close, such as a Logout, go first).
  void CloseAfterOutput(Connection* connection);
  void EraseGone();
  // The stores, then the queued bytes (Engine::Flush).
  void FlushOutput();
  // The daily window, on the exchange clock (EngineOptions::start_time and
  // end_time). FIX::Session gets an all-day window and never starts a new
  // one by itself (session_store.h): the engine does, here.
  //
  // The window holding exchange time `ns`: its day number in *window (the
  // UTC day it starts); false in the break between two windows.
  bool WindowOf(int64_t ns, int64_t* window) const;
  // Resets `slot`'s session (Logout to a logged-on client, disconnect, new
  // store) when the window of its store's creation is not the current one.
  void ApplyWindow(SessionSlot& slot);
  // True while the exchange clock is inside a window.
  bool InWindow() const {
    int64_t window = 0;
    return WindowOf(clock_(), &window);
  }

  const EngineOptions options_;
  Handler* const handler_;
  // The exchange clock (options_.exchange_now_ns, else the wall clock) and
  // the window's ends, ns after 00:00 UTC.
  std::function<int64_t()> clock_;
  int64_t window_start_ns_ = 0;
  int64_t window_end_ns_ = 0;
  std::shared_ptr<FIX::DataDictionary> dictionary_;
  FIX::DataDictionaryProvider dictionaries_;
  std::unique_ptr<internal::SessionStores> stores_;
  SessionLogFactory log_factory_;
  // After the factories the sessions use: destroyed before them.
  std::vector<std::unique_ptr<SessionSlot> > slots_;
  std::unordered_map<std::string, int> session_by_comp_id_;
  std::map<uint64_t, std::unique_ptr<Connection> > connections_;
  // Connections with bytes in `out`, in the order they got them.
  std::vector<uint64_t> output_queue_;
  bool flushing_ = false;
  // A connection is gone: EraseGone has work.
  bool erase_pending_ = false;
  // After LogoutAll (shutdown; the caller may not call Flush again): every
  // outermost call flushes on return.
  bool flush_on_return_ = false;
  int depth_ = 0;
  int log_budget_ = kLogLinesPerTick;
  long log_suppressed_ = 0;
};

bool ConnectionResponder::send(const std::string& bytes) {
  return engine_->ResponderSend(connection_, bytes);
}

void ConnectionResponder::disconnect() {
  engine_->ResponderDisconnect(connection_);
}

void SessionApplication::onLogon(const FIX::SessionID&) {
  engine_->OnLogon(session_);
}

void SessionApplication::onLogout(const FIX::SessionID&) {
  engine_->OnLogout(session_);
}

void SessionApplication::toAdmin(FIX::Message& message, const FIX::SessionID&) {
  engine_->ToAdmin(session_, message);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
void SessionApplication::fromAdmin(
    const FIX::Message& message,
    const FIX::SessionID&) throw(FIX::RejectLogon) {
  engine_->FromAdmin(session_, message);
}
#pragma GCC diagnostic pop

void SessionApplication::fromApp(const FIX::Message& message,
                                 const FIX::SessionID&) noexcept {
  engine_->FromApp(session_, message);
}

void SessionLog::onEvent(const std::string& text) {
  if (IsForwardedEvent(text)) engine_->LogLine(prefix_ + text);
}

bool QuickFixEngine::Init(std::string* error) {
  if (handler_ == nullptr) {
    *error = "fix: no handler";
    return false;
  }
  if (options_.sender_comp_id.empty() || HasSoh(options_.sender_comp_id)) {
    *error = "fix: empty sender_comp_id";
    return false;
  }
  if (options_.logon_timeout_seconds <= 0 || options_.max_message_bytes == 0) {
    *error = "fix: logon_timeout_seconds and max_message_bytes must be > 0";
    return false;
  }
  for (std::size_t i = 0; i < options_.sessions.size(); ++i) {
    const std::string& comp_id = options_.sessions[i];
    if (comp_id.empty() || HasSoh(comp_id)) {
      *error = "fix: session " + std::to_string(i) + " has an empty CompID";
      return false;
    }
    if (!session_by_comp_id_.emplace(comp_id, static_cast<int>(i)).second) {
      *error = "fix: duplicate session CompID \"" + comp_id + "\"";
      return false;
    }
  }
  int start[3];
  int end[3];
  if (!ParseTimeOfDay(options_.start_time, &start[0], &start[1], &start[2]) ||
      !ParseTimeOfDay(options_.end_time, &end[0], &end[1], &end[2])) {
    *error = "fix: start_time and end_time must be UTC HH:MM:SS";
    return false;
  }
  window_start_ns_ =
      ((int64_t{start[0]} * 60 + start[1]) * 60 + start[2]) * kNanosPerSecond;
  window_end_ns_ =
      ((int64_t{end[0]} * 60 + end[1]) * 60 + end[2]) * kNanosPerSecond;
  clock_ = options_.exchange_now_ns;
  if (!clock_) clock_ = WallNanos;
  if (options_.store_dir.empty()) {
    *error = "fix: empty store_dir";
    return false;
  }
  std::string why;
  if (!MakeDirectories(options_.store_dir, &why)) {
    *error = "fix: store: " + why;
    return false;
  }
  try {
    std::istringstream xml(options_.dictionary_xml);
    dictionary_ = std::make_shared<FIX::DataDictionary>(xml);
  } catch (const std::exception& e) {
    *error = std::string("fix: data dictionary: ") + e.what();
    return false;
  }
  if (dictionary_->getVersion() != kBeginString) {
    *error = "fix: data dictionary is for \"" + dictionary_->getVersion() +
             "\", not " + kBeginString;
    return false;
  }
  dictionary_->checkFieldsOutOfOrder(false);
  dictionary_->checkFieldsHaveValues(true);
  dictionary_->checkUserDefinedFields(true);
  dictionary_->allowUnknownMsgFields(false);
  const FIX::BeginString begin_string(kBeginString);
  dictionaries_.addTransportDataDictionary(begin_string, dictionary_);
  dictionaries_.addApplicationDataDictionary(
      FIX::Message::toApplVerID(begin_string), dictionary_);
  try {
    stores_.reset(new internal::SessionStores(
        options_.store_dir, [this](const std::string& line) { LogLine(line); },
        clock_));
  } catch (const std::exception& e) {
    *error = std::string("fix: store: ") + e.what();
    return false;
  }
  // All day: from 00:00:00.000000001 to 00:00:00, so no time of day falls
  // outside it (the engine applies the configured window, ApplyWindow).
  const FIX::TimeRange window(FIX::UtcTimeOnly(0, 0, 0, 1, 9),
                              FIX::UtcTimeOnly(0, 0, 0));

  for (std::size_t i = 0; i < options_.sessions.size(); ++i) {
    // In slots_ before its Session exists: the constructor already calls
    // back (onCreate).
    slots_.emplace_back(new SessionSlot);
    SessionSlot* slot = slots_.back().get();
    slot->client_comp_id = options_.sessions[i];
    slot->application.reset(new SessionApplication(this, static_cast<int>(i)));
    try {
      // HeartBtInt 0: an acceptor (the client's Logon sets the interval).
      slot->session.reset(
          new FIX::Session(*slot->application, stores_->factory(),
                           FIX::SessionID(kBeginString, options_.sender_comp_id,
                                          slot->client_comp_id),
                           dictionaries_, window, 0, &log_factory_));
    } catch (const std::exception& e) {
      *error = "fix: session " + slot->client_comp_id + ": " + e.what();
      return false;
    }
    FIX::Session& session = *slot->session;
    session.setCheckCompId(true);
    session.setCheckLatency(true);
    session.setMaxLatency(120);
    session.setMillisecondsInTimeStamp(true);
    session.setPersistMessages(true);
    session.setValidateLengthAndChecksum(true);
    session.setResetOnLogon(false);
    session.setResetOnLogout(false);
    session.setResetOnDisconnect(false);
    session.setRefreshOnLogon(false);
    // A store from an earlier window starts the current one now.
    ApplyWindow(*slot);
  }
  return true;
}

bool QuickFixEngine::WindowOf(int64_t ns, int64_t* window) const {
  int64_t day = ns / kNanosPerDay;
  int64_t time = ns % kNanosPerDay;
  if (time < 0) {
    time += kNanosPerDay;
    --day;
  }
  const int64_t start = window_start_ns_;
  const int64_t end = window_end_ns_;
  if (start > end) {  // overnight: [start of day d, end of day d + 1]
    if (time >= start) {
      *window = day;
      return true;
    }
    if (time <= end) {
      *window = day - 1;
      return true;
    }
    return false;
  }
  // Within one day; start == end is the whole day.
  if (start == end || (time >= start && time <= end)) {
    *window = day;
    return true;
  }
  return false;
}

void QuickFixEngine::ApplyWindow(SessionSlot& slot) {
  int64_t created = 0;
  int64_t created_window = 0;
  int64_t now_window = 0;
  const bool created_in =
      stores_->CreationNs(slot.client_comp_id, &created) &&
      WindowOf(created, &created_window);
  const bool now_in = WindowOf(clock_(), &now_window);
  if (created_in == now_in && (!now_in || created_window == now_window)) {
    return;
  }
  try {
    slot.session->reset();
  } catch (const std::exception& e) {
    LogLine("fix " + slot.client_comp_id +
            ": cannot start the new daily window: " + e.what());
  }
}

Connection* QuickFixEngine::Find(uint64_t conn) const {
  std::map<uint64_t, std::unique_ptr<Connection> >::const_iterator it =
      connections_.find(conn);
  return it == connections_.end() ? nullptr : it->second.get();
}

void QuickFixEngine::Connected(uint64_t conn, double now_seconds) {
  CallScope scope(this);
  if (Find(conn) != nullptr) return;  // REQUIRES: ids are not reused live
  connections_[conn].reset(new Connection(this, conn, now_seconds));
}

void QuickFixEngine::Received(uint64_t conn, const char* data,
                              std::size_t size) {
  CallScope scope(this);
  Connection* connection = Find(conn);
  if (connection == nullptr || connection->closing || connection->gone) return;
  connection->parser.addToStream(data, size);
  connection->pending += size;
  while (!connection->closing && !connection->gone) {
    std::string raw;
    try {
      if (!connection->parser.readFixMessage(raw)) break;
    } catch (const std::exception&) {
      CloseConnection(connection, "unparsable input");
      return;
    }
    connection->pending -= std::min(connection->pending, raw.size());
    if (raw.size() > options_.max_message_bytes) {
      CloseConnection(connection,
                      "message longer than " +
                          std::to_string(options_.max_message_bytes) +
                          " bytes");
      return;
    }
    Dispatch(connection, raw);
  }
  if (connection->pending > options_.max_message_bytes) {
    CloseConnection(connection, "more than " +
                                    std::to_string(options_.max_message_bytes) +
                                    " bytes without a complete message");
  }
}

void QuickFixEngine::Dispatch(Connection* connection, const std::string& raw) {
  if (connection->session < 0) {
    DispatchLogon(connection, raw);
    return;
  }
  if (!Bound(connection)) return;  // logged out; closing
  FIX::Session& session = SessionOf(connection->session);
  try {
    ApplyWindow(*slots_[static_cast<std::size_t>(connection->session)]);
    if (!Bound(connection)) return;  // the window ended: logged out
    session.next(raw, FIX::UtcTimeStamp());
  } catch (const FIX::InvalidMessage&) {
    // As FIX::SocketConnection: a garbled message is ignored once logged on.
    if (!session.isLoggedOn()) CloseConnection(connection, "invalid message");
  } catch (const std::exception& e) {
    LogLine("fix " + Prefix(connection->session) +
            ": unexpected error: " + e.what());
    CloseConnection(connection, "session error");
  }
}

// The first message of a connection: must be a Logon to us from a configured
// SenderCompID whose session is free. Anything else closes the connection
// without an answer (there is no session to answer on).
void QuickFixEngine::DispatchLogon(Connection* connection,
                                   const std::string& raw) {
  std::unique_ptr<FIX::Message> logon;
  try {
    logon.reset(new FIX::Message(raw, *dictionary_, true));
  } catch (const std::exception&) {
    CloseConnection(connection, "first message is not a valid FIX message");
    return;
  }
  const FIX::Header& header = logon->getHeader();
  const std::string msg_type = header.isSetField(FIX::FIELD::MsgType)
                                   ? header.getField(FIX::FIELD::MsgType)
                                   : std::string();
  if (msg_type != "A") {
    CloseConnection(connection, "first message is not a Logon (35=" +
                                    Printable(msg_type) + ")");
    return;
  }
  if (!header.isSetField(FIX::FIELD::BeginString) ||
      header.getField(FIX::FIELD::BeginString) != kBeginString) {
    CloseConnection(connection, "Logon is not FIX.4.4");
    return;
  }
  const std::string target = header.isSetField(FIX::FIELD::TargetCompID)
                                 ? header.getField(FIX::FIELD::TargetCompID)
                                 : std::string();
  if (target != options_.sender_comp_id) {
    CloseConnection(connection,
                    "wrong TargetCompID \"" + Printable(target) + "\"");
    return;
  }
  const std::string sender = header.isSetField(FIX::FIELD::SenderCompID)
                                 ? header.getField(FIX::FIELD::SenderCompID)
                                 : std::string();
  std::unordered_map<std::string, int>::const_iterator it =
      session_by_comp_id_.find(sender);
  if (it == session_by_comp_id_.end()) {
    CloseConnection(connection,
                    "unknown SenderCompID \"" + Printable(sender) + "\"");
    return;
  }
  const int index = it->second;
  SessionSlot& slot = *slots_[static_cast<std::size_t>(index)];
  // A window that ended logs out its connection first; a Logon opens the
  // current window, and none is accepted between two.
  ApplyWindow(slot);
  if (!InWindow()) {
    CloseConnection(connection,
                    "Logon outside the daily session window (exchange clock)");
    return;
  }
  if (slot.connection != nullptr) {
    CloseConnection(connection, "SenderCompID \"" + sender +
                                    "\" is already logged on (connection " +
                                    std::to_string(slot.connection->id) + ")");
    return;
  }

  // Authenticate before QuickFIX sees the Logon: a refused Logon must not
  // reset the session's sequence numbers (ResetSeqNumFlag is applied before
  // fromAdmin is called), so it loses 141 here and gets a Logout from
  // fromAdmin.
  const std::string username = logon->isSetField(FIX::FIELD::Username)
                                   ? logon->getField(FIX::FIELD::Username)
                                   : std::string();
  const std::string password = logon->isSetField(FIX::FIELD::Password)
                                   ? logon->getField(FIX::FIELD::Password)
                                   : std::string();
  slot.logon_refusal = handler_->Authenticate(index, username, password);
  slot.logon_checked = true;
  if (!slot.logon_refusal.empty()) {
    logon->removeField(FIX::FIELD::ResetSeqNumFlag);
  }

  connection->session = index;
  slot.connection = connection;
  FIX::Session& session = *slot.session;
  try {
    session.setResponder(&connection->responder);
    session.next(*logon, FIX::UtcTimeStamp());
  } catch (const std::exception& e) {
    LogLine("fix " + slot.client_comp_id + ": unexpected error: " + e.what());
  }
  slot.logon_checked = false;
  slot.logon_refusal.clear();
  slot.logout_text.clear();
  if (Bound(connection) && !session.isLoggedOn()) {
    CloseConnection(connection, "Logon refused");
  }
}

void QuickFixEngine::CloseConnection(Connection* connection,
                                     const std::string& reason) {
  if (connection->closing || connection->gone) return;
  LogLine("fix: connection " + std::to_string(connection->id) +
          " closed: " + reason);
  Drop(connection);
}

// Closes the connection; a bound one through its session, which logs it out.
void QuickFixEngine::Drop(Connection* connection) {
  if (Bound(connection)) {
    try {
      SessionOf(connection->session).disconnect();
    } catch (const std::exception&) {
    }
    // disconnect() went through ResponderDisconnect unless the session had
    // no responder.
    if (Bound(connection)) {
      slots_[static_cast<std::size_t>(connection->session)]->connection =
          nullptr;
    }
  }
  CloseAfterOutput(connection);
}

void QuickFixEngine::CloseAfterOutput(Connection* connection) {
  if (connection->closing || connection->gone) return;
  FlushOutput();
  // FlushOutput may have closed it (its store could not write).
  if (connection->closing || connection->gone) return;
  connection->closing = true;
  handler_->Close(connection->id);
}

void QuickFixEngine::FlushOutput() {
  if (flushing_) return;  // a Close inside this Flush
  flushing_ = true;
  const bool stored = stores_->Flush();
  std::vector<uint64_t> unstored;
  for (std::size_t i = 0; i < output_queue_.size(); ++i) {
    Connection* connection = Find(output_queue_[i]);
    if (connection == nullptr) continue;
    connection->queued = false;
    std::string& out = connection->out;
    if (!out.empty() && !connection->closing && !connection->gone) {
      if (!stored && connection->session >= 0 &&
          stores_->Failing(Prefix(connection->session))) {
        // Its store records are not written: the bytes must not go out.
        unstored.push_back(connection->id);
      } else {
        handler_->Write(connection->id, out.data(), out.size());
      }
    }
    out.clear();
    if (out.capacity() > kMaxKeptOutput) std::string().swap(out);
  }
  output_queue_.clear();
  flushing_ = false;
  for (uint64_t id : unstored) {
    Connection* connection = Find(id);
    if (connection != nullptr) {
      CloseConnection(connection, "the session store cannot be written");
    }
  }
}

void QuickFixEngine::Flush() {
  // Called every poll cycle: nothing to do is the common case.
  if (output_queue_.empty() && !stores_->Dirty()) return;
  CallScope scope(this);
  FlushOutput();
}

void QuickFixEngine::Disconnected(uint64_t conn) {
  CallScope scope(this);
  Connection* connection = Find(conn);
  if (connection == nullptr || connection->gone) return;
  connection->gone = true;
  erase_pending_ = true;
  if (Bound(connection)) {
    try {
      SessionOf(connection->session).disconnect();
    } catch (const std::exception&) {
    }
    if (Bound(connection)) {
      slots_[static_cast<std::size_t>(connection->session)]->connection =
          nullptr;
    }
  }
  // Erased when the outermost call returns (CallScope).
}

void QuickFixEngine::EraseGone() {
  if (!erase_pending_) return;
  erase_pending_ = false;
  for (std::map<uint64_t, std::unique_ptr<Connection> >::iterator it =
           connections_.begin();
       it != connections_.end();) {
    if (it->second->gone && !Bound(it->second.get())) {
      it = connections_.erase(it);
    } else {
      erase_pending_ = erase_pending_ || it->second->gone;
      ++it;
    }
  }
}

void QuickFixEngine::Tick(double now_seconds) {
  CallScope scope(this);
  log_budget_ = kLogLinesPerTick;
  if (log_suppressed_ > 0) {
    handler_->Log("fix: " + std::to_string(log_suppressed_) +
                  " log lines suppressed");
    log_suppressed_ = 0;
  }
  // Every session, bound or not: heartbeats and timeouts of the logged-on
  // ones, and the daily window's sequence reset of all of them (so that what
  // Send() stores while a client is away lands in the new day's store).
  for (const std::unique_ptr<SessionSlot>& slot : slots_) {
    try {
      ApplyWindow(*slot);
      slot->session->next(FIX::UtcTimeStamp());
    } catch (const std::exception& e) {
      LogLine("fix " + slot->client_comp_id +
              ": unexpected error: " + e.what());
    }
  }
  for (const auto& entry : connections_) {
    Connection* connection = entry.second.get();
    if (connection->closing || connection->gone) continue;
    if (Bound(connection) && SessionOf(connection->session).isLoggedOn()) {
      continue;
    }
    if (now_seconds - connection->connected_at >=
        static_cast<double>(options_.logon_timeout_seconds)) {
      CloseConnection(connection,
                      "no Logon within " +
                          std::to_string(options_.logon_timeout_seconds) +
                          " s");
    }
  }
}

bool QuickFixEngine::Send(int session, const Message& message) {
  CallScope scope(this);
  if (session < 0 || static_cast<std::size_t>(session) >= slots_.size()) {
    LogLine("fix: Send to unknown session " + std::to_string(session));
    return false;
  }
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  FIX::Message out;
  std::string why;
  if (!BuildMessage(message, &out, &why)) {
    LogLine("fix " + slot.client_comp_id +
            ": not sending 35=" + Printable(message.type) + ": " + why);
    return false;
  }
  try {
    // Applies a due daily reset first, so that a message stored for an
    // absent client is numbered in the current window.
    ApplyWindow(slot);
    if (slot.session->send(out)) return true;
  } catch (const std::exception& e) {
    LogLine("fix " + slot.client_comp_id +
            ": not sending 35=" + Printable(message.type) + ": " + e.what());
    return false;
  }
  LogLine("fix " + slot.client_comp_id + ": 35=" + Printable(message.type) +
          " was not stored");
  return false;
}

bool QuickFixEngine::LoggedOn(int session) const {
  if (session < 0 || static_cast<std::size_t>(session) >= slots_.size()) {
    return false;
  }
  return SessionOf(session).isLoggedOn();
}

bool QuickFixEngine::HasHistory(int session) const {
  if (session < 0 || static_cast<std::size_t>(session) >= slots_.size()) {
    return false;
  }
  try {
    return SessionOf(session).getStore()->getNextSenderMsgSeqNum() > 1;
  } catch (const std::exception&) {
    return false;
  }
}

void QuickFixEngine::LogoutAll(const std::string& reason) {
  CallScope scope(this);
  flush_on_return_ = true;
  for (const std::unique_ptr<SessionSlot>& slot : slots_) {
    FIX::Session& session = *slot->session;
    try {
      // Disables the session (later Logons are refused); next() then sends
      // the Logout of a logged-on session.
      session.logout(reason);
      if (session.isLoggedOn()) session.next(FIX::UtcTimeStamp());
    } catch (const std::exception& e) {
      LogLine("fix " + slot->client_comp_id +
              ": unexpected error: " + e.what());
    }
    if (slot->connection != nullptr) Drop(slot->connection);
  }
}

bool QuickFixEngine::ResponderSend(Connection* connection,
                                   const std::string& bytes) {
  if (connection->closing || connection->gone) return false;
  if (!connection->queued) {
    connection->queued = true;
    output_queue_.push_back(connection->id);
  }
  connection->out += bytes;
  return true;
}

void QuickFixEngine::ResponderDisconnect(Connection* connection) {
  // Unbind first: the session is free for a new connection at once, and a
  // Disconnected() of this connection no longer touches the session.
  if (Bound(connection)) {
    slots_[static_cast<std::size_t>(connection->session)]->connection = nullptr;
  }
  CloseAfterOutput(connection);
}

void QuickFixEngine::OnLogon(int session) { handler_->OnLogon(session); }

void QuickFixEngine::OnLogout(int session) { handler_->OnLogout(session); }

void QuickFixEngine::ToAdmin(int session, FIX::Message& message) {
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  if (slot.logout_text.empty()) return;
  const FIX::Header& header = message.getHeader();
  if (header.isSetField(FIX::FIELD::MsgType) &&
      header.getField(FIX::FIELD::MsgType) == "5") {
    // QuickFIX prefixes a RejectLogon's reason with "Rejected Logon
    // Attempt: "; the client gets the reason alone.
    message.setField(FIX::Text(slot.logout_text));
    slot.logout_text.clear();
  }
}

void QuickFixEngine::FromAdmin(int session, const FIX::Message& message) {
  const FIX::Header& header = message.getHeader();
  if (!header.isSetField(FIX::FIELD::MsgType) ||
      header.getField(FIX::FIELD::MsgType) != "A") {
    return;
  }
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  std::string refusal = slot.logon_refusal;
  if (!slot.logon_checked) {
    // Not reached: Logons come through DispatchLogon. Kept so that no path
    // logs on without Authenticate.
    refusal =
        handler_->Authenticate(session,
                               message.isSetField(FIX::FIELD::Username)
                                   ? message.getField(FIX::FIELD::Username)
                                   : std::string(),
                               message.isSetField(FIX::FIELD::Password)
                                   ? message.getField(FIX::FIELD::Password)
                                   : std::string());
  }
  if (!refusal.empty()) {
    slot.logout_text = refusal;
    throw FIX::RejectLogon(refusal);
  }
}

void QuickFixEngine::FromApp(int session, const FIX::Message& message) {
  try {
    Message plain;
    ToPlain(message, *dictionary_, &plain);
    handler_->OnMessage(session, plain);
  } catch (const std::exception& e) {
    LogLine("fix " + Prefix(session) +
            ": error handling a message: " + e.what());
  }
}

void QuickFixEngine::LogLine(const std::string& line) {
  if (log_budget_ > 0) {
    --log_budget_;
    handler_->Log(line);
  } else {
    ++log_suppressed_;
  }
}

}  // namespace

std::unique_ptr<Engine> Engine::Create(const EngineOptions& options,
                                       Handler* handler, std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  std::unique_ptr<QuickFixEngine> engine(new QuickFixEngine(options, handler));
  if (!engine->Init(error)) return nullptr;
  return std::unique_ptr<Engine>(engine.release());
}

}  // namespace fix
}  // namespace gateway
}  // namespace cfx
