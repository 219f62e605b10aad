// The QuickFIX island on its own (gateway/fix/fix_engine.h): raw FIX bytes
// in through Engine::Received, bytes and callbacks out through a recording
// Handler. No sockets, no QuickFIX headers here.

#include "gateway/fix/fix_engine.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gateway/fix/dictionary.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::fix {
namespace {

using Fields = std::vector<std::pair<int, std::string>>;

constexpr char kSoh = '\001';
constexpr char kBadCredentials[] = "invalid username or password";

// Now in UTC as FIX's UTCTimestamp, "YYYYMMDD-HH:MM:SS.sss".
std::string UtcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch())
                          .count() %
                      1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[64];
  std::snprintf(text, sizeof(text), "%04d%02d%02d-%02d:%02d:%02d.%03d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  return text;
}

// The UTC time of day `offset_seconds` from now, "HH:MM:SS".
std::string TimeOfDay(long offset_seconds) {
  const std::time_t t = std::time(nullptr) + offset_seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::snprintf(text, sizeof(text), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return text;
}

// 8=FIX.4.4|9=<length>|<fields>|10=<checksum>|
std::string Frame(const Fields& fields) {
  std::string body;
  for (const auto& [tag, value] : fields) {
    body += std::to_string(tag) + "=" + value + kSoh;
  }
  std::string message = std::string("8=FIX.4.4") + kSoh +
                        "9=" + std::to_string(body.size()) + kSoh + body;
  unsigned sum = 0;
  for (unsigned char c : message) sum += c;
  char checksum[16];
  std::snprintf(checksum, sizeof(checksum), "10=%03u", sum % 256);
  return message + checksum + kSoh;
}

// One message as written by the engine.
struct Wire {
  Fields fields;
  std::string raw;  // SOH shown as '|'

  const std::string* Find(int tag) const {
    for (const auto& field : fields) {
      if (field.first == tag) return &field.second;
    }
    return nullptr;
  }
  std::string Get(int tag) const {
    const std::string* value = Find(tag);
    return value == nullptr ? "" : *value;
  }
  bool Has(int tag) const { return Find(tag) != nullptr; }
  std::string type() const { return Get(35); }
};

std::vector<Wire> Split(const std::string& bytes) {
  std::vector<Wire> out;
  std::string::size_type pos = 0;
  while (pos < bytes.size()) {
    const std::string::size_type end = bytes.find(kSoh, pos);
    if (end == std::string::npos) break;
    const std::string field = bytes.substr(pos, end - pos);
    const std::string::size_type eq = field.find('=');
    const int tag = std::stoi(field.substr(0, eq));
    if (tag == 8 || out.empty()) out.emplace_back();
    out.back().fields.emplace_back(tag, field.substr(eq + 1));
    out.back().raw += field + "|";
    pos = end + 1;
  }
  return out;
}

class RecordingHandler : public Handler {
 public:
  bool CheckLogon(uint64_t conn, int session, const std::string& username,
                  const std::string& password, std::string* refusal) override {
    ++authenticate_calls;
    const auto it = credentials.find(session);
    const bool ok = it != credentials.end() && it->second.first == username &&
                    it->second.second == password;
    *refusal = ok ? "" : kBadCredentials;
    if (!defer) return true;
    deferred.emplace_back(conn, *refusal);
    return false;
  }
  void OnLogon(int session) override { logons.push_back(session); }
  void OnLogout(int session) override { logouts.push_back(session); }
  void OnMessage(int session, const Message& message) override {
    messages.emplace_back(session, message);
  }
  void Write(uint64_t conn, const char* data, std::size_t size) override {
    written[conn].append(data, size);
  }
  void Close(uint64_t conn) override { closed.push_back(conn); }
  void Log(const std::string& line) override { log.push_back(line); }

  bool Closed(uint64_t conn) const {
    for (uint64_t c : closed) {
      if (c == conn) return true;
    }
    return false;
  }
  bool Logged(const std::string& text) const {
    for (const std::string& line : log) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }

  std::map<int, std::pair<std::string, std::string>> credentials;
  int authenticate_calls = 0;
  // CheckLogon answers later: (conn, refusal) for Engine::LogonChecked.
  bool defer = false;
  std::vector<std::pair<uint64_t, std::string>> deferred;
  std::vector<int> logons;
  std::vector<int> logouts;
  std::vector<std::pair<int, Message>> messages;
  std::map<uint64_t, std::string> written;
  std::vector<uint64_t> closed;
  std::vector<std::string> log;
};

// A FIX counterparty on one connection, numbering what it sends.
class Client {
 public:
  Client(Engine* engine, RecordingHandler* handler, uint64_t conn,
         std::string sender)
      : engine_(engine),
        handler_(handler),
        conn_(conn),
        sender_(std::move(sender)) {}

  void Connect(double now = 0) { engine_->Connected(conn_, now); }
  void Disconnect() { engine_->Disconnected(conn_); }
  void SendBytes(const std::string& bytes) {
    engine_->Received(conn_, bytes.data(), bytes.size());
  }
  void Send(const std::string& type, const Fields& body,
            const Fields& extra_header = {}) {
    SendBytes(Build(type, next_seq++, body, extra_header));
  }
  void Logon(const std::string& username, const std::string& password,
             const Fields& extra = {}) {
    Fields body = {{98, "0"}, {108, "30"}};
    body.insert(body.end(), extra.begin(), extra.end());
    body.emplace_back(553, username);
    body.emplace_back(554, password);
    Send("A", body);
  }
  std::string Build(const std::string& type, int seq, const Fields& body,
                    const Fields& extra_header = {}) const {
    Fields fields = {{35, type},
                     {49, sender_},
                     {56, "CFX"},
                     {34, std::to_string(seq)},
                     {52, UtcNow()}};
    fields.insert(fields.end(), extra_header.begin(), extra_header.end());
    fields.insert(fields.end(), body.begin(), body.end());
    return Frame(fields);
  }
  // The messages written to this connection since the last Take() (after
  // an Engine::Flush, as the gateway's poll cycle does).
  std::vector<Wire> Take() {
    engine_->Flush();
    std::vector<Wire> out = Split(handler_->written[conn_]);
    handler_->written[conn_].clear();
    return out;
  }
  bool Closed() const { return handler_->Closed(conn_); }
  std::string Written() const {
    engine_->Flush();
    auto it = handler_->written.find(conn_);
    return it == handler_->written.end() ? "" : it->second;
  }

  int next_seq = 1;

 private:
  Engine* engine_;
  RecordingHandler* handler_;
  uint64_t conn_;
  std::string sender_;
};

// `wire` without the fields in `tags` (SOH shown as '|').
std::string Without(const Wire& wire, const std::set<int>& tags) {
  std::string out;
  for (const auto& [tag, value] : wire.fields) {
    if (tags.count(tag) == 0) out += std::to_string(tag) + "=" + value + "|";
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// `raw` as written by the engine, with SOH for '|'.
std::string Soh(std::string raw) {
  for (char& c : raw) {
    if (c == '|') c = kSoh;
  }
  return raw;
}

Message ExecutionReport() {
  Message report;
  report.type = "8";
  report.Add(37, "1");
  report.Add(11, "A-1");
  report.Add(17, "12-0");
  report.Add(150, "F");
  report.Add(39, "2");
  report.Add(55, "XB2SZ6");
  report.Add(54, "1");
  report.Add(151, "0");
  report.Add(14, "5");
  report.Add(6, "5.8");
  return report;
}

class FixEngineTest : public ::testing::Test {
 protected:
  FixEngineTest()
      // A daily window that started an hour ago: no reset during the test.
      : start_time_(TimeOfDay(-3600)), end_time_(TimeOfDay(-3601)) {
    handler_.credentials[0] = {"trader-a", "secret-a"};
    handler_.credentials[1] = {"trader-b", "secret-b"};
  }

  std::string StoreDir() const { return dir_.Sub("store/fix"); }
  // TRADER_A's session store file.
  std::string StorePath() const {
    return StoreDir() + "/FIX.4.4-CFX-TRADER_A.store";
  }

  EngineOptions Options() const {
    EngineOptions options;
    options.sessions = {"TRADER_A", "TRADER_B"};
    options.store_dir = StoreDir();
    options.dictionary_xml = EmbeddedDictionaryXml();
    options.start_time = start_time_;
    options.end_time = end_time_;
    return options;
  }

  void Start() {
    std::string error;
    engine_ = Engine::Create(Options(), &handler_, &error);
    ASSERT_NE(engine_, nullptr) << error;
  }

  void SetUp() override { Start(); }

  Client NewClient(uint64_t conn, const std::string& sender = "TRADER_A") {
    return Client(engine_.get(), &handler_, conn, sender);
  }

  // Connects and logs on as trader-a; returns the engine's answer.
  std::vector<Wire> LogOnA(Client& client) {
    client.Connect();
    client.Logon("trader-a", "secret-a");
    return client.Take();
  }

  void ExpectNoSecretsLogged() const {
    for (const std::string& line : handler_.log) {
      EXPECT_EQ(line.find("secret"), std::string::npos) << line;
      EXPECT_EQ(line.find("wrong-password"), std::string::npos) << line;
    }
  }

  cfx::testing::TempDir dir_;
  const std::string start_time_;
  const std::string end_time_;
  RecordingHandler handler_;
  std::unique_ptr<Engine> engine_;
};

TEST(FixEngineCreate, RefusesABadDictionary) {
  cfx::testing::TempDir dir;
  RecordingHandler handler;
  EngineOptions options;
  options.sessions = {"TRADER_A"};
  options.store_dir = dir.Sub("fix");
  options.dictionary_xml = "<fix type='FIX' major='4' minor='4'>";
  std::string error;
  EXPECT_EQ(Engine::Create(options, &handler, &error), nullptr);
  EXPECT_NE(error.find("data dictionary"), std::string::npos) << error;
}

TEST(FixEngineCreate, RefusesAStoreDirThatIsAFile) {
  cfx::testing::TempDir dir;
  const std::string file = dir.Sub("file");
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  RecordingHandler handler;
  EngineOptions options;
  options.sessions = {"TRADER_A"};
  options.store_dir = file + "/fix";
  options.dictionary_xml = EmbeddedDictionaryXml();
  std::string error;
  EXPECT_EQ(Engine::Create(options, &handler, &error), nullptr);
  EXPECT_NE(error.find("store"), std::string::npos) << error;
}

TEST(FixEngineCreate, RefusesDuplicateSessions) {
  cfx::testing::TempDir dir;
  RecordingHandler handler;
  EngineOptions options;
  options.sessions = {"TRADER_A", "TRADER_A"};
  options.store_dir = dir.Sub("fix");
  options.dictionary_xml = EmbeddedDictionaryXml();
  std::string error;
  EXPECT_EQ(Engine::Create(options, &handler, &error), nullptr);
  EXPECT_NE(error.find("duplicate"), std::string::npos) << error;
}

TEST_F(FixEngineTest, LogonIsAnswered) {
  Client client = NewClient(1);
  const std::vector<Wire> out = LogOnA(client);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(49), "CFX");
  EXPECT_EQ(out[0].Get(56), "TRADER_A");
  EXPECT_EQ(out[0].Get(34), "1");
  EXPECT_EQ(out[0].Get(98), "0");
  EXPECT_EQ(out[0].Get(108), "30");
  EXPECT_FALSE(client.Closed());
  EXPECT_TRUE(engine_->LoggedOn(0));
  EXPECT_FALSE(engine_->LoggedOn(1));
  EXPECT_EQ(handler_.logons, std::vector<int>{0});
  EXPECT_EQ(handler_.authenticate_calls, 1);
  EXPECT_TRUE(handler_.Logged("fix TRADER_A: Responding to logon request"));
  ExpectNoSecretsLogged();
}

// A user added while the exchange runs: its session takes the next index,
// logs on like the others, and an existing CompID, an empty one or one with
// SOH gets no second session.
TEST_F(FixEngineTest, ASessionAddedLaterTakesTheNextIndexAndLogsOn) {
  std::string error;
  EXPECT_EQ(engine_->AddSession("TRADER_A", &error), -1);
  EXPECT_NE(error.find("duplicate"), std::string::npos) << error;
  EXPECT_EQ(engine_->AddSession("", &error), -1);
  EXPECT_EQ(engine_->AddSession(std::string("BAD\001ID"), &error), -1);
  handler_.credentials[2] = {"trader-c", "secret-c"};
  ASSERT_EQ(engine_->AddSession("TRADER_C", &error), 2) << error;
  EXPECT_FALSE(engine_->LoggedOn(2));
  EXPECT_FALSE(engine_->HasHistory(2));
  Client client = NewClient(1, "TRADER_C");
  client.Connect();
  client.Logon("trader-c", "secret-c");
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(56), "TRADER_C");
  EXPECT_EQ(out[0].Get(34), "1");
  EXPECT_TRUE(engine_->LoggedOn(2));
  EXPECT_EQ(handler_.logons, std::vector<int>{2});
  EXPECT_TRUE(engine_->Send(2, ExecutionReport()));
  const std::vector<Wire> report = client.Take();
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].type(), "8");
  EXPECT_EQ(report[0].Get(34), "2");
  EXPECT_TRUE(engine_->HasHistory(2));
  // Its store is a file like the others', found again by the next start.
  EXPECT_TRUE(std::filesystem::exists(StoreDir() +
                                      "/FIX.4.4-CFX-TRADER_C.store"));
}

TEST_F(FixEngineTest, WrongPasswordGetsLogoutWithTextThenClose) {
  Client client = NewClient(1);
  client.Connect();
  client.Logon("trader-a", "wrong-password");
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_EQ(out[0].Get(58), kBadCredentials);
  EXPECT_TRUE(client.Closed());
  EXPECT_FALSE(engine_->LoggedOn(0));
  EXPECT_TRUE(handler_.logons.empty());
  EXPECT_TRUE(handler_.logouts.empty());
  client.Disconnect();
  ExpectNoSecretsLogged();
}

TEST_F(FixEngineTest, MissingPasswordIsRefusedLikeAWrongOne) {
  Client client = NewClient(1);
  client.Connect();
  client.Send("A", {{98, "0"}, {108, "30"}, {553, "trader-a"}});
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_EQ(out[0].Get(58), kBadCredentials);
  EXPECT_TRUE(client.Closed());
}

// Refusals read the same whether the SenderCompID exists or not: the
// unknown one is checked too, and gets the wrong password's Logout.
TEST_F(FixEngineTest, UnknownSenderCompIdGetsTheWrongPasswordsLogout) {
  Client client = NewClient(1, "NOBODY");
  client.Connect();
  client.Logon("trader-a", "secret-a");
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_EQ(out[0].Get(58), kBadCredentials);
  EXPECT_EQ(out[0].Get(34), "1");
  EXPECT_EQ(out[0].Get(56), "NOBODY");
  EXPECT_TRUE(client.Closed());
  EXPECT_EQ(handler_.authenticate_calls, 1);
  ExpectNoSecretsLogged();
}

// The same refusal, field for field apart from the header's CompIDs and
// SendingTime, for a wrong password, an unknown SenderCompID and a wrong
// password on a SenderCompID logged on elsewhere; and none of them moves the
// logged-on session's sequence numbers.
TEST_F(FixEngineTest, RefusalsOfTheThreeKindsAreIdenticalAndConsumeNothing) {
  Client owner = NewClient(1, "TRADER_B");
  owner.Connect();
  owner.Logon("trader-b", "secret-b");
  ASSERT_EQ(owner.Take().size(), 1u);  // our 1

  Client wrong = NewClient(2);
  wrong.Connect();
  wrong.Logon("trader-a", "wrong-password");
  Client unknown = NewClient(3, "NOBODY");
  unknown.Connect();
  unknown.Logon("trader-a", "wrong-password");
  Client elsewhere = NewClient(4, "TRADER_B");
  elsewhere.next_seq = 7;
  elsewhere.Connect();
  elsewhere.Logon("trader-b", "wrong-password");
  const std::set<int> vary = {9, 10, 52, 56};
  std::vector<std::string> answers;
  for (Client* c : {&wrong, &unknown, &elsewhere}) {
    const std::vector<Wire> out = c->Take();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].Get(58), kBadCredentials);
    EXPECT_TRUE(c->Closed());
    answers.push_back(Without(out[0], vary));
  }
  EXPECT_EQ(answers[0], answers[1]);
  EXPECT_EQ(answers[0], answers[2]);
  EXPECT_FALSE(engine_->LoggedOn(0));
  EXPECT_TRUE(engine_->LoggedOn(1));
  owner.Send("1", {{112, "T1"}});
  const std::vector<Wire> out = owner.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "2");  // the refusals took no number
}

// A Logon whose check answers later waits outside the session, and so does
// the input behind it; the answer lets both through in order.
TEST_F(FixEngineTest, InputBehindALogonBeingCheckedWaitsForTheAnswer) {
  handler_.defer = true;
  Client client = NewClient(1);
  client.Connect();
  client.Logon("trader-a", "secret-a");
  client.Send("1", {{112, "T1"}});
  EXPECT_EQ(client.Written(), "");
  EXPECT_FALSE(engine_->LoggedOn(0));
  ASSERT_EQ(handler_.deferred.size(), 1u);
  EXPECT_EQ(handler_.deferred[0].first, 1u);
  engine_->LogonChecked(1, handler_.deferred[0].second);
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[1].type(), "0");
  EXPECT_EQ(out[1].Get(112), "T1");
  EXPECT_TRUE(engine_->LoggedOn(0));
}

// A later refusal: the Logout, the close, and the input behind the Logon
// never reaches the session.
TEST_F(FixEngineTest, ALaterRefusalClosesWithoutTheSession) {
  handler_.defer = true;
  Client client = NewClient(1);
  client.Connect();
  client.Logon("trader-a", "wrong-password");
  client.Send("1", {{112, "T1"}});
  ASSERT_EQ(handler_.deferred.size(), 1u);
  engine_->LogonChecked(1, "try again later");
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_EQ(out[0].Get(58), "try again later");
  EXPECT_TRUE(client.Closed());
  EXPECT_TRUE(handler_.messages.empty());
  // A second answer, or one for a connection that is gone, does nothing.
  engine_->LogonChecked(1, "");
  client.Disconnect();
  engine_->LogonChecked(1, "");
  EXPECT_FALSE(engine_->LoggedOn(0));
}

TEST_F(FixEngineTest, WrongTargetCompIdIsClosedWithoutAnswer) {
  Client client = NewClient(1);
  client.Connect();
  client.SendBytes(Frame({{35, "A"},
                          {49, "TRADER_A"},
                          {56, "NOT_CFX"},
                          {34, "1"},
                          {52, UtcNow()},
                          {98, "0"},
                          {108, "30"}}));
  EXPECT_EQ(client.Written(), "");
  EXPECT_TRUE(client.Closed());
}

TEST_F(FixEngineTest, FirstMessageNotALogonIsClosedWithoutAnswer) {
  Client client = NewClient(1);
  client.Connect();
  client.Send("0", {});
  EXPECT_EQ(client.Written(), "");
  EXPECT_TRUE(client.Closed());
  EXPECT_TRUE(handler_.Logged("first message is not a Logon (35=0)"));
  // Bytes after the close are ignored.
  client.Logon("trader-a", "secret-a");
  EXPECT_EQ(client.Written(), "");
  EXPECT_FALSE(engine_->LoggedOn(0));
}

// Found by tests/fuzz/fix_message_fuzzer (crash-data-length-beyond-end in
// its corpus): QuickFIX reads a data field as long as its length field says,
// past the end of the message. Such a Logon is closed before QuickFIX or the
// credential check sees it; the engine goes on serving.
TEST_F(FixEngineTest, ALogonWhoseDataLengthRunsPastTheEndIsClosedUnread) {
  Client client = NewClient(1);
  client.Connect();
  client.Logon("trader-a", "secret-a", {{95, "5000"}, {96, "abc"}});
  EXPECT_EQ(client.Written(), "");
  EXPECT_TRUE(client.Closed());
  EXPECT_EQ(handler_.authenticate_calls, 0);
  EXPECT_TRUE(handler_.Logged(
      "invalid message: data field 96 is not 5000 bytes ending at a SOH, as "
      "field 95 says"));
  Client other = NewClient(2);
  EXPECT_EQ(LogOnA(other).size(), 1u);
}

// Logged on, such a message is garbled: ignored (never parsed), as QuickFIX
// ignores a garbled message, and the session goes on. A data field holding a
// SOH is refused the same way, whatever its length says.
TEST_F(FixEngineTest, AGarbledDataFieldAfterLogonIsIgnoredAndTheSessionGoesOn) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.Send("V", {{262, "R1"}, {263, "1"}, {264, "0"}, {354, "-7"},
                    {355, "x"}, {267, "1"}, {269, "0"}, {146, "1"},
                    {55, "XB2SZ6"}});
  client.Send("V", {{262, "R2"}, {263, "1"}, {264, "0"}, {354, "3"},
                    {355, std::string("a") + kSoh + "b"}, {267, "1"},
                    {269, "0"}, {146, "1"}, {55, "XB2SZ6"}});
  EXPECT_FALSE(client.Closed());
  EXPECT_TRUE(engine_->LoggedOn(0));
  EXPECT_TRUE(handler_.messages.empty());
  EXPECT_TRUE(handler_.Logged("garbled message ignored: data field 355 is "
                              "not -7 bytes ending at a SOH"));
  EXPECT_TRUE(handler_.Logged("garbled message ignored: data field 355 is "
                              "not 3 bytes ending at a SOH"));
}

TEST(FixMessageReader, RefusesADataFieldLongerThanTheMessage) {
  std::string error;
  const auto reader = MessageReader::Create(EmbeddedDictionaryXml(), &error);
  ASSERT_NE(reader, nullptr) << error;
  Message m;
  std::string why;
  const std::string raw =
      Frame({{35, "D"}, {49, "TRADER_A"}, {56, "CFX"}, {34, "2"},
             {52, UtcNow()}, {11, "A-1"}, {354, "999999"}, {355, "x"}});
  EXPECT_FALSE(reader->Read(raw, &m, &why));
  EXPECT_EQ(why,
            "data field 355 is not 999999 bytes ending at a SOH, as field "
            "354 says");
  EXPECT_TRUE(m.type.empty() && m.fields.empty());
}

TEST_F(FixEngineTest, SecondConnectionOfABoundSessionIsClosed) {
  Client first = NewClient(1);
  ASSERT_EQ(LogOnA(first).size(), 1u);

  Client second = NewClient(2);
  second.Connect();
  second.Logon("trader-a", "secret-a");
  EXPECT_EQ(second.Written(), "");
  EXPECT_TRUE(second.Closed());
  EXPECT_TRUE(handler_.Logged("already logged on"));
  second.Disconnect();

  EXPECT_FALSE(first.Closed());
  EXPECT_TRUE(engine_->LoggedOn(0));
  first.Send("1", {{112, "T1"}});
  const std::vector<Wire> out = first.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "0");
  EXPECT_EQ(out[0].Get(112), "T1");
  EXPECT_EQ(out[0].Get(34), "2");
}

TEST_F(FixEngineTest, SessionIsFreeAgainAfterItsConnectionCloses) {
  Client first = NewClient(1);
  ASSERT_EQ(LogOnA(first).size(), 1u);
  first.Disconnect();
  EXPECT_EQ(handler_.logouts, std::vector<int>{0});
  EXPECT_FALSE(engine_->LoggedOn(0));

  Client second = NewClient(2);
  second.next_seq = first.next_seq;
  const std::vector<Wire> out = LogOnA(second);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "2");
  EXPECT_TRUE(engine_->LoggedOn(0));
}

TEST_F(FixEngineTest, ApplicationMessageReachesOnMessageWithItsGroups) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.Send("V", {{262, "R1"},
                    {263, "1"},
                    {264, "0"},
                    {265, "1"},
                    {267, "2"},
                    {269, "0"},
                    {269, "1"},
                    {146, "1"},
                    {55, "XB2SZ6"}});
  EXPECT_TRUE(client.Take().empty());
  ASSERT_EQ(handler_.messages.size(), 1u);
  EXPECT_EQ(handler_.messages[0].first, 0);
  const Message& message = handler_.messages[0].second;
  EXPECT_EQ(message.type, "V");
  EXPECT_FALSE(message.poss_dup);
  EXPECT_EQ(message.seq_num, 2);
  std::vector<int> tags;
  for (const Field& field : message.fields) tags.push_back(field.tag);
  EXPECT_EQ(tags, (std::vector<int>{262, 263, 264, 265}));
  ASSERT_NE(message.Find(262), nullptr);
  EXPECT_EQ(*message.Find(262), "R1");
  EXPECT_EQ(message.Find(267), nullptr);

  ASSERT_EQ(message.groups.size(), 2u);
  const Group* types = message.FindGroup(267);
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->delimiter, 269);
  ASSERT_EQ(types->entries.size(), 2u);
  ASSERT_NE(FindIn(types->entries[0], 269), nullptr);
  EXPECT_EQ(*FindIn(types->entries[0], 269), "0");
  EXPECT_EQ(*FindIn(types->entries[1], 269), "1");
  const Group* symbols = message.FindGroup(146);
  ASSERT_NE(symbols, nullptr);
  EXPECT_EQ(symbols->delimiter, 55);
  ASSERT_EQ(symbols->entries.size(), 1u);
  ASSERT_EQ(symbols->entries[0].size(), 1u);
  EXPECT_EQ(symbols->entries[0][0].value, "XB2SZ6");
}

TEST_F(FixEngineTest, PossDupFlagReachesOnMessage) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.Send("x", {{320, "S1"}, {559, "4"}}, {{43, "Y"}, {122, UtcNow()}});
  ASSERT_EQ(handler_.messages.size(), 1u);
  EXPECT_TRUE(handler_.messages[0].second.poss_dup);
}

TEST_F(FixEngineTest, MissingRequiredTagGetsRejectAndNoOnMessage) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  // NewOrderSingle without ClOrdID(11).
  client.Send("D", {{55, "XB2SZ6"},
                    {54, "1"},
                    {38, "5"},
                    {40, "2"},
                    {44, "5.80"},
                    {60, UtcNow()}});
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "3");
  EXPECT_EQ(out[0].Get(45), "2");
  EXPECT_EQ(out[0].Get(372), "D");
  EXPECT_EQ(out[0].Get(373), "1");
  EXPECT_EQ(out[0].Get(371), "11");
  EXPECT_TRUE(handler_.messages.empty());
  EXPECT_TRUE(engine_->LoggedOn(0));
}

TEST_F(FixEngineTest, ValueOutsideTheDictionaryGetsReject) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.Send("D", {{11, "A-1"},
                    {55, "XB2SZ6"},
                    {54, "3"},
                    {38, "5"},
                    {40, "2"},
                    {44, "5.80"},
                    {60, UtcNow()}});
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "3");
  EXPECT_EQ(out[0].Get(373), "5");
  EXPECT_EQ(out[0].Get(371), "54");
  EXPECT_TRUE(handler_.messages.empty());
}

TEST_F(FixEngineTest, MessageTypeOutsideTheDictionaryGetsReject) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.Send("AE", {{571, "T1"}});
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "3");
  EXPECT_EQ(out[0].Get(373), "11");
  EXPECT_TRUE(handler_.messages.empty());
}

TEST_F(FixEngineTest, GarbledMessageIsIgnoredOnceLoggedOn) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  std::string garbled = client.Build("1", 2, {{112, "T1"}});
  garbled[garbled.size() - 2] = garbled[garbled.size() - 2] == '0' ? '1' : '0';
  client.SendBytes(garbled);  // wrong CheckSum: as if never received
  EXPECT_TRUE(client.Take().empty());
  EXPECT_FALSE(client.Closed());
  client.Send("1", {{112, "T2"}});  // 2 again
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "0");
  EXPECT_EQ(out[0].Get(112), "T2");
}

TEST_F(FixEngineTest, StaleLogonIsClosed) {
  Client client = NewClient(1);
  client.Connect();
  // SendingTime ten minutes old: outside the 120 s latency check.
  const std::time_t old = std::time(nullptr) - 600;
  std::tm tm{};
  gmtime_r(&old, &tm);
  char sending_time[64];
  std::snprintf(sending_time, sizeof(sending_time),
                "%04d%02d%02d-%02d:%02d:%02d.000", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  client.SendBytes(Frame({{35, "A"},
                          {49, "TRADER_A"},
                          {56, "CFX"},
                          {34, "1"},
                          {52, sending_time},
                          {98, "0"},
                          {108, "30"},
                          {553, "trader-a"},
                          {554, "secret-a"}}));
  EXPECT_TRUE(client.Closed());
  EXPECT_FALSE(engine_->LoggedOn(0));
  EXPECT_TRUE(handler_.logons.empty());
}

TEST_F(FixEngineTest, SendWhileLoggedOnIsWrittenWithGroupsInOrder) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  Message update;
  update.type = "X";
  update.Add(262, "R1");
  Group entries;
  entries.count_tag = 268;
  entries.delimiter = 279;
  entries.entries = {{{279, "0"},
                      {269, "0"},
                      {55, "XB2SZ6"},
                      {270, "5.8"},
                      {271, "3"},
                      {346, "1"}},
                     {{279, "0"},
                      {269, "2"},
                      {55, "XB2SZ6"},
                      {270, "5.81"},
                      {271, "1"},
                      {1003, "T-7"}}};
  update.groups.push_back(entries);
  EXPECT_TRUE(engine_->Send(0, update));
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "X");
  EXPECT_EQ(out[0].Get(34), "2");
  EXPECT_NE(out[0].raw.find("|262=R1|268=2|279=0|269=0|55=XB2SZ6|270=5.8|"
                            "271=3|346=1|279=0|269=2|55=XB2SZ6|270=5.81|271=1|"
                            "1003=T-7|10="),
            std::string::npos)
      << out[0].raw;
}

TEST_F(FixEngineTest, SendRefusesAGroupEntryWithoutItsDelimiter) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  Message snapshot;
  snapshot.type = "W";
  snapshot.Add(55, "XB2SZ6");
  Group entries;
  entries.count_tag = 268;
  entries.delimiter = 269;
  entries.entries = {{{270, "5.8"}, {269, "0"}}};
  snapshot.groups.push_back(entries);
  EXPECT_FALSE(engine_->Send(0, snapshot));
  EXPECT_TRUE(client.Take().empty());
  EXPECT_TRUE(handler_.Logged("does not start with its delimiter"));
}

TEST_F(FixEngineTest, SendWhileLoggedOffIsStoredAndResentOnResendRequest) {
  Client first = NewClient(1);
  ASSERT_EQ(LogOnA(first).size(), 1u);  // our 1
  first.Send("5", {});                  // our Logout: 2
  std::vector<Wire> out = first.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_TRUE(first.Closed());
  EXPECT_EQ(handler_.logouts, std::vector<int>{0});
  first.Disconnect();

  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));  // our 3, not written
  EXPECT_TRUE(handler_.written.count(2) == 0);

  Client second = NewClient(2);
  second.next_seq = first.next_seq;
  out = LogOnA(second);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "4");  // the client sees the gap: 3 is missing

  second.Send("2", {{7, "3"}, {16, "0"}});
  out = second.Take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].type(), "8");
  EXPECT_EQ(out[0].Get(34), "3");
  EXPECT_EQ(out[0].Get(43), "Y");
  EXPECT_TRUE(out[0].Has(122));
  EXPECT_EQ(out[0].Get(37), "1");
  EXPECT_EQ(out[0].Get(11), "A-1");
  EXPECT_EQ(out[0].Get(150), "F");
  EXPECT_EQ(out[0].Get(6), "5.8");
  // The Logon (4) is a session message: gap-filled, not resent.
  EXPECT_EQ(out[1].type(), "4");
  EXPECT_EQ(out[1].Get(34), "4");
  EXPECT_EQ(out[1].Get(123), "Y");
  EXPECT_EQ(out[1].Get(36), "5");
  EXPECT_TRUE(handler_.Logged("Received ResendRequest FROM: 3 TO: 0"));
}

TEST_F(FixEngineTest, SequenceNumbersSurviveARestart) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);  // client 1, our 1
  before.Send("1", {{112, "T1"}});       // client 2, our Heartbeat 2
  ASSERT_EQ(before.Take().size(), 1u);

  engine_.reset();
  Start();

  Client after = NewClient(7);
  after.next_seq = before.next_seq;  // 3
  std::vector<Wire> out = LogOnA(after);
  ASSERT_EQ(out.size(), 1u);  // no ResendRequest: 3 was expected
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "3");
  after.Send("1", {{112, "T2"}});
  out = after.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "4");
}

TEST_F(FixEngineTest, OutputWaitsForFlushAndFollowsTheStore) {
  // A Handler that checks, at every Write, that the store file already
  // holds each message being written.
  class CheckingHandler : public RecordingHandler {
   public:
    void Write(uint64_t conn, const char* data, std::size_t size) override {
      const std::string file = ReadFile(store_path);
      for (const Wire& wire : Split(std::string(data, size))) {
        ++checked;
        EXPECT_NE(file.find(Soh(wire.raw)), std::string::npos) << wire.raw;
      }
      RecordingHandler::Write(conn, data, size);
    }
    std::string store_path;
    int checked = 0;
  };
  CheckingHandler handler;
  handler.credentials[0] = {"trader-a", "secret-a"};
  handler.store_path = StorePath();
  engine_.reset();  // one Engine per store directory
  std::string error;
  std::unique_ptr<Engine> engine = Engine::Create(Options(), &handler, &error);
  ASSERT_NE(engine, nullptr) << error;

  Client client(engine.get(), &handler, 1, "TRADER_A");
  client.Connect();
  client.Logon("trader-a", "secret-a");
  EXPECT_EQ(handler.written.count(1), 0u);  // held until Flush
  EXPECT_TRUE(engine->Send(0, ExecutionReport()));
  EXPECT_TRUE(engine->Send(0, ExecutionReport()));
  EXPECT_EQ(handler.written.count(1), 0u);
  engine->Flush();
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[1].Get(34), "2");
  EXPECT_EQ(out[2].Get(34), "3");
  EXPECT_EQ(handler.checked, 3);

  // A Logout goes out before its Close, without a Flush.
  client.Send("5", {});
  EXPECT_TRUE(client.Closed());
  const std::string last = handler.written[1];
  ASSERT_EQ(Split(last).size(), 1u);
  EXPECT_EQ(Split(last)[0].type(), "5");
  EXPECT_EQ(handler.checked, 4);
}

TEST_F(FixEngineTest, ResendAfterARestartIsTheStoredBytes) {
  Client first = NewClient(1);
  ASSERT_EQ(LogOnA(first).size(), 1u);  // our 1
  Message second_report = ExecutionReport();
  second_report.fields[1].value = "A-2";
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));  // our 2
  EXPECT_TRUE(engine_->Send(0, second_report));      // our 3
  const std::vector<Wire> sent = first.Take();
  ASSERT_EQ(sent.size(), 2u);
  first.Disconnect();
  Message offline = ExecutionReport();
  offline.fields[1].value = "A-3";
  EXPECT_TRUE(engine_->Send(0, offline));  // our 4, stored only

  engine_.reset();
  Start();

  Client second = NewClient(2);
  second.next_seq = first.next_seq;
  std::vector<Wire> out = LogOnA(second);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "5");
  second.Send("2", {{7, "2"}, {16, "0"}});
  out = second.Take();
  ASSERT_EQ(out.size(), 4u);
  // 2 and 3: the bytes first sent, with PossDupFlag(43)=Y and
  // OrigSendingTime(122) = the first SendingTime(52); a new SendingTime, so
  // a new BodyLength(9) and CheckSum(10).
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out[i].Get(43), "Y");
    EXPECT_EQ(out[i].Get(122), sent[i].Get(52));
    EXPECT_FALSE(sent[i].Has(43));
    EXPECT_EQ(Without(out[i], {9, 10, 43, 52, 122}),
              Without(sent[i], {9, 10, 52}));
  }
  EXPECT_EQ(out[2].type(), "8");
  EXPECT_EQ(out[2].Get(34), "4");
  EXPECT_EQ(out[2].Get(43), "Y");
  EXPECT_EQ(out[2].Get(11), "A-3");
  // 5, the Logon: gap-filled.
  EXPECT_EQ(out[3].type(), "4");
  EXPECT_EQ(out[3].Get(34), "5");
  EXPECT_EQ(out[3].Get(36), "6");
}

TEST_F(FixEngineTest, ATornLastRecordIsCutOffAtRestart) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);  // client 1, our 1
  const auto intact = std::filesystem::file_size(StorePath());
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));  // our 2
  ASSERT_EQ(before.Take().size(), 1u);
  engine_.reset();

  // A crash in the middle of the last write: the store file ends inside
  // the record of our 2.
  std::filesystem::resize_file(StorePath(), intact + 30);
  Start();
  EXPECT_EQ(std::filesystem::file_size(StorePath()), intact);
  int lines = 0;
  for (const std::string& line : handler_.log) {
    if (line.find("fix store FIX.4.4-CFX-TRADER_A") != std::string::npos) {
      ++lines;
      EXPECT_NE(
          line.find("a partial record at offset " + std::to_string(intact) +
                    ": dropped the last 30 "
                    "bytes"),
          std::string::npos)
          << line;
    }
  }
  EXPECT_EQ(lines, 1);

  // Recovered to the last complete record: our 2 was never written out, so
  // it is numbered again.
  Client after = NewClient(2);
  after.next_seq = before.next_seq;
  std::vector<Wire> out = LogOnA(after);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "2");
  after.Send("2", {{7, "1"}, {16, "0"}});
  out = after.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "4");
  EXPECT_EQ(out[0].Get(36), "3");
}

TEST_F(FixEngineTest, GarbageAfterTheLastRecordIsDroppedAtRestart) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));  // our 2
  ASSERT_EQ(before.Take().size(), 1u);
  engine_.reset();
  const auto intact = std::filesystem::file_size(StorePath());
  {
    std::ofstream out(StorePath(), std::ios::binary | std::ios::app);
    out << std::string(16, '\0') << "garbage";
  }
  Start();
  EXPECT_EQ(std::filesystem::file_size(StorePath()), intact);
  EXPECT_TRUE(handler_.Logged("dropped the last 23 bytes"));

  Client after = NewClient(2);
  after.next_seq = before.next_seq;
  std::vector<Wire> out = LogOnA(after);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "3");
  after.Send("2", {{7, "2"}, {16, "2"}});
  out = after.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "2");
  EXPECT_EQ(out[0].Get(11), "A-1");
}

// While alive, writes to files past `bytes` fail with EFBIG (RLIMIT_FSIZE,
// SIGXFSZ ignored).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  void (*previous_)(int) = nullptr;
};

TEST_F(FixEngineTest, AStoreThatCannotWriteWithholdsItsSessionsOutput) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);  // our 1
  const auto size = std::filesystem::file_size(StorePath());
  {
    // Room for part of the next record only.
    FileSizeLimit limit(size + 100);
    EXPECT_TRUE(engine_->Send(0, ExecutionReport()));  // our 2
    EXPECT_TRUE(client.Take().empty());
    EXPECT_TRUE(client.Closed());
    EXPECT_TRUE(
        handler_.Logged("fix store FIX.4.4-CFX-TRADER_A: cannot write"));
    EXPECT_TRUE(handler_.Logged("closed: the session store cannot be written"));
    EXPECT_FALSE(engine_->LoggedOn(0));
  }
  client.Disconnect();
  engine_->Flush();  // the rest of the record
  EXPECT_TRUE(handler_.Logged("fix store FIX.4.4-CFX-TRADER_A: written again"));

  // Also after a restart, the report the client never got is there to be
  // resent.
  engine_.reset();
  Start();
  Client again = NewClient(2);
  again.next_seq = client.next_seq;
  std::vector<Wire> out = LogOnA(again);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "3");
  again.Send("2", {{7, "2"}, {16, "0"}});
  out = again.Take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].type(), "8");
  EXPECT_EQ(out[0].Get(34), "2");
  EXPECT_EQ(out[0].Get(43), "Y");
  EXPECT_EQ(out[1].type(), "4");
}

TEST_F(FixEngineTest, ResetSeqNumFlagTruncatesTheStore) {
  Client owner = NewClient(1);
  ASSERT_EQ(LogOnA(owner).size(), 1u);
  for (int i = 0; i < 20; ++i) engine_->Send(0, ExecutionReport());
  ASSERT_EQ(owner.Take().size(), 20u);
  owner.Send("5", {});
  owner.Disconnect();
  const auto full = std::filesystem::file_size(StorePath());

  Client client = NewClient(2);
  client.Connect();
  client.Logon("trader-a", "secret-a", {{141, "Y"}});  // client 1
  std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "1");
  EXPECT_LT(std::filesystem::file_size(StorePath()), full / 4);
  Message fresh = ExecutionReport();
  fresh.fields[1].value = "NEW";
  EXPECT_TRUE(engine_->Send(0, fresh));  // our 2
  ASSERT_EQ(client.Take().size(), 1u);

  // Also after a restart, only the new day's messages are there.
  engine_.reset();
  Start();
  Client again = NewClient(3);
  again.next_seq = client.next_seq;
  out = LogOnA(again);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "3");
  again.Send("2", {{7, "1"}, {16, "0"}});
  out = again.Take();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].type(), "4");  // our Logon 1
  EXPECT_EQ(out[0].Get(36), "2");
  EXPECT_EQ(out[1].Get(34), "2");
  EXPECT_EQ(out[1].Get(11), "NEW");
  EXPECT_EQ(out[2].type(), "4");  // our Logon 3
}

TEST_F(FixEngineTest, ANewDailyWindowResetsTheStoreOnce) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));
  ASSERT_EQ(before.Take().size(), 1u);
  engine_.reset();

  // A window that starts after the store was created: wait for the next
  // whole second.
  const std::time_t created = std::time(nullptr);
  while (std::time(nullptr) == created) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EngineOptions options = Options();
  options.start_time = TimeOfDay(0);
  options.end_time = TimeOfDay(-1);
  std::string error;
  engine_ = Engine::Create(options, &handler_, &error);
  ASSERT_NE(engine_, nullptr) << error;
  Client first = NewClient(2);
  std::vector<Wire> out = LogOnA(first);  // client 1: reset
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "1");
  first.Disconnect();

  // The reset wrote a new creation time: a restart in the same window
  // keeps the sequence numbers.
  engine_.reset();
  engine_ = Engine::Create(options, &handler_, &error);
  ASSERT_NE(engine_, nullptr) << error;
  Client second = NewClient(3);
  second.next_seq = first.next_seq;
  out = LogOnA(second);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "2");
}

// The daily window on an exchange clock of its own (a simulated one, far
// from the wall clock): the wall clock plays no part in it.
class FixEngineExchangeClockTest : public FixEngineTest {
 protected:
  static constexpr int64_t kSecondNs = 1'000'000'000;
  // 2027-06-02T00:00:00Z.
  static constexpr int64_t kDayNs = int64_t{1'811'894'400} * kSecondNs;

  static int64_t At(int64_t hours, int64_t minutes, int64_t seconds) {
    return kDayNs + ((hours * 60 + minutes) * 60 + seconds) * kSecondNs;
  }

  void SetUp() override { Restart(); }

  void Restart() {
    engine_.reset();
    EngineOptions options = Options();
    options.start_time = "21:00:05";
    options.end_time = "21:00:00";
    options.exchange_now_ns = [this] { return exchange_ns_; };
    std::string error;
    engine_ = Engine::Create(options, &handler_, &error);
    ASSERT_NE(engine_, nullptr) << error;
  }

  int64_t exchange_ns_ = At(10, 0, 0);
};

TEST_F(FixEngineExchangeClockTest, ALogonInTheExchangeClocksBreakIsRefused) {
  exchange_ns_ = At(21, 0, 2);
  Client client = NewClient(1);
  for (const Wire& w : LogOnA(client)) EXPECT_NE(w.type(), "A") << w.raw;
  EXPECT_TRUE(client.Closed());
  EXPECT_FALSE(engine_->LoggedOn(0));
}

TEST_F(FixEngineExchangeClockTest, TheWindowsEndLogsOutAndTheNextStartsAtOne) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));
  ASSERT_EQ(before.Take().size(), 1u);

  // The exchange clock passes 21:00:05: the session's window has ended.
  exchange_ns_ = At(21, 0, 6);
  engine_->Tick(0);
  const std::vector<Wire> out = before.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_TRUE(before.Closed());
  EXPECT_EQ(handler_.logouts, std::vector<int>{0});
  before.Disconnect();

  Client after = NewClient(2);
  const std::vector<Wire> logon = LogOnA(after);
  ASSERT_EQ(logon.size(), 1u);
  EXPECT_EQ(logon[0].type(), "A");
  EXPECT_EQ(logon[0].Get(34), "1");
}

TEST_F(FixEngineExchangeClockTest,
       ARestartInTheSameExchangeWindowKeepsNumbers) {
  Client before = NewClient(1);
  ASSERT_EQ(LogOnA(before).size(), 1u);
  EXPECT_TRUE(engine_->Send(0, ExecutionReport()));
  ASSERT_EQ(before.Take().size(), 1u);
  before.Disconnect();

  exchange_ns_ = At(11, 0, 0);
  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_TRUE(engine_->HasHistory(0));
  Client after = NewClient(2);
  after.next_seq = before.next_seq;
  const std::vector<Wire> logon = LogOnA(after);
  ASSERT_EQ(logon.size(), 1u);
  EXPECT_EQ(logon[0].type(), "A");
  EXPECT_EQ(logon[0].Get(34), "3");
}

TEST_F(FixEngineTest, AQuickFixFileStoreIsImportedOnce) {
  engine_.reset();
  for (const auto& entry : std::filesystem::directory_iterator(StoreDir())) {
    std::filesystem::remove(entry.path());
  }
  // The set QuickFIX's FileStore writes: our next 5, the client's next 3,
  // one stored message (4).
  const std::string prefix = StoreDir() + "/FIX.4.4-CFX-TRADER_A.";
  const std::string stored = Frame({{35, "8"},
                                    {34, "4"},
                                    {49, "CFX"},
                                    {52, UtcNow()},
                                    {56, "TRADER_A"},
                                    {6, "5.8"},
                                    {11, "OLD-1"},
                                    {14, "5"},
                                    {17, "12-0"},
                                    {37, "1"},
                                    {39, "2"},
                                    {54, "1"},
                                    {55, "XB2SZ6"},
                                    {150, "F"},
                                    {151, "0"}});
  WriteFile(prefix + "seqnums", "0000000005 : 0000000003");
  WriteFile(prefix + "session", UtcNow().substr(0, 17));
  WriteFile(prefix + "header", "4,0," + std::to_string(stored.size()) + " ");
  WriteFile(prefix + "body", stored);
  Start();
  EXPECT_TRUE(handler_.Logged("imported the QuickFIX FileStore"));

  Client client = NewClient(1);
  client.next_seq = 3;
  std::vector<Wire> out = LogOnA(client);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "5");
  client.Send("2", {{7, "4"}, {16, "0"}});
  out = client.Take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].Get(34), "4");
  EXPECT_EQ(out[0].Get(11), "OLD-1");
  EXPECT_EQ(out[0].Get(43), "Y");

  // Once: our store is used from now on.
  engine_.reset();
  handler_.log.clear();
  Start();
  EXPECT_FALSE(handler_.Logged("imported"));
  Client again = NewClient(2);
  again.next_seq = client.next_seq;
  out = LogOnA(again);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Get(34), "6");  // resends and gap fills keep their numbers
}

TEST_F(FixEngineTest, RefusedLogonDoesNotResetSequenceNumbers) {
  Client owner = NewClient(1);
  ASSERT_EQ(LogOnA(owner).size(), 1u);  // client 1, our 1
  owner.Send("5", {});                  // client 2, our 2
  owner.Disconnect();

  Client intruder = NewClient(2);
  intruder.next_seq = owner.next_seq;  // 3, as expected
  intruder.Connect();
  intruder.Logon("trader-a", "wrong-password", {{141, "Y"}});
  std::vector<Wire> out = intruder.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");  // outside the session: tells no number
  EXPECT_EQ(out[0].Get(58), kBadCredentials);
  EXPECT_EQ(out[0].Get(34), "1");
  intruder.Disconnect();

  Client again = NewClient(3);
  again.next_seq = owner.next_seq;  // still 3: the refused Logon is not counted
  out = LogOnA(again);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "3");  // nor did its refusal take our 3
  EXPECT_FALSE(out[0].Has(141));
  ExpectNoSecretsLogged();
}

TEST_F(FixEngineTest, ResetSeqNumFlagOnAnAcceptedLogonResets) {
  Client owner = NewClient(1);
  ASSERT_EQ(LogOnA(owner).size(), 1u);
  owner.Send("5", {});
  owner.Disconnect();

  Client client = NewClient(2);
  client.Connect();
  client.Logon("trader-a", "secret-a", {{141, "Y"}});
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "A");
  EXPECT_EQ(out[0].Get(34), "1");
  EXPECT_EQ(out[0].Get(141), "Y");
}

TEST_F(FixEngineTest, GarbageWithoutAMessageIsClosed) {
  Client client = NewClient(1);
  client.Connect();
  const std::string chunk(8 * 1024, 'x');
  for (int i = 0; i < 9 && !client.Closed(); ++i) client.SendBytes(chunk);
  EXPECT_TRUE(client.Closed());
  EXPECT_EQ(client.Written(), "");
  EXPECT_TRUE(handler_.Logged("without a complete message"));
}

TEST_F(FixEngineTest, AnOverlongMessageIsClosed) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  client.SendBytes(std::string("8=FIX.4.4") + kSoh + "9=1000000" + kSoh +
                   "35=D" + kSoh);
  const std::string chunk(16 * 1024, 'y');
  for (int i = 0; i < 5 && !client.Closed(); ++i) client.SendBytes(chunk);
  EXPECT_TRUE(client.Closed());
  EXPECT_TRUE(handler_.messages.empty());
}

TEST_F(FixEngineTest, ConnectionWithoutLogonTimesOut) {
  Client client = NewClient(1);
  client.Connect(100.0);
  engine_->Tick(109.0);
  EXPECT_FALSE(client.Closed());
  engine_->Tick(110.0);
  EXPECT_TRUE(client.Closed());
  EXPECT_TRUE(handler_.Logged("no Logon within 10 s"));
}

TEST_F(FixEngineTest, LoggedOnConnectionDoesNotTimeOut) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  engine_->Tick(60.0);
  EXPECT_FALSE(client.Closed());
  EXPECT_TRUE(engine_->LoggedOn(0));
}

TEST_F(FixEngineTest, LogoutAllSendsLogoutAndCloses) {
  Client client = NewClient(1);
  ASSERT_EQ(LogOnA(client).size(), 1u);
  engine_->LogoutAll("exchange shutting down");
  const std::vector<Wire> out = client.Take();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type(), "5");
  EXPECT_EQ(out[0].Get(58), "exchange shutting down");
  EXPECT_TRUE(client.Closed());
  EXPECT_EQ(handler_.logouts, std::vector<int>{0});
  EXPECT_FALSE(engine_->LoggedOn(0));
  client.Disconnect();

  // Shutting down: later Logons are refused.
  Client late = NewClient(2);
  late.next_seq = client.next_seq;
  late.Connect();
  late.Logon("trader-a", "secret-a");
  EXPECT_TRUE(late.Closed());
  EXPECT_FALSE(engine_->LoggedOn(0));
}

TEST_F(FixEngineTest, CloseThatDisconnectsSynchronouslyIsSafe) {
  // A Handler whose Close() reports the disconnect at once.
  class EagerHandler : public RecordingHandler {
   public:
    void Close(uint64_t conn) override {
      RecordingHandler::Close(conn);
      if (engine != nullptr) engine->Disconnected(conn);
    }
    Engine* engine = nullptr;
  };
  EagerHandler handler;
  handler.credentials[0] = {"trader-a", "secret-a"};
  cfx::testing::TempDir dir;
  EngineOptions options = Options();
  options.store_dir = dir.Sub("fix");
  std::string error;
  std::unique_ptr<Engine> engine = Engine::Create(options, &handler, &error);
  ASSERT_NE(engine, nullptr) << error;
  handler.engine = engine.get();

  Client refused(engine.get(), &handler, 1, "TRADER_A");
  refused.Connect();
  refused.Logon("trader-a", "wrong-password");
  EXPECT_TRUE(refused.Closed());

  Client client(engine.get(), &handler, 2, "TRADER_A");
  client.Connect();
  client.Logon("trader-a", "secret-a");
  EXPECT_TRUE(engine->LoggedOn(0));
  client.Send("5", {});
  EXPECT_TRUE(client.Closed());
  EXPECT_FALSE(engine->LoggedOn(0));
  EXPECT_EQ(handler.logouts, std::vector<int>{0});
}

}  // namespace
}  // namespace cfx::gateway::fix
