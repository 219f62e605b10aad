// The QuickFIX island behind fix_engine.h. Compiled as C++14 (STYLE.md §10):
// with the other *_quickfix.{h,cc} files (fix_connection_quickfix.cc, the
// connections; fix_message_quickfix.cc, plain <-> QuickFIX messages;
// session_store_quickfix.cc, the message store) and the generated
// dictionary, the only files that include QuickFIX. This file: creation,
// the daily window, sending, and the sessions' callbacks.
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

#include "gateway/fix/fix_engine_quickfix.h"

#include <quickfix/Exceptions.h>
#include <quickfix/FieldTypes.h>
#include <quickfix/Fields.h>
#include <quickfix/FixValues.h>
#include <quickfix/TimeRange.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gateway/fix/fix_message_quickfix.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

namespace {

int64_t WallNanos() {
  return static_cast<int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

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
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
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

}  // namespace

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
    if (session_by_comp_id_.count(comp_id) != 0) {
      *error = "fix: duplicate session CompID \"" + comp_id + "\"";
      return false;
    }
    session_by_comp_id_.emplace(comp_id, -1);  // the index once created
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
  dictionary_ = LoadDictionary(options_.dictionary_xml, error);
  if (!dictionary_) return false;
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
  for (const std::string& comp_id : options_.sessions) {
    if (!CreateSession(comp_id, error)) return false;
  }
  return true;
}

bool QuickFixEngine::CreateSession(const std::string& comp_id,
                                   std::string* error) {
  const int index = static_cast<int>(slots_.size());
  // In slots_ before its Session exists: the constructor already calls
  // back (onCreate).
  slots_.emplace_back(new SessionSlot);
  SessionSlot* slot = slots_.back().get();
  slot->client_comp_id = comp_id;
  slot->application.reset(new SessionApplication(this, index));
  // All day: from 00:00:00.000000001 to 00:00:00, so no time of day falls
  // outside it (the engine applies the configured window, ApplyWindow).
  const FIX::TimeRange window(FIX::UtcTimeOnly(0, 0, 0, 1, 9),
                              FIX::UtcTimeOnly(0, 0, 0));
  try {
    // HeartBtInt 0: an acceptor (the client's Logon sets the interval).
    slot->session.reset(new FIX::Session(
        *slot->application, stores_->factory(),
        FIX::SessionID(kBeginString, options_.sender_comp_id, comp_id),
        dictionaries_, window, 0, &log_factory_));
  } catch (const std::exception& e) {
    slots_.pop_back();
    *error = "fix: session " + comp_id + ": " + e.what();
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
  session_by_comp_id_[comp_id] = index;
  // A store from an earlier window starts the current one now.
  ApplyWindow(*slot);
  return true;
}

int QuickFixEngine::AddSession(const std::string& client_comp_id,
                               std::string* error) {
  CallScope scope(this);
  if (client_comp_id.empty() || HasSoh(client_comp_id)) {
    *error = "fix: a session needs a CompID without SOH";
    return -1;
  }
  if (session_by_comp_id_.count(client_comp_id) != 0) {
    *error = "fix: duplicate session CompID \"" + client_comp_id + "\"";
    return -1;
  }
  if (!CreateSession(client_comp_id, error)) return -1;
  return static_cast<int>(slots_.size()) - 1;
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
  const bool created_in = stores_->CreationNs(slot.client_comp_id, &created) &&
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

void QuickFixEngine::Logout(int session, const std::string& reason) {
  if (session < 0 || static_cast<std::size_t>(session) >= slots_.size()) {
    return;
  }
  CallScope scope(this);
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  FIX::Session& s = *slot.session;
  try {
    if (!s.isLoggedOn()) return;
    // logout() disables the session, so next() sends the Logout; logon()
    // enables it again, for the Logons that CheckLogon judges.
    s.logout(reason);
    s.next(FIX::UtcTimeStamp());
    s.logon();
  } catch (const std::exception& e) {
    LogLine("fix " + slot.client_comp_id + ": unexpected error: " + e.what());
  }
}

void QuickFixEngine::OnLogon(int session) {
  const SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  if (slot.connection != nullptr) {
    handler_->OnConnectionLoggedOn(slot.connection->id);
  }
  handler_->OnLogon(session);
}

void QuickFixEngine::OnLogout(int session) { handler_->OnLogout(session); }

void QuickFixEngine::ToAdmin(int session, FIX::Message& message) {
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  if (slot.logout_text.empty()) return;
  const FIX::Header& header = message.getHeader();
  if (header.isSetField(FIX::FIELD::MsgType) &&
      header.getField(FIX::FIELD::MsgType) == FIX::MsgType_Logout) {
    // QuickFIX prefixes a RejectLogon's reason with "Rejected Logon
    // Attempt: "; the client gets the reason alone.
    message.setField(FIX::Text(slot.logout_text));
    slot.logout_text.clear();
  }
}

void QuickFixEngine::FromAdmin(int session, const FIX::Message& message) {
  const FIX::Header& header = message.getHeader();
  if (!header.isSetField(FIX::FIELD::MsgType) ||
      header.getField(FIX::FIELD::MsgType) != FIX::MsgType_Logon) {
    return;
  }
  SessionSlot& slot = *slots_[static_cast<std::size_t>(session)];
  if (!slot.logon_checked) {
    // Not reached: Logons reach a session only from LogonVerdict, once
    // Handler::CheckLogon accepted them. Kept so that no path logs on
    // unchecked.
    slot.logout_text = "logon refused";
    throw FIX::RejectLogon(slot.logout_text);
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

std::shared_ptr<FIX::DataDictionary> LoadDictionary(const std::string& xml,
                                                    std::string* error) {
  std::shared_ptr<FIX::DataDictionary> dictionary;
  try {
    std::istringstream in(xml);
    dictionary = std::make_shared<FIX::DataDictionary>(in);
  } catch (const std::exception& e) {
    *error = std::string("fix: data dictionary: ") + e.what();
    return nullptr;
  }
  if (dictionary->getVersion() != kBeginString) {
    *error = "fix: data dictionary is for \"" + dictionary->getVersion() +
             "\", not " + kBeginString;
    return nullptr;
  }
  dictionary->checkFieldsOutOfOrder(false);
  dictionary->checkFieldsHaveValues(true);
  dictionary->checkUserDefinedFields(true);
  dictionary->allowUnknownMsgFields(false);
  return dictionary;
}

namespace {

class QuickFixMessageReader : public MessageReader {
 public:
  explicit QuickFixMessageReader(std::shared_ptr<FIX::DataDictionary> d)
      : dictionary_(std::move(d)) {}

  bool Read(const std::string& raw, Message* out,
            std::string* why) const override {
    *out = Message();
    if (!DataFieldsEndAtTheirSoh(raw, *dictionary_, why)) return false;
    try {
      // As FIX::Session::next: parsed with body length and checksum
      // checked, then validated against the dictionary.
      const FIX::Message message(raw, *dictionary_, true);
      FIX::DataDictionary::validate(message, dictionary_.get(),
                                    dictionary_.get());
      if (message.isAdmin()) {
        *why = "an administrative message";
        return false;
      }
      ToPlain(message, *dictionary_, out);
    } catch (const std::exception& e) {
      *out = Message();
      *why = e.what();
      return false;
    }
    return true;
  }

 private:
  std::shared_ptr<FIX::DataDictionary> dictionary_;
};

}  // namespace

}  // namespace internal

std::unique_ptr<MessageReader> MessageReader::Create(
    const std::string& dictionary_xml, std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  std::shared_ptr<FIX::DataDictionary> dictionary =
      internal::LoadDictionary(dictionary_xml, error);
  if (!dictionary) return nullptr;
  return std::unique_ptr<MessageReader>(
      new internal::QuickFixMessageReader(std::move(dictionary)));
}

std::unique_ptr<Engine> Engine::Create(const EngineOptions& options,
                                       Handler* handler, std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  std::unique_ptr<internal::QuickFixEngine> engine(
      new internal::QuickFixEngine(options, handler));
  if (!engine->Init(error)) return nullptr;
  return std::unique_ptr<Engine>(engine.release());
}

}  // namespace fix
}  // namespace gateway
}  // namespace cfx
