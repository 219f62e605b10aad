#pragma once

// The QuickFIX engine's own types, shared by the files of the C++14 QuickFIX
// island (STYLE.md §10) and by nothing else: fix_engine_quickfix.cc
// (creation, the daily window, sessions and their callbacks) and
// fix_connection_quickfix.cc (connections: bytes in, logon routing, bytes
// out). The plain boundary is fix_engine.h.

#include <quickfix/Application.h>
#include <quickfix/DataDictionary.h>
#include <quickfix/DataDictionaryProvider.h>
#include <quickfix/Log.h>
#include <quickfix/Message.h>
#include <quickfix/Parser.h>
#include <quickfix/Responder.h>
#include <quickfix/Session.h>
#include <quickfix/SessionID.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/fix/fix_engine.h"
#include "gateway/fix/session_store.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

const char kBeginString[] = "FIX.4.4";

// The FIX 4.4 dictionary from its QuickFIX XML, with the engine's validation
// settings (field order free, empty values and unknown fields rejected).
// nullptr and *error when the XML does not load or is for another version.
std::shared_ptr<FIX::DataDictionary> LoadDictionary(const std::string& xml,
                                                    std::string* error);

const int64_t kNanosPerSecond = 1000000000;
const int64_t kNanosPerDay = 86400 * kNanosPerSecond;

// Log lines forwarded to the Handler between two Ticks; the rest are counted
// and reported as one line by the next Tick.
const int kLogLinesPerTick = 50;

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
  // While Handler::CheckLogon has not answered: the Logon, its session
  // (-1: an unknown SenderCompID) and its SenderCompID; later input waits
  // in the parser.
  bool checking = false;
  std::unique_ptr<FIX::Message> logon;
  int logon_session = -1;
  std::string logon_sender;
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
  // Set while a Logon that Handler::CheckLogon accepted goes to the
  // session (fromAdmin refuses any other).
  bool logon_checked = false;
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
  void LogonChecked(uint64_t conn, const std::string& refusal) override;
  void Tick(double now_seconds) override;
  bool Send(int session, const Message& message) override;
  bool LoggedOn(int session) const override;
  bool HasHistory(int session) const override;
  void LogoutAll(const std::string& reason) override;
  void Logout(int session, const std::string& reason) override;
  int AddSession(const std::string& client_comp_id,
                 std::string* error) override;
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
  // Hands the connection's complete messages to Dispatch (none while its
  // Logon is being checked); closes it when its input grows too long.
  void Drain(Connection* connection);
  void Dispatch(Connection* connection, const std::string& raw);
  void DispatchLogon(Connection* connection, const std::string& raw);
  // The answer to the Logon of a `checking` connection.
  void LogonVerdict(Connection* connection, const std::string& refusal);
  // A Logout with `text` written outside any session, then a close.
  void RefuseLogon(Connection* connection, const std::string& text);
  void CloseConnection(Connection* connection, const std::string& reason);
  void Drop(Connection* connection);
  // The session of a bound connection disconnects and lets go of it;
  // nothing for an unbound one.
  void Unbind(Connection* connection);
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
  // Creates the session of `comp_id` (not yet in slots_) at the next
  // index, with its store; false and *error if QuickFIX refuses it.
  bool CreateSession(const std::string& comp_id, std::string* error);
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

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
