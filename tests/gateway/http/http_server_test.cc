#include "gateway/http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <string>
#include <thread>

#include "gateway/asio.h"
#include "tests/gateway/http/http_test_config.h"
#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Reply {
  unsigned status = 0;
  std::string content_type;
  std::string content_length;
  std::string allow;
  std::string connection;
  std::string body;
  bool ok = false;  // a response was read
};

// A blocking client on its own io_context; the server runs on a test
// thread.
class Client {
 public:
  explicit Client(uint16_t port) : socket_(io_) {
    beast::error_code ec;
    socket_.connect(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), port),
                    ec);
    connected_ = !ec;
  }

  bool connected() const { return connected_; }

  bool WriteRaw(std::string_view bytes) {
    beast::error_code ec;
    asio::write(socket_, asio::buffer(bytes.data(), bytes.size()), ec);
    return !ec;
  }

  bool Send(http::verb verb, std::string_view target, bool keep_alive = true) {
    http::request<http::empty_body> req{
        verb, beast::string_view(target.data(), target.size()), 11};
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(keep_alive);
    beast::error_code ec;
    http::write(socket_, req, ec);
    return !ec;
  }

  Reply Read(bool head = false) {
    Reply r;
    http::response_parser<http::string_body> parser;
    parser.body_limit(16 * 1024 * 1024);
    if (head) parser.skip(true);
    beast::error_code ec;
    http::read(socket_, buffer_, parser, ec);
    if (ec) return r;
    const auto& res = parser.get();
    r.ok = true;
    r.status = res.result_int();
    r.content_type = std::string(res[http::field::content_type]);
    r.content_length = std::string(res[http::field::content_length]);
    r.allow = std::string(res[http::field::allow]);
    r.connection = std::string(res[http::field::connection]);
    r.body = res.body();
    return r;
  }

  Reply Request(http::verb verb, std::string_view target) {
    if (!Send(verb, target)) return {};
    return Read(verb == http::verb::head);
  }

  // True when the server has closed the connection: the next read ends
  // (EOF or reset) without a byte.
  bool ClosedByServer() {
    char c;
    beast::error_code ec;
    const std::size_t n = socket_.read_some(asio::buffer(&c, 1), ec);
    return n == 0 && ec;
  }

  // Everything the server sends until it closes the connection.
  std::string ReadUntilClose() {
    std::string out;
    char buf[4096];
    for (;;) {
      beast::error_code ec;
      const std::size_t n = socket_.read_some(asio::buffer(buf), ec);
      out.append(buf, n);
      if (ec) return out;
    }
  }

 private:
  asio::io_context io_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  bool connected_ = false;
};

class HttpServerTest : public ::testing::Test {
 protected:
  HttpServerTest()
      : config_(testing::HttpTestConfig()),
        instruments_(config_),
        md_(config_) {
    testing::FeedSampleEvents(md_);
  }

  ~HttpServerTest() override { StopServer(); }

  void StartServer(const HttpServerOptions& options = {}) {
    server_ = std::make_unique<HttpServer>(
        io_, config_, instruments_, md_, metrics_,
        [this] {
          return healthy_.load()
                     ? HealthInfo{true, "ok", 6, 6, testing::kT0}
                     : HealthInfo{false, "journal stalled", 5, 6, testing::kT0};
        },
        options);
    const Status status = server_->Listen("127.0.0.1", 0);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_NE(server_->port(), 0);
    thread_ = std::thread([this] { io_.run(); });
  }

  // Stops the server on its own thread; io_.run() then runs out of work,
  // which also proves Stop() left nothing pending.
  void StopServer() {
    if (!thread_.joinable()) return;
    asio::post(io_, [this] { server_->Stop(); });
    thread_.join();
    server_.reset();
  }

  Reply Get(std::string_view target) {
    Client c(server_->port());
    return c.Request(http::verb::get, target);
  }

  // A request on a fresh connection still gets an answer.
  void ExpectServerAnswers() {
    const Reply r = Get("/api/v1/instruments");
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.status, 200u);
  }

  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  Metrics metrics_;
  std::atomic<bool> healthy_{true};
  asio::io_context io_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(HttpServerTest, Instruments) {
  StartServer();
  const Reply r = Get("/api/v1/instruments");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, testing::kInstrumentsJson);
}

TEST_F(HttpServerTest, BookAndTrades) {
  StartServer();
  Reply r = Get("/api/v1/book/XB2SZ6");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, testing::kBookJson);
  r = Get("/api/v1/trades/XB2SZ6?limit=100");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, testing::kTradesJson);
}

TEST_F(HttpServerTest, UnknownSymbolAndPathAre404) {
  StartServer();
  Reply r = Get("/api/v1/book/NOPE");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"error":"unknown symbol \"NOPE\""})");
  r = Get("/nothing/here");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.body, R"({"error":"not found"})");
}

TEST_F(HttpServerTest, BadQueryIs400) {
  StartServer();
  const Reply r = Get("/api/v1/book/XB2SZ6?depth=abc");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(r.content_type, "application/json");
}

TEST_F(HttpServerTest, PostIs405WithAllow) {
  StartServer();
  Client c(server_->port());
  const Reply r = c.Request(http::verb::post, "/api/v1/instruments");
  EXPECT_EQ(r.status, 405u);
  EXPECT_EQ(r.allow, "GET, HEAD");
  EXPECT_EQ(r.body, R"({"error":"method not allowed"})");
}

TEST_F(HttpServerTest, HeadHasTheHeadersOfGetAndNoBody) {
  StartServer();
  Client c(server_->port());
  const Reply head = c.Request(http::verb::head, "/api/v1/instruments");
  ASSERT_TRUE(head.ok);
  EXPECT_EQ(head.status, 200u);
  EXPECT_EQ(head.content_type, "application/json");
  EXPECT_EQ(head.content_length,
            std::to_string(std::string(testing::kInstrumentsJson).size()));
  EXPECT_TRUE(head.body.empty());
  // The connection is still in sync: the next response is whole.
  const Reply get = c.Request(http::verb::get, "/api/v1/instruments");
  EXPECT_EQ(get.body, testing::kInstrumentsJson);
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  StartServer();
  Client c(server_->port());
  for (int i = 0; i < 5; ++i) {
    const Reply r = c.Request(http::verb::get, "/api/v1/book/XB2SZ6?depth=1");
    ASSERT_TRUE(r.ok) << i;
    EXPECT_EQ(r.status, 200u);
  }
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  StartServer();
  Client c(server_->port());
  ASSERT_TRUE(
      c.WriteRaw("GET /api/v1/book/XB2SZ6 HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /api/v1/book/NOPE HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /api/v1/trades/XB2SZ6 HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(c.Read().body, testing::kBookJson);
  EXPECT_EQ(c.Read().status, 404u);
  EXPECT_EQ(c.Read().body, testing::kTradesJson);
}

TEST_F(HttpServerTest, ConnectionCloseIsHonoured) {
  StartServer();
  Client c(server_->port());
  ASSERT_TRUE(c.Send(http::verb::get, "/healthz", /*keep_alive=*/false));
  const Reply r = c.Read();
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.connection, "close");
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(HttpServerTest, HealthzIs200WhenOkAnd503Otherwise) {
  StartServer();
  Reply r = Get("/healthz");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body,
            R"({"ok":true,"status":"ok","durable_seq":6,"applied_seq":6,)"
            R"("exchange_time":"2026-12-01T00:00:00.000000000Z",)"
            R"("exchange_time_ns":1796083200000000000})");
  healthy_ = false;
  r = Get("/healthz");
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(
      r.body,
      R"({"ok":false,"status":"journal stalled","durable_seq":5,)"
      R"("applied_seq":6,"exchange_time":"2026-12-01T00:00:00.000000000Z",)"
      R"("exchange_time_ns":1796083200000000000})");
}

TEST_F(HttpServerTest, MetricsHasTheFamiliesAndNoPrivateNames) {
  // Activity that a careless implementation might label by who did it.
  metrics_.LogonResult(true);
  metrics_.MessageReceived(10);
  metrics_.SessionReject(9);
  metrics_.OrderRejected();
  metrics_.SetSessions(2);
  metrics_.ObserveOrderToAck(0.0001);
  metrics_.SetPipeline(6, 6, 6, 3, 6);
  StartServer();
  ASSERT_EQ(Get("/api/v1/book/XB2SZ6").status, 200u);
  const Reply r = Get("/metrics");
  ASSERT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  for (const char* family :
       {"cfx_gateway_messages_received_total",
        "cfx_gateway_messages_sent_total", "cfx_gateway_session_rejects_total",
        "cfx_gateway_logons_total", "cfx_gateway_order_rejects_total",
        "cfx_gateway_sessions", "cfx_gateway_order_to_ack_seconds",
        "cfx_journal_commit_seconds", "cfx_journal_durable_seq",
        "cfx_engine_applied_seq", "cfx_egress_published_seq",
        "cfx_journal_lag_commands", "cfx_egress_lag_commands",
        "cfx_journal_writes_total", "cfx_engine_commands_total",
        "cfx_queue_depth", "cfx_http_requests_total", "cfx_http_connections"}) {
    EXPECT_NE(r.body.find(std::string("# TYPE ") + family + " "),
              std::string::npos)
        << family;
  }
  EXPECT_NE(
      r.body.find("cfx_http_requests_total{code=\"2xx\",endpoint=\"book\"} 1"),
      std::string::npos);
  for (const std::string& name : testing::PrivateNames(config_)) {
    EXPECT_EQ(r.body.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(r.body.find("account"), std::string::npos);
  EXPECT_EQ(r.body.find("firm"), std::string::npos);
  EXPECT_EQ(r.body.find("user"), std::string::npos);
}

TEST_F(HttpServerTest, MalformedRequestGets400AndServerSurvives) {
  StartServer();
  {
    Client c(server_->port());
    ASSERT_TRUE(c.WriteRaw("THIS IS NOT HTTP\r\n\r\n"));
    const std::string out = c.ReadUntilClose();
    EXPECT_EQ(out.rfind("HTTP/1.1 400 ", 0), 0u) << out;
    EXPECT_NE(out.find(R"({"error":"malformed request"})"), std::string::npos);
  }
  {
    Client c(server_->port());
    ASSERT_TRUE(
        c.WriteRaw(std::string("GET / HTTP/1.1\r\nHost: \x01\x02\r\n\r\n")));
    EXPECT_EQ(c.ReadUntilClose().rfind("HTTP/1.1 400 ", 0), 0u);
  }
  {
    // Binary garbage, then the client goes away mid-request.
    Client c(server_->port());
    ASSERT_TRUE(c.WriteRaw(std::string("\x00\xff\x16\x03\x01", 5)));
  }
  {
    Client c(server_->port());
    ASSERT_TRUE(c.WriteRaw("GET /api/v1/instruments HTTP/1.1\r\nHost: x\r\n"));
  }
  ExpectServerAnswers();
}

TEST_F(HttpServerTest, OversizedHeaderGets431AndServerSurvives) {
  StartServer();
  {
    Client c(server_->port());
    const std::string request =
        "GET /api/v1/instruments HTTP/1.1\r\nHost: x\r\n"
        "X-Big: " +
        std::string(9000, 'a') + "\r\n\r\n";
    ASSERT_TRUE(c.WriteRaw(request));
    const std::string out = c.ReadUntilClose();
    EXPECT_EQ(out.rfind("HTTP/1.1 431 ", 0), 0u) << out.substr(0, 80);
  }
  {
    // Many small headers over the limit together.
    Client c(server_->port());
    std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 400; ++i) {
      request += "X-H" + std::to_string(i) + ": 0123456789abcdef\r\n";
    }
    request += "\r\n";
    ASSERT_TRUE(c.WriteRaw(request));
    EXPECT_EQ(c.ReadUntilClose().rfind("HTTP/1.1 431 ", 0), 0u);
  }
  ExpectServerAnswers();
}

TEST_F(HttpServerTest, OversizedBodyGets413AndServerSurvives) {
  StartServer();
  {
    Client c(server_->port());
    ASSERT_TRUE(c.WriteRaw(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n\r\n" +
        std::string(10000, 'b')));
    EXPECT_EQ(c.ReadUntilClose().rfind("HTTP/1.1 413 ", 0), 0u);
  }
  ExpectServerAnswers();
}

TEST_F(HttpServerTest, ConnectionsOverTheLimitAreClosed) {
  HttpServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  Client a(server_->port());
  Client b(server_->port());
  // Once each has been answered, both are registered with the server.
  ASSERT_EQ(a.Request(http::verb::get, "/healthz").status, 200u);
  ASSERT_EQ(b.Request(http::verb::get, "/healthz").status, 200u);
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  EXPECT_TRUE(c.ClosedByServer());
  // The admitted connections carry on.
  EXPECT_EQ(a.Request(http::verb::get, "/healthz").status, 200u);
  EXPECT_EQ(b.Request(http::verb::get, "/healthz").status, 200u);
  EXPECT_NE(metrics_.Render().find("cfx_http_connections_refused_total 1"),
            std::string::npos);
}

TEST_F(HttpServerTest, IdleConnectionIsClosed) {
  HttpServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(50);
  StartServer(options);
  Client c(server_->port());
  ASSERT_EQ(c.Request(http::verb::get, "/healthz").status, 200u);
  // Nothing more is sent: the server closes the connection on its own.
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(HttpServerTest, StopClosesOpenConnections) {
  StartServer();
  Client c(server_->port());
  ASSERT_EQ(c.Request(http::verb::get, "/healthz").status, 200u);
  StopServer();  // joins the server thread: nothing left pending
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(HttpServerTest, ListenErrors) {
  StartServer();
  asio::io_context other_io;
  HttpServer other(other_io, config_, instruments_, md_, metrics_, nullptr);
  Status s = other.Listen("not-an-address", 0);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not-an-address:0"), std::string::npos)
      << s.message();
  s = other.Listen("127.0.0.1", server_->port());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos)
      << s.message();
}

TEST(HttpServer, ListenTwiceFails) {
  const ServerConfig config = testing::HttpTestConfig();
  const InstrumentTable instruments(config);
  const MarketDataStore md(config);
  Metrics metrics;
  asio::io_context io;
  HttpServer server(io, config, instruments, md, metrics, nullptr);
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok());
  EXPECT_EQ(server.Listen("127.0.0.1", 0).code(),
            StatusCode::kFailedPrecondition);
  server.Stop();
  io.run();  // the cancelled accept completes; nothing else is pending
}

// The server and a client on this thread: an accept that fails (no
// descriptor left) is retried, and the waiting client is then answered.
TEST(HttpServer, KeepsAcceptingAfterAnAcceptFails) {
  const ServerConfig config = testing::HttpTestConfig();
  const InstrumentTable instruments(config);
  const MarketDataStore md(config);
  Metrics metrics;
  asio::io_context io;
  HttpServer server(io, config, instruments, md, metrics, nullptr);
  ASSERT_TRUE(server.Listen("127.0.0.1", 0).ok());
  tcp::socket client(io);
  client.open(tcp::v4());
  {
    testing::DescriptorLimit limit;
    ASSERT_TRUE(limit.ok());
    client.connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
    ASSERT_TRUE(
        testing::RunUntil(io, [&] { return server.accept_errors() > 0; }));
  }
  const std::string request =
      "GET /api/v1/instruments HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
      "close\r\n"
      "\r\n";
  asio::write(client, asio::buffer(request));
  client.non_blocking(true);
  std::string reply;
  EXPECT_TRUE(testing::RunUntil(io, [&] {
    char buf[1024];
    beast::error_code ec;
    const std::size_t n = client.read_some(asio::buffer(buf), ec);
    reply.append(buf, n);
    return reply.find("\r\n\r\n") != std::string::npos;
  }));
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << reply;
  EXPECT_EQ(server.accept_errors(), 1u);
  server.Stop();
}

}  // namespace
}  // namespace cfx::gateway
