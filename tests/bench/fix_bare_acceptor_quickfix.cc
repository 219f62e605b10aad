// The bare QuickFIX acceptor of `cfx-bench fix` (fix_bare_acceptor.h).
// Compiled as C++14 (STYLE.md §10): the only bench file that includes
// QuickFIX.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quickfix/Application.h"
#include "quickfix/Exceptions.h"
#include "quickfix/FileStore.h"
#include "quickfix/Message.h"
#include "quickfix/Session.h"
#include "quickfix/SessionSettings.h"
#include "quickfix/SocketAcceptor.h"
#include "tests/bench/fix_bare_acceptor.h"

namespace cfx {
namespace bench {
namespace {

// Answers NewOrderSingle with ExecutionReport New; refuses everything else.
// Thread: QuickFIX's acceptor thread (callbacks), reports_sent() from any.
class EchoApplication : public FIX::Application {
 public:
  uint64_t reports_sent() const {
    return reports_.load(std::memory_order_relaxed);
  }

  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {
    // The acceptor's thread: named so the benchmark's CPU report can tell
    // it from the exchange's threads.
    pthread_setname_np(pthread_self(), "fix-bare");
  }
  void onLogout(const FIX::SessionID&) override {}
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&,
             const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&,
                 const FIX::SessionID&) throw(FIX::FieldNotFound,
                                              FIX::IncorrectDataFormat,
                                              FIX::IncorrectTagValue,
                                              FIX::RejectLogon) override {}

  void fromApp(const FIX::Message& message, const FIX::SessionID& id) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    const std::string& type = message.getHeader().getField(FIX::FIELD::MsgType);
    if (type != "D") throw FIX::UnsupportedMessageType();
    const std::string& quantity = message.getField(FIX::FIELD::OrderQty);
    FIX::Message report;
    report.getHeader().setField(FIX::FIELD::MsgType, "8");
    report.setField(FIX::FIELD::OrderID, std::to_string(++next_order_id_));
    report.setField(FIX::FIELD::ClOrdID, message.getField(FIX::FIELD::ClOrdID));
    report.setField(FIX::FIELD::ExecID, std::to_string(++next_exec_id_));
    report.setField(FIX::FIELD::ExecType, "0");
    report.setField(FIX::FIELD::OrdStatus, "0");
    report.setField(FIX::FIELD::Symbol, message.getField(FIX::FIELD::Symbol));
    report.setField(FIX::FIELD::Side, message.getField(FIX::FIELD::Side));
    report.setField(FIX::FIELD::OrdType, message.getField(FIX::FIELD::OrdType));
    if (const FIX::FieldBase* price = message.getFieldPtr(FIX::FIELD::Price)) {
      report.setField(FIX::FIELD::Price, price->getString());
    }
    FIX::FieldBase tif(FIX::FIELD::TimeInForce, "0");
    message.getFieldIfSet(tif);
    report.setField(tif);
    report.setField(FIX::FIELD::OrderQty, quantity);
    report.setField(FIX::FIELD::LeavesQty, quantity);
    report.setField(FIX::FIELD::CumQty, "0");
    report.setField(FIX::FIELD::AvgPx, "0");
    report.setField(FIX::UtcTimeStampField(FIX::FIELD::TransactTime, 3));
    FIX::Session* session = Session(id);
    if (session != nullptr && session->send(report)) {
      reports_.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  // The session, looked up once (Session::sendToTarget would take the
  // global registry's mutex on every report).
  FIX::Session* Session(const FIX::SessionID& id) {
    for (size_t i = 0; i < sessions_.size(); ++i) {
      if (sessions_[i].first == id) return sessions_[i].second;
    }
    FIX::Session* s = FIX::Session::lookupSession(id);
    sessions_.push_back(std::make_pair(id, s));
    return s;
  }

  uint64_t next_order_id_ = 0;
  uint64_t next_exec_id_ = 0;
  std::vector<std::pair<FIX::SessionID, FIX::Session*> > sessions_;
  std::atomic<uint64_t> reports_{0};
};

// A loopback port that was free a moment ago: the kernel's pick for an
// ephemeral bind. 0 on failure.
uint16_t FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::string Settings(const BareAcceptorOptions& o, uint16_t port,
                     const std::string& dictionary_path) {
  std::ostringstream s;
  s << "[DEFAULT]\n"
    << "ConnectionType=acceptor\n"
    << "BeginString=FIX.4.4\n"
    << "SenderCompID=" << o.sender_comp_id << "\n"
    << "SocketAcceptPort=" << port << "\n"
    << "SocketReuseAddress=Y\n"
    << "SocketNodelay=Y\n"
    // Always in session: the runs must not depend on the time of day.
    << "StartTime=00:00:00\n"
    << "EndTime=00:00:00\n"
    << "FileStorePath=" << o.store_dir
    << "\n"
    // The session and dictionary checks the exchange's FIX sessions make
    // (gateway/fix/fix_engine_quickfix.cc).
    << "CheckCompID=Y\n"
    << "CheckLatency=Y\n"
    << "MaxLatency=120\n"
    << "MillisecondsInTimeStamp=Y\n"
    << "PersistMessages=Y\n"
    << "ValidateLengthAndChecksum=Y\n"
    << "ValidateFieldsOutOfOrder=N\n"
    << "ValidateFieldsHaveValues=Y\n"
    << "ValidateUserDefinedFields=Y\n"
    << "AllowUnknownMsgFields=N\n";
  if (dictionary_path.empty()) {
    s << "UseDataDictionary=N\n";
  } else {
    s << "UseDataDictionary=Y\n"
      << "DataDictionary=" << dictionary_path << "\n";
  }
  for (size_t i = 0; i < o.clients.size(); ++i) {
    s << "[SESSION]\nTargetCompID=" << o.clients[i] << "\n";
  }
  return s.str();
}

class BareAcceptorImpl : public BareAcceptor {
 public:
  ~BareAcceptorImpl() override { Stop(); }

  uint16_t port() const override { return port_; }
  uint64_t reports_sent() const override { return app_.reports_sent(); }
  void Stop() override {
    if (acceptor_) {
      acceptor_->stop(true);
      acceptor_.reset();
    }
  }

  // Returns "" on success, else the reason.
  std::string Init(const BareAcceptorOptions& o) {
    if (mkdir(o.store_dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return "cannot create " + o.store_dir + ": " + std::strerror(errno);
    }
    std::string dictionary_path;
    if (!o.dictionary_xml.empty()) {
      dictionary_path = o.store_dir + "/dictionary.xml";
      std::ofstream f(dictionary_path.c_str(),
                      std::ios::binary | std::ios::trunc);
      f << o.dictionary_xml;
      if (!f.good()) return "cannot write " + dictionary_path;
    }
    std::string last_error;
    // Another process may take the port between FreePort() and the bind.
    for (int attempt = 0; attempt < 5; ++attempt) {
      const uint16_t port = FreePort();
      if (port == 0) return "no free loopback port";
      try {
        std::istringstream in(Settings(o, port, dictionary_path));
        settings_.reset(new FIX::SessionSettings(in));
        store_.reset(new FIX::FileStoreFactory(*settings_));
        acceptor_.reset(new FIX::SocketAcceptor(app_, *store_, *settings_));
        acceptor_->start();
        port_ = port;
        return "";
      } catch (const FIX::ConfigError& e) {
        return std::string("QuickFIX configuration: ") + e.what();
      } catch (const std::exception& e) {
        last_error = e.what();
        acceptor_.reset();
      }
    }
    return "QuickFIX acceptor did not start: " + last_error;
  }

 private:
  EchoApplication app_;
  std::unique_ptr<FIX::SessionSettings> settings_;
  std::unique_ptr<FIX::FileStoreFactory> store_;
  std::unique_ptr<FIX::SocketAcceptor> acceptor_;
  uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<BareAcceptor> BareAcceptor::Start(
    const BareAcceptorOptions& options, std::string* error) {
  std::unique_ptr<BareAcceptorImpl> a(new BareAcceptorImpl());
  const std::string failed = a->Init(options);
  if (!failed.empty()) {
    if (error != nullptr) *error = failed;
    return nullptr;
  }
  return std::unique_ptr<BareAcceptor>(a.release());
}

}  // namespace bench
}  // namespace cfx
