// The FIX test client's QuickFIX side. Compiled as C++14 (STYLE.md §10): the
// only test file that includes QuickFIX.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/Group.h>
#include <quickfix/Message.h>
#include <quickfix/Session.h>
#include <quickfix/SessionID.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketInitiator.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "tests/gateway/fix/fix_test_client.h"

namespace cfx {
namespace gateway {
namespace fix_test {
namespace {

typedef std::chrono::steady_clock SteadyClock;

const char kSoh = '\x01';

std::string Printable(std::string s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == kSoh) s[i] = '|';
  }
  return s;
}

bool IsAdminType(const std::string& type) {
  return type.size() == 1 && std::strchr("012345A", type[0]) != nullptr;
}

// Standard header tags a raw message may carry besides 8, 9 and 35.
bool IsHeaderTag(int tag) {
  static const int kTags[] = {34,  43,  49,  50,  52,  56,  57,  90,
                              91,  97,  115, 116, 122, 128, 129, 142,
                              143, 144, 145, 212, 213, 347, 369, 627};
  for (std::size_t i = 0; i < sizeof kTags / sizeof kTags[0]; ++i) {
    if (kTags[i] == tag) return true;
  }
  return false;
}

void CopyFields(const FIX::FieldMap& map, FixFields* out) {
  for (FIX::FieldMap::const_iterator i = map.begin(); i != map.end(); ++i) {
    out->push_back(FixField(i->getTag(), i->getString()));
  }
  // Nested groups are flattened into their parent entry.
  for (FIX::FieldMap::g_const_iterator g = map.g_begin(); g != map.g_end();
       ++g) {
    for (std::size_t k = 0; k < g->second.size(); ++k) {
      CopyFields(*g->second[k], out);
    }
  }
}

FixMessage Convert(const FIX::Message& m) {
  FixMessage out;
  const FIX::Header& header = m.getHeader();
  for (FIX::FieldMap::const_iterator i = header.begin(); i != header.end();
       ++i) {
    const int tag = i->getTag();
    if (tag == 8 || tag == 9) continue;
    if (tag == 35) {
      out.type = i->getString();
      continue;
    }
    out.header.push_back(FixField(tag, i->getString()));
  }
  for (FIX::FieldMap::const_iterator i = m.begin(); i != m.end(); ++i) {
    out.fields.push_back(FixField(i->getTag(), i->getString()));
  }
  for (FIX::FieldMap::g_const_iterator g = m.g_begin(); g != m.g_end(); ++g) {
    FixGroup group;
    group.count_tag = g->first;
    for (std::size_t k = 0; k < g->second.size(); ++k) {
      FixFields entry;
      CopyFields(*g->second[k], &entry);
      group.entries.push_back(entry);
    }
    out.groups.push_back(group);
  }
  out.admin = IsAdminType(out.type);
  std::string raw;
  m.toString(raw);
  out.raw = Printable(raw);
  return out;
}

FIX::Message ToQuickFix(const FixMessage& in) {
  FIX::Message m;
  m.getHeader().setField(35, in.type);
  for (std::size_t i = 0; i < in.header.size(); ++i) {
    m.getHeader().setField(in.header[i].first, in.header[i].second);
  }
  for (std::size_t i = 0; i < in.fields.size(); ++i) {
    m.setField(in.fields[i].first, in.fields[i].second);
  }
  for (std::size_t g = 0; g < in.groups.size(); ++g) {
    const FixGroup& group = in.groups[g];
    for (std::size_t e = 0; e < group.entries.size(); ++e) {
      const FixFields& entry = group.entries[e];
      if (entry.empty()) continue;
      // The entry's fields in the order given, the first one delimiting.
      std::vector<int> order;
      for (std::size_t f = 0; f < entry.size(); ++f) {
        order.push_back(entry[f].first);
      }
      order.push_back(0);
      FIX::Group qf(group.count_tag, entry[0].first, &order[0]);
      for (std::size_t f = 0; f < entry.size(); ++f) {
        qf.setField(entry[f].first, entry[f].second);
      }
      m.addGroup(qf);
    }
  }
  return m;
}

bool FileExists(const std::string& path) {
  std::ifstream in(path.c_str());
  return in.good();
}

}  // namespace

// ---------------------------------------------------------------- FixMessage

const std::string* FindIn(const FixFields& fields, int tag) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].first == tag) return &fields[i].second;
  }
  return nullptr;
}

std::string FixMessage::Get(int tag) const {
  const std::string* v = Find(tag);
  return v == nullptr ? std::string() : *v;
}

const FixGroup* FixMessage::FindGroup(int count_tag) const {
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].count_tag == count_tag) return &groups[i];
  }
  return nullptr;
}

int FixMessage::seq() const {
  const std::string* v = FindHeader(34);
  return v == nullptr ? 0 : std::atoi(v->c_str());
}

bool FixMessage::poss_dup() const {
  const std::string* v = FindHeader(43);
  return v != nullptr && *v == "Y";
}

std::string FixMessage::ToString() const {
  if (!raw.empty()) return raw;
  std::ostringstream out;
  out << "35=" << type << "|";
  for (std::size_t i = 0; i < header.size(); ++i) {
    out << header[i].first << "=" << header[i].second << "|";
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out << fields[i].first << "=" << fields[i].second << "|";
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out << groups[g].count_tag << "=" << groups[g].entries.size() << "|";
    for (std::size_t e = 0; e < groups[g].entries.size(); ++e) {
      const FixFields& entry = groups[g].entries[e];
      for (std::size_t f = 0; f < entry.size(); ++f) {
        out << entry[f].first << "=" << entry[f].second << "|";
      }
    }
  }
  return out.str();
}

std::string DefaultFixDictionary() {
#ifdef CFX_FIX_DICTIONARY
  return CFX_FIX_DICTIONARY;
#else
  return std::string();
#endif
}

std::string FixUtcNow() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      now.time_since_epoch())
                      .count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm;
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d:%02d:%02d.%03d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

// ---------------------------------------------------------------- client

class FixTestClient::Impl : public FIX::Application {
 public:
  explicit Impl(const FixClientOptions& options)
      : options_(options),
        session_id_("FIX.4.4", options.sender_comp_id, options.target_comp_id) {
  }

  ~Impl() override {
    Shutdown();
    initiator_.reset();
  }

  bool Start(std::string* error) {
    try {
      FIX::Dictionary d;
      d.setString("ConnectionType", "initiator");
      d.setString("BeginString", "FIX.4.4");
      d.setString("SenderCompID", options_.sender_comp_id);
      d.setString("TargetCompID", options_.target_comp_id);
      d.setString("SocketConnectHost", options_.host);
      d.setInt("SocketConnectPort", options_.port);
      d.setInt("HeartBtInt", options_.heartbeat_seconds);
      // No reconnect within a test: a refused session stays down.
      d.setInt("ReconnectInterval", 30);
      d.setString("StartTime", "00:00:00");
      d.setString("EndTime", "00:00:00");
      d.setString("SocketNodelay", "Y");
      d.setString("ResetOnLogon", options_.reset_seq_num ? "Y" : "N");
      d.setString("ResetOnLogout", "N");
      d.setString("ResetOnDisconnect", "N");
      d.setString("FileStorePath", options_.store_dir);
      d.setString("FileLogPath", options_.store_dir + "/log");
      if (!options_.dictionary.empty() && FileExists(options_.dictionary)) {
        d.setString("UseDataDictionary", "Y");
        d.setString("DataDictionary", options_.dictionary);
      } else {
        d.setString("UseDataDictionary", "N");
      }
      settings_.set(session_id_, d);
      store_.reset(new FIX::FileStoreFactory(options_.store_dir));
      log_.reset(new FIX::FileLogFactory(options_.store_dir + "/log"));
      initiator_.reset(
          new FIX::SocketInitiator(*this, *store_, settings_, *log_));
      initiator_->start();
      started_ = true;
      return true;
    } catch (const std::exception& e) {
      if (error != nullptr) *error = e.what();
      return false;
    }
  }

  bool WaitFor(const std::function<bool()>& done, Millis timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, done);
  }

  bool WaitLoggedOn(Millis timeout) {
    return WaitFor([this] { return logged_on_; }, timeout);
  }
  bool WaitLoggedOut(Millis timeout) {
    return WaitFor([this] { return !logged_on_; }, timeout);
  }
  bool logged_on() const {
    std::lock_guard<std::mutex> lock(mu_);
    return logged_on_;
  }
  int logons() const {
    std::lock_guard<std::mutex> lock(mu_);
    return logons_;
  }
  int logouts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return logouts_;
  }

  FIX::Session* session() const {
    return initiator_ == nullptr ? nullptr
                                 : initiator_->getSession(session_id_);
  }

  // A TestRequest: its Heartbeat wakes the initiator's thread, which then
  // runs the session's timer work (sends a pending Logout) at once instead
  // of at its next one-second tick.
  void Nudge() {
    FixMessage test;
    test.type = "1";
    test.fields.push_back(FixField(112, "nudge-" + std::to_string(++nudges_)));
    Send(test);
  }

  bool Logout(Millis timeout) {
    FIX::Session* s = session();
    if (s == nullptr) return false;
    s->logout();
    Nudge();
    return WaitLoggedOut(timeout);
  }

  // Logout answered and read, then the initiator stops. Deterministic, but
  // stop() joins the initiator's thread, which only notices the stop when
  // its select() wakes: with the connection closed, at its one-second tick.
  void Stop() {
    if (!started_ || stopped_) return;
    if (logged_on()) Logout(Millis(5000));
    stopped_ = true;
    StopInitiator();
  }

  // The destructor's quick way out. stop() joins the initiator's thread,
  // which notices the stop flag only when its select() wakes; the Heartbeat
  // answering a TestRequest sent after the flag is set wakes it at once, and
  // handling it sends the Logout (stop() disabled the session). The
  // exchange's answer is left unread, so the close may reset the connection:
  // fine when nothing follows on this session.
  void Shutdown() {
    if (!started_ || stopped_) return;
    stopped_ = true;
    if (!logged_on()) {
      StopInitiator();
      return;
    }
    std::thread stopper([this] { StopInitiator(); });
    const SteadyClock::time_point deadline =
        SteadyClock::now() + std::chrono::seconds(2);
    while (!initiator_->isStopped() && SteadyClock::now() < deadline) {
      std::this_thread::yield();  // microseconds: stop() sets the flag first
    }
    Nudge();
    stopper.join();
  }

  // REQUIRES: stopped_ set.
  void StopInitiator() {
    initiator_->stop(true);
    FIX::Session* s = session();
    if (s != nullptr) {
      final_sender_seq_ = s->getExpectedSenderNum();
      final_target_seq_ = s->getExpectedTargetNum();
    }
  }

  bool Send(const FixMessage& message) {
    try {
      FIX::Message m = ToQuickFix(message);
      return FIX::Session::sendToTarget(m, session_id_);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.push_back(std::string("send ") + message.type + ": " + e.what());
      return false;
    }
  }

  bool Await(const Predicate& pred, Millis timeout, FixMessage* out) {
    std::unique_lock<std::mutex> lock(mu_);
    const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
    std::size_t scanned = 0;
    for (;;) {
      for (; scanned < inbox_.size(); ++scanned) {
        if (!taken_[scanned] && pred(inbox_[scanned])) {
          taken_[scanned] = true;
          if (out != nullptr) *out = inbox_[scanned];
          return true;
        }
      }
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
          scanned == inbox_.size()) {
        return false;
      }
    }
  }

  std::size_t Count(const Predicate& pred) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::size_t n = 0;
    for (std::size_t i = 0; i < inbox_.size(); ++i) n += pred(inbox_[i]);
    return n;
  }

  std::vector<FixMessage> Received() const {
    std::lock_guard<std::mutex> lock(mu_);
    return inbox_;
  }
  std::vector<FixMessage> Sent() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }

  int next_sender_seq() const {
    if (stopped_) return final_sender_seq_;
    FIX::Session* s = session();
    return s == nullptr ? 0 : s->getExpectedSenderNum();
  }
  int next_target_seq() const {
    if (stopped_) return final_target_seq_;
    FIX::Session* s = session();
    return s == nullptr ? 0 : s->getExpectedTargetNum();
  }

  std::string Describe() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream out;
    out << options_.sender_comp_id << " received " << inbox_.size() << ":\n";
    for (std::size_t i = 0; i < inbox_.size(); ++i) {
      out << "  <- " << (taken_[i] ? "(taken) " : "") << inbox_[i].raw << "\n";
    }
    out << options_.sender_comp_id << " sent " << sent_.size() << ":\n";
    for (std::size_t i = 0; i < sent_.size(); ++i) {
      out << "  -> " << sent_[i].raw << "\n";
    }
    for (std::size_t i = 0; i < errors_.size(); ++i) {
      out << "  error: " << errors_[i] << "\n";
    }
    return out.str();
  }

  // FIX::Application, on QuickFIX's threads (and on the caller's for what
  // the caller sends).
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {
    std::lock_guard<std::mutex> lock(mu_);
    logged_on_ = true;
    ++logons_;
    cv_.notify_all();
  }
  void onLogout(const FIX::SessionID&) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (logged_on_) ++logouts_;
    logged_on_ = false;
    cv_.notify_all();
  }
  void toAdmin(FIX::Message& m, const FIX::SessionID&) override {
    if (m.getHeader().getField(35) == "A") {
      if (!options_.username.empty()) m.setField(553, options_.username);
      if (!options_.password.empty()) m.setField(554, options_.password);
    }
    Record(m, &sent_);
  }
  void toApp(FIX::Message& m,
             const FIX::SessionID&) throw(FIX::DoNotSend) override {
    Record(m, &sent_);
  }
  void fromAdmin(const FIX::Message& m,
                 const FIX::SessionID&) throw(FIX::FieldNotFound,
                                              FIX::IncorrectDataFormat,
                                              FIX::IncorrectTagValue,
                                              FIX::RejectLogon) override {
    Record(m, &inbox_);
  }
  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    Record(m, &inbox_);
  }

 private:
  void Record(const FIX::Message& m, std::vector<FixMessage>* box) {
    FixMessage copy = Convert(m);
    std::lock_guard<std::mutex> lock(mu_);
    box->push_back(copy);
    if (box == &inbox_) taken_.push_back(false);
    cv_.notify_all();
  }

  const FixClientOptions options_;
  const FIX::SessionID session_id_;
  FIX::SessionSettings settings_;
  std::unique_ptr<FIX::FileStoreFactory> store_;
  std::unique_ptr<FIX::FileLogFactory> log_;
  std::unique_ptr<FIX::SocketInitiator> initiator_;
  bool started_ = false;
  bool stopped_ = false;
  int final_sender_seq_ = 0;
  int final_target_seq_ = 0;
  std::atomic<int> nudges_{0};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool logged_on_ = false;
  int logons_ = 0;
  int logouts_ = 0;
  std::vector<FixMessage> inbox_;
  std::vector<bool> taken_;
  std::vector<FixMessage> sent_;
  std::vector<std::string> errors_;
};

FixTestClient::FixTestClient(const FixClientOptions& options)
    : options_(options), impl_(new Impl(options)) {}

FixTestClient::~FixTestClient() { impl_.reset(); }

bool FixTestClient::Start(std::string* error) { return impl_->Start(error); }
bool FixTestClient::WaitLoggedOn(Millis timeout) {
  return impl_->WaitLoggedOn(timeout);
}
bool FixTestClient::WaitLoggedOut(Millis timeout) {
  return impl_->WaitLoggedOut(timeout);
}
bool FixTestClient::logged_on() const { return impl_->logged_on(); }
int FixTestClient::logons() const { return impl_->logons(); }
int FixTestClient::logouts() const { return impl_->logouts(); }
bool FixTestClient::Logout(Millis timeout) { return impl_->Logout(timeout); }
void FixTestClient::Stop() { impl_->Stop(); }
bool FixTestClient::Send(const FixMessage& message) {
  return impl_->Send(message);
}
bool FixTestClient::Send(const std::string& type, const FixFields& fields,
                         const std::vector<FixGroup>& groups) {
  FixMessage m;
  m.type = type;
  m.fields = fields;
  m.groups = groups;
  return impl_->Send(m);
}
bool FixTestClient::Await(const Predicate& pred, Millis timeout,
                          FixMessage* out) {
  return impl_->Await(pred, timeout, out);
}
std::size_t FixTestClient::Count(const Predicate& pred) const {
  return impl_->Count(pred);
}
std::vector<FixMessage> FixTestClient::Received() const {
  return impl_->Received();
}
std::vector<FixMessage> FixTestClient::Sent() const { return impl_->Sent(); }
int FixTestClient::next_sender_seq() const { return impl_->next_sender_seq(); }
int FixTestClient::next_target_seq() const { return impl_->next_target_seq(); }
std::string FixTestClient::Describe() const { return impl_->Describe(); }

// ---------------------------------------------------------------- raw

std::string BuildFixMessage(const std::string& begin_string,
                            const FixFields& fields) {
  std::string body;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    body += std::to_string(fields[i].first) + "=" + fields[i].second + kSoh;
  }
  std::string out = "8=" + begin_string + kSoh +
                    "9=" + std::to_string(body.size()) + kSoh + body;
  unsigned sum = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    sum += static_cast<unsigned char>(out[i]);
  }
  char trailer[16];
  std::snprintf(trailer, sizeof trailer, "10=%03u%c", sum % 256, kSoh);
  return out + trailer;
}

long ParseFixMessage(const std::string& data, FixMessage* out) {
  if (data.size() < 2) return 0;
  if (data.compare(0, 2, "8=") != 0) return -1;
  const std::size_t begin_end = data.find(kSoh);
  if (begin_end == std::string::npos) return 0;
  const std::size_t len_start = begin_end + 1;
  if (data.size() < len_start + 2) return 0;
  if (data.compare(len_start, 2, "9=") != 0) return -1;
  const std::size_t len_end = data.find(kSoh, len_start);
  if (len_end == std::string::npos) return 0;
  const std::string len_text =
      data.substr(len_start + 2, len_end - len_start - 2);
  if (len_text.empty() || len_text.size() > 7 ||
      len_text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  const std::size_t body_len =
      static_cast<std::size_t>(std::atol(len_text.c_str()));
  const std::size_t trailer = len_end + 1 + body_len;
  const std::size_t total = trailer + 7;  // "10=nnn" SOH
  if (data.size() < total) return 0;
  if (data.compare(trailer, 3, "10=") != 0 || data[total - 1] != kSoh) {
    return -1;
  }
  FixMessage m;
  std::size_t pos = 0;
  while (pos < total) {
    const std::size_t eq = data.find('=', pos);
    const std::size_t soh = data.find(kSoh, pos);
    if (eq == std::string::npos || soh == std::string::npos || eq > soh) {
      return -1;
    }
    const int tag = std::atoi(data.substr(pos, eq - pos).c_str());
    const std::string value = data.substr(eq + 1, soh - eq - 1);
    if (tag == 35) {
      m.type = value;
    } else if (IsHeaderTag(tag)) {
      m.header.push_back(FixField(tag, value));
    } else if (tag != 8 && tag != 9 && tag != 10) {
      m.fields.push_back(FixField(tag, value));
    }
    pos = soh + 1;
  }
  m.admin = IsAdminType(m.type);
  m.raw = Printable(data.substr(0, total));
  if (out != nullptr) *out = m;
  return static_cast<long>(total);
}

std::unique_ptr<RawFixConnection> RawFixConnection::Connect(
    const std::string& host, uint16_t port, std::string* error,
    const std::string& source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (error != nullptr)
      *error = std::string("socket: ") + std::strerror(errno);
    return nullptr;
  }
  if (!source.empty()) {
    sockaddr_in from;
    std::memset(&from, 0, sizeof from);
    from.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source.c_str(), &from.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) !=
            0) {
      if (error != nullptr)
        *error = std::string("bind ") + source + ": " + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
  }
  sockaddr_in addr;
  std::memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) !=
          0) {
    if (error != nullptr)
      *error = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return std::unique_ptr<RawFixConnection>(new RawFixConnection(fd));
}

RawFixConnection::~RawFixConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawFixConnection::Write(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

RawFixConnection::ReadResult RawFixConnection::Read(Millis timeout,
                                                    FixMessage* out) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    const long n = ParseFixMessage(buffer_, out);
    if (n > 0) {
      buffer_.erase(0, static_cast<std::size_t>(n));
      return kMessage;
    }
    if (n < 0) {
      // Not FIX: report it as one message of its own and drop it.
      if (out != nullptr) {
        *out = FixMessage();
        out->raw = "<not FIX> " + Printable(buffer_);
      }
      buffer_.clear();
      return kMessage;
    }
    if (closed_) return kClosed;
    const long long left =
        std::chrono::duration_cast<Millis>(deadline - SteadyClock::now())
            .count();
    if (left <= 0) return kTimeout;
    pollfd p;
    p.fd = fd_;
    p.events = POLLIN;
    p.revents = 0;
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) {
      closed_ = true;
      continue;
    }
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      closed_ = true;
    }
  }
}

bool RawFixConnection::AwaitClose(Millis timeout,
                                  std::vector<FixMessage>* before) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    const Millis left =
        std::chrono::duration_cast<Millis>(deadline - SteadyClock::now());
    FixMessage m;
    const ReadResult r = Read(left.count() > 0 ? left : Millis(0), &m);
    if (r == kClosed) return true;
    if (r == kTimeout) return false;
    if (before != nullptr) before->push_back(m);
  }
}

}  // namespace fix_test
}  // namespace gateway
}  // namespace cfx
