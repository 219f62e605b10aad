#pragma once

// One HTTP/1.1 request on a fresh blocking loopback connection, for tests
// that read the HTTP port (the index's JSON, its page).

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "gateway/asio.h"

namespace cfx::gateway::testing {

struct Reply {
  unsigned status = 0;
  std::string content_type;
  std::string csp;  // Content-Security-Policy
  std::string body;
  bool ok = false;  // false: no connection, or no complete response
};

inline Reply Request(uint16_t port, boost::beast::http::verb verb,
                     std::string_view target) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  using tcp = asio::ip::tcp;
  Reply r;
  asio::io_context io;
  tcp::socket socket(io);
  beast::error_code ec;
  socket.connect(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), port),
                 ec);
  if (ec) return r;
  http::request<http::empty_body> req{
      verb, beast::string_view(target.data(), target.size()), 11};
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(false);
  http::write(socket, req, ec);
  if (ec) return r;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  if (verb == http::verb::head) parser.skip(true);
  http::read(socket, buffer, parser, ec);
  if (ec) return r;
  const auto& res = parser.get();
  r.ok = true;
  r.status = res.result_int();
  r.content_type = std::string(res[http::field::content_type]);
  r.csp = std::string(res["Content-Security-Policy"]);
  r.body = res.body();
  return r;
}

}  // namespace cfx::gateway::testing
