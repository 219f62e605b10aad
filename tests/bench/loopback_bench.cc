#include "tests/bench/loopback_bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace cfx::bench {

using Clock = std::chrono::steady_clock;

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

void SleepUntilNanos(int64_t t) {
  std::this_thread::sleep_until(Clock::time_point(std::chrono::nanoseconds(t)));
}

void NameThread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

Status ConnectLoopback(uint16_t port, int* fd) {
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  if (*fd < 0) return InternalError("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(*fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) !=
      0) {
    return Status(StatusCode::kUnavailable,
                  std::string("connect: ") + std::strerror(errno));
  }
  const int one = 1;
  setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return Status::Ok();
}

gateway::ServerOptions BenchServerOptions(const std::string& data_dir) {
  gateway::ServerOptions so;
  so.data_dir = data_dir;
  so.protobuf_port = 0;
  so.http_port = 0;
  so.fix_port = 0;
  so.simulated_clock = false;
  return so;
}

Result<gateway::ServerConfig> BenchServerConfig(const std::string& symbol) {
  auto made = gateway::DefaultServerConfig();
  if (!made.has_value()) return made.error();
  gateway::ServerConfig c = std::move(made).value();
  if (c.FindInstrument(symbol) == nullptr) {
    return InternalError("the default config lists no " + symbol);
  }
  // The throttle is per session.
  c.session.max_messages_per_second = 100'000'000;
  // The benchmarks' orders rest by the hundred thousand: collateral that the
  // pre-trade margin check (still run on every order) never runs out of.
  for (gateway::AccountInfo& a : c.accounts) a.collateral = kBenchCollateral;
  for (exchange::AccountConfig& a : c.engine.accounts) {
    a.collateral = kBenchCollateral;
  }
  return c;
}

std::string BenchHmacSecret(const std::string& user) {
  return user + "-9f4c2a71e8d35b06c1a7e49d2f80b63c5d1e7a94";
}

exchange::AccountId AddBenchTrader(gateway::ServerConfig& c,
                                   const std::string& firm,
                                   const std::string& account,
                                   const std::string& user,
                                   const std::string& secret,
                                   exchange::StpMode stp) {
  gateway::AccountInfo a;
  a.id = exchange::AccountId{static_cast<uint32_t>(c.accounts.size() + 1)};
  a.name = account;
  a.firm = firm;
  a.clearing_member =
      c.clearing_members.empty() ? "" : c.clearing_members.front().name;
  a.collateral = kBenchCollateral;
  a.stp = stp;
  c.accounts.push_back(a);
  c.engine.accounts.push_back(
      exchange::AccountConfig{a.id, a.stp, a.collateral});
  gateway::UserConfig u;
  u.name = user;
  u.firm = firm;
  u.role = gateway::Role::kTrader;
  u.account = a.id;
  u.api_keys.push_back(gateway::ApiKey::Hmac(user, secret));
  c.users.push_back(std::move(u));
  return a.id;
}

void PrintLatencyJson(std::FILE* out, const LatencyHistogram& from_schedule,
                      const LatencyHistogram& from_send) {
  const LatencyHistogram& h = from_schedule;
  const LatencyHistogram& hs = from_send;
  std::fprintf(
      out,
      "\"latency_ns\":{\"count\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,"
      "\"p999\":%llu,\"max\":%llu},"
      "\"latency_from_send_ns\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu}",
      static_cast<unsigned long long>(h.count()),
      static_cast<unsigned long long>(h.Percentile(0.50)),
      static_cast<unsigned long long>(h.Percentile(0.90)),
      static_cast<unsigned long long>(h.Percentile(0.99)),
      static_cast<unsigned long long>(h.Percentile(0.999)),
      static_cast<unsigned long long>(h.max()),
      static_cast<unsigned long long>(hs.Percentile(0.50)),
      static_cast<unsigned long long>(hs.Percentile(0.99)),
      static_cast<unsigned long long>(hs.max()));
}

}  // namespace cfx::bench
