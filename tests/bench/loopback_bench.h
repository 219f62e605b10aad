#pragma once

// What the benchmarks that drive an in-process exchange over loopback
// (`cfx-bench gateway`, `cfx-bench fix`) share: the clock their schedules
// run on, thread names, client connections, the server's config and the
// JSON of their order-to-ack latencies.

#include <cstdint>
#include <cstdio>
#include <string>

#include "exchange/core/status.h"
#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"
#include "tests/bench/latency_histogram.h"

namespace cfx::bench {

// Nanoseconds of the steady clock.
int64_t NowNanos();
// Sleeps until NowNanos() reaches `t`.
void SleepUntilNanos(int64_t t);

// Names the calling thread (its first 15 characters: the kernel's limit),
// as /proc and ThreadCpu show it.
void NameThread(const std::string& name);

// Connects a TCP socket to 127.0.0.1:port, with Nagle's algorithm off.
// *fd is set as soon as the socket exists, so its owner closes it on a
// failed connect too. kInternal when no socket could be made, kUnavailable
// ("connect: <reason>") when the connect failed.
Status ConnectLoopback(uint16_t port, int* fd);

// $10,000,000,000 of collateral per benchmark account: room for 15M open
// lots each, while the ledger's totals over every account stay in 64 bits.
inline constexpr exchange::Amount kBenchCollateral{int64_t{10'000'000'000} *
                                                   exchange::kMicrosPerUsd};

// The demo config (gateway::DefaultServerConfig()), checked to list
// `symbol`, with the per-session throttle out of reach and every account
// holding kBenchCollateral: the benchmarks measure the exchange, so neither
// the throttle nor the margin check (which still runs on every order) may
// refuse their orders.
Result<gateway::ServerConfig> BenchServerConfig(const std::string& symbol);

// The options every in-process benchmark server runs with: the journal in
// `data_dir`, the wall clock, ephemeral ports for protobuf, HTTP and FIX.
gateway::ServerOptions BenchServerOptions(const std::string& data_dir);

// A fixed hmac-sha256 API key secret for bench trader `user`: `user` and a
// random-looking 40-character tail, so it meets the config validator's
// 32-byte minimum and differs per user.
std::string BenchHmacSecret(const std::string& user);

// Adds a trader `user` (API key = user name, `secret`) of firm `firm` with
// its own account `account` holding kBenchCollateral to `c`; returns the
// account's id. REQUIRES: `firm` is listed; call c.RebuildIndex() after the
// last one.
exchange::AccountId AddBenchTrader(gateway::ServerConfig& c, const std::string& firm,
                    const std::string& account, const std::string& user,
                    const std::string& secret, exchange::StpMode stp);

// "latency_ns":{"count":..,"p50":..,"p90":..,"p99":..,"p999":..,"max":..},
// "latency_from_send_ns":{"p50":..,"p99":..,"max":..}: order-to-ack from
// the scheduled send time and from the actual send, in nanoseconds.
void PrintLatencyJson(std::FILE* out, const LatencyHistogram& from_schedule,
                      const LatencyHistogram& from_send);

}  // namespace cfx::bench
