// The QuickFIX engine's connections (fix_engine_quickfix.h): bytes from the
// C++20 side parsed into messages, a connection's first message routed to
// its session by its Logon, and the sessions' output held until the stores
// are flushed. C++14: part of the QuickFIX island (STYLE.md §10).

#include <quickfix/Exceptions.h>
#include <quickfix/Fields.h>
#include <quickfix/FixValues.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gateway/fix/fix_engine_quickfix.h"
#include "gateway/fix/fix_message_quickfix.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

namespace {

// A connection's output buffer that grew past this is given back once
// written.
const std::size_t kMaxKeptOutput = 1 << 20;

}  // namespace

bool ConnectionResponder::send(const std::string& bytes) {
  return engine_->ResponderSend(connection_, bytes);
}

void ConnectionResponder::disconnect() {
  engine_->ResponderDisconnect(connection_);
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
  Drain(connection);
}

void QuickFixEngine::Drain(Connection* connection) {
  while (!connection->closing && !connection->gone && !connection->checking) {
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
  std::string why;
  if (!DataFieldsEndAtTheirSoh(raw, *dictionary_, &why)) {
    // Garbled: never handed to QuickFIX, which would read past its end.
    // As FIX::SocketConnection does with a garbled message, ignored once
    // logged on (the sequence gap then asks for it again).
    if (connection->session < 0 || !Bound(connection) ||
        !SessionOf(connection->session).isLoggedOn()) {
      CloseConnection(connection, "invalid message: " + why);
    } else {
      LogLine("fix " + Prefix(connection->session) +
              ": garbled message ignored: " + why);
    }
    return;
  }
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

// The first message of a connection: must be a FIX.4.4 Logon to us inside
// the daily window. Anything else closes the connection without an answer
// (there is no session to answer on). Its credentials then go to
// Handler::CheckLogon, before any session sees it, also for a SenderCompID
// that is not configured (so that the answer does not tell which exist).
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
  if (msg_type != FIX::MsgType_Logon) {
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
  const int index = it == session_by_comp_id_.end() ? -1 : it->second;
  // A window that ended logs out its connection first; a Logon opens the
  // current window, and none is accepted between two.
  if (index >= 0) ApplyWindow(*slots_[static_cast<std::size_t>(index)]);
  if (!InWindow()) {
    CloseConnection(connection,
                    "Logon outside the daily session window (exchange clock)");
    return;
  }
  const std::string username = logon->isSetField(FIX::FIELD::Username)
                                   ? logon->getField(FIX::FIELD::Username)
                                   : std::string();
  const std::string password = logon->isSetField(FIX::FIELD::Password)
                                   ? logon->getField(FIX::FIELD::Password)
                                   : std::string();
  connection->checking = true;
  connection->logon = std::move(logon);
  connection->logon_session = index;
  connection->logon_sender = sender;
  std::string refusal;
  if (handler_->CheckLogon(connection->id, index, username, password,
                           &refusal)) {
    LogonVerdict(connection, refusal);
  }
}

void QuickFixEngine::LogonChecked(uint64_t conn, const std::string& refusal) {
  CallScope scope(this);
  Connection* connection = Find(conn);
  if (connection == nullptr || connection->closing || connection->gone ||
      !connection->checking) {
    return;
  }
  LogonVerdict(connection, refusal);
  Drain(connection);
}

void QuickFixEngine::LogonVerdict(Connection* connection,
                                  const std::string& refusal) {
  connection->checking = false;
  std::unique_ptr<FIX::Message> logon = std::move(connection->logon);
  const int index = connection->logon_session;
  if (!refusal.empty() || index < 0) {
    RefuseLogon(connection,
                refusal.empty() ? std::string("logon refused") : refusal);
    return;
  }
  SessionSlot& slot = *slots_[static_cast<std::size_t>(index)];
  ApplyWindow(slot);  // the check took time
  if (!InWindow()) {
    CloseConnection(connection,
                    "Logon outside the daily session window (exchange clock)");
    return;
  }
  if (slot.connection != nullptr) {
    CloseConnection(connection, "SenderCompID \"" + slot.client_comp_id +
                                    "\" is already logged on (connection " +
                                    std::to_string(slot.connection->id) + ")");
    return;
  }
  connection->session = index;
  slot.connection = connection;
  FIX::Session& session = *slot.session;
  slot.logon_checked = true;
  try {
    session.setResponder(&connection->responder);
    session.next(*logon, FIX::UtcTimeStamp());
  } catch (const std::exception& e) {
    LogLine("fix " + slot.client_comp_id + ": unexpected error: " + e.what());
  }
  slot.logon_checked = false;
  slot.logout_text.clear();
  if (Bound(connection) && !session.isLoggedOn()) {
    CloseConnection(connection, "Logon refused");
  }
}

void QuickFixEngine::RefuseLogon(Connection* connection,
                                 const std::string& text) {
  FIX::Message logout;
  FIX::Header& header = logout.getHeader();
  header.setField(FIX::BeginString(kBeginString));
  header.setField(FIX::MsgType(FIX::MsgType_Logout));
  header.setField(FIX::SenderCompID(options_.sender_comp_id));
  header.setField(FIX::TargetCompID(connection->logon_sender));
  header.setField(FIX::MsgSeqNum(1));
  header.setField(FIX::SendingTime(FIX::UtcTimeStamp(), 3));
  logout.setField(FIX::Text(text));
  ResponderSend(connection, logout.toString());
  LogLine("fix: connection " + std::to_string(connection->id) +
          " logon refused: " + text);
  CloseAfterOutput(connection);
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
  Unbind(connection);
  CloseAfterOutput(connection);
}

void QuickFixEngine::Unbind(Connection* connection) {
  if (!Bound(connection)) return;
  try {
    SessionOf(connection->session).disconnect();
  } catch (const std::exception&) {
  }
  // disconnect() went through ResponderDisconnect unless the session had
  // no responder.
  if (Bound(connection)) {
    slots_[static_cast<std::size_t>(connection->session)]->connection = nullptr;
  }
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
  Unbind(connection);
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

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
