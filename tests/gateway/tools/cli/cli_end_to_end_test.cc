// End to end: the real cfx binary (gateway/tools/cli/) as a child process
// against an in-process ExchangeServer (tests/gateway/server/server_fixture.h)
// on the simulated clock and ephemeral loopback ports. Each test runs cfx with
// its own argv and environment, captures stdout and stderr through pipes
// (read with poll() and a deadline, never a sleep) and asserts the exact
// fields and exit codes docs/cli.md promises.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/crypto/ed25519.h"
#include "tests/gateway/server/server_fixture.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

extern char** environ;

namespace cfx::gateway::cli {
namespace {

using server_test::kWait;
using server_test::TestServer;
using SteadyClock = std::chrono::steady_clock;

// ---------------------------------------------------------------- JSON

// Just enough JSON (RFC 8259) to check that a line parses and to read its
// fields. Numbers keep their literal text, so "5.80" (a string) and 5.8 (a
// number) stay distinguishable and 64-bit ids stay exact.
struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  std::string text;  // a number's literal, a string's value, true/false
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json* Find(std::string_view key) const {
    for (const auto& [k, v] : members) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  // The string value of `key`, or a marker that fails any comparison with
  // a real value.
  std::string Str(std::string_view key) const {
    const Json* v = Find(key);
    return v != nullptr && v->kind == Kind::kString
               ? v->text
               : "<no string " + std::string(key) + ">";
  }
  // The number literal of `key`, or a marker.
  std::string Num(std::string_view key) const {
    const Json* v = Find(key);
    return v != nullptr && v->kind == Kind::kNumber
               ? v->text
               : "<no number " + std::string(key) + ">";
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view in) : in_(in) {}

  // The one value `in` holds, with nothing but whitespace around it.
  std::optional<Json> ParseDocument() {
    Json v;
    if (!Value(&v)) return std::nullopt;
    Space();
    if (pos_ != in_.size()) return std::nullopt;
    return v;
  }

 private:
  void Space() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' ||
                                 in_[pos_] == '\n' || in_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    Space();
    if (pos_ < in_.size() && in_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Literal(std::string_view word) {
    if (in_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool Digits() {
    const std::size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }
  bool Number(Json* v) {
    const std::size_t start = pos_;
    if (pos_ < in_.size() && in_[pos_] == '-') ++pos_;
    if (pos_ < in_.size() && in_[pos_] == '0') {
      ++pos_;
    } else if (!Digits()) {
      return false;
    }
    if (pos_ < in_.size() && in_[pos_] == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) ++pos_;
      if (!Digits()) return false;
    }
    v->kind = Json::Kind::kNumber;
    v->text = std::string(in_.substr(start, pos_ - start));
    return true;
  }
  // After the opening quote. \uXXXX escapes are kept as written.
  bool String(std::string* out) {
    while (pos_ < in_.size()) {
      const char c = in_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= in_.size()) return false;
      const char e = in_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u':
          if (pos_ + 4 > in_.size()) return false;
          for (int i = 0; i < 4; ++i) {
            if (std::isxdigit(static_cast<unsigned char>(in_[pos_ + i])) == 0) {
              return false;
            }
          }
          out->append("\\u").append(in_.substr(pos_, 4));
          pos_ += 4;
          break;
        default:
          return false;
      }
    }
    return false;
  }
  bool Value(Json* v) {
    if (++depth_ > 64) return false;
    Space();
    if (pos_ >= in_.size()) return false;
    bool ok = false;
    const char c = in_[pos_];
    if (c == '{') {
      ++pos_;
      v->kind = Json::Kind::kObject;
      ok = Eat('}');
      while (!ok) {
        std::string key;
        Json member;
        if (!Eat('"') || !String(&key) || !Eat(':') || !Value(&member)) break;
        v->members.emplace_back(std::move(key), std::move(member));
        if (Eat('}')) ok = true;
        if (!ok && !Eat(',')) break;
      }
    } else if (c == '[') {
      ++pos_;
      v->kind = Json::Kind::kArray;
      ok = Eat(']');
      while (!ok) {
        Json item;
        if (!Value(&item)) break;
        v->items.push_back(std::move(item));
        if (Eat(']')) ok = true;
        if (!ok && !Eat(',')) break;
      }
    } else if (c == '"') {
      ++pos_;
      v->kind = Json::Kind::kString;
      ok = String(&v->text);
    } else if (c == 't' || c == 'f') {
      v->kind = Json::Kind::kBool;
      v->text = c == 't' ? "true" : "false";
      ok = Literal(v->text);
    } else if (c == 'n') {
      v->kind = Json::Kind::kNull;
      ok = Literal("null");
    } else {
      ok = Number(v);
    }
    --depth_;
    return ok;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

// ---------------------------------------------------------------- text

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

// Every line of `text` parsed as one JSON object; a line that does not
// parse, or is not an object, fails the test.
std::vector<Json> JsonLines(const std::string& text) {
  std::vector<Json> out;
  for (const std::string& line : Lines(text)) {
    std::optional<Json> j = JsonParser(line).ParseDocument();
    EXPECT_TRUE(j.has_value() && j->kind == Json::Kind::kObject)
        << "not a JSON object: " << line;
    if (j.has_value()) out.push_back(std::move(*j));
  }
  return out;
}

// ---------------------------------------------------------------- process

struct ToolResult {
  int exit_code = -1;  // -1: killed at the deadline, or by a signal
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const ToolResult& r) {
  return os << "exit " << r.exit_code << "\n--- stdout\n"
            << r.out << "--- stderr\n"
            << r.err;
}

// cfx as a child process: argv as given (no shell), stdin /dev/null, this
// process's environment without CFX_* plus the given variables, stdout and
// stderr on two pipes.
class CfxProcess {
 public:
  ~CfxProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    for (int& fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  CfxProcess(const CfxProcess&) = delete;
  CfxProcess& operator=(const CfxProcess&) = delete;

  static std::unique_ptr<CfxProcess> Start(
      const std::vector<std::string>& args,
      const std::vector<std::string>& env) {
    // Everything the child needs is built before fork(): the server's
    // threads run in this process, so the child may only make
    // async-signal-safe calls until it execs.
    std::vector<std::string> argv_s = {CFX_TOOL};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, "CFX_", 4) != 0) env_s.emplace_back(*e);
    }
    env_s.insert(env_s.end(), env.begin(), env.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);

    int out[2];
    int err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return nullptr;
    if (::pipe2(err, O_CLOEXEC) != 0) {
      ::close(out[0]);
      ::close(out[1]);
      return nullptr;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, STDIN_FILENO);
      ::close_range(3, ~0u, 0);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    if (pid < 0) {
      ::close(out[0]);
      ::close(err[0]);
      return nullptr;
    }
    return std::unique_ptr<CfxProcess>(new CfxProcess(pid, out[0], err[0]));
  }

  // Reads both pipes until `done(stdout so far)`, both pipes are at EOF,
  // or `deadline`. Returns whether `done` became true.
  bool ReadUntil(const std::function<bool(const std::string&)>& done,
                 SteadyClock::time_point deadline) {
    while (!done(result_.out)) {
      if (fds_[0] < 0 && fds_[1] < 0) return false;
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          deadline - SteadyClock::now());
      if (left.count() <= 0) return false;
      pollfd p[2] = {{fds_[0], POLLIN, 0}, {fds_[1], POLLIN, 0}};
      const int ready = ::poll(p, 2, static_cast<int>(left.count()));
      if (ready < 0 && errno != EINTR) return false;
      for (int i = 0; i < 2; ++i) {
        if (fds_[i] < 0 || (p[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
          continue;
        }
        char buf[4096];
        const ssize_t n = ::read(fds_[i], buf, sizeof buf);
        if (n > 0) {
          (i == 0 ? result_.out : result_.err)
              .append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          ::close(fds_[i]);
          fds_[i] = -1;
        }
      }
    }
    return true;
  }

  // Reads both pipes to EOF and reaps the child. A child still running at
  // `deadline` is killed (exit_code -1).
  ToolResult Finish(SteadyClock::time_point deadline) {
    ReadUntil([](const std::string&) { return false; }, deadline);
    int status = 0;
    if (fds_[0] >= 0 || fds_[1] >= 0) ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    result_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result_;
  }

  const std::string& out() const { return result_.out; }
  const std::string& err() const { return result_.err; }

 private:
  CfxProcess(pid_t pid, int out_fd, int err_fd)
      : pid_(pid), fds_{out_fd, err_fd} {}

  pid_t pid_;
  int fds_[2];
  ToolResult result_;
};

// ---------------------------------------------------------------- fixture

// What `cfx order new` printed for one order: its one text row, split.
struct OrderRow {
  std::string order_id;
  std::string client_order_id;
};

class CliEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status s = server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  uint16_t port() const { return server_.port(); }

  // The connection flags for `user` (a demo user, signing with its
  // published key) on the test server.
  std::vector<std::string> As(const std::string& user) const {
    return {"--host", "127.0.0.1", "--port", std::to_string(port()),
            "--api-key", user};
  }

  // Runs `cfx <args...>` to its end (bounded by kWait).
  static ToolResult Run(const std::vector<std::string>& args,
                        const std::vector<std::string>& env = {}) {
    std::unique_ptr<CfxProcess> p = CfxProcess::Start(args, env);
    if (p == nullptr) {
      ADD_FAILURE() << "cannot start " << CFX_TOOL;
      return {};
    }
    return p->Finish(SteadyClock::now() + kWait);
  }

  // Runs `cfx <args...>` as `user`.
  ToolResult RunAs(const std::string& user,
                   const std::vector<std::string>& args) const {
    std::vector<std::string> all = As(user);
    all.insert(all.end(), args.begin(), args.end());
    return Run(all);
  }

  // `cfx order new` as `user`, limit `qty` @ `price` in XB2SZ6.
  ToolResult Order(const std::string& user, const std::string& side,
                   const std::string& qty, const std::string& price,
                   const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"order",   "new", "--symbol", "XB2SZ6",
                                     "--side",  side,  "--qty",    qty,
                                     "--price", price};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunAs(user, args);
  }

  // Places a resting buy as trader-a and checks the exact NEW row; the
  // order's ids go to *row.
  void RestingBuy(const std::string& qty, const std::string& price,
                  OrderRow* row) const {
    const ToolResult r = Order("trader-a", "buy", qty, price);
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.err, "");
    const std::vector<std::string> lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 2u) << r;
    EXPECT_EQ(Fields(lines[0]),
              (std::vector<std::string>{
                  "EXEC", "STATUS", "ORDER_ID", "CLIENT_ORDER_ID", "SYMBOL",
                  "SIDE", "QTY", "PRICE", "LEAVES", "FILLED", "DETAIL"}));
    const std::vector<std::string> f = Fields(lines[1]);
    ASSERT_EQ(f.size(), 10u) << lines[1];
    EXPECT_EQ(f[0], "NEW");
    EXPECT_EQ(f[1], "NEW");
    EXPECT_NE(f[2], "0");
    EXPECT_EQ(f[4], "XB2SZ6");
    EXPECT_EQ(f[5], "BUY");
    EXPECT_EQ(f[6], qty);
    EXPECT_EQ(f[7], price);
    EXPECT_EQ(f[8], qty);  // leaves
    EXPECT_EQ(f[9], "0");  // filled
    *row = OrderRow{f[2], f[3]};
  }

  // The scenario of docs/cli.md: trader-a's buy 5 @ 5.80 rests, then
  // trader-c's sell 2 @ 5.80 trades against it. Checks trader-c's output
  // (NEW, then TRADE 2 @ 5.80 FILLED) and returns both orders' rows and
  // the trade id.
  void RestThenCross(OrderRow* buy, OrderRow* sell, std::string* trade_id) {
    ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", buy));
    // Filled in one command, so cfx exits at the TRADE report; the long
    // --wait only keeps a slow machine from ending the wait between the NEW
    // and the TRADE.
    const ToolResult r =
        Order("trader-c", "sell", "2", "5.80", {"--wait", "5s"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.err, "");
    const std::vector<std::string> lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 3u) << r;
    const std::vector<std::string> ack = Fields(lines[1]);
    ASSERT_EQ(ack.size(), 10u) << lines[1];
    EXPECT_EQ(ack[0], "NEW");
    EXPECT_EQ(ack[5], "SELL");
    EXPECT_NE(ack[2], buy->order_id);
    const std::vector<std::string> fill = Fields(lines[2]);
    ASSERT_EQ(fill.size(), 16u) << lines[2];
    const std::vector<std::string> expected = {
        "TRADE", "FILLED", ack[2], ack[3], "XB2SZ6", "SELL", "2",
        "5.80",  "0",      "2",    "2",    "@",      "5.80", "trade"};
    EXPECT_EQ(std::vector<std::string>(fill.begin(), fill.begin() + 14),
              expected)
        << lines[2];
    EXPECT_EQ(fill[15], "taker");
    *sell = OrderRow{ack[2], ack[3]};
    *trade_id = fill[14];
  }

  TestServer server_;
};

// The one stderr line of a failed command.
void ExpectOneErrorLine(const ToolResult& r, int exit_code,
                        const std::string& line) {
  EXPECT_EQ(r.exit_code, exit_code) << r;
  EXPECT_EQ(r.err, line + "\n") << r;
}

// ---------------------------------------------------------------- reference

TEST_F(CliEndToEndTest, InstrumentsListsTheFrontFutureWithACentTick) {
  const ToolResult r = RunAs("trader-a", {"instruments"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u) << r;
  EXPECT_EQ(
      Fields(lines[0]),
      (std::vector<std::string>{"SYMBOL", "KIND", "GRADE", "STATE", "TICK",
                                "REF_PRICE", "BAND_BPS", "MIN_QTY", "MAX_QTY",
                                "GPU_HOURS", "MATURITY", "LAST_TRADING_DAY"}));
  std::vector<std::string> row;
  for (const std::string& line : lines) {
    if (line.rfind("XB2SZ6 ", 0) == 0) row = Fields(line);
  }
  EXPECT_EQ(row, (std::vector<std::string>{
                     "XB2SZ6", "FUTURE", "B200-STD", "OPEN", "0.01", "5.80",
                     "1000", "1", "1000", "730", "2026-12", "2026-12-31"}))
      << r;

  const ToolResult j = RunAs("trader-a", {"instruments", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  EXPECT_EQ(objects.size(), lines.size() - 1);
  const Json* xb2sz6 = nullptr;
  for (const Json& o : objects) {
    EXPECT_EQ(o.Str("type"), "instrument");
    if (o.Str("symbol") == "XB2SZ6") xb2sz6 = &o;
  }
  ASSERT_NE(xb2sz6, nullptr) << j;
  EXPECT_EQ(xb2sz6->Str("tick"), "0.01");
  EXPECT_EQ(xb2sz6->Str("reference_price"), "5.80");
  EXPECT_EQ(xb2sz6->Str("grade"), "B200-STD");
  EXPECT_EQ(xb2sz6->Num("contract_gpu_hours"), "730");
}

TEST_F(CliEndToEndTest, GradesListsStandardAndPremiumWithCredentialsFromEnv) {
  const std::vector<std::string> env = {
      "CFX_HOST=127.0.0.1", "CFX_PORT=" + std::to_string(port()),
      "CFX_API_KEY=trader-a"};
  const ToolResult r = Run({"grades"}, env);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r;
  EXPECT_EQ(lines[0].rfind("GRADE ", 0), 0u) << lines[0];
  const std::vector<std::string> std_row = Fields(lines[1]);
  const std::vector<std::string> prm_row = Fields(lines[2]);
  ASSERT_GE(std_row.size(), 2u);
  ASSERT_GE(prm_row.size(), 2u);
  EXPECT_EQ(std_row.front(), "B200-STD");
  EXPECT_EQ(std_row.back(), "5.80");
  EXPECT_EQ(prm_row.front(), "B200-PRM");
  EXPECT_EQ(prm_row.back(), "6.40");

  const ToolResult j = Run({"grades", "--json"}, env);
  ASSERT_EQ(j.exit_code, 0) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 2u) << j;
  EXPECT_EQ(objects[0].Str("type"), "grade");
  EXPECT_EQ(objects[0].Str("name"), "B200-STD");
  EXPECT_EQ(objects[0].Str("initial_reference_price"), "5.80");
  EXPECT_EQ(objects[0].Num("min_output_tokens_per_s_per_gpu"), "200");
  EXPECT_EQ(objects[1].Str("name"), "B200-PRM");
  EXPECT_EQ(objects[1].Str("initial_reference_price"), "6.40");
  EXPECT_EQ(objects[1].Num("min_output_tokens_per_s_per_gpu"), "285");
}

// ---------------------------------------------------------------- orders

TEST_F(CliEndToEndTest, CrossingSellTradesTwoLotsAgainstTheRestingBuy) {
  OrderRow buy;
  OrderRow sell;
  std::string trade_id;
  ASSERT_NO_FATAL_FAILURE(RestThenCross(&buy, &sell, &trade_id));
  EXPECT_NE(trade_id, "0");
}

TEST_F(CliEndToEndTest, OrderStatusShowsThePartialFillToTheOwner) {
  OrderRow buy;
  OrderRow sell;
  std::string trade_id;
  ASSERT_NO_FATAL_FAILURE(RestThenCross(&buy, &sell, &trade_id));

  const ToolResult r = RunAs("trader-a", {"order", "status", buy.order_id});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  EXPECT_EQ(Fields(lines[1]),
            (std::vector<std::string>{"ORDER_STATUS", "PARTIALLY_FILLED",
                                      buy.order_id, buy.client_order_id,
                                      "XB2SZ6", "BUY", "5", "5.80", "3", "2"}))
      << lines[1];

  const ToolResult j =
      RunAs("trader-a", {"order", "status", buy.order_id, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 1u) << j;
  const Json& o = objects[0];
  EXPECT_EQ(o.Str("type"), "execution_report");
  EXPECT_EQ(o.Str("exec_type"), "ORDER_STATUS");
  EXPECT_EQ(o.Str("order_status"), "PARTIALLY_FILLED");
  EXPECT_EQ(o.Num("order_id"), buy.order_id);
  EXPECT_EQ(o.Num("client_order_id"), buy.client_order_id);
  EXPECT_EQ(o.Str("side"), "BUY");
  EXPECT_EQ(o.Str("price"), "5.80");
  EXPECT_EQ(o.Num("quantity"), "5");
  EXPECT_EQ(o.Num("leaves_quantity"), "3");
  EXPECT_EQ(o.Num("cum_quantity"), "2");
}

TEST_F(CliEndToEndTest, OrderStatusOfAnotherFirmsOrderIsUnknown) {
  OrderRow buy;
  OrderRow sell;
  std::string trade_id;
  ASSERT_NO_FATAL_FAILURE(RestThenCross(&buy, &sell, &trade_id));

  const ToolResult r = RunAs("trader-c", {"order", "status", buy.order_id});
  ExpectOneErrorLine(r, 1, "cfx: order " + buy.order_id + ": UNKNOWN_ORDER");
  EXPECT_EQ(r.out, "");

  // docs/cli.md: with --json the unknown order is also on stdout.
  const ToolResult j =
      RunAs("trader-c", {"order", "status", buy.order_id, "--json"});
  ExpectOneErrorLine(j, 1, "cfx: order " + buy.order_id + ": UNKNOWN_ORDER");
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 1u) << j;
  EXPECT_EQ(objects[0].Str("type"), "execution_report");
  EXPECT_EQ(objects[0].Str("order_status"), "UNKNOWN");
}

TEST_F(CliEndToEndTest, BookShowsTheRemainingBid) {
  OrderRow buy;
  OrderRow sell;
  std::string trade_id;
  ASSERT_NO_FATAL_FAILURE(RestThenCross(&buy, &sell, &trade_id));

  const ToolResult r = RunAs("trader-b", {"book", "XB2SZ6"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r;
  const std::vector<std::string> title = Fields(lines[0]);
  ASSERT_EQ(title.size(), 4u) << lines[0];
  EXPECT_EQ(title[0], "XB2SZ6");
  EXPECT_EQ(title[1], "OPEN");
  EXPECT_EQ(title[2], "seq");
  EXPECT_EQ(Fields(lines[1]),
            (std::vector<std::string>{"ORDERS", "BID_QTY", "BID", "|", "ASK",
                                      "ASK_QTY", "ORDERS"}));
  EXPECT_EQ(Fields(lines[2]), (std::vector<std::string>{"1", "3", "5.80", "|"}))
      << lines[2];

  const ToolResult j = RunAs("trader-b", {"book", "XB2SZ6", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 1u) << j;
  const Json& book = objects[0];
  EXPECT_EQ(book.Str("type"), "book");
  EXPECT_EQ(book.Str("symbol"), "XB2SZ6");
  EXPECT_EQ(book.Str("state"), "OPEN");
  EXPECT_EQ(book.Num("seq"), title[3]);
  const Json* bids = book.Find("bids");
  const Json* asks = book.Find("asks");
  ASSERT_NE(bids, nullptr);
  ASSERT_NE(asks, nullptr);
  ASSERT_EQ(bids->items.size(), 1u) << j;
  EXPECT_EQ(bids->items[0].Str("price"), "5.80");
  EXPECT_EQ(bids->items[0].Num("quantity"), "3");
  EXPECT_EQ(bids->items[0].Num("orders"), "1");
  EXPECT_EQ(asks->kind, Json::Kind::kArray);
  EXPECT_TRUE(asks->items.empty()) << j;
}

TEST_F(CliEndToEndTest, TradesShowsTheTradeWithTheSellerAsAggressor) {
  OrderRow buy;
  OrderRow sell;
  std::string trade_id;
  ASSERT_NO_FATAL_FAILURE(RestThenCross(&buy, &sell, &trade_id));

  const ToolResult r = RunAs("trader-b", {"trades", "XB2SZ6"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  EXPECT_EQ(Fields(lines[0]),
            (std::vector<std::string>{"TIME", "SYMBOL", "TRADE_ID", "SIDE",
                                      "QTY", "PRICE", "SEQ"}));
  const std::vector<std::string> row = Fields(lines[1]);
  ASSERT_EQ(row.size(), 7u) << lines[1];
  // The simulated clock starts at the config's start and stands still.
  EXPECT_EQ(row[0], "2026-12-01T00:00:00.000000000Z");
  EXPECT_EQ(std::vector<std::string>(row.begin() + 1, row.begin() + 6),
            (std::vector<std::string>{"XB2SZ6", trade_id, "SELL", "2", "5.80"}))
      << lines[1];

  const ToolResult j = RunAs("trader-b", {"trades", "XB2SZ6", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 1u) << j;
  const Json& t = objects[0];
  EXPECT_EQ(t.Str("type"), "trade");
  EXPECT_EQ(t.Str("symbol"), "XB2SZ6");
  EXPECT_EQ(t.Num("trade_id"), trade_id);
  EXPECT_EQ(t.Str("price"), "5.80");
  EXPECT_EQ(t.Num("quantity"), "2");
  EXPECT_EQ(t.Str("aggressor_side"), "SELL");
  EXPECT_EQ(t.Str("time"), row[0]);
  EXPECT_EQ(t.Num("seq"), row[6]);
}

TEST_F(CliEndToEndTest, OrderNewJsonHasDecimalPriceStrings) {
  const ToolResult r = Order("trader-a", "buy", "5", "5.8",
                             {"--json", "--client-order-id", "42"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<Json> objects = JsonLines(r.out);
  ASSERT_EQ(objects.size(), 1u) << r;
  const Json& o = objects[0];
  EXPECT_EQ(o.Str("type"), "execution_report");
  EXPECT_EQ(o.Str("exec_type"), "NEW");
  EXPECT_EQ(o.Str("order_status"), "NEW");
  EXPECT_EQ(o.Num("client_order_id"), "42");
  EXPECT_EQ(o.Str("symbol"), "XB2SZ6");
  EXPECT_EQ(o.Str("side"), "BUY");
  EXPECT_EQ(o.Str("price"), "5.80");
  EXPECT_EQ(o.Num("quantity"), "5");
  EXPECT_EQ(o.Num("leaves_quantity"), "5");
  EXPECT_EQ(o.Num("cum_quantity"), "0");
  EXPECT_EQ(o.Str("transact_time"), "2026-12-01T00:00:00.000000000Z");
}

TEST_F(CliEndToEndTest, ReplaceChangesPriceThenQuantityKeepingTheOther) {
  OrderRow buy;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &buy));

  ToolResult r =
      RunAs("trader-a", {"order", "replace", buy.order_id, "--price", "5.79"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  std::vector<std::string> f = Fields(lines[1]);
  ASSERT_GE(f.size(), 10u) << lines[1];
  EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 10),
            (std::vector<std::string>{"REPLACED", "NEW", buy.order_id, f[3],
                                      "XB2SZ6", "BUY", "5", "5.79", "5", "0"}))
      << lines[1];

  r = RunAs("trader-a", {"order", "replace", buy.order_id, "--qty", "3"});
  ASSERT_EQ(r.exit_code, 0) << r;
  lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  f = Fields(lines[1]);
  ASSERT_GE(f.size(), 10u) << lines[1];
  EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 10),
            (std::vector<std::string>{"REPLACED", "NEW", buy.order_id, f[3],
                                      "XB2SZ6", "BUY", "3", "5.79", "3", "0"}))
      << lines[1];

  r = RunAs("trader-a", {"order", "status", buy.order_id});
  ASSERT_EQ(r.exit_code, 0) << r;
  lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  f = Fields(lines[1]);
  ASSERT_EQ(f.size(), 10u) << lines[1];
  EXPECT_EQ(f[1], "NEW");
  EXPECT_EQ(f[6], "3");
  EXPECT_EQ(f[7], "5.79");
}

TEST_F(CliEndToEndTest, ReplaceToTheSamePriceAndQuantityIsRejected) {
  OrderRow buy;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &buy));
  const ToolResult r = RunAs("trader-a", {"order", "replace", buy.order_id,
                                          "--price", "5.80", "--qty", "5"});
  ExpectOneErrorLine(r, 1, "cfx: replace rejected: REPLACE_NO_CHANGE");
  EXPECT_EQ(r.out, "");
}

TEST_F(CliEndToEndTest, CancelCancelsTheOrderAndASecondCancelIsRejected) {
  OrderRow buy;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &buy));

  ToolResult r = RunAs("trader-a", {"order", "cancel", buy.order_id});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  EXPECT_EQ(Fields(lines[1]),
            (std::vector<std::string>{"CANCELED", "CANCELED", buy.order_id,
                                      buy.client_order_id, "XB2SZ6", "BUY", "5",
                                      "5.80", "0", "0", "USER_REQUEST"}))
      << lines[1];

  r = RunAs("trader-a", {"order", "cancel", buy.order_id});
  ExpectOneErrorLine(r, 1, "cfx: cancel rejected: UNKNOWN_ORDER");
  EXPECT_EQ(r.out, "");

  r = RunAs("trader-a", {"order", "status", buy.order_id});
  ASSERT_EQ(r.exit_code, 0) << r;
  ASSERT_EQ(Lines(r.out).size(), 2u) << r;
  EXPECT_EQ(Fields(Lines(r.out)[1])[1], "CANCELED");
}

TEST_F(CliEndToEndTest, MassCancelCancelsOnlyTheAccountsRestingOrders) {
  OrderRow a1;
  OrderRow a2;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &a1));
  ASSERT_NO_FATAL_FAILURE(RestingBuy("4", "5.79", &a2));
  ToolResult r = Order("trader-c", "sell", "7", "5.90");
  ASSERT_EQ(r.exit_code, 0) << r;

  r = RunAs("trader-a", {"order", "mass-cancel", "--symbol", "XB2SZ6"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "mass cancel (XB2SZ6): 2 orders cancelled\n");

  r = RunAs("trader-a", {"order", "mass-cancel", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<Json> objects = JsonLines(r.out);
  ASSERT_EQ(objects.size(), 1u) << r;
  EXPECT_EQ(objects[0].Str("type"), "mass_cancel_report");
  EXPECT_EQ(objects[0].Str("symbol"), "");
  EXPECT_EQ(objects[0].Num("cancelled"), "0");

  // trader-c's ask is all that rests.
  r = RunAs("trader-b", {"book", "XB2SZ6"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r;
  EXPECT_EQ(Fields(lines[2]), (std::vector<std::string>{"|", "5.90", "7", "1"}))
      << lines[2];
}

TEST_F(CliEndToEndTest, PriceOffTheTickIsRejectedByTheExchange) {
  ToolResult r = Order("trader-a", "buy", "5", "5.805");
  ExpectOneErrorLine(r, 1, "cfx: order rejected: PRICE_NOT_ON_TICK");
  EXPECT_EQ(r.out, "");

  // Sent as typed, not rounded: the reject shows the price off the grid.
  r = Order("trader-a", "buy", "5", "5.805", {"--json"});
  ExpectOneErrorLine(r, 1, "cfx: order rejected: PRICE_NOT_ON_TICK");
  const std::vector<Json> objects = JsonLines(r.out);
  ASSERT_EQ(objects.size(), 1u) << r;
  EXPECT_EQ(objects[0].Str("exec_type"), "REJECTED");
  EXPECT_EQ(objects[0].Str("order_status"), "REJECTED");
  EXPECT_EQ(objects[0].Str("reject_reason"), "PRICE_NOT_ON_TICK");
  EXPECT_EQ(objects[0].Str("price"), "5.8050");
}

// ---------------------------------------------------------------- failures

TEST_F(CliEndToEndTest, WrongSecretFailsTheLogonWithExitThree) {
  const ToolResult r =
      Run({"--host", "127.0.0.1", "--port", std::to_string(port()), "--api-key",
           "trader-a", "--secret", "not-the-secret", "instruments"});
  ExpectOneErrorLine(
      r, 3,
      "cfx: logon rejected: AUTHENTICATION_FAILED: authentication failed");
  EXPECT_EQ(r.out, "");
}

// A server of its own: trader-a's API key is replaced by one that
// `cfx keygen` makes in the test.
class CliKeygenEndToEndTest : public CliEndToEndTest {
 protected:
  void SetUp() override {}
};

TEST_F(CliKeygenEndToEndTest, KeygenWritesAKeyPairThatLogsOnWithKey) {
  cfx::testing::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty()) << "mkdtemp failed";
  const std::string prefix = tmp.Sub("desk-1");
  const ToolResult made = Run({"keygen", "--out", prefix});
  ASSERT_EQ(made.exit_code, 0) << made;
  EXPECT_NE(made.out.find("api_keys { id: \"desk-1\" kind: KIND_ED25519 "
                          "public_key: \""),
            std::string::npos)
      << made;
  struct stat st {};
  ASSERT_EQ(::stat((prefix + ".key").c_str(), &st), 0) << std::strerror(errno);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<std::string> pub = crypto::ReadPublicKeyFile(prefix + ".pub");
  ASSERT_TRUE(pub.has_value()) << pub.error().ToString();

  ServerConfig config = server_test::DemoConfig();
  for (UserConfig& u : config.users) {
    if (u.name == "trader-a") u.api_keys = {ApiKey::Ed25519("desk-1", pub.value())};
  }
  config.RebuildIndex();
  TestServer server(config);
  const Status started = server.Start();
  ASSERT_TRUE(started.ok()) << started.ToString();
  const std::vector<std::string> conn = {
      "--host", "127.0.0.1", "--port", std::to_string(server.port()),
      "--api-key", "desk-1"};

  std::vector<std::string> with_key = conn;
  with_key.insert(with_key.end(), {"--key", prefix + ".key", "instruments"});
  const ToolResult ok = Run(with_key);
  EXPECT_EQ(ok.exit_code, 0) << ok;
  EXPECT_EQ(ok.err, "");

  // The key file from the environment works as --key does.
  std::vector<std::string> from_env = conn;
  from_env.push_back("instruments");
  const ToolResult env =
      Run(from_env, {"CFX_API_KEY_FILE=" + prefix + ".key"});
  EXPECT_EQ(env.exit_code, 0) << env;

  // A key pair of another keygen run signs for desk-1: refused.
  std::vector<std::string> wrong = conn;
  const std::string other = tmp.Sub("other");
  ASSERT_EQ(Run({"keygen", "--out", other}).exit_code, 0);
  wrong.insert(wrong.end(), {"--key", other + ".key", "instruments"});
  ExpectOneErrorLine(
      Run(wrong), 3,
      "cfx: logon rejected: AUTHENTICATION_FAILED: authentication failed");
}

// The key rotation docs/cli.md shows ("cfx admin key"): a new key pair, added
// by trader-a itself, revokes the old key; the old key no longer logs on,
// and another trader cannot touch trader-a's keys.
TEST_F(CliEndToEndTest, ATraderRotatesItsOwnKeyWithAdminKey) {
  cfx::testing::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty()) << "mkdtemp failed";
  const std::string prefix = tmp.Sub("trader-a-2");
  ASSERT_EQ(Run({"keygen", "--out", prefix}).exit_code, 0);
  const ToolResult added = RunAs(
      "trader-a", {"admin", "key", "add", "--user", "trader-a", "--key-id",
                   "trader-a-2", "--public-key-file", prefix + ".pub"});
  EXPECT_EQ(added.exit_code, 0) << added;
  EXPECT_EQ(
      added.out.rfind("added API key trader-a-2 of user trader-a, seq ", 0), 0u)
      << added;

  std::vector<std::string> with_new = {
      "--host",    "127.0.0.1",  "--port", std::to_string(port()),
      "--api-key", "trader-a-2", "--key",  prefix + ".key"};
  std::vector<std::string> revoke = with_new;
  revoke.insert(revoke.end(), {"admin", "key", "revoke", "--user", "trader-a",
                               "--key-id", "trader-a"});
  const ToolResult revoked = Run(revoke);
  EXPECT_EQ(revoked.exit_code, 0) << revoked;
  EXPECT_EQ(
      revoked.out.rfind("revoked API key trader-a of user trader-a, seq ", 0),
      0u)
      << revoked;
  std::vector<std::string> list = with_new;
  list.insert(list.end(), {"admin", "key", "list"});
  const ToolResult listed = Run(list);
  EXPECT_EQ(listed.exit_code, 0) << listed;
  const std::vector<std::string> rows = Lines(listed.out);
  ASSERT_EQ(rows.size(), 4u) << listed;
  EXPECT_EQ(rows[0], "API keys of user trader-a:");
  EXPECT_EQ(rows[2].rfind("trader-a ", 0), 0u) << listed;
  EXPECT_NE(rows[2].find(" revoked "), std::string::npos) << listed;
  EXPECT_EQ(rows[3].rfind("trader-a-2 ", 0), 0u) << listed;
  EXPECT_NE(rows[3].find(" active "), std::string::npos) << listed;

  ExpectOneErrorLine(
      RunAs("trader-a", {"instruments"}), 3,
      "cfx: logon rejected: AUTHENTICATION_FAILED: authentication failed");
  ExpectOneErrorLine(
      RunAs("trader-b", {"admin", "key", "revoke", "--user", "trader-a",
                         "--key-id", "trader-a-2"}),
      1, "cfx: key revoke rejected: UNKNOWN_USER: no user trader-a");
}

TEST_F(CliEndToEndTest, NoServerOnThePortExitsThree) {
  // A loopback port bound but not listening refuses connections, and stays
  // taken for the whole test.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string closed_port = std::to_string(ntohs(addr.sin_port));

  const ToolResult r =
      Run({"--host", "127.0.0.1", "--port", closed_port, "--api-key",
           "trader-a", "instruments"});
  ::close(fd);
  EXPECT_EQ(r.exit_code, 3) << r;
  ASSERT_EQ(Lines(r.err).size(), 1u) << r;
  EXPECT_EQ(r.err.rfind("cfx: ", 0), 0u) << r;
  EXPECT_EQ(r.out, "");
}

// docs/cli.md: a request answered by a SessionReject exits 1, and
// docs/protocol.md names a clearing member sending an order as
// NOT_AUTHORIZED.
TEST_F(CliEndToEndTest, ClearingMemberOrderIsRefusedWithExitOne) {
  const ToolResult r = Order("clear-1", "buy", "5", "5.80");
  ExpectOneErrorLine(
      r, 1,
      "cfx: order rejected: NOT_AUTHORIZED: this role may not enter orders");
  EXPECT_EQ(r.out, "");

  const ToolResult j = Order("clear-1", "buy", "5", "5.80", {"--json"});
  EXPECT_EQ(j.exit_code, 1) << j;
  const std::vector<Json> objects = JsonLines(j.out);
  ASSERT_EQ(objects.size(), 1u) << j;
  EXPECT_EQ(objects[0].Str("type"), "session_reject");
  EXPECT_EQ(objects[0].Str("reason"), "NOT_AUTHORIZED");
  EXPECT_EQ(objects[0].Str("message_type"), "new_order");
}

// ---------------------------------------------------------------- admin

TEST_F(CliEndToEndTest, AdminClockAdvanceMovesTheExchangeTimeBySixHours) {
  ToolResult r = RunAs("admin", {"admin", "clock", "show", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<Json> before = JsonLines(r.out);
  ASSERT_EQ(before.size(), 1u) << r;
  EXPECT_EQ(before[0].Str("type"), "clock");
  EXPECT_EQ(before[0].Str("now"), "2026-12-01T00:00:00.000000000Z");
  const Json* simulated = before[0].Find("simulated");
  ASSERT_NE(simulated, nullptr);
  EXPECT_EQ(simulated->text, "true");

  r = RunAs("admin", {"admin", "clock", "advance", "6h"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "2026-12-01T06:00:00.000000000Z  simulated\n");

  r = RunAs("admin", {"admin", "clock", "show", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<Json> after = JsonLines(r.out);
  ASSERT_EQ(after.size(), 1u) << r;
  const int64_t moved =
      std::stoll(after[0].Num("now_ns")) - std::stoll(before[0].Num("now_ns"));
  EXPECT_EQ(moved, int64_t{6} * 3600 * 1'000'000'000);
}

TEST_F(CliEndToEndTest, ClockAdvanceByATraderIsRefused) {
  ToolResult r = RunAs("trader-a", {"admin", "clock", "advance", "6h"});
  ExpectOneErrorLine(r, 1,
                     "cfx: clock request rejected: NOT_AUTHORIZED: only the "
                     "admin may use the clock");
  EXPECT_EQ(r.out, "");

  r = RunAs("trader-a", {"admin", "clock", "show"});
  ExpectOneErrorLine(r, 1,
                     "cfx: clock request rejected: NOT_AUTHORIZED: only the "
                     "admin may use the clock");

  r = RunAs("admin", {"admin", "clock"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out, "2026-12-01T00:00:00.000000000Z  simulated\n");
}

// ---------------------------------------------------------------- kill

// "killed account FIRM-A: 1 resting order cancelled, seq " + a number.
bool HasSeqSuffix(const std::string& out, const std::string& prefix) {
  if (out.rfind(prefix, 0) != 0 || out.size() < prefix.size() + 2 ||
      out.back() != '\n') {
    return false;
  }
  for (std::size_t i = prefix.size(); i + 1 < out.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(out[i]))) return false;
  }
  return true;
}

TEST_F(CliEndToEndTest, AdminKillsAFirmAndItsClearingMemberReinstatesIt) {
  OrderRow buy;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &buy));
  ToolResult r = RunAs("admin", {"admin", "kill", "FIRM-A", "--reason",
                                 "runaway algo"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(HasSeqSuffix(
      r.out, "killed account FIRM-A: 1 resting order cancelled, seq "))
      << r;

  r = Order("trader-a", "buy", "1", "5.80");
  ExpectOneErrorLine(r, 1, "cfx: order rejected: ACCOUNT_KILLED");

  // CM-2 does not clear FIRM-A: the account does not exist for it.
  r = RunAs("clear-2", {"risk", "reinstate", "FIRM-A"});
  ExpectOneErrorLine(r, 1,
                     "cfx: reinstate rejected: UNKNOWN_ACCOUNT: no account "
                     "\"FIRM-A\"");
  r = RunAs("clear-1", {"risk", "reinstate", "FIRM-A", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::vector<Json> acks = JsonLines(r.out);
  ASSERT_EQ(acks.size(), 1u) << r;
  EXPECT_EQ(acks[0].Str("type"), "kill_switch");
  EXPECT_EQ(acks[0].Str("account"), "FIRM-A");
  EXPECT_EQ(acks[0].Str("action"), "REINSTATE");

  r = Order("trader-a", "buy", "1", "5.70");
  EXPECT_EQ(r.exit_code, 0) << r;
}

TEST_F(CliEndToEndTest, KillArgumentErrorsAndRefusals) {
  ToolResult r = RunAs("admin", {"admin", "kill", "FIRM-Z"});
  ExpectOneErrorLine(r, 1,
                     "cfx: kill rejected: UNKNOWN_FIRM: no firm \"FIRM-Z\"");
  r = RunAs("admin", {"admin", "kill"});
  ExpectOneErrorLine(r, 2, "cfx: name a FIRM or --account ACCOUNT, not both");
  r = RunAs("admin",
            {"admin", "kill", "--account", "FIRM-B", "--reason", "tab\there"});
  ExpectOneErrorLine(r, 1,
                     "cfx: kill rejected: INVALID_REASON_TEXT: reason: at "
                     "most 200 bytes of printable ASCII");
  r = RunAs("clear-1", {"risk", "kill", "FIRM-B"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(HasSeqSuffix(
      r.out, "killed account FIRM-B: 0 resting orders cancelled, seq "))
      << r;
}

// ---------------------------------------------------------------- watch

TEST_F(CliEndToEndTest, WatchExitsAfterOneUpdateWhenAnotherClientChangesBook) {
  std::vector<std::string> args = As("trader-b");
  for (const char* a : {"watch", "XB2SZ6", "--updates", "1"}) {
    args.emplace_back(a);
  }
  std::unique_ptr<CfxProcess> watch = CfxProcess::Start(args, {});
  ASSERT_NE(watch, nullptr);
  const SteadyClock::time_point deadline = SteadyClock::now() + kWait;
  // The first drawing of the (empty) book.
  ASSERT_TRUE(watch->ReadUntil(
      [](const std::string& out) {
        return out.find("updates: 0 of 1") != std::string::npos;
      },
      deadline))
      << "stdout:\n"
      << watch->out() << "stderr:\n"
      << watch->err();
  EXPECT_EQ(watch->out().rfind("\x1b[H\x1b[2J", 0), 0u);
  EXPECT_NE(watch->out().find("(empty book)"), std::string::npos)
      << watch->out();

  OrderRow buy;
  ASSERT_NO_FATAL_FAILURE(RestingBuy("5", "5.80", &buy));

  const ToolResult r = watch->Finish(deadline);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "");
  // The last drawing: the new bid, and the count reached.
  const std::size_t last = r.out.rfind("\x1b[H\x1b[2J");
  ASSERT_NE(last, std::string::npos);
  const std::vector<std::string> lines = Lines(r.out.substr(last + 7));
  ASSERT_EQ(lines.size(), 5u) << r;
  EXPECT_EQ(Fields(lines[0])[0], "XB2SZ6");
  EXPECT_EQ(Fields(lines[2]), (std::vector<std::string>{"1", "5", "5.80", "|"}))
      << lines[2];
  EXPECT_EQ(lines[3], "");
  EXPECT_EQ(lines[4], "updates: 1 of 1  (Ctrl-C to quit)");
}

}  // namespace
}  // namespace cfx::gateway::cli
